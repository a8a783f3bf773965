# Demo (make demo): rping traffic over soft iWARP (siw0) and soft RoCE (rxe0),
# over IPv4 and IPv6, and what rdmastat shows of it next to the stock tools.
. "$LAB/lib.sh"

section() { printf '\n===== %s\n' "$*"; }
run() {
	echo "\$ $*"
	"$@"
	r=$?
	[ "$r" -lt 128 ] || { echo "demo: '$*' died (status $r)"; exit 1; }
}

lab_setup || exit 1
# The clients keep pinging while we look.
export LAB_RPING_FREEZE=0
lab_rping_start 10.9.0.1 7174 || exit 1  # siw, IPv4
lab_rping_start 10.9.0.2 7175 || exit 1  # rxe, IPv4
lab_rping_start fd00:9::1 7176 || exit 1 # siw, IPv6
lab_rping_start fd00:9::2 7177 || exit 1 # rxe, IPv6

section "RDMA devices"
run rdmastat devices

section "Every cm_id with owner, user, cm id, port space and QP"
run rdmastat -a -p -e

section "Counts"
run rdmastat -s

section "Who listens"
run rdmastat -l -p

section "A filter: iWARP connections to port 7174, as JSON"
run rdmastat -j --pretty -p transport iwarp and dport = :7174

section "The same connections as iproute2 and ss see them"
run rdma res show cm_id
echo "(ss shows siw's kernel TCP sockets, but no process owns them:)"
run ss -tanp

lab_stop_pings
