# The scale benchmark's lab scenario (bench/run.sh prepends BENCH_N, BENCH_RUNS,
# BENCH_PAIRS, BENCH_VERBS_N). For each N: N bound ids (10% bound only, 90%
# listening; 5000 ports per address, address aliases on both veths beyond 2
# addresses), then for each V of BENCH_VERBS_N, V raw-verbs RC QPs connected in
# pairs (rdmastat-verbsqps), each beside BENCH_PAIRS connected pairs with
# traffic on siw and rxe; then BENCH_RUNS
# rounds of every command: each run's wall time and peak RSS into $OUT/bench.tsv,
# and each N's NLDEV dumps into $OUT/capture-N (rdmastat-capture).
. "$LAB/lib.sh"
N=${BENCH_N:-1000 10000}
RUNS=${BENCH_RUNS:-5}
PAIRS=${BENCH_PAIRS:-200}
VERBS=${BENCH_VERBS_N:-10000}
PER_ADDR=5000
lab_setup || exit 1

# Addresses for n ids: 10.9.0.1 (siw0), 10.9.0.2 (rxe0), then /32 aliases
# 10.9.0.11.. alternately on veth0 (siw) and veth1 (rxe).
addresses() {
	_k=$((($1 + PER_ADDR - 1) / PER_ADDR))
	[ "$_k" -ge 2 ] || _k=2
	_i=0
	while [ "$_i" -lt "$_k" ]; do
		case $_i in
		0) echo 10.9.0.1 ;;
		1) echo 10.9.0.2 ;;
		*) _a=10.9.0.$((9 + _i))
			ip addr add "$_a/32" dev "veth$((_i % 2))" 2>/dev/null
			echo "$_a" ;;
		esac
		_i=$((_i + 1))
	done
}

# up FILE PID: PID printed "ready" to FILE, or died (then FILE says why).
up() { grep -q ready "$1" || ! kill -0 "$2" 2>/dev/null; }

# ready FILE PID WHAT: wait for PID to print "ready" to FILE; else the bench
# ends, saying why. FILE is emptied before PID starts: the background job's own
# redirection may come after the first look, and a run before this one in the
# same directory left its "ready".
ready() {
	lab_wait 3600 up "$1" "$2"
	grep -q ready "$1" && return 0
	cat "$1"
	echo "bench: $3 not ready"
	exit 1
}

# rounds PID: RUNS rounds of every command, then PID (what they measured) ends.
rounds() {
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		round
		r=$((r + 1))
		echo "  round $r of $RUNS done" | tee -a "$OUT/progress"
	done
	kill "$1"
	wait "$1" 2>/dev/null
}

# one NAME CMD...: one run of CMD, a line "N CM_IDS NAME MICROSECONDS MAXRSS_KIB
# USER_US SYS_US MINFLT".
one() {
	_name=$1
	shift
	_r=$(rdmastat-timeit 1 "$@") || { echo "bench: $_name failed"; exit 1; }
	set -- $_r
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$ids" "$_name" "$1" "$3" "$4" "$5" "$6" \
		>>"$OUT/bench.tsv"
}

# Every command once, in turn: rounds rather than one command's runs in a row,
# so that a busy host slows every command alike and the ratios hold.
round() {
	one floor rdmastat-floor
	one rdmastat_ape rdmastat -a -p -e
	one rdmastat_aj rdmastat -a -j
	one rdmastat_lsof rdmastat lsof
	one rdma_cm_qp sh -c '/usr/bin/rdma res show cm_id && /usr/bin/rdma res show qp'
	one rdma_j_cm /usr/bin/rdma -j res show cm_id
	# Where the time goes: startup alone, and the same ids from a saved snapshot.
	one rdmastat_startup rdmastat --version
	one rdmastat_input_ape rdmastat --input /tmp/saved.json -a -p -e
}

: >"$OUT/bench.tsv"
# Pairs in processes of 40 (20 on each device): one process's 33rd siw QP was
# refused (EOPNOTSUPP) in this lab.
pairs=""
left=$PAIRS
while [ "$left" -gt 0 ]; do
	k=$((left < 40 ? left : 40))
	: >"$OUT/pairs-$left.out"
	rdmastat-cmids -a 10.9.0.1 -a 10.9.0.2 -n 0 -C "$k" -t 36000 >"$OUT/pairs-$left.out" 2>&1 &
	p=$!
	lab_wait 900 up "$OUT/pairs-$left.out" "$p"
	grep -q ready "$OUT/pairs-$left.out" || { cat "$OUT/pairs-$left.out"; echo "bench: pairs not ready"; exit 1; }
	pairs="$pairs $p"
	left=$((left - k))
done
echo "$PAIRS connected pairs ready" | tee -a "$OUT/progress"
for n in $N; do
	set --
	for a in $(addresses "$n"); do set -- "$@" -a "$a"; done
	t0=$(date +%s)
	: >"$OUT/cmids-$n.out"
	rdmastat-cmids "$@" -n "$n" -P 10000 -b 10 -t 36000 >"$OUT/cmids-$n.out" 2>&1 &
	bulk=$!
	ready "$OUT/cmids-$n.out" "$bulk" "$n ids"
	ids=$(rdmastat -a -H | wc -l)
	echo "N=$n: $ids cm_ids ($(($# / 2)) addresses, created in $(($(date +%s) - t0)) s)" | tee -a "$OUT/progress"
	if [ "$ids" -lt "$n" ]; then
		echo "bench: $ids cm_ids listed, expected at least $n"
		exit 1
	fi
	rdmastat -a -j >/tmp/saved.json
	# The dumps themselves, for a profile on the host (rdmastat-replay).
	mkdir -p "$OUT/capture-$n"
	rdmastat-capture "$OUT/capture-$n" >/dev/null || rm -rf "$OUT/capture-$n"
	rounds "$bulk"
done
# Raw-verbs connections: V RC QPs connected in pairs on rxe0 by one process,
# with no cm_id, for each V in BENCH_VERBS_N, beside the pairs' ids.
for v in $VERBS; do
	t0=$(date +%s)
	: >"$OUT/verbs-$v.out"
	rdmastat-verbsqps -d rxe0 -g 1 -n "$v" -t 36000 >"$OUT/verbs-$v.out" 2>&1 &
	bulk=$!
	ready "$OUT/verbs-$v.out" "$bulk" "$v verbs QPs"
	n=verbs$v
	ids=$(rdmastat -a -H via verbs 2>/dev/null | wc -l)
	echo "N=$n: $ids verbs connections (created in $(($(date +%s) - t0)) s)" | tee -a "$OUT/progress"
	if [ "$ids" -lt "$v" ]; then
		echo "bench: $ids verbs connections listed, expected at least $v"
		exit 1
	fi
	ids=$(rdmastat -a -H 2>/dev/null | wc -l)
	rdmastat -a -j >/tmp/saved.json 2>/dev/null
	mkdir -p "$OUT/capture-$n"
	rdmastat-capture "$OUT/capture-$n" >/dev/null || rm -rf "$OUT/capture-$n"
	rounds "$bulk"
done
kill $pairs
wait $pairs 2>/dev/null
exit 0
