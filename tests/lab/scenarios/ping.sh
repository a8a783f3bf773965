# rdmastat ping in the lab: interop with rping in both directions on siw and
# rxe for 64 B, 4 KiB and rping's largest size; the listing of a long ping; a
# hostile client against a persistent server; SIGINT/SIGTERM teardown; the lat
# and bw modes. Writes evidence to $OUT/ping; the [lab][ping] tests judge it.
. "$LAB/lib.sh"
R="$OUT/ping"
mkdir -p "$R"
capture() { lab_capture "$R" "$@"; }

lab_setup || exit 1

# interop DEV ADDR PORT SIZE: rdmastat client against rping server, then rping
# client against rdmastat server.
interop() {
	dev=$1 addr=$2 port=$3 size=$4
	# rping's server takes pings of its own -S only.
	rping -s -a "$addr" -p "$port" -S "$size" >"$R/c2r-$dev-$size.rping" 2>&1 &
	s=$!
	lab_wait 10 lab_cm_listening "$port" || echo "rping server on $port did not listen"
	capture "c2r-$dev-$size.json" rdmastat ping -c -a "$addr" -p "$port" -S "$size" -C 10 -V -j
	lab_reap "$s" "$R/c2r-$dev-$size.rping.rc"

	port=$((port + 1))
	(rdmastat ping -s -a "$addr" -p "$port" -j >"$R/r2c-$dev-$size.json" \
		2>"$R/r2c-$dev-$size.json.err"; echo $? >"$R/r2c-$dev-$size.json.rc") &
	lab_wait 10 lab_cm_listening "$port" || echo "rdmastat server on $port did not listen"
	capture "r2c-$dev-$size.rping" rping -c -a "$addr" -p "$port" -S "$size" -C 10 -V -v
	lab_wait 10 test -s "$R/r2c-$dev-$size.json.rc" || echo "rdmastat server on $port still running"
}

lab_section "interop with rping"
p=7300
for size in 64 4096 65535; do
	interop siw 10.9.0.1 $p $size
	interop rxe 10.9.0.2 $((p + 2)) $size
	p=$((p + 4))
done
ls -l "$R"

lab_section "a long ping, listed"
# listed NAME ADDR PORT: a server and a client that pings until interrupted,
# their files named long-NAME-*. The client waits up to 60 s for each answer,
# not 5: a stalled client (below) is then still there for the signal.
listed() {
	name=$1 addr=$2 port=$3
	rdmastat ping -s -P -a "$addr" -p "$port" -j >"$R/long-$name-server.json" \
		2>"$R/long-$name-server.err" &
	echo $! >"$R/long-$name-server.pid"
	lab_wait 10 lab_cm_listening "$port"
	rdmastat ping -c -a "$addr" -p "$port" -S 4096 -V --timeout 60000 -j \
		>"$R/long-$name-client.json" \
		2>"$R/long-$name-client.err" &
	echo $! >"$R/long-$name-client.pid"
	lab_wait 20 lab_cm_connected_ge "$port" 2
}
# signalled NAME: SIGINT to the client, then SIGTERM to the server, each reaped.
signalled() {
	c=$(cat "$R/long-$1-client.pid")
	kill -INT "$c"
	lab_reap "$c" "$R/long-$1-client.rc"
	s=$(cat "$R/long-$1-server.pid")
	kill -TERM "$s"
	lab_reap "$s" "$R/long-$1-server.rc"
}
listed siw 10.9.0.1 7320
listed rxe 10.9.0.2 7321
sleep 1
capture listing.json rdmastat -a -p -j
capture listing.txt rdmastat -a -p -e
capture rdma-qp.json rdma -j res show qp
# rdma names the creating thread (a -P server's worker): its process, for the judge.
for p in $(tr ',{' '\n\n' <"$R/rdma-qp.json" | sed -n 's/^"pid":\([0-9]*\).*/\1/p' | sort -u); do
	echo "$p $(awk '/^Tgid:/ { print $2 }' "/proc/$p/status")"
done >"$R/tgid.txt"
signalled siw
signalled rxe
# siw can strand the client's first message (pingopts.sh says how): then
# neither end completed a ping before the signals. That try is kept in
# long-siw.stranded, and the teardown runs again as long-siw-again, which the
# judge judges instead (the listing above stays the first try's).
if grep -q '"completed":0,' "$R/long-siw-client.json" &&
	grep -q '"completed":0,' "$R/long-siw-server.json"; then
	cat "$R/long-siw-client.json" "$R/long-siw-server.json" >"$R/long-siw.stranded"
	listed siw-again 10.9.0.1 7370
	sleep 1
	signalled siw-again
fi
sleep 0.5
capture after-long-cm_id.json rdma -j res show cm_id

