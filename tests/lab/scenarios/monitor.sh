# shellcheck shell=sh
# Monitoring: rdmastat -E -j polling while rping starts and stops, -w without a terminal
# during rping traffic, and rdmastat export with traffic (judged on the host by
# the [lab] tests in tests/lab/judges/monitor.cpp and by promtool).
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
set -e
M="$OUT/monitor"
mkdir -p "$M"
lab_setup

# Events. A sentinel listener that -E reports proves the poller has taken its
# first round (events are changes after it; under TCG rdmastat may start later
# than rping): a new sentinel port until one is reported.
# As an unprivileged user, -E polls (root gets the tracepoints: events.sh).
su lab -c "rdmastat -E -j --interval 0.2" >/tmp/events.jsonl 2>/tmp/events.err &
ev=$!
seen=
for port in 7190 7191 7192 7193 7194; do
	rping -s -a 10.9.0.1 -p "$port" >/dev/null 2>&1 &
	sentinel=$!
	if lab_wait 10 grep -q "\"port\":$port" /tmp/events.jsonl; then
		seen=1
		break
	fi
	kill "$sentinel"
	wait "$sentinel" 2>/dev/null || true
done
[ -n "$seen" ] || {
	echo "monitor: -E never reported a sentinel listener"
	cat /tmp/events.err /tmp/events.jsonl
	rdma res show cm_id
	exit 1
}
lab_rping_start 10.9.0.2 7175
lab_rping_start 10.9.0.1 7174
sleep 1
rdmastat -a -j >"$M/during.json"
lab_stop_pings
kill "$sentinel"
wait "$sentinel" 2>/dev/null || true
# Every close seen: no cm_id on 7174/7175 left, then one more poll.
lab_wait 30 sh -c '! rdma res show cm_id | grep -q -e ":7174 " -e ":7175 "'
sleep 1
kill "$ev"
wait "$ev" 2>/dev/null || true
cp /tmp/events.jsonl "$M/events.jsonl"
cp /tmp/events.err "$M/events.err"

# Watch without a terminal, and export, while rping keeps pinging over rxe.
LAB_RPING_FREEZE=0 lab_rping_start 10.9.0.2 7175
lab_capture "$M" watch.txt rdmastat -w 1 --count 3 -p
lab_capture "$M" export.prom rdmastat export --per-process
lab_capture "$M" snapshot.json rdmastat -a -j
lab_stop_pings
echo "monitor: done"
