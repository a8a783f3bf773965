# Benchmark of rdmastat ping (make bench-ping; not a test): on siw and on rxe,
# in one boot, rdmastat ping against the anchors of the same run: ib_write_bw
# and ib_write_lat (perftest, rdma_cm mode) and rping. Each measurement runs
# BENCH_RUNS times (default 5) and the median counts. Prints a table of ratios
# and writes $OUT/pingbench/results.json.
. "$LAB/lib.sh"
R="$OUT/pingbench"
mkdir -p "$R"
RUNS=${BENCH_RUNS:-5}
BW_SIZE=65536 BW_ITERS=${BENCH_BW_ITERS:-5000}
LAT_SIZE=64 LAT_ITERS=${BENCH_LAT_ITERS:-1000}
PINGS=${BENCH_PINGS:-1000}
lab_setup || exit 1

port=7400
next_port() { port=$((port + 1)); }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# perftest: a server in the background, then the client; prints the client's line.
perftest() {
	tool=$1 dev=$2 addr=$3
	shift 3
	"$tool" -R -F -d "$dev" -p "$port" "$@" >/tmp/pt-s.log 2>&1 &
	s=$!
	sleep 1
	"$tool" -R -F -d "$dev" -p "$port" "$@" "$addr" >/tmp/pt-c.log 2>&1
	wait "$s"
	next_port
	cat /tmp/pt-c.log >>"$R/perftest.log"
	# The result line: the one after the column header, starting with the size.
	awk '/#bytes/ { getline; print; exit }' /tmp/pt-c.log
}

# ours DEV ADDR ARGS...: rdmastat ping client against a fresh rdmastat server; JSON.
ours() {
	addr=$2
	shift 2
	rdmastat ping -s -a "$addr" -p "$port" --quiet >/dev/null 2>&1 &
	s=$!
	lab_wait 10 lab_cm_listening "$port"
	rdmastat ping -c -a "$addr" -p "$port" --quiet -j "$@"
	wait "$s"
	next_port
}

# Wall time in microseconds of a command (busybox date has no sub-second clock).
wall() { rdmastat-timeit 1 "$@"; }

# rping pings: a persistent rping server; PINGS pings from rping and from rdmastat.
rping_wall() {
	addr=$1 client=$2
	rping -s -P -a "$addr" -p "$port" >/dev/null 2>&1 &
	s=$!
	lab_wait 10 lab_cm_listening "$port"
	if [ "$client" = rping ]; then
		wall rping -c -a "$addr" -p "$port" -C "$PINGS" -S 64
	else
		wall rdmastat ping -c -a "$addr" -p "$port" -C "$PINGS" -S 64 --quiet
	fi
	kill "$s"
	wait "$s" 2>/dev/null
	next_port
}

json_num() { sed -n "s/.*\"$1\":\\([0-9.e+-]*\\).*/\\1/p"; }
json_nested() { sed -n "s/.*\"$1\":{[^}]*\"$2\":\\([0-9.e+-]*\\).*/\\1/p"; }

echo "{" >"$R/results.json"
first=1
for dev in siw0 rxe0; do
	case $dev in siw0) addr=10.9.0.1 ;; rxe0) addr=10.9.0.2 ;; esac
	for f in bw-ours bw-pt lat-ours lat-pt rp-rping rp-ours; do : >"/tmp/$f"; done
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		# MB/s (perftest's MB is 2^20 bytes) and microseconds.
		ours "$dev" "$addr" --bw -S "$BW_SIZE" -C "$BW_ITERS" | json_nested bandwidth mib_per_s >>/tmp/bw-ours
		perftest ib_write_bw "$dev" "$addr" -s "$BW_SIZE" -n "$BW_ITERS" | awk '{ print $4 }' >>/tmp/bw-pt
		# ib_write_lat reports half the round trip; ours is the whole.
		ours "$dev" "$addr" --lat -S "$LAT_SIZE" -C "$LAT_ITERS" |
			json_nested latency_us p50 | awk '{ print $1 / 2 }' >>/tmp/lat-ours
		perftest ib_write_lat "$dev" "$addr" -s "$LAT_SIZE" -n "$LAT_ITERS" | awk '{ print $5 }' >>/tmp/lat-pt
		rping_wall "$addr" rping >>/tmp/rp-rping
		rping_wall "$addr" rdmastat >>/tmp/rp-ours
		i=$((i + 1))
	done
	bw_o=$(median </tmp/bw-ours) bw_p=$(median </tmp/bw-pt)
	lat_o=$(median </tmp/lat-ours) lat_p=$(median </tmp/lat-pt)
	rp_r=$(median </tmp/rp-rping) rp_o=$(median </tmp/rp-ours)
	for f in bw-ours bw-pt lat-ours lat-pt rp-rping rp-ours; do
		echo "$dev $f: $(tr '\n' ' ' </tmp/$f)"
	done
	[ "$first" = 1 ] || echo "," >>"$R/results.json"
	first=0
	cat >>"$R/results.json" <<JSON
 "$dev": {"bw_mib_per_s": {"rdmastat": $bw_o, "ib_write_bw": $bw_p},
   "lat_half_rtt_us_p50": {"rdmastat": $lat_o, "ib_write_lat_typical": $lat_p},
   "rping_${PINGS}_pings_ms": {"rdmastat": $(awk -v t="$rp_o" 'BEGIN { print t / 1000 }'), "rping": $(awk -v t="$rp_r" 'BEGIN { print t / 1000 }')}}
JSON
	printf '%s\n' "$dev $bw_o $bw_p $lat_o $lat_p $rp_o $rp_r" >>/tmp/table
done
echo "}" >>"$R/results.json"

lab_section "rdmastat ping against perftest and rping (median of $RUNS runs)"
echo "(ratio = rdmastat / anchor: above 1 is better for MiB/s, below 1 for us and ms)"
printf '%-6s %-44s %12s %12s %8s\n' dev measure rdmastat anchor ratio
while read -r dev bw_o bw_p lat_o lat_p rp_o rp_r; do
	awk -v d="$dev" -v a="$bw_o" -v b="$bw_p" -v s="$BW_SIZE" -v n="$BW_ITERS" \
		'BEGIN { printf "%-6s %-44s %12.1f %12.1f %8.2f\n", d, "--bw " s " B x " n " MiB/s vs ib_write_bw", a, b, a / b }'
	awk -v d="$dev" -v a="$lat_o" -v b="$lat_p" -v s="$LAT_SIZE" \
		'BEGIN { printf "%-6s %-44s %12.2f %12.2f %8.2f\n", d, "--lat " s " B half-RTT p50 us vs ib_write_lat", a, b, a / b }'
	awk -v d="$dev" -v a="$rp_o" -v b="$rp_r" -v n="$PINGS" \
		'BEGIN { printf "%-6s %-44s %12.1f %12.1f %8.2f\n", d, n " pings (64 B) wall ms vs rping -c", a / 1000, b / 1000, a / b }'
done </tmp/table
cat "$R/results.json"
