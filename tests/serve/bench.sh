#!/usr/bin/env bash
# Benchmark (make bench; not a test): the latency of a scrape of `rdmastat serve`
# (the lab snapshot, tests/fixtures/snapshot-host.json) on loopback, REQUESTS
# scrapes (default 300) one after the other, each on a new connection, timed by
# curl (%{time_total}); first with no other client, then while rdmastat-flood
# holds 1000 half-sent requests from 127.0.0.2-9, in the same run. Prints p50
# and p99 of each and their ratio.
# usage: bench.sh RDMASTAT FLOOD [REQUESTS]
set -euo pipefail
{ [ $# -ge 2 ] && [ $# -le 3 ]; } || { echo "usage: $0 RDMASTAT FLOOD [REQUESTS]" >&2; exit 2; }
rdmastat=$1 flood=$2 requests=${3:-300}
here=$(cd "$(dirname "$0")" && pwd)
snapshot=$here/../fixtures/snapshot-host.json
work=$(mktemp -d)
# shellcheck source=tests/serve/lib.sh
. "$here/lib.sh"
trap cleanup EXIT

# The flood must outlive the run: no idle timeout closes it meanwhile.
serve bench --web.idle-timeout 600 --web.request-timeout 600

# scrapes NAME: REQUESTS scrapes by one curl, each on a new connection; the
# times in ms, sorted, to NAME.ms; all must answer 200.
scrapes() {
	curl -s -m 10 -o /dev/null "$url?warm=[1-20]" || fail "serve does not answer"
	curl -s -m 600 -H 'Connection: close' -o /dev/null -w '%{http_code} %{time_total}\n' \
		"$url?n=[1-$requests]" >"$work/$1.raw" || true
	[ "$(grep -c '^200 ' "$work/$1.raw")" = "$requests" ] ||
		fail "$1: not every scrape answered 200: $(cut -d' ' -f1 "$work/$1.raw" | sort | uniq -c | tr '\n' ' ')"
	awk '{ printf "%.3f\n", $2 * 1000 }' "$work/$1.raw" | sort -n >"$work/$1.ms"
}
# pct NAME P: the P-th percentile (nearest rank) of NAME's times.
pct() { awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999999); print v[i < 1 ? 1 : i] }' "$work/$1.ms"; }

scrapes idle
flood bench-flood --sources 127.0.0.2-127.0.0.9 \
	--send 'GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: flood\r\n' \
	127.0.0.1 "${hostport##*:}" 1000 600
scrapes flooded
unflood bench-flood
kill -0 "$serve_pid" 2>/dev/null || fail "serve died"

printf '%-48s %9s %9s\n' "scrape of serve, $requests in a row (new connections)" "p50 ms" "p99 ms"
printf '%-48s %9s %9s\n' "no other connection" "$(pct idle 50)" "$(pct idle 99)"
printf '%-48s %9s %9s\n' "1000 half-sent connections held ($closed closed)" "$(pct flooded 50)" "$(pct flooded 99)"
awk -v i50="$(pct idle 50)" -v f50="$(pct flooded 50)" -v i99="$(pct idle 99)" -v f99="$(pct flooded 99)" 'BEGIN {
	printf "ratio under the flood: p50 %.2fx, p99 %.2fx\n", f50 / i50, f99 / i99
	printf "target: p99 under 1000 idle connections <= 2x idle p99: %s (%.2f x)\n",
		f99 <= 2 * i99 ? "holds" : "MISSED", f99 / i99 }'
