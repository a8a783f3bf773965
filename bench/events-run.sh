#!/usr/bin/env bash
# make bench-events: -E's collector under connection churn (bench/events.sh in
# one lab boot), then the table: per device and rate, the connections made per
# second, the tracepoints' events, lost events and kernel-to-line delay (p50,
# p99), the CPU time of the collector against polling's in the same run, and
# the kernel time per run of the QP programs against the rdma_cm programs'.
# The largest rate with no event lost is the one that holds. Keeps the table
# in $BUILD/bench-events/events.tsv and, dated, in bench/results/.
# Environment: BUILD (default build), RATES (connections per second, default
# "0 50 100 200 400 800"; 0 is the idle baseline: attach, seed, 20 s of
# nothing), RDMASTAT_LAB_SUITE (the lab's kernel).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-build}
out=$build/bench-events
: "${RATES:=0 50 100 200 400 800}"
mkdir -p "$out/scenario"
{
	printf 'RATES="%s"\n' "$RATES"
	cat "$here/events.sh"
} >"$out/scenario/events.sh"
RDMASTAT_LAB_SCENARIO_TIMEOUT=${RDMASTAT_LAB_SCENARIO_TIMEOUT:-3000} \
	RDMASTAT_LAB_TIMEOUT=${RDMASTAT_LAB_TIMEOUT:-3300} \
	"$here/../tests/lab/lab.sh" run --out "$out/lab" --bin "$build/rdmastat" \
	--bin "$build/rdmastat-connchurn" "$out/scenario/events.sh" || {
	cat "$out/lab/events.log"
	exit 1
}
tsv=$out/lab/events.tsv
cp "$tsv" "$out/events.tsv"
kernel=$(grep -a -o 'lab-init: kernel [^ ,]*' "$out/lab/console.log" | head -1 | cut -d' ' -f3)
mkdir -p "$here/results"
{
	echo "# $(date -u +%FT%TZ) kernel $kernel (accel ${RDMASTAT_LAB_ACCEL:-tcg})"
	echo "# device rate started established failed skipped seconds tp_events tp_lost tp_p50_ms tp_p99_ms tp_cpu_s poll_events poll_cpu_s cm_runs cm_us qp_runs qp_us"
	cat "$tsv"
} >"$here/results/$(date -u +%F)-events.tsv"
awk -F'\t' '
BEGIN {
	printf "%-4s %6s %9s %6s %9s %7s %9s %9s %8s %8s %8s %7s %7s %6s\n", "dev", "rate", "conn/s",
		"failed", "events", "lost", "p50_ms", "p99_ms", "tp_cpu", "poll_cpu", "cpu_x", "cm_us",
		"qp_us", "qp_x"
}
{
	cps = $7 > 0 ? $4 / $7 : 0
	ratio = $14 > 0 ? $12 / $14 : 0
	qp_x = $16 > 0 ? $18 / $16 : 0
	printf "%-4s %6d %9.1f %6d %9d %7d %9.3f %9.3f %8.2f %8.2f %8.2f %7.3f %7.3f %6.2f\n", $1, $2,
		cps, $5, $8, $9, $10, $11, $12, $14, ratio, $16, $18, qp_x
	if ($9 == 0 && cps > best[$1]) best[$1] = cps
	if ($9 > 0) lossy[$1] = 1
}
END {
	print "cpu_x: the collector'\''s CPU time over polling'\''s, in the same run"
	print "cm_us, qp_us: kernel time per record of the rdma_cm programs and of the QP programs;"
	print "qp_x: the QP programs'\'' over the rdma_cm programs'\''"
	for (d in best)
		printf "%s: no event lost up to %.1f connections/s%s\n", d, best[d],
			lossy[d] ? "" : " (the fastest rate run)"
}' "$tsv"
