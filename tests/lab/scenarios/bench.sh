# Benchmark (make bench; not a test): listing N cm_ids with rdmastat against the
# anchors of the same run: the raw NLDEV dumps (rdmastat-capture: cm_id and QP
# dumps of every device, nothing joined) and iproute2's rdma res show cm_id; and
# one Prometheus scrape (rdmastat export) of the same ids.
# Each command runs 5 times; the best wall time counts.
. "$LAB/lib.sh"
N=${BENCH_IDS:-5000}
RUNS=${BENCH_RUNS:-5}
lab_setup || exit 1
rdmastat-cmids -a 10.9.0.1 -n "$N" -t 600 >/tmp/cmids.out &
ids=$!
lab_wait 300 grep -q ready /tmp/cmids.out || { echo "bench: ids not ready"; exit 1; }

best() { rdmastat-timeit "$RUNS" "$@" || exit 1; }
mkdir -p /tmp/raw
raw=$(best rdmastat-capture /tmp/raw)
ours=$(best rdmastat -a -p -e)
ours_json=$(best rdmastat -a -j)
rdma_cm=$(best rdma res show cm_id)
ours_export=$(best rdmastat export)
n=$(rdmastat -a -H | wc -l)
printf '%-36s %10s %8s %8s\n' "command ($n cm_ids, best of $RUNS)" "ms" "/raw" "/rdma"
row() { awk -v n="$1" -v t="$2" -v r="$raw" -v c="$rdma_cm" \
	'BEGIN { printf "%-36s %10.1f %8.2f %8.2f\n", n, t / 1000, t / r, t / c }'; }
row "raw NLDEV dumps (rdmastat-capture)" "$raw"
row "rdmastat -a -p -e" "$ours"
row "rdmastat -a -j" "$ours_json"
row "rdma res show cm_id" "$rdma_cm"
row "rdmastat export (one scrape)" "$ours_export"
echo "rdmastat export: $(rdmastat export | grep '^rdmastat_scrape_duration_seconds')"
kill "$ids"
wait "$ids" 2>/dev/null
exit 0
