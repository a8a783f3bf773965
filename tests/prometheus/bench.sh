#!/usr/bin/env bash
# Benchmark (make bench; not a test): one Prometheus scrape of N cm_ids (default
# 10000) from a snapshot file, against anchors of the same run: reading the same
# file into the listing JSON (rdmastat -a -j) and the summary (rdmastat -s).
# The snapshot repeats the lab's connections (tests/fixtures/snapshot-host.json)
# with fresh cm id numbers and ports. Prints the best of RUNS and the exporter's
# own rdmastat_scrape_duration_seconds.
# usage: bench.sh RDMASTAT TIMEIT [N] [RUNS]
set -euo pipefail
rdmastat=$1 timeit=$2 n=${3:-10000} runs=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jq --argjson n "$n" '.connections as $c | .connections = [range(0; $n) as $i |
	$c[$i % ($c | length)] | .cm_id = $i | .local.port = (1024 + ($i % 60000))]' \
	"$here/../fixtures/snapshot-host.json" >"$work/big.json"
ids=$("$rdmastat" -a -H --input "$work/big.json" | wc -l)
# The best of the runs (timeit prints the median, the best, the peak RSS, then
# the median user and system times and minor faults).
best() { "$timeit" "$runs" "$@" | awk '{ print $2 }'; }
export_us=$(best "$rdmastat" export --input "$work/big.json")
json_us=$(best "$rdmastat" -a -j --input "$work/big.json")
summary_us=$(best "$rdmastat" -s --input "$work/big.json")
reported=$("$rdmastat" export --input "$work/big.json" | sed -n 's/^rdmastat_scrape_duration_seconds //p')
printf '%-44s %10s %8s\n' "command ($ids cm_ids, best of $runs)" "ms" "/-a -j"
row() { awk -v n="$1" -v t="$2" -v a="$json_us" 'BEGIN { printf "%-44s %10.1f %8.2f\n", n, t / 1000, t / a }'; }
row "rdmastat -a -j --input (anchor)" "$json_us"
row "rdmastat -s --input" "$summary_us"
row "rdmastat export --input" "$export_us"
echo "rdmastat_scrape_duration_seconds reported by export: $reported"
# Issue 17's target: a scrape costs at most 1.2 times the listing of the same ids.
awk -v e="$export_us" -v a="$json_us" -v n="$ids" 'BEGIN {
	printf "target: scrape of %d cm_ids <= 1.2x rdmastat -a -j: %s (%.2fx)\n", n,
		e <= 1.2 * a ? "holds" : "MISSED", e / a }'
