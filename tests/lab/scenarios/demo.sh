# Demo (make demo): rping traffic over soft iWARP (siw0) and soft RoCE (rxe0),
# over IPv4 and IPv6, and what rdmastat shows of it next to the stock tools.
. "$LAB/lib.sh"

run() {
	echo "\$ $*"
	"$@"
	r=$?
	[ "$r" -lt 128 ] || { echo "demo: '$*' died (status $r)"; exit 1; }
}

lab_setup || exit 1
# The clients keep pinging while we look.
export LAB_RPING_FREEZE=0
lab_rping_all || exit 1

lab_section "RDMA devices"
run rdmastat devices

lab_section "Every cm_id with owner, user, cm id, port space and QP"
run rdmastat -a -p -e

lab_section "Counts"
run rdmastat -s

lab_section "Who listens"
run rdmastat -l -p

lab_section "A filter: iWARP connections to port 7174, as JSON"
run rdmastat -j --pretty -p transport iwarp and dport = :7174

lab_section "The same ids from rdmastat.ko: one record per id, QP state beside it"
insmod /lib/modules/extra/rdmastat.ko || exit 1
run rdmastat --source module -a -p -e
echo "(an unprivileged user sees every id, but owners only of their own:)"
run su lab -c "rdmastat --source module -a -p"
rmmod rdmastat

lab_section "The same connections as iproute2 and ss see them"
run rdma res show cm_id
echo "(ss shows siw's kernel TCP sockets, but no process owns them:)"
run ss -tanp

lab_stop_pings
