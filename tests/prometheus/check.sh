#!/usr/bin/env bash
# ctest's "prometheus" test: a real Prometheus server (Debian's prometheus) on
# loopback scrapes `rdmastat serve` fed by a snapshot taken in the lab, and its
# query API must return the connection counts `rdmastat -a -j` lists for the same
# snapshot. promtool lints the exposition. Then a bounded loopback load test:
# unknown paths, huge headers and URIs, garbage, idle and many parallel clients;
# the endpoint must keep answering.
# usage: check.sh RDMASTAT SNAPSHOT OUTDIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 RDMASTAT SNAPSHOT OUTDIR" >&2; exit 2; }
rdmastat=$1 snapshot=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "prometheus: FAIL: $*" >&2; exit 1; }
# shellcheck source=tests/prometheus/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. The exposition passes Prometheus' own linter.
"$rdmastat" export --input "$snapshot" --per-process >"$out/export.prom"
promtool check metrics <"$out/export.prom" || fail "promtool rejects rdmastat export"
echo "ok - promtool check metrics accepts rdmastat export"
# The alerting rules select a verdict rdmastat writes (it writes every one).
rules=$(dirname "$0")/../../monitoring/rdmastat.rules.yml
sel=$(grep -o 'rdmastat_port_checks{verdict="[^"]*"}' "$rules")
[ -n "$sel" ] && grep -qF "$sel " "$out/export.prom" ||
	fail "the rules select '$sel', which rdmastat export does not write"
echo "ok - the rules' $sel is a series rdmastat writes"

# 2. rdmastat serve on a kernel-chosen port (it prints the address).
"$rdmastat" serve --listen 127.0.0.1:0 --input "$snapshot" >"$work/serve.out" 2>"$work/serve.err" &
serve=$!
pids+=("$serve")
for _ in $(seq 100); do
	grep -q serving "$work/serve.out" && break
	sleep 0.1
done
url=$(sed -n 's/^rdmastat: serving \(http:[^ ]*\)$/\1/p' "$work/serve.out")
[ -n "$url" ] || fail "serve did not start: $(cat "$work/serve.err")"
target=${url#http://}
target=${target%/metrics}

# 3. Prometheus on a free loopback port, storage in the temp dir.
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rdmastat
    static_configs:
      - targets: ['$target']
YML
start_prometheus "$work"
query() { curl -sf -m 5 --get "$api/query" --data-urlencode "query=$1"; }
prom_await 60 'up{job="rdmastat"} == 1' ||
	{ tail -20 "$work/prometheus.log"; fail "Prometheus never scraped rdmastat"; }
echo "ok - Prometheus scrapes rdmastat serve ($target)"

# 4. What Prometheus stores equals what rdmastat -a -j lists, counted here.
query 'sum by (device, transport, state) (rdmastat_connections)' >"$out/query.json"
jq -r '.data.result[] | "\(.metric.device) \(.metric.transport) \(.metric.state) \(.value[1])"' \
	"$out/query.json" | sort >"$out/prometheus-counts.txt"
"$rdmastat" -a -j --input "$snapshot" |
	jq -r '.connections | group_by([.device, .transport, .state])[] |
		"\(.[0].device) \(.[0].transport) \(.[0].state) \(length)"' | sort >"$out/listed-counts.txt"
[ -s "$out/listed-counts.txt" ] || fail "the snapshot lists no connections"
diff -u "$out/listed-counts.txt" "$out/prometheus-counts.txt" ||
	fail "Prometheus' rdmastat_connections differ from rdmastat -a -j"
echo "ok - Prometheus query returns the counts rdmastat -a -j lists:"
sed 's/^/    /' "$out/prometheus-counts.txt"

# 5. Every query of the shipped Grafana dashboard runs ($instance as "All"),
# and those over what a snapshot holds return data. Counter and event panels
# need a live kernel (and serve --events): here they must only run.
dashboard=$(dirname "$0")/../../monitoring/rdmastat.dashboard.json
# rate() needs two scrapes in its window.
prom_await 30 'count_over_time(up{job="rdmastat"}[1m]) >= 3' || true
live='rdmastat_(port_statistic|connect_failures|handshake|cm_events|connections_established|connections_closed|events_lost)'
ran=0 with_data=0
while IFS= read -r expr; do
	q=${expr//\$instance/.*}
	res=$(query "$q") || fail "the dashboard's query does not run: $q"
	[ "$(jq -r .status <<<"$res")" = success ] || fail "the dashboard's query fails: $q"
	ran=$((ran + 1))
	grep -qE "$live" <<<"$expr" && continue
	[ "$(jq '.data.result | length' <<<"$res")" -gt 0 ] || fail "the dashboard's query returns nothing: $q"
	with_data=$((with_data + 1))
done < <(jq -r '.panels[].targets[].expr' "$dashboard")
[ "$ran" -gt 0 ] || fail "no query in $dashboard"
echo "ok - the dashboard's $ran queries run; the $with_data over a snapshot's metrics return data"

# 6. Bounded load test against the serve endpoint.
code() { curl -s -m 20 -o /dev/null -w '%{http_code}' "$@" || true; }
[ "$(code "$url")" = 200 ] || fail "/metrics does not answer 200"
[ "$(code "http://$target/no/such/path")" = 404 ] || fail "unknown path is not 404"
[ "$(code -X POST "$url")" != 200 ] || fail "POST /metrics answered 200"
big=$(head -c 100000 /dev/zero | tr '\0' a)
echo "huge header: HTTP $(code -H "X-Big: $big" "$url")"
echo "huge URI: HTTP $(code "$url?$big")"
for i in $(seq 200); do printf 'X-H%d: v\r\n' "$i"; done >"$work/headers"
echo "200 headers: HTTP $(code -H @"$work/headers" "$url")"
# Garbage and half requests on raw sockets, and idle connections held open.
for msg in 'GARBAGE\r\n\r\n' 'GET /metrics HTTP/9.9\r\n\r\n' 'GET\r\n' '\x00\xff\x00\xff\r\n\r\n'; do
	(exec 3<>"/dev/tcp/${target%:*}/${target#*:}" && printf "$msg" >&3 && timeout 5 cat <&3 >/dev/null) || true
done
idle=()
for _ in $(seq 10); do
	(exec 3<>"/dev/tcp/${target%:*}/${target#*:}" && sleep 8) &
	idle+=("$!")
done
# 400 requests from 40 parallel clients, each bounded by a timeout.
seq 400 | xargs -P 40 -I{} curl -s -m 30 -o /dev/null -w '%{http_code}\n' "$url" >"$work/codes"
for p in "${idle[@]}"; do kill "$p" 2>/dev/null || true; done
ok=$(grep -c '^200$' "$work/codes" || true)
echo "parallel clients: $ok of 400 answered 200"
[ "$ok" -eq 400 ] || fail "parallel clients: $(sort "$work/codes" | uniq -c | tr '\n' ' ')"
kill -0 "$serve" 2>/dev/null || fail "rdmastat serve died"
[ "$(code "$url")" = 200 ] || fail "/metrics stopped answering after the load"
curl -sf -m 20 "$url" | grep -q '^rdmastat_connections{' || fail "/metrics lost its content"
echo "ok - serve survived the load test and keeps answering"
