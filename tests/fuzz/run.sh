#!/usr/bin/env bash
# ctest's fuzz-NAME tests: runs one libFuzzer target from its seed corpus for
# a fixed number of executions (runs=N) or a time (seconds=N), and fails on any
# crash, leak, sanitizer report or timeout.
# usage: run.sh TARGET runs=N|seconds=N WORKDIR SEED...
#   SEED: a file (copied into the corpus as is), a directory (its files), or a
#   FILE.lines text file whose every line becomes one input (printf %b
#   escapes: \n for a newline).
# The corpus the run grows and any crashing input (crash-*, leak-*, timeout-*)
# stay in WORKDIR; replay one with: TARGET WORKDIR/crash-...
set -euo pipefail
usage() { echo "usage: $0 TARGET runs=N|seconds=N WORKDIR SEED..." >&2; exit 2; }
[ $# -ge 4 ] || usage
target=$1 limit=$2 work=$3
case $limit in
runs=[1-9]*) flag=-runs=${limit#runs=} ;;
seconds=[1-9]*) flag=-max_total_time=${limit#seconds=} ;;
*) usage ;;
esac
[[ ${flag#*=} =~ ^[0-9]+$ ]] || usage
shift 3
rm -rf "$work"
mkdir -p "$work/corpus"
n=0
add() { n=$((n + 1)) && cp "$1" "$work/corpus/seed-$n"; }
for seed in "$@"; do
	if [ -d "$seed" ]; then
		for f in "$seed"/*; do [ -f "$f" ] && add "$f"; done
	elif [[ $seed == *.lines ]]; then
		while IFS= read -r line; do
			n=$((n + 1)) && printf '%b' "$line" >"$work/corpus/seed-$n"
		done <"$seed"
	else
		add "$seed"
	fi
done
echo "$(basename "$target"): $n seeds, ${limit/=/ }"
# -max_len: bigger than every seed (the many-id capture is 123 kB) so the mutator keeps them whole.
# -timeout: a hang is what it is for, and no input here takes more than
# milliseconds of CPU. But the timeout counts wall time, and make check runs
# the fuzzers at SCHED_IDLE beside emulated guests and package builds, where
# one unit once waited 26 s for a CPU. So a unit gets 300 s.
status=0
"$target" "$flag" -timeout=300 -rss_limit_mb=2048 -max_len=131072 \
	-print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|#[0-9]+ +DONE' \
	"$work/fuzz.log" || true
if [ "$status" -ne 0 ]; then
	tail -n 60 "$work/fuzz.log"
	ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null || true
	exit 1
fi
