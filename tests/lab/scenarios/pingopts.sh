# rping's command line in rdmastat ping: each option of rping, with rping's
# meaning, run against real rping in both roles (rdmastat ping client with an
# rping server, rping client with an rdmastat ping server), on siw and rxe.
# Where rping itself differs (bookworm's rping server ignores -C; its -q
# client fails on iWARP) the outcome is recorded and the test says so.
# Writes evidence to $OUT/pingopts; the [lab][pingopts] tests judge it.
. "$LAB/lib.sh"
R="$OUT/pingopts"
mkdir -p "$R"

# run_pair NAME PORT "SERVER ARGS" "CLIENT ARGS": a server (rping or rdmastat
# ping, as the args say) on PORT, then the client; both outputs and exit
# statuses in $R/NAME.{server,client}{,.rc}.
run_pair() {
	_n=$1 _p=$2
	# shellcheck disable=SC2086
	$3 -p "$_p" >"$R/$_n.server" 2>&1 &
	_s=$!
	lab_wait 10 lab_cm_listening "$_p" || echo "$_n: server did not listen"
	# shellcheck disable=SC2086
	$4 -p "$_p" >"$R/$_n.client" 2>&1 &
	lab_reap $! "$R/$_n.client.rc" 15
	lab_reap "$_s" "$R/$_n.server.rc" 15
}

# pair: run_pair, and once more on siw when the kernel stranded the client's
# first message. siw reads a socket's data from its data_ready callback only
# when it gets the QP's state lock at once (a trylock) and the QP is in RTS: a
# message that lands while the accepting side is still moving the QP is left
# in the socket, and nothing reads it until more data comes, which an rping
# client waiting for its answer never sends. rdmastat ping's server then
# shows "completed 0" when the client is killed. The first try is kept in
# $R/NAME.stranded, which the judge counts.
pair() {
	run_pair "$@"
	if [ "${1%%-*}" = siw ] && [ "$(cat "$R/$1.client.rc")" != 0 ] &&
		grep -q '^completed 0 ' "$R/$1.server"; then
		cat "$R/$1.server" "$R/$1.client" >"$R/$1.stranded"
		run_pair "$1" $(($2 + 300)) "$3" "$4"
	fi
}

lab_setup || exit 1
SAME_RUNS=10
p=7800
for dev in siw rxe; do
	a=10.9.0.1
	[ "$dev" = rxe ] && a=10.9.0.2
	lab_section "$dev: -C, -v, -V, -S, -q, -d, -I, -P against rping"
	# -C and -v on the client, each way.
	pair "$dev-v-c2r" $p "rping -s -a $a" "rdmastat ping -c -a $a -C 3 -v"
	pair "$dev-v-r2c" $((p + 1)) "rdmastat ping -s -a $a" "rping -c -a $a -C 3 -v"
	# -C on the server: it serves that many pings and leaves.
	pair "$dev-sc-c2r" $((p + 2)) "rping -s -a $a -C 3" "rdmastat ping -c -a $a -C 10"
	pair "$dev-sc-r2c" $((p + 3)) "rdmastat ping -s -a $a -C 3" "rping -c -a $a -C 10"
	# -S at rping's limits, -V on.
	pair "$dev-smin-c2r" $((p + 4)) "rping -s -a $a -S 26" "rdmastat ping -c -a $a -C 2 -S 26 -V"
	pair "$dev-smax-r2c" $((p + 5)) "rdmastat ping -s -a $a -S 65535" \
		"rping -c -a $a -C 2 -S 65535 -V"
	# -q: a QP made with verbs and moved by the program, on either side.
	# rping's own -q client fails on iWARP (its rdma_establish is refused),
	# so there the server's -q meets rdmastat ping's -q client instead.
	pair "$dev-q-c2r" $((p + 6)) "rping -s -a $a -q" "rdmastat ping -c -a $a -C 3 -V -q"
	qclient="rping -c -a $a -C 3 -V -q"
	[ "$dev" = siw ] && qclient="rdmastat ping -c -a $a -C 3 -V -q"
	pair "$dev-q-r2c" $((p + 7)) "rdmastat ping -s -a $a -q" "$qclient"
	# -d: debug, and -I: the client's source address (the same host's).
	pair "$dev-d-c2r" $((p + 8)) "rping -s -a $a" "rdmastat ping -c -a $a -I $a -C 2 -d -j"
	pair "$dev-d-r2c" $((p + 9)) "rdmastat ping -s -a $a -d" "rping -c -a $a -I $a -C 2 -d"
	# -P: a persistent server takes clients one after the other.
	q=$((p + 10))
	rdmastat ping -s -P -a "$a" -p $q >"$R/$dev-P.server" 2>&1 &
	ps_=$!
	lab_wait 10 lab_cm_listening $q
	rping -c -a "$a" -p $q -C 2 -V >"$R/$dev-P.client1" 2>&1
	echo $? >"$R/$dev-P.client1.rc"
	rping -c -a "$a" -p $q -C 2 -V >"$R/$dev-P.client2" 2>&1
	echo $? >"$R/$dev-P.client2.rc"
	lab_cm_listening $q && echo listening >"$R/$dev-P.after" || echo gone >"$R/$dev-P.after"
	kill -INT $ps_
	lab_reap $ps_ "$R/$dev-P.server.rc" 15
	# -C on both ends, the same count: rping's client ends every time (it
	# used to hang, now and then, when our server left first), SAME_RUNS
	# times on each device, each on a port of its own.
	k=1
	while [ "$k" -le "$SAME_RUNS" ]; do
		pair "$dev-same-$k" $((q + 100 + k)) "rdmastat ping -s -a $a -C 20" \
			"rping -c -a $a -C 20 -V"
		k=$((k + 1))
	done
	p=$((p + 20))
done
echo "$SAME_RUNS" >"$R/same-runs"
