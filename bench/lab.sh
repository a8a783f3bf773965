# The scale benchmark's lab scenario (bench/run.sh prepends BENCH_N, BENCH_RUNS,
# BENCH_PAIRS). For each N: N bound ids (10% bound only, 90% listening; 5000
# ports per address, address aliases on both veths beyond 2 addresses), plus
# BENCH_PAIRS connected pairs with traffic on siw and rxe; then each command
# BENCH_RUNS times: median and best wall time and peak RSS into $OUT/bench.tsv.
. "$LAB/lib.sh"
N=${BENCH_N:-1000 10000}
RUNS=${BENCH_RUNS:-5}
PAIRS=${BENCH_PAIRS:-200}
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

measure() { # NAME CMD...: one tsv line
	_name=$1
	shift
	_r=$(rdmastat-timeit "$RUNS" "$@") || { echo "bench: $_name failed"; exit 1; }
	printf '%s\t%s\t%s\t%s\n' "$n" "$ids" "$_name" "$_r" | tr ' ' '\t' >>"$OUT/bench.tsv"
	echo "  $_name: $_r" | tee -a "$OUT/progress"
}

: >"$OUT/bench.tsv"
# Pairs in processes of 40 (20 on each device): one process's 33rd siw QP was
# refused (EOPNOTSUPP) in this lab.
pairs=""
left=$PAIRS
while [ "$left" -gt 0 ]; do
	k=$((left < 40 ? left : 40))
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
	rdmastat-cmids "$@" -n "$n" -P 10000 -b 10 -t 36000 >"$OUT/cmids-$n.out" 2>&1 &
	bulk=$!
	lab_wait 3600 up "$OUT/cmids-$n.out" "$bulk"
	if ! grep -q ready "$OUT/cmids-$n.out"; then
		cat "$OUT/cmids-$n.out"
		echo "bench: $n ids not ready"
		exit 1
	fi
	ids=$(rdmastat -a -H | wc -l)
	echo "N=$n: $ids cm_ids ($(($# / 2)) addresses, created in $(($(date +%s) - t0)) s)" | tee -a "$OUT/progress"
	if [ "$ids" -lt "$n" ]; then
		echo "bench: $ids cm_ids listed, expected at least $n"
		exit 1
	fi
	measure floor rdmastat-capture --floor
	measure rdmastat_ape rdmastat -a -p -e
	measure rdmastat_aj rdmastat -a -j
	measure rdmastat_lsof rdmastat lsof
	measure rdma_cm_qp sh -c '/usr/bin/rdma res show cm_id && /usr/bin/rdma res show qp'
	measure rdma_j_cm /usr/bin/rdma -j res show cm_id
	# Where the time goes: startup alone, and the same ids from a saved snapshot.
	measure rdmastat_startup rdmastat --version
	rdmastat -a -j >/tmp/saved.json
	measure rdmastat_input_ape rdmastat --input /tmp/saved.json -a -p -e
	kill "$bulk"
	wait "$bulk" 2>/dev/null
done
kill $pairs
wait $pairs 2>/dev/null
exit 0
