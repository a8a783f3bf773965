# rdmastat_kping.ko in the lab: the interop matrix (kping against rping and
# rdmastat ping, both ways, with validation, on siw and rxe, in the DMA and
# fast-registration modes), kernel-to-kernel remote invalidation, the write and
# read modes, the listing of kernel-owned ends, stop and rmmod in the middle of
# runs, the unprivileged user and bad parameters, and the deadlines: silent and
# vanished peers (rdmastat-hostile), a short SEND, a namespace deleted under a
# live run. Writes its evidence to $OUT/kping; the host-side [lab][kping] tests
# judge it.
. "$LAB/lib.sh"
R="$OUT/kping"
mkdir -p "$R/fixtures"
capture() { lab_capture "$R" "$@"; }
KO=/lib/modules/extra/rdmastat_kping.ko


# kstart NAME ARGS...: starts a run (JSON record in $R/NAME); prints its id.
kstart() {
	_f=$1
	shift
	capture "$_f" rdmastat kping start "$@" -j
	sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$R/$_f"
}

# kforget NAME: stops the run whose record is $R/NAME.
kforget() { rdmastat kping stop "$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$R/$1")" >/dev/null; }

kended() { rdmastat kping show "$1" -j | grep -q -E '"state":"(done|failed|stopped)"'; }

# kfinish ID NAME: waits for run ID to end, then stops it (its last record in $R/NAME).
kfinish() {
	lab_wait 20 kended "$1" || echo "run $1 did not end"
	capture "$2" rdmastat kping stop "$1" -j
}

addr_of() { [ "$1" = siw ] && echo 10.9.0.1 || echo 10.9.0.2; }

lab_setup || exit 1
# The interop matrix exercises the dma mode on purpose: allow it.
insmod "$KO" allow_unsafe_global_rkey=1 || exit 1
insmod /lib/modules/extra/rdmastat.ko 2>/dev/null

lab_section "interop matrix"
p=7400
for mem in dma frwr-local; do
	for dev in siw rxe; do
		a=$(addr_of $dev)
		# kping server, rping client
		id=$(kstart "ks-rping-$dev-$mem.start.json" -s -a "$a" -p $p --mem $mem)
		lab_wait 10 lab_cm_listening $p
		capture "ks-rping-$dev-$mem.client" rping -c -a "$a" -p $p -C 10 -S 64 -V -v
		kfinish "$id" "ks-rping-$dev-$mem.json"
		p=$((p + 1))
		# rping server, kping client (rping's server takes its own -S only)
		rping -s -a "$a" -p $p -S 4096 -v >"$R/kc-rping-$dev-$mem.server" \
			2>"$R/kc-rping-$dev-$mem.server.err" &
		s=$!
		lab_wait 10 lab_cm_listening $p
		capture "kc-rping-$dev-$mem.json" rdmastat kping start -c -a "$a" -p $p -C 10 \
			-S 4096 -V --mem $mem --wait -j
		lab_reap $s "$R/kc-rping-$dev-$mem.server.rc" 30
		kforget "kc-rping-$dev-$mem.json"
		p=$((p + 1))
		# kping server, rdmastat ping client
		id=$(kstart "ks-ping-$dev-$mem.start.json" -s -a "$a" -p $p --mem $mem)
		lab_wait 10 lab_cm_listening $p
		capture "ks-ping-$dev-$mem.client.json" rdmastat ping -c -a "$a" -p $p -C 10 \
			-S 1000 -V -j
		kfinish "$id" "ks-ping-$dev-$mem.json"
		p=$((p + 1))
		# rdmastat ping server, kping client
		rdmastat ping -s -a "$a" -p $p -j >"$R/kc-ping-$dev-$mem.server.json" 2>&1 &
		s=$!
		lab_wait 10 lab_cm_listening $p
		capture "kc-ping-$dev-$mem.json" rdmastat kping start -c -a "$a" -p $p -C 10 \
			-S 1000 -V --mem $mem --wait -j
		lab_reap $s "$R/kc-ping-$dev-$mem.server.rc" 30
		kforget "kc-ping-$dev-$mem.json"
		p=$((p + 1))
	done
done

lab_section "remote invalidation, kernel to kernel"
for dev in siw rxe; do
	a=$(addr_of $dev)
	id=$(kstart "remote-$dev.start.json" -s -a "$a" -p $p --mem frwr-remote)
	lab_wait 10 lab_cm_listening $p
	capture "remote-$dev-client.json" rdmastat kping start -c -a "$a" -p $p -C 10 -S 4096 \
		-V --mem frwr-remote --wait -j
	kfinish "$id" "remote-$dev-server.json"
	p=$((p + 1))
