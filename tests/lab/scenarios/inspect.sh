# shellcheck shell=sh
# Inspect: the RDMA stack with rping connections on siw (iWARP) and rxe (RoCE),
# as stock tools and sysfs show them, and rdmastat if it is present.
# Fails if setup fails or rdmastat crashes (killed by a signal).
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"

lab_setup || exit 1
lab_rping_all || exit 1

lab_section "rdma tool"
lab_show rdma dev
lab_show rdma link
lab_show rdma res
lab_show rdma res show cm_id
lab_show rdma res show qp
lab_show rdma res show cq
lab_show rdma res show pd
lab_show rdma res show mr
lab_show rdma -j res show cm_id
lab_show rdma -j res show qp
lab_show rdma -d -j dev

lab_section "sockets (siw: kernel TCP sockets; rxe: kernel UDP 4791)"
lab_show ss -tanpe
lab_show ss -uanpe

lab_section "verbs"
lab_show ibv_devices
lab_show ibv_devinfo

lab_section "sysfs"
lab_show ls -l /sys/class/infiniband/ /sys/class/infiniband/*/
for d in /sys/class/infiniband/*; do
	echo "$d -> $(readlink -f "$d")"
	for l in device device/driver; do
		if [ -e "$d/$l" ]; then echo "$d/$l -> $(readlink -f "$d/$l")"; else echo "$d/$l: none"; fi
	done
	for f in node_type node_guid node_desc fw_ver parent hca_type board_id; do
		[ -e "$d/$f" ] && echo "$d/$f: $(cat "$d/$f")"
	done
	echo "$d/ports/1/link_layer: $(cat "$d/ports/1/link_layer")"
	echo "$d/ports/1/gids/0: $(cat "$d/ports/1/gids/0")"
done
lab_show ls -l /sys/class/infiniband_verbs/
for d in /sys/class/infiniband_verbs/uverbs*; do echo "$d/ibdev: $(cat "$d/ibdev")"; done
lab_show ls -l /sys/class/infiniband/siw0/ports/1/

lab_section "what an rping process holds"
p=$(rdma res show cm_id | awk '/state CONNECT/ { for (i = 1; i < NF; i++) if ($i == "pid") { print $(i + 1); exit } }')
lab_show ls -l "/proc/$p/fd"
lab_show grep infiniband "/proc/$p/maps"
# Resources created by a non-main thread report that thread's id as "pid".
echo "pids in rdma res show pd, with their thread group:"
for t in $(rdma res show pd | sed -n 's/.* pid \([0-9]*\) .*/\1/p' | sort -u); do
	echo "pid $t: $(grep -E '^(Tgid|Pid)' "/proc/$t/status" | tr '\n\t' '  ')"
done

rc=0
if [ -x /usr/local/bin/rdmastat ]; then
	section "rdmastat"
	for args in "-a -p -e" "-s"; do
		# shellcheck disable=SC2086 # split args on purpose
		lab_show rdmastat $args
		r=$?
		echo "rc=$r"
		[ "$r" -lt 128 ] || rc=1
	done
	lab_show su lab -c "rdmastat -a -p -e"
	echo "rc=$?"
fi
lab_stop_pings
exit "$rc"
