# shellcheck shell=sh
# -E from the kernel's rdma_cma tracepoints, judged on the host by the
# [events] tests in tests/lab/judges/events.cpp: short rping connections on
# siw and rxe, connects to a port with no listener, a server that rejects
# (rdmastat-reject), with `rdma res show cm_id` taken around them, and a
# short raw-verbs ibv_rc_pingpong pair. An
# unprivileged -E runs alongside: it polls every second and misses what lives
# shorter than that.
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
set -e
E="$OUT/events"
mkdir -p "$E"
lab_setup

rdmastat -E -j >/tmp/tp.jsonl 2>/tmp/tp.err &
tp=$!
su lab -c "rdmastat -E -j --interval 1" >/tmp/poll.jsonl 2>/tmp/poll.err &
poll=$!
rdmastat serve --events --listen 127.0.0.1:9410 >/tmp/serve.out 2>/tmp/serve.err &
serve=$!
rdmastat life >/tmp/life.txt 2>/tmp/life.err &
life=$!
rdmastat life -j --stats >/tmp/life.jsonl 2>/tmp/life-j.err &
lifej=$!
# The tracers say when they are ready; the poller is running once it reports
# a sentinel listener appearing (changes after its first round), which the
# tracer reports too when it closes (a listener has no events before).
for f in tp.err serve.err life.err life-j.err; do
	lab_tracer_ready "/tmp/$f" || echo "events: $f: never ready"
done
seen=
for port in 7300 7309 7310 7311 7312; do
	rping -s -a 10.9.0.1 -p "$port" >/dev/null 2>&1 &
	sentinel=$!
	polled=
	lab_wait 20 grep -q "\"port\":$port" /tmp/poll.jsonl && polled=1
	kill "$sentinel"
	wait "$sentinel" 2>/dev/null || true
	if [ -n "$polled" ] && lab_wait 20 grep -q "\"port\":$port" /tmp/tp.jsonl; then
		seen=1
		break
	fi
done
[ -n "$seen" ] || {
	echo "events: -E never reported the sentinel listener"
	cat /tmp/tp.err /tmp/poll.err
	exit 1
}
"$LAB_RDMA" -j res show cm_id >"$E/cm_id-before.json"

# short ADDR PORT: one rping server and client, one ping (-C 1).
short() {
	rping -s -a "$1" -p "$2" -C 1 >/dev/null 2>&1 &
	_s=$!
	lab_wait 10 lab_cm_listening "$2"
	rping -c -a "$1" -p "$2" -C 1 >"$E/rping-c-$2.log" 2>&1 || echo "rping client $2: $?"
	lab_reap "$_s" /dev/null 20 || true
}
short 10.9.0.1 7301
short 10.9.0.1 7302
short 10.9.0.2 7303
short 10.9.0.2 7304
"$LAB_RDMA" -j res show cm_id >"$E/cm_id-between.json"

# No listener on the port: rping fails, -E says why. (rping on siw hangs after
# its failed connect: it is stopped once -E has reported the failure.)
timeout 20 rping -c -a 10.9.0.1 -p 7305 -C 1 >"$E/rping-c-7305.log" 2>&1 &
_c=$!
lab_wait 20 grep -q '"event":"connect_failed".*"port":7305' /tmp/tp.jsonl ||
	echo "events: -E reported no connect_failed on 7305"
kill "$_c" 2>/dev/null
wait "$_c" && echo "rping 7305: connected?"
timeout 20 rping -c -a 10.9.0.2 -p 7306 -C 1 >"$E/rping-c-7306.log" 2>&1 &&
	echo "rping 7306: connected?"
cp /tmp/tp.jsonl "$E/tp-partial.jsonl"

# A server that rejects: consumer-defined on rxe, refused on siw.
for a in "10.9.0.2 7307" "10.9.0.1 7308"; do
	set -- $a
	rdmastat-reject "$1" "$2" 1 >"$E/reject-$2.log" 2>&1 &
	_r=$!
	lab_wait 10 lab_cm_listening "$2"
	"$LAB_RDMA" -j res show cm_id >"$E/cm_id-reject-$2.json"
	timeout 20 rping -c -a "$1" -p "$2" -C 1 >"$E/rping-c-$2.log" 2>&1 &&
		echo "rping $2: connected?"
	lab_reap "$_r" "$E/reject-$2.rc" 20