done
rdmastat kping show -j >"$R/after-matrix.json"

lab_section "write and read modes, and rdmastat ping --bw beside them"
for dev in siw rxe; do
	a=$(addr_of $dev)
	rdmastat ping -s -P -a "$a" -p $p -S 65536 --quiet >/dev/null 2>&1 &
	s=$!
	lab_wait 10 lab_cm_listening $p
	capture "bw-$dev.json" rdmastat kping start -c -a "$a" -p $p --mode write-bw -C 2000 \
		-S 65536 --depth 64 --wait -j
	capture "bw-user-$dev.json" rdmastat ping -c -a "$a" -p $p --bw -C 2000 -S 65536 \
		--depth 64 -j
	capture "lat-$dev.json" rdmastat kping start -c -a "$a" -p $p --mode write-lat -C 100 \
		-S 64 -V --wait -j
	kill -INT $s
	lab_reap $s "$R/modes-$dev-server.rc" 30
	p=$((p + 1))
	# a kping server follows the client's hello; it hears nothing while the
	# client writes, so its timeout covers the whole run
	id=$(kstart "bw-kserver-$dev.start.json" -s -a "$a" -p $p --timeout 60000)
	lab_wait 10 lab_cm_listening $p
	capture "bw-kserver-$dev-client.json" rdmastat ping -c -a "$a" -p $p --bw -C 2000 \
		-S 65536 --depth 64 -j
	kfinish "$id" "bw-kserver-$dev.json"
	p=$((p + 1))
	id=$(kstart "read-$dev.start.json" -s -a "$a" -p $p --mem frwr-local)
	lab_wait 10 lab_cm_listening $p
	capture "read-$dev.json" rdmastat kping start -c -a "$a" -p $p --mode read-lat -C 100 \
		-S 4096 --mem frwr-local --wait -j
	kfinish "$id" "read-$dev-server.json"
	p=$((p + 1))
done
# Ended runs stay listed until stopped: stop them all.
for id in $(rdmastat kping show -j | grep -o '"id":[0-9]*' | cut -d: -f2); do
	rdmastat kping stop "$id" >/dev/null
done
capture cleared.json rdmastat kping show -j

lab_section "long runs, listed, then stopped in the middle"
# kping server with an endless rping client; kping client (no count) with an rping server.
ks=$(kstart long-server.start.json -s -a 10.9.0.1 -p 7480 --mem frwr-local)
lab_wait 10 lab_cm_listening 7480
rping -c -a 10.9.0.1 -p 7480 -S 64 >/dev/null 2>&1 &
rc1=$!
rping -s -a 10.9.0.2 -p 7481 -S 64 >/dev/null 2>&1 &
rs1=$!
lab_wait 10 lab_cm_listening 7481
kc=$(kstart long-client.start.json -c -a 10.9.0.2 -p 7481 -S 64)
lab_wait 20 lab_cm_connected_ge 7480 2
lab_wait 20 lab_cm_connected_ge 7481 2
sleep 1
capture listing.txt rdmastat -a -p -e
capture listing.json rdmastat -a -p -j
capture listing-module.json rdmastat --source module -a -p -j
capture rdma-cm_id.json rdma -j res show cm_id
capture running.json rdmastat kping show -j
capture running.txt rdmastat kping show
capture fixtures.txt rdmastat-capture --kping "$R/fixtures"
capture lab-show.json su lab -c "rdmastat kping show -j"
# One run by its id: the family's single GET, for an unprivileged user too.
capture show-client.json rdmastat kping show "$kc" -j
capture lab-show-client.json su lab -c "rdmastat kping show $kc -j"
capture stop-server.json rdmastat kping stop "$ks"
capture stop-client.json rdmastat kping stop "$kc"
lab_reap $rc1 "$R/long-rping-client.rc" 30
lab_reap $rs1 "$R/long-rping-server.rc" 30
sleep 0.5
capture after-stop-cm_id.json rdma -j res show cm_id
capture after-stop.json rdmastat kping show -j

