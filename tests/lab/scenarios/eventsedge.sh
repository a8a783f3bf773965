# shellcheck shell=sh
# -E from the tracepoints at its edges, judged on the host by the [eventsedge]
# tests in tests/lab/judges/eventsedge.cpp:
# - rdma-core's cmtime makes connections one at a time on siw and rxe, and
#   reports how long each step took: the handshakes -E measured must agree;
#   `serve --events` counts them, and a real Prometheus (lab.sh --bin
#   /usr/bin/prometheus) scrapes it; `fabric` reads the connections back
#   from it;
# - a tracer with a one-page ring buffer whose reader stalls loses events, and
#   says how many; the one with the default buffer, writing every event as
#   JSON, accounts for every id of the same churn as a line or a counted loss;
# - siw0 is deleted under live connections: -E reports the removal and the
#   ids' end, and goes on with the device added again; where the kernel
#   sends device events, -E and serve --events report them, and where it
#   does not they say so once;
# - rdma_cm cannot be unloaded while -E follows it; once it has gone, -E says
#   so and polls.
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
set -e
E="$OUT/eventsedge"
mkdir -p "$E"
lab_setup

rdmastat -E -j >/tmp/edge.jsonl 2>/tmp/edge.err &
tp=$!
# serve --events follows the tracepoints once it says it is ready;
# Prometheus scrapes it every second.
rdmastat serve --events --per-connection --listen 127.0.0.1:9411 >/tmp/serve.out 2>/tmp/serve.err &
serve=$!
lab_wait 30 wget -q -O /dev/null http://127.0.0.1:9411/metrics ||
	echo "eventsedge: serve --events never answered"
lab_tracer_ready /tmp/serve.err || echo "eventsedge: serve --events never ready"
mkdir -p /tmp/prom
cat >/tmp/prom/prometheus.yml <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: rdmastat
    static_configs:
      - targets: ['127.0.0.1:9411']
YML
prometheus --config.file=/tmp/prom/prometheus.yml --storage.tsdb.path=/tmp/prom/data \
	--web.listen-address=127.0.0.1:9090 >/tmp/prom/prometheus.log 2>&1 &
prom=$!
# query NAME: Prometheus' answer for the metric NAME, now.
query() { wget -q -O - "http://127.0.0.1:9090/api/v1/query?query=$1"; }
lab_wait 120 sh -c 'wget -q -O - "http://127.0.0.1:9090/api/v1/query?query=up" | grep -q "\"1\"\]"' ||
	echo "eventsedge: Prometheus never scraped serve"
lab_tracer_ready /tmp/edge.err || true

# cmtime: client runs of one connection each, on each device. (A cmtime
# server of rdma-core 44 accepts one connection: a new one for each run.
# From rdma-core 52 on, cmtime adds a warm-up connection and a test without
# QPs, and syncs over TCP on its RDMA port, which siw's own listener holds:
# on siw it is not run then, and the tests read why.)
new_cmtime=
cmtime -h 2>&1 | grep -q num_threads && new_cmtime=1
for a in "10.9.0.1 7334 siw" "10.9.0.2 7335 rxe"; do
	set -- $a
	if [ -n "$new_cmtime" ] && [ "$3" = siw ]; then
		echo "cmtime of rdma-core 52 or later syncs over TCP on its RDMA port, which siw holds" \
			>"$E/cmtime-siw-skipped"
		continue
	fi
	for run in 1 2 3 4 5; do
		cmtime -b "$1" -p "$2" >"$E/cmtime-server-$3-$run.log" 2>&1 &
		_srv=$!
		lab_wait 10 lab_cm_listening "$2" || true
		timeout 30 cmtime -s "$1" -p "$2" -c 1 >"$E/cmtime-$3-$run.log" 2>&1 ||
			echo "cmtime $3 run $run: $?"
		kill "$_srv" 2>/dev/null || true
		wait "$_srv" 2>/dev/null || true
		lab_wait 10 sh -c "! $LAB_RDMA res show cm_id | grep -q ':$2 '" || true
	done
done

# A connect nobody answers (a failure for the dashboard's panel), and a live
# rping pair while the dashboard's queries run.
timeout 20 rping -c -a 10.9.0.2 -p 7329 -C 1 >/dev/null 2>&1 || true
lab_rping_start 10.9.0.2 7339 || echo "eventsedge: no rping pair on 7339"