done
# A wildcard listener (0.0.0.0) that rejects: the kernel hands each connect
# request to it after the per-device listener it made, and -E shows it once.
rdmastat-reject 0.0.0.0 7319 1 >"$E/reject-7319.log" 2>&1 &
_r=$!
lab_wait 10 lab_cm_listening 7319
timeout 20 rping -c -a 10.9.0.2 -p 7319 -C 1 >"$E/rping-c-7319.log" 2>&1 &&
	echo "rping 7319: connected?"
lab_reap "$_r" "$E/reject-7319.rc" 20
"$LAB_RDMA" -j res show cm_id >"$E/cm_id-after.json"

# Raw verbs: an ibv_rc_pingpong pair on rxe, 100 round trips, over well under
# a second: its QPs' whole lives, made, INIT, RTR with the peer, RTS,
# destroyed, which a poll every second does not see.
ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p 18540 >"$E/rcpp-s.log" 2>&1 &
_s=$!
lab_wait 10 sh -c "$LAB_SS -tln | grep -q ':18540 '" || echo "events: no ibv_rc_pingpong server"
ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p 18540 127.0.0.1 >"$E/rcpp-c.log" 2>&1 ||
	echo "ibv_rc_pingpong client: $?"
lab_reap "$_s" "$E/rcpp-s.rc" 20

# Every id of the test destroyed and reported, then a last poll round.
lab_wait 20 sh -c '! '"$LAB_RDMA"' res show cm_id | grep -q ":730[1-8] "'
sleep 2
wget -q -O "$E/metrics.prom" http://127.0.0.1:9410/metrics || echo "wget /metrics: $?"
kill "$tp" "$poll" "$life" "$lifej" "$serve" 2>/dev/null || true
wait "$serve" || echo "rdmastat serve exited $?"
cp /tmp/serve.out /tmp/serve.err "$E/"
wait "$tp" || echo "rdmastat -E (tracepoints) exited $?"
wait "$life" || echo "rdmastat life exited $?"
wait "$lifej" || echo "rdmastat life -j exited $?"
wait "$poll" 2>/dev/null || true
for f in tp.jsonl tp.err poll.jsonl poll.err life.txt life.err life.jsonl life-j.err; do
	cp "/tmp/$f" "$E/$f"
done

# A bounded trace: -E --duration ends by itself, having seen a connection,
# and its --stats say what the probe found of the kernel's tracepoints.
rdmastat -E --duration 15 --stats >"$E/bounded.txt" 2>&1 &
bounded=$!
lab_tracer_ready "$E/bounded.txt" || echo "bounded: the tracer never said it was ready"
short 10.9.0.2 7313
lab_reap "$bounded" "$E/bounded.rc" 30
echo "events: done"

# Ready means ready: an -E that has said so on stderr sees the whole of a
# connection made at once on siw and on rxe, its first event included; in
# each of READY_ROUNDS runs.
# Each round also notes the seconds from start to that line (a figure, not a
# verdict), and the first which programs bpftool lists as the tracer's:
# each program's second program only where tracepoints are preemptible.
READY_ROUNDS=6
uname -r >"$E/kernel-release"
for r in $(seq 1 "$READY_ROUNDS"); do
	t0=$(cut -d' ' -f1 /proc/uptime)
	rdmastat -E -j >"$E/ready-$r.jsonl" 2>"$E/ready-$r.err" &
	rtp=$!
	lab_tracer_ready "$E/ready-$r.err" || echo "ready $r: -E never said it was ready"
	echo "$t0 $(cut -d' ' -f1 /proc/uptime)" | awk '{ printf "%.1f\n", $2 - $1 }' >>"$E/ready-seconds"
	if [ "$r" = 1 ]; then
		echo "$rtp" >"$E/ready-progs.pid"
		bpftool -j prog show >"$E/ready-progs.json" 2>"$E/ready-progs.err" ||
			echo "bpftool prog show: $?"
	fi
	short 10.9.0.1 $((7350 + r))
	short 10.9.0.2 $((7360 + r))
	for port in $((7350 + r)) $((7360 + r)); do
		lab_wait 10 sh -c "grep '\"event\":\"closed\"' $E/ready-$r.jsonl | grep -q '\"port\":$port'" || true
	done
	kill "$rtp" 2>/dev/null || echo "ready $r: -E had ended"
	wait "$rtp" || echo "rdmastat -E (ready $r) exited $?"
