# shellcheck shell=sh
# make bench-events: -E's collector under connection churn (a lab scenario; a
# benchmark, not a test). For each device and each rate in RATES (bench/events-run.sh
# prepends it), rdmastat-connchurn makes and tears down connections at that
# rate for 20 s while, in the same run:
# - `rdmastat -E -j --stats` follows the tracepoints (root, default buffer),
#   its lines to a file;
# - `rdmastat -E -j --stats` polls every second (the unprivileged lab user),
#   the mode it falls back to.
# Each says on exit how many events, how many lost, the kernel-to-line delay
# (tracepoints) and its CPU time; the tracer also its programs' time in the
# kernel per run (kernel.bpf_stats_enabled is set): the rdma_cm programs', and
# the QP programs' (each connection's QP is made, moved and destroyed). One row
# per run into $OUT/events.tsv:
#   device rate started established failed skipped seconds
#   tp_events tp_lost tp_p50_ms tp_p99_ms tp_cpu_s poll_events poll_cpu_s
#   cm_runs cm_us qp_runs qp_us
. "$LAB/lib.sh"
RATES=${RATES:-0 50 100 200 400 800}
lab_setup || exit 1
sysctl -q -w kernel.bpf_stats_enabled=1 || exit 1
: >"$OUT/events.tsv"

# cpu LINE: user + system seconds of a --stats line.
cpu() { echo "$1" | sed -n 's/.*CPU \([0-9.]*\) s user, \([0-9.]*\) s system.*/\1 \2/p' |
	awk '{ printf "%.2f", $1 + $2 }'; }
field() { echo "$1" | sed -n "s/.*$2.*/\\1/p"; }

for dev in "siw 10.9.0.1" "rxe 10.9.0.2"; do
	set -- $dev
	name=$1
	addr=$2
	for rate in $RATES; do
		rdmastat -E -j --stats --duration 40 >/tmp/tp.jsonl 2>/tmp/tp.err &
		tp=$!
		su lab -c "rdmastat -E -j --stats --duration 40 --interval 1" >/tmp/poll.jsonl 2>/tmp/poll.err &
		poll=$!
		lab_tracer_attached /tmp/tp.jsonl 7410 7411 7412 7413 || exit 1
		churn=$(rdmastat-connchurn -a "$addr" -p 7400 -r "$rate" -t 20 -w 256)
		wait "$tp"
		wait "$poll"
		t=$(grep "stats: [0-9]" /tmp/tp.err)
		k=$(grep "stats: programs" /tmp/tp.err)
		p=$(grep "stats:" /tmp/poll.err)
		grep -v "stats:\|events lost" /tmp/tp.err >&2 || true
		set -- $churn
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rate" \
			"$2" "$4" "$6" "$8" "${10}" \
			"$(field "$t" 'stats: \([0-9]*\) events')" \
			"$(field "$t" ', \([0-9]*\) lost')" \
			"$(field "$t" 'p50 \([0-9.]*\) ms')" \
			"$(field "$t" 'p99 \([0-9.]*\) ms')" \
			"$(cpu "$t")" \
			"$(field "$p" 'stats: \([0-9]*\) events')" \
			"$(cpu "$p")" \
			"$(field "$k" 'rdma_cm \([0-9]*\) runs')" \
			"$(field "$k" 'rdma_cm [0-9]* runs, \([0-9.]*\) us')" \
			"$(field "$k" 'QP \([0-9]*\) runs')" \
			"$(field "$k" 'QP [0-9]* runs, \([0-9.]*\) us')" | tee -a "$OUT/events.tsv"
	done
done
exit 0
