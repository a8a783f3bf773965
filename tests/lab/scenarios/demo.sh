# Demo (make demo): ping traffic over soft iWARP (siw0) and soft RoCE (rxe0),
# over IPv4 and IPv6, from rping and from rdmastat ping, and what rdmastat shows
# of it next to the stock tools.
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
# rdmastat's own generator: a persistent server on each device and a validated
# rping-mode client to each, running while we look.
rdmastat ping -s -P -a 10.9.0.1 -p 7200 --quiet >/tmp/demo-ping-s1.log 2>&1 &
rdmastat ping -s -P -a 10.9.0.2 -p 7201 --quiet >/tmp/demo-ping-s2.log 2>&1 &
lab_wait 10 lab_cm_listening 7200 && lab_wait 10 lab_cm_listening 7201 || exit 1
rdmastat ping -c -a 10.9.0.1 -p 7200 -S 4096 -V --duration 600 >/tmp/demo-ping-c1.log 2>&1 &
c1=$!
rdmastat ping -c -a 10.9.0.2 -p 7201 -S 65535 -V --duration 600 >/tmp/demo-ping-c2.log 2>&1 &
c2=$!
lab_wait 20 lab_cm_connected_ge 7200 2 && lab_wait 20 lab_cm_connected_ge 7201 2 || exit 1

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

lab_section "rdmastat ping: what the generator itself measures"
run rdmastat ping -c -a 10.9.0.2 -p 7201 --lat -S 64 -C 1000
run rdmastat ping -c -a 10.9.0.2 -p 7201 --bw -S 65536 -C 500
run rdmastat ping -c -a 10.9.0.1 -p 7200 -C 100 -V -j --pretty
echo "(and against rping, in both directions:)"
rping -s -a 10.9.0.2 -p 7202 >/dev/null 2>&1 &
lab_wait 10 lab_cm_listening 7202
run rdmastat ping -c -a 10.9.0.2 -p 7202 -C 100 -V
run rping -c -a 10.9.0.1 -p 7200 -C 3 -V -v
echo "(SIGINT: the long runs stop, tear down and report; then their servers)"
kill -INT "$c1" "$c2"
wait "$c1" "$c2"
cat /tmp/demo-ping-c1.log /tmp/demo-ping-c2.log
killall -INT rdmastat
sleep 1
cat /tmp/demo-ping-s1.log /tmp/demo-ping-s2.log

lab_section "Kernel-owned connections: rdmastat_kping.ko, a kernel server pinged by rping"
insmod /lib/modules/extra/rdmastat_kping.ko || exit 1
run rdmastat kping start -s -a 10.9.0.1 -p 7210 --mem frwr-local
lab_wait 10 lab_cm_listening 7210 || exit 1
rping -c -a 10.9.0.1 -p 7210 -C 1000000 >/dev/null 2>&1 &
kc=$!
lab_wait 20 lab_cm_connected_ge 7210 2 || exit 1
run rdmastat -p sport = :7210 or dport = :7210
echo "(a kernel client's RDMA WRITE bandwidth against rdmastat ping's server)"
rdmastat ping -s -P -a 10.9.0.2 -p 7211 --quiet >/dev/null 2>&1 &
ps=$!
lab_wait 10 lab_cm_listening 7211 || exit 1
run rdmastat kping start -c -a 10.9.0.2 -p 7211 --mode write-bw -S 65536 -C 500 -w
run rdmastat kping show
kill "$kc"
wait "$kc" 2>/dev/null
run rdmastat kping stop 1
kill -INT "$ps"
wait "$ps"

lab_section "Monitoring: events while an rping comes and goes, and Prometheus metrics"
rdmastat -E --interval 0.5 -j >/tmp/demo-events.jsonl 2>/tmp/demo-events.err &
ev=$!
# Started, it says on stderr when it is ready; the rping comes after that.
lab_tracer_ready /tmp/demo-events.err || echo "demo: -E never said it was ready"
cat /tmp/demo-events.err
rping -s -a 10.9.0.2 -p 7220 -C 3 >/dev/null 2>&1 &
lab_wait 10 lab_cm_listening 7220
rping -c -a 10.9.0.2 -p 7220 -C 3 >/dev/null 2>&1
sleep 2
kill "$ev"
wait "$ev" 2>/dev/null
grep -F ':7220' /tmp/demo-events.jsonl | cut -c1-200
run sh -c "rdmastat export | grep -v '^#' | head -12"

lab_section "The same connections as iproute2 and ss see them"
run rdma res show cm_id
echo "(ss shows siw's kernel TCP sockets, but no process owns them:)"
run ss -tanp

lab_stop_pings