# What serve counted, straight and through Prometheus, once it has scraped
# twice since the last connection.
sleep 3
wget -q -O "$E/metrics.prom" http://127.0.0.1:9411/metrics || echo "wget /metrics: $?"
for m in rdmastat_events_up rdmastat_cm_events_total rdmastat_connections_established_total \
	rdmastat_connections_closed_total rdmastat_handshake_seconds_count \
	rdmastat_handshake_seconds_bucket rdmastat_events_lost_total; do
	query "$m" >"$E/prom-$m.json" || echo "query $m: $?"
done
# Every query of the Grafana dashboard (check.sh listed them in $OUT), for
# every host ($instance as "All"), percent-encoded byte by byte.
if [ -f "$OUT/dashboard-queries" ]; then
	n=0
	while IFS= read -r q; do
		n=$((n + 1))
		enc=$(printf '%s' "$q" | sed 's/\$instance/.*/g' | od -An -v -tx1 |
			tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//; s/ /%/g; s/^/%/')
		wget -q -O "$E/dashboard-$n.json" "http://127.0.0.1:9090/api/v1/query?query=$enc" ||
			echo "dashboard query $n: $?"
	done <"$OUT/dashboard-queries"
fi
# The fabric view of this host through that Prometheus (serve
# --per-connection), and from a snapshot, while the rping pair stands.
lab_capture "$E" fabric.json rdmastat fabric --prometheus http://127.0.0.1:9090 -j || true
lab_capture "$E" fabric-7339.txt rdmastat fabric --prometheus http://127.0.0.1:9090 -a --port 7339 ||
	true
rdmastat -a -j >/tmp/host.json 2>/dev/null || echo "rdmastat -a -j: $?"
lab_capture "$E" fabric-files.json rdmastat fabric guest=/tmp/host.json -j || true
lab_stop_pings
kill "$prom" "$serve" 2>/dev/null || true
wait "$prom" || true
wait "$serve" || echo "rdmastat serve --events exited $?"
cp /tmp/serve.err "$E/serve.err"
cp /tmp/prom/prometheus.log "$E/prometheus.log"

# siw0 deleted under two live rping connections (IPv4 and IPv6), then added
# again; a short connection on the new siw0 follows. The kernel closes the
# ids itself, but siw cannot take verbs resources from a process, so the
# delete waits until the rpings are gone.
# Where the kernel sends RDMA netlink's monitor events, -E and a second
# serve --events report the removal and the return as device events; the
# group's raw messages, captured beside them, are the referee.
mkdir -p "$E/monitor"
rdmastat-capture --monitor "$E/monitor" >/tmp/monitor.log 2>&1 &
mon=$!
lab_wait 10 test -s "$E/monitor/sys.bin" || echo "eventsedge: the monitor capture never joined"
rdmastat serve --events --listen 127.0.0.1:9412 >/dev/null 2>/tmp/serve-dev.err &
serve_dev=$!
lab_tracer_ready /tmp/serve-dev.err || echo "eventsedge: the second serve --events never ready"
# And an unprivileged -E, which polls, and reads device events all the same:
# caught up once it has a line for each message the capture took (one a
# datagram).
user_caught_up() {
	[ "$(grep -c '"event":"device"' /tmp/edge-user.jsonl)" -ge \
		"$(grep -c 'bytes more' /tmp/monitor.log)" ]
}
su lab -c "exec rdmastat -E -j --interval 0.2" >/tmp/edge-user.jsonl 2>/tmp/edge-user.err &
user_e=$!
lab_wait 10 grep -q "polling every" /tmp/edge-user.err || echo "eventsedge: -E as lab never polled"
lab_rping_start 10.9.0.1 7336
lab_rping_start fd00:9::1 7337
"$LAB_RDMA" -j dev show >"$E/dev-before-removal.json"
"$LAB_RDMA" -j res show cm_id >"$E/cm_id-before-removal.json"
"$LAB_RDMA" link delete siw0 &
del=$!
lab_wait 20 sh -c '! '"$LAB_RDMA"' res show cm_id | grep -q ":733[67] "' ||
	echo "eventsedge: ids on 7336/7337 outlived siw0"
lab_stop_pings
lab_reap "$del" "$E/link-delete.rc" 30
lab_devices_up
rping -s -a 10.9.0.1 -p 7338 -C 1 >/dev/null 2>&1 &
_s=$!
lab_wait 10 lab_cm_listening 7338 || true
rping -c -a 10.9.0.1 -p 7338 -C 1 >/dev/null 2>&1 || echo "rping 7338 after re-adding siw0: $?"
lab_reap "$_s" /dev/null 20 || true
lab_wait 10 grep -q '"event":"closed".*:7338' /tmp/edge.jsonl || true
# Renamed and named back (a RENAME event each, on kernels that send them).
"$LAB_RDMA" dev set siw0 name siwrenamed || echo "rdma dev set siw0 name siwrenamed: $?"
"$LAB_RDMA" dev set siwrenamed name siw0 || echo "rdma dev set siwrenamed name siw0: $?"
"$LAB_RDMA" -j dev show >"$E/dev-after-readd.json"
"$LAB_RDMA" -j link show >"$E/link-after-readd.json"
if [ -s "$E/monitor/monitor.bin" ]; then
	lab_wait 10 grep -q '"device_event":"NETDEV_ATTACH"' /tmp/edge.jsonl ||
		echo "eventsedge: -E never reported siw0's netdev attached"
	lab_wait 10 user_caught_up || echo "eventsedge: -E as lab never caught up with -E as root"
	lab_wait 10 sh -c 'wget -q -O - http://127.0.0.1:9412/metrics |
		grep -q "device_events_total{device=\"siw0\",event=\"NETDEV_ATTACH\"}"' ||
		echo "eventsedge: serve --events never counted siw0's netdev attached"
fi
wget -q -O "$E/metrics-devices.prom" http://127.0.0.1:9412/metrics || echo "wget :9412: $?"
kill "$serve_dev" "$mon" "$user_e" 2>/dev/null || true
wait "$user_e" 2>/dev/null || true
cp /tmp/edge-user.jsonl /tmp/edge-user.err "$E/"
wait "$serve_dev" || echo "the second rdmastat serve --events exited $?"
wait "$mon" 2>/dev/null || true
cp /tmp/serve-dev.err /tmp/monitor.log "$E/"

# Overflow: one page of ring buffer, and a reader that stalls for 10 s from
# the start of 5 s of churn of listening ids. The churn starts once the tracer
# says it is ready (tee keeps what came before the stall), then -E is
# stopped (SIGTERM) and the reader takes what it wrote.
rm -f /tmp/small.go
sh -c 'echo $$ >/tmp/small.pid; exec rdmastat -E -l --events-buffer 4 --stats' 2>/tmp/small.err |
	tee /tmp/small.out |
	(until [ -e /tmp/small.go ]; do sleep 0.2; done && sleep 10 && wc -l >/tmp/small.lines) &
small=$!
lab_tracer_ready /tmp/small.err || echo "overflow: the tracer never said it was ready"
touch /tmp/small.go
rdmastat-cmids -a 10.9.0.2 -n 100 -t 5 -c >"$E/overflow-created" 2>&1 ||
	echo "rdmastat-cmids (overflow): $?"
sleep 7
kill -TERM "$(cat /tmp/small.pid)" || echo "overflow: no -E to stop"
wait "$small" || echo "rdmastat -E --events-buffer 4: the pipeline exited $?"
cp /tmp/small.err "$E/small.err"
cp /tmp/small.lines "$E/small.lines"

# rdma_cm: every other holder (rdma_ucm, our modules) unloaded, its unload is
# still refused while -E follows it, and -E goes on; once -E has gone,
# rdma_cm goes, and -E then says why it polls.
for m in rdmastat_kping rdmastat rdma_ucm; do
	[ ! -d "/sys/module/$m" ] || rmmod "$m" || echo "rmmod $m: $?"
done
ls /sys/module/rdma_cm/holders >"$E/rdma_cm-holders"
cat /sys/module/rdma_cm/refcnt >"$E/rdma_cm-refcnt"
rmmod rdma_cm >"$E/rmmod-attached.log" 2>&1 && echo 0 >"$E/rmmod-attached.rc" ||
	echo $? >"$E/rmmod-attached.rc"
sleep 1
kill -0 "$tp" && echo 1 >"$E/alive-after-rmmod" || echo 0 >"$E/alive-after-rmmod"
kill "$tp" 2>/dev/null || true
wait "$tp" && echo 0 >"$E/edge.rc" || echo $? >"$E/edge.rc"
cp /tmp/edge.jsonl /tmp/edge.err "$E/"
rmmod rdma_cm >"$E/rmmod-detached.log" 2>&1 && echo 0 >"$E/rmmod-detached.rc" ||
	echo $? >"$E/rmmod-detached.rc"
rdmastat -E --duration 2 --interval 0.5 >"$E/no-rdma-cm.out" 2>"$E/no-rdma-cm.err" &&
	echo 0 >"$E/no-rdma-cm.rc" || echo $? >"$E/no-rdma-cm.rc"
lab_load_modules
echo "eventsedge: done"