lab_section "the unprivileged user, bad parameters"
capture lab-start.txt su lab -c "rdmastat kping start -s -a 10.9.0.1 -p 7490"
capture lab-stop.txt su lab -c "rdmastat kping stop 1"
capture bad-size.txt rdmastat kping start -c -a 10.9.0.1 -p 7491 -S 3
capture bad-depth.txt rdmastat kping start -c -a 10.9.0.1 -p 7491 --mode write-bw --depth 5000
capture bad-stop.txt rdmastat kping stop 99999
capture bad-show.txt rdmastat kping show 99999
capture after-bad.json rdmastat kping show -j

lab_section "deadlines: silent and vanished peers, a short send, a server alone"
# kthread_pid ID: the pid of run ID's thread (kping/ID), or nothing.
kthread_pid() {
	_c=$(grep -lx "kping/$1" /proc/[0-9]*/comm 2>/dev/null | head -n 1)
	_c=${_c#/proc/}
	echo "${_c%/comm}"
}
# cpu_watch PID FILE: while thread PID lives, a line every 0.2 s: uptime (s),
# the thread's time on a CPU (ns, schedstat) and its utime + stime (ticks).
cpu_watch() {
	_pid=$1
	[ -n "$_pid" ] || { echo "no thread" >"$2.err"; return; }
	while _ss=$(cat "/proc/$_pid/schedstat" 2>/dev/null) &&
		_st=$(cut -d' ' -f14,15 "/proc/$_pid/stat" 2>/dev/null); do
		echo "$(cut -d' ' -f1 /proc/uptime) ${_ss%% *} ${_st% *} ${_st#* }" >>"$2"
		sleep 0.2
	done
}
now() { cut -d' ' -f1 /proc/uptime; }
# deadline NAME ADDR PORT MODE: a kping server with a 2 s timeout and
# rdmastat-hostile -m MODE as its client; the thread's CPU watched until the
# run ends.
deadline() {
	_id=$(kstart "$1.start.json" -s -a "$2" -p "$3" --timeout 2000)
	_tid=$(kthread_pid "$_id")
	lab_wait 10 lab_cm_listening "$3"
	rdmastat-hostile -a "$2" -p "$3" -m "$4" -t 15 >"$R/$1.peer" 2>&1 &
	_h=$!
	lab_wait_wall 10 grep -q "now silent" "$R/$1.peer"
	cpu_watch "$_tid" "$R/$1.cpu" &
	_w=$!
	lab_wait_wall 10 kended "$_id" || echo "run $_id did not end"
	now >"$R/$1.ended-at"
	wait $_w
	lab_reap $_h "$R/$1.peer.rc" 20
	capture "$1.json" rdmastat kping stop "$_id" -j
}
for dev in siw rxe; do
	a=$(addr_of $dev)
	# A write-latency client that advertises its sink and never writes.
	deadline "silent-lat-$dev" "$a" $p latsilent
	p=$((p + 1))
	# A client gone after one ping: the server waits for the next source.
	deadline "vanished-$dev" "$a" $p onceping
	p=$((p + 1))
	# A 12-byte advertisement to a kping server.
	id=$(kstart "short-$dev.start.json" -s -a "$a" -p $p)
	lab_wait 10 lab_cm_listening $p
	capture "short-$dev.peer" rdmastat-hostile -a "$a" -p $p -m short -t 10
	lab_wait_wall 10 kended "$id"
	capture "short-$dev.json" rdmastat kping stop "$id" -j
	p=$((p + 1))
done
# A server whose client never comes: 1 s.
now >"$R/alone.started-at"
id=$(kstart alone.start.json -s -a 10.9.0.1 -p $p --timeout 1000)
lab_wait_wall 10 kended "$id"
now >"$R/alone.ended-at"
capture alone.json rdmastat kping stop "$id" -j
p=$((p + 1))
capture bad-timeout-low.txt rdmastat kping start -s -a 10.9.0.1 -p $p --timeout 50
capture bad-timeout-high.txt rdmastat kping start -s -a 10.9.0.1 -p $p --timeout 3601000
capture after-deadlines.json rdmastat kping show -j

lab_section "a START whose answer cannot be delivered"
# The requester's socket is full (rdmastat-genlprobe kping-unread): START's
# reply is lost, and the run must go with it. The control: the same server,
# started and read as usual, is a run.
p=$((p + 1))
echo $p >"$R/unread.port"
capture unread.txt rdmastat-genlprobe kping-unread $p
capture unread-after.json rdmastat kping show -j
capture unread-cm_id.json "$LAB_RDMA" -j res show cm_id
id=$(kstart unread-control.json -s -a 10.9.0.1 -p $p)
capture unread-control-show.json rdmastat kping show -j
rdmastat kping stop "$id" >/dev/null
p=$((p + 1))

lab_section "a namespace deleted under live runs"
# kpns holds vk0 (10.7.0.1, with rxek on it) and a wildcard listener; vk0's
# veth peer vk1 stays here: veth deletes a pair together, so vk1 goes away
# when kpns is freed, and not before. In 6.1 and 6.12 no connection inside a
# namespace works in the lab (rxe answers from init_net, siw opens its
# sockets in the caller's namespace, here the kernel thread's), so the live
# runs are servers waiting for their client, holding their ids as any run does.
kpx() { "$LAB_IP" netns exec kpns "$@"; }
"$LAB_IP" netns add kpns &&
	"$LAB_IP" link add vk1 type veth peer name vk0 &&
	"$LAB_IP" link set vk0 netns kpns &&
	kpx "$LAB_IP" addr add 10.7.0.1/24 dev vk0 && kpx "$LAB_IP" link set lo up &&
	kpx "$LAB_IP" link set vk0 up && "$LAB_IP" link set vk1 up &&
	kpx "$LAB_RDMA" link add rxek type rxe netdev vk0 ||
	echo "kpns setup failed"
kpx readlink /proc/self/ns/net >"$R/ns-inode"
kpx rdmastat kping start -s -a 10.7.0.1 -p 7470 --timeout 6000 -j >"$R/ns-run1.json" 2>&1
kpx rdmastat kping start -s -a 0.0.0.0 -p 7471 --timeout 6000 -j >"$R/ns-run2.json" 2>&1
capture ns-before.json kpx rdmastat kping show -j
capture ns-host.json rdmastat kping show -j
for n in 1 2; do
	kthread_pid "$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$R/ns-run$n.json")" >"$R/ns-thread$n"
