# shellcheck shell=sh
# Cross-check: rdmastat against the referee (iproute2's rdma) on the same
# connections, as root and as an unprivileged user, plus the no-device cases.
# Must run first in a boot: it starts before any RDMA module is loaded.
# Writes its evidence to $OUT/crosscheck; the host-side [lab] tests judge it.
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
R="$OUT/crosscheck"
mkdir -p "$R"

capture() { lab_capture "$R" "$@"; }

# Opening the RDMA netlink socket may make the kernel load ib_core itself
# (module alias net-pf-16-proto-20): record whether it was there before and after.
ib_core() { if [ -d /sys/module/ib_core ]; then echo loaded; else echo absent; fi; }
ib_core >"$R/ib_core-before"
capture none.txt rdmastat -a
capture none.json rdmastat -j -a
ib_core >"$R/ib_core-after"
lab_load_modules || exit 1
capture nodev.txt rdmastat -a
capture nodev-devices.txt rdmastat devices
lab_net_up && lab_devices_up || exit 1

lab_rping_all || exit 1

# The clients are stopped, so every view below describes the same ids.
capture rdma-cm_id.json rdma -j res show cm_id
capture rdma-qp.json rdma -j res show qp
capture rdma-link.json rdma -j link show
capture rdmastat.json rdmastat -j -a
capture rdma-cm_id-lab.json su lab -c "rdma -j res show cm_id"
capture rdmastat-lab.json su lab -c "rdmastat -j -a"
capture listing.txt rdmastat -a -p -e
capture default.txt rdmastat -p
capture listeners.txt rdmastat -l -p
capture summary.txt rdmastat -s
capture summary.json rdmastat -s -j
capture devices.txt rdmastat devices
capture devices.json rdmastat devices -j
capture filter-siw.json rdmastat -j -a "dev siw0 and state connect"
capture filter-v6.json rdmastat -j -a -6
capture filter-v6-port.json rdmastat -j -a -6 "sport = :7176 or dport = :7176"
capture badfilter.txt rdmastat "sport >"
for p in $(rdma res show cm_id | sed -n 's/.* pid \([0-9]*\) .*/\1/p' | sort -u); do
	echo "$p $(awk '/^Uid:/ { print $2 }' "/proc/$p/status") $(cat "/proc/$p/comm")"
done >"$R/owners.txt"
lab_stop_pings
cat "$R/listing.txt"