done
echo "$READY_ROUNDS" >"$E/ready-rounds"

# Churn: listening ids made and destroyed at up to 2,000 a second on each
# device (siw makes fewer) for 20 s, under a tracer of listeners: every
# destroy reported, none lost (its stderr stays empty). Unpaced, rxe on 7.2
# makes 7,600 a second, more than -E -l writes under TCG.
rdmastat -E -l >/tmp/churn.txt 2>/tmp/churn.err &
churn=$!
lab_tracer_ready /tmp/churn.err || echo "churn: the tracer never said it was ready"
rdmastat-cmids -a 10.9.0.1 -n 100 -t 20 -c -r 2000 >"$E/churn-siw" 2>&1 &
c1=$!
rdmastat-cmids -a 10.9.0.2 -n 100 -t 20 -c -r 2000 >"$E/churn-rxe" 2>&1 &
c2=$!
wait "$c1" || echo "rdmastat-cmids siw: $?"
wait "$c2" || echo "rdmastat-cmids rxe: $?"
sleep 2
kill "$churn"
wait "$churn" || echo "rdmastat -E -l (churn) exited $?"
for d in siw rxe; do
	grep -c " closed ${d}0/1 .* LISTEN cm_id=[0-9]* [0-9]*/rdmastat-cmids " /tmp/churn.txt \
		>"$E/churn-closed-$d" || true
done
cp /tmp/churn.err "$E/churn.err"
grep -v "/rdmastat-cmids " /tmp/churn.txt >"$E/churn-others.txt" || true
# The churn's lines the counts above do not match, for the tests to show.
grep "/rdmastat-cmids " /tmp/churn.txt | grep -v " closed [a-z0-9]*/1 .* LISTEN cm_id=" |
	head -200 >"$E/churn-odd.txt" || true
echo "events: churn done"

# Connection churn under -E -j: on each device a process makes and tears down
# 25 connections a second to itself for 6 s, so rdma_cm's tracepoints and
# every function's program (connect, QP creation, modify, destruction) are
# hit by several tasks at once. -E's stderr stays empty (nothing lost), and
# each connection's two ends are reported closed, the active one with its
# connect_ms (from the program on rdma_connect_locked's entry).
rdmastat -E -j >/tmp/cchurn.jsonl 2>/tmp/cchurn.err &
cchurn=$!
lab_tracer_ready /tmp/cchurn.err || echo "connection churn: the tracer never said it was ready"
rdmastat-connchurn -a 10.9.0.1 -p 7420 -r 25 -t 6 >"$E/cchurn-siw" 2>&1 &
k1=$!
rdmastat-connchurn -a 10.9.0.2 -p 7421 -r 25 -t 6 >"$E/cchurn-rxe" 2>&1 &
k2=$!
wait "$k1" || echo "rdmastat-connchurn siw: $?"
wait "$k2" || echo "rdmastat-connchurn rxe: $?"
sleep 2
kill "$cchurn"
wait "$cchurn" || echo "rdmastat -E -j (connection churn) exited $?"
cp /tmp/cchurn.err "$E/cchurn.err"
for dp in siw:7420 rxe:7421; do
	grep '"event":"closed"' /tmp/cchurn.jsonl | grep "\"port\":${dp#*:}[,}]" \
		>/tmp/cchurn-closed || true
	grep -c . /tmp/cchurn-closed >"$E/cchurn-closed-${dp%:*}" || true
	grep -c '"connect_ms"' /tmp/cchurn-closed >"$E/cchurn-connect-ms-${dp%:*}" || true
done
echo "events: connection churn done"
