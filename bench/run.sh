#!/usr/bin/env bash
# make bench: the scale benchmark (not a test). In one lab boot, for each N in
# BENCH_N, times rdmastat against iproute2's rdma and against the raw NLDEV
# dumps (bench/lab.sh); on the host, loads and renders a synthetic snapshot of
# BENCH_HOST_CONNECTIONS connections. Prints the table and whether the targets
# hold; keeps the results as JSON in $BUILD/bench/results.json.
# Environment: BUILD (default build), BENCH_N (default "1000 10000"), BENCH_RUNS
# (5), BENCH_PAIRS (200), BENCH_VERBS_N (raw-verbs QPs, default "10000"; ""
# skips), BENCH_HOST_CONNECTIONS (sizes, default "1000000
# 10000000"; 0 skips), BENCH_LAB
# (1; 0 skips the lab), RDMASTAT_LAB_MEM (guest MiB), RDMASTAT_LAB_TIMEOUT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-build}
out=$build/bench
mkdir -p "$out"
: "${BENCH_N:=1000 10000}" "${BENCH_RUNS:=5}" "${BENCH_PAIRS:=200}" "${BENCH_VERBS_N:=10000}"
: "${BENCH_HOST_CONNECTIONS:=1000000 10000000}" "${BENCH_LAB:=1}"

if [ "$BENCH_LAB" = 1 ]; then
	# The guest cannot see this environment: the parameters go into the scenario.
	mkdir -p "$out/scenario"
	{
		printf 'BENCH_N="%s"\nBENCH_RUNS=%s\nBENCH_PAIRS=%s\nBENCH_VERBS_N="%s"\n' "$BENCH_N" \
			"$BENCH_RUNS" "$BENCH_PAIRS" "$BENCH_VERBS_N"
		cat "$here/lab.sh"
	} >"$out/scenario/bench.sh"
	rm -rf "$out/lab/bench.tsv" "$out"/lab/capture-*
	RDMASTAT_LAB_TIMEOUT=${RDMASTAT_LAB_TIMEOUT:-7200} \
		RDMASTAT_LAB_SCENARIO_TIMEOUT=${RDMASTAT_LAB_SCENARIO_TIMEOUT:-7000} \
		"$here/../tests/lab/lab.sh" run --out "$out/lab" --bin "$build/rdmastat" \
		--bin "$build/rdmastat-floor" --bin "$build/rdmastat-cmids" \
		--bin "$build/rdmastat-timeit" --bin "$build/rdmastat-capture" \
		--bin "$build/rdmastat-verbsqps" \
		"$out/scenario/bench.sh" || {
		cat "$out/lab/bench.log"
		exit 1
	}
	cat "$out/lab/bench.log"
	# The listing's work past the dumps (parse, join, render), natively: under
	# TCG every instruction costs tens of times more.
	for dir in "$out"/lab/capture-*; do
		[ -d "$dir" ] || continue
		"$build/rdmastat-timeit" 5 "$build/rdmastat-replay" "$dir" | awk -v n="${dir##*capture-}" \
			'{ printf "host: rdmastat-replay of the lab\047s N=%s dumps: median %.1f ms, best %.1f ms\n",
				n, $1 / 1000, $2 / 1000 }' || echo "host: rdmastat-replay of $dir failed"
	done
fi

# Each size in BENCH_HOST_CONNECTIONS: 3 runs up to a million, 1 beyond (ten
# million connections make a 3 GB file, written and removed here).
: >"$out/host.tsv"
for hn in $BENCH_HOST_CONNECTIONS; do
	[ "$hn" -gt 0 ] || continue
	snap=$out/host-snapshot.json
	"$build/rdmastat-gensnap" "$hn" >"$snap"
	runs=3
	[ "$hn" -le 1000000 ] || runs=1
	for mode in text json; do
		case $mode in
		text) args=(-a -p -e) ;;
		json) args=(-a -j) ;;
		esac
		for _ in $(seq "$runs"); do
			read -r us _ rss _ < <("$build/rdmastat-timeit" 1 "$build/rdmastat" --input "$snap" "${args[@]}")
			printf '%s\t%s\t%s\t%s\t%s\n' "$hn" "$hn" "host_$mode" "$us" "$rss" >>"$out/host.tsv"
		done
	done
	rm -f "$snap"
done

# Only what this run measured.
results=()
[ "$BENCH_LAB" != 1 ] || results+=("$out/lab/bench.tsv")
[ ! -s "$out/host.tsv" ] || results+=("$out/host.tsv")
cat "${results[@]}" /dev/null | awk -f "$here/report.awk" -v json="$out/results.json"