lab_section "hostile clients against a persistent server"
# hostile DEV ADDR PORT: every bad client, a silent one held open while rping
# runs, then SIGINT.
hostile() {
	dev=$1 addr=$2 port=$3
	rdmastat ping -s -P -a "$addr" -p "$port" >"$R/hostile-$dev-server.out" \
		2>"$R/hostile-$dev-server.err" &
	s=$!
	echo "$s" >"$R/hostile-$dev-server.pid"
	lab_wait 10 lab_cm_listening "$port"
	for m in short long zerokey oversize badkey badhello; do
		capture "hostile-$dev-$m" rdmastat-hostile -a "$addr" -p "$port" -m "$m" -t 10
	done
	rdmastat-hostile -a "$addr" -p "$port" -m silent -t 4 >"$R/hostile-$dev-silent" 2>&1 &
	h=$!
	sleep 1
	capture "hostile-$dev-rping" rping -c -a "$addr" -p "$port" -S 64 -C 5 -V -v
	lab_reap "$h" "$R/hostile-$dev-silent.rc"
	kill -INT "$s"
	lab_reap "$s" "$R/hostile-$dev-server.rc"
}
hostile siw 10.9.0.1 7330
hostile rxe 10.9.0.2 7331
sleep 0.5
capture after-hostile-cm_id.json rdma -j res show cm_id

lab_section "lat and bw between two rdmastat ends"
# modes DEV ADDR PORT
modes() {
	dev=$1 addr=$2 port=$3
	rdmastat ping -s -P -a "$addr" -p "$port" -S 65536 --quiet >"$R/modes-$dev-server.out" 2>&1 &
	s=$!
	lab_wait 10 lab_cm_listening "$port"
	capture "lat-$dev.json" rdmastat ping -c -a "$addr" -p "$port" --lat -S 64 -C 300 -V -j
	capture "bw-$dev.json" rdmastat ping -c -a "$addr" -p "$port" --bw -S 65536 -C 2000 -j
	# Small writes: 64 B in bw, and in lat 256 B, the most sent inline (siw
	# refuses that much, so its QP falls back to none), on a QP of the
	# client's own (-q).
	capture "bw64-$dev.json" rdmastat ping -c -a "$addr" -p "$port" --bw -S 64 -C 5000 -j
	capture "lat256q-$dev.json" rdmastat ping -c -a "$addr" -p "$port" --lat -S 256 -C 100 -V -q -j
	# Only some bw writes ask for a completion (one in depth/4, and each
	# burst's last): a depth and a count that are no multiple of that, and a
	# duration alone, where the last burst is not known in advance.
	capture "bwodd-$dev.json" rdmastat ping -c -a "$addr" -p "$port" --bw -S 64 --depth 130 -C 1001 -j
	capture "bwt-$dev.json" rdmastat ping -c -a "$addr" -p "$port" --bw -S 4096 --duration 1 -j
	capture "bw-rping-$dev.txt" rping -c -a "$addr" -p "$port" -C 3 -V
	# 64 KiB exactly: one byte more than rping takes, between two rdmastat ends.
	capture "rping64k-$dev.json" rdmastat ping -c -a "$addr" -p "$port" -S 65536 -C 10 -V -j
	capture "lat-vs-rping-$dev.json" rdmastat ping -c -a "$addr" -p $((port + 10)) --lat -j
	kill -INT "$s"
	lab_reap "$s" "$R/modes-$dev-server.rc"
}
rping -s -a 10.9.0.1 -p 7350 >/dev/null 2>&1 &
rping -s -a 10.9.0.2 -p 7351 >/dev/null 2>&1 &
modes siw 10.9.0.1 7340
modes rxe 10.9.0.2 7341
killall rping 2>/dev/null

lab_section "IPv6, and a client's source address (-I)"
rdmastat ping -s -P -a fd00:9::1 -p 7360 --quiet >/dev/null 2>&1 &
s=$!
lab_wait 10 lab_cm_listening 7360
capture ipv6-siw.json rdmastat ping -c -a fd00:9::1 -I fd00:9::1 -p 7360 -C 5 -V -j
kill -INT "$s"
lab_reap "$s" "$R/ipv6-server.rc"

lab_section "errors"
capture err-noserver.txt rdmastat ping -c -a 10.9.0.1 -p 7399 -C 1
capture err-noroute.txt rdmastat ping -c -a 10.77.0.1 -p 7399 -C 1 --timeout 1000
capture err-size.txt rdmastat ping -c -a 10.9.0.1 -S 10
rdmastat ping -s -a 10.9.0.1 -p 7398 --quiet >/dev/null 2>&1 &
s=$!
lab_wait 10 lab_cm_listening 7398
capture err-inuse.txt rdmastat ping -s -a 10.9.0.1 -p 7398
kill -INT "$s"
lab_reap "$s" "$R/err-inuse-server.rc"
for f in "$R"/*.err "$R"/*.rc; do echo "== $f"; cat "$f"; done | head -300