done
now >"$R/ns-deleted-at"
"$LAB_IP" netns del kpns
# Still there: the live runs hold kpns (their 6 s have not run out yet).
"$LAB_IP" link show vk1 >/dev/null 2>&1 && echo yes >"$R/ns-held-after-del" ||
	echo no >"$R/ns-held-after-del"
vk1_gone() { ! "$LAB_IP" link show vk1 >/dev/null 2>&1; }
if lab_wait_wall 20 vk1_gone; then echo yes; else echo no; fi >"$R/ns-freed"
now >"$R/ns-freed-at"
for n in 1 2; do
	t=$(cat "$R/ns-thread$n")
	[ -n "$t" ] && [ -d "/proc/$t" ] && echo "thread $t still there"
done >"$R/ns-threads-left"
capture ns-rdma-link.txt "$LAB_RDMA" link show
capture ns-after-cm_id.json "$LAB_RDMA" -j res show cm_id

lab_section "rmmod during runs"
kstart rmmod-listen.json -s -a 10.9.0.1 -p 7495 >/dev/null
kstart rmmod-server.json -s -a 10.9.0.2 -p 7496 >/dev/null
lab_wait 10 lab_cm_listening 7496
rping -c -a 10.9.0.2 -p 7496 -S 64 >/dev/null 2>&1 &
rc2=$!
rdmastat ping -s -a 10.9.0.1 -p 7497 --quiet >/dev/null 2>&1 &
s2=$!
lab_wait 10 lab_cm_listening 7497
kstart rmmod-client.json -c -a 10.9.0.1 -p 7497 --mode write-bw -S 4096 --depth 16 >/dev/null
kstart rmmod-connecting.json -c -a 10.9.0.1 -p 7498 >/dev/null
lab_wait 20 lab_cm_connected_ge 7496 2
lab_wait 20 lab_cm_connected_ge 7497 2
sleep 1
capture rmmod-before.json rdmastat kping show -j
capture rmmod.txt rmmod rdmastat_kping
lab_reap $rc2 "$R/rmmod-rping.rc" 30
lab_reap $s2 "$R/rmmod-ping-server.rc" 30
sleep 0.5
capture rmmod-after-cm_id.json rdma -j res show cm_id
grep -c '^rdmastat_kping ' /proc/modules >"$R/loaded-after" || true
# loaded again, it works again
insmod "$KO" && capture reload.json rdmastat kping show -j
rmmod rdmastat_kping
rmmod rdmastat 2>/dev/null
dmesg >"$R/dmesg.txt"
ls -l "$R" | head -100
