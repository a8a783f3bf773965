# shellcheck shell=sh
# rdmastat on a machine without any RDMA stack: run this before any scenario
# that loads modules. Fails only if rdmastat crashes (killed by a signal).
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"

if [ -d /sys/module/ib_core ]; then
	echo "warning: ib_core is already loaded (run nodevices before other scenarios)"
fi
lab_show ls /sys/class/infiniband
lab_show ls /dev/infiniband
lab_show rdma dev
echo "rc=$?"

rc=0
if [ -x /usr/local/bin/rdmastat ]; then
	for args in "" "-a -p -e" "-s"; do
		# shellcheck disable=SC2086 # split args on purpose
		lab_show rdmastat $args
		r=$?
		echo "rc=$r"
		[ "$r" -lt 128 ] || rc=1
	done
else
	echo "/usr/local/bin/rdmastat not present (lab.sh run --bin PATH/rdmastat)"
fi
exit "$rc"
