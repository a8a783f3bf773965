# Network namespaces in the lab: a second namespace (ns1) with its own veth
# pair and its own siw and rxe devices, with rping inside it, first in the
# kernel's shared mode, then in exclusive mode (`rdma system set netns
# exclusive`, devices moved into ns1). For each mode, what the host and ns1
# see through NLDEV, the module and `rdma res show` in the same namespace.
# Writes its evidence to $OUT/netns/{shared,exclusive}; [lab][netns] judges it.
. "$LAB/lib.sh"
R="$OUT/netns"
mkdir -p "$R"

nsx() { "$LAB_IP" netns exec ns1 "$@"; }
ns_listening() { nsx "$LAB_RDMA" res show cm_id | grep -q "state LISTEN .* src-addr [^ ]*:$1 "; }
ns_connected() {
	[ "$(nsx "$LAB_RDMA" res show cm_id | grep "state CONNECT " |
		grep -c -e "-addr [^ ]*:$1 ")" -ge 2 ]
}

# ns_rping ADDR PORT LOG: an rping pair inside ns1; 0 once both ends connected.
# (ip netns exec execs rping in place, so $! is rping's pid for lab_stop_pings.)
# A pair not connected within 15 s never will be: rxe outside init_net on 6.1
# and 6.12 sends its connect request from init_net, nobody answers, and the
# client retries for a minute or more. The client is stopped then, so that the
# views taken next see a steady set of ids: the server's listener alone.
ns_rping() {
	"$LAB_IP" netns exec ns1 rping -s -a "$1" -p "$2" >"$3.server" 2>&1 &
	echo "$!" >>/tmp/lab-rping.pids
	lab_wait 10 ns_listening "$2" || return 1
	"$LAB_IP" netns exec ns1 rping -c -a "$1" -p "$2" >"$3.client" 2>&1 &
	_c=$!
	echo "$_c" >>/tmp/lab-rping.pids
	lab_wait_wall 15 ns_connected "$2" && return 0
	kill "$_c" 2>/dev/null
	wait "$_c" 2>/dev/null
	lab_wait 10 sh -c "! $LAB_IP netns exec ns1 $LAB_RDMA res show cm_id | grep -v 'state LISTEN' | grep -q -e '-addr [^ ]*:$2 '"
	return 1
}

# views DIR: every view of the ids, from the host and from ns1.
views() {
	for where in host ns1; do
		run=""
		[ "$where" = ns1 ] && run=nsx
		lab_capture "$1" "$where-nldev.json" $run rdmastat --source nldev -j -a
		lab_capture "$1" "$where-module.json" $run rdmastat --source module -j -a
		lab_capture "$1" "$where-rdma-cm_id.json" $run "$LAB_RDMA" -j res show cm_id
		lab_capture "$1" "$where-rdma-dev.json" $run "$LAB_RDMA" -j dev
		lab_capture "$1" "$where-netns" $run readlink /proc/self/ns/net
	done
	lab_capture "$1" "lab-ns1-module.json" nsx su lab -c "rdmastat --source module -j -a"
}

# ns1 with a veth pair inside it, addressed 10.8.0.1 (vn0) and 10.8.0.2 (vn1).
ns_up() {
	"$LAB_IP" netns add ns1 &&
		"$LAB_IP" link add vn0 type veth peer name vn1 &&
		"$LAB_IP" link set vn0 netns ns1 && "$LAB_IP" link set vn1 netns ns1 &&
		nsx "$LAB_IP" addr add 10.8.0.1/24 dev vn0 && nsx "$LAB_IP" addr add 10.8.0.2/24 dev vn1 &&
		nsx "$LAB_IP" link set lo up && nsx "$LAB_IP" link set vn0 up &&
		nsx "$LAB_IP" link set vn1 up
}

# set_mode MODE: the kernel refuses to switch while another namespace exists,
# and a deleted one goes away asynchronously: retry for a while.
set_mode() {
	lab_wait 20 "$LAB_RDMA" system set netns "$1" || "$LAB_RDMA" system set netns "$1"
}

ns_down() {
	lab_stop_pings
	"$LAB_IP" netns del ns1 2>/dev/null
	sleep 0.5
}

lab_setup || exit 1
insmod /lib/modules/extra/rdmastat.ko || exit 1
insmod /lib/modules/extra/rdmastat_kping.ko || exit 1
# The host's own ids beside ns1's: an rping pair on siw0 and on rxe0.
lab_rping_start 10.9.0.1 7174 && lab_rping_start 10.9.0.2 7175 || exit 1

lab_section "shared mode: ns1 makes its own siw1 and rxe1 on its veths"
D="$R/shared"
mkdir -p "$D"
set_mode shared || exit 1
ns_up || exit 1
nsx "$LAB_RDMA" link add siw1 type siw netdev vn0 || exit 1
nsx "$LAB_RDMA" link add rxe1 type rxe netdev vn1 || exit 1
# siw in ns1 works; whether rxe does outside init_net is the kernel's
# business: the outcome is recorded, not assumed.
ns_rping 10.8.0.1 7700 "$D/rping-siw"
echo $? >"$D/rping-siw.rc"
ns_rping 10.8.0.2 7701 "$D/rping-rxe"
echo $? >"$D/rping-rxe.rc"
views "$D"
lab_stop_pings

lab_section "a kping run inside ns1, then ns1 deleted: the namespace goes away"
# On 6.1 neither soft device carries a kernel consumer's connection outside
# init_net (siw makes its TCP sockets in the calling thread's namespace, rxe
# has its UDP socket in init_net), so this run ends failed; what matters is
# that the ended run no longer keeps the deleted namespace alive.
"$LAB_IP" netns exec ns1 rping -s -a 10.8.0.1 -p 7710 >/dev/null 2>&1 &
rs=$!
lab_wait 10 ns_listening 7710 || exit 1
lab_capture "$D" kping-start.json nsx rdmastat kping start -c -a 10.8.0.1 -p 7710 -j
kid=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$D/kping-start.json")
ns_ended() { nsx rdmastat kping show "$kid" -j | grep -q -E '"state":"(done|failed|stopped)"'; }
lab_wait 30 ns_ended
lab_capture "$D" kping-ns1-show.json nsx rdmastat kping show -j
lab_capture "$D" kping-host-show.json rdmastat kping show -j
kill -KILL "$rs"
wait "$rs" 2>/dev/null
"$LAB_IP" netns del ns1
# ns1's siw1 lives on ns1's veth: it goes when the namespace is freed.
siw1_gone() { ! "$LAB_RDMA" dev | grep -q ' siw1:'; }
if lab_wait 30 siw1_gone; then echo freed >"$D/ns1-after-delete"; else echo kept >"$D/ns1-after-delete"; fi
"$LAB_RDMA" -j dev >"$D/devices-after-delete.json"
lab_capture "$D" kping-host-after.json rdmastat kping show -j

lab_section "exclusive mode: ns1 may only use devices moved into it"
D="$R/exclusive"
mkdir -p "$D"
set_mode exclusive || exit 1
"$LAB_RDMA" system show netns >"$D/system"
lab_rping_start 10.9.0.1 7174 && lab_rping_start 10.9.0.2 7175 || exit 1
ns_up || exit 1
# Both ways of giving ns1 a soft device; the kernel's answers are recorded.
lab_capture "$D" link-add-in-ns1 nsx "$LAB_RDMA" link add siw1 type siw netdev vn0
"$LAB_IP" link add vx0 type veth peer name vx1
"$LAB_RDMA" link add siw2 type siw netdev vx0
lab_capture "$D" dev-set-netns "$LAB_RDMA" dev set siw2 netns ns1
views "$D"
"$LAB_RDMA" link delete siw2
"$LAB_IP" link delete vx0
ns_down
set_mode shared || exit 1
"$LAB_RDMA" system show netns >"$D/system-after"
"$LAB_RDMA" -j dev >"$D/devices-after.json"
lab_stop_pings
rmmod rdmastat_kping && echo 0 >"$R/rmmod-kping.rc" || echo 1 >"$R/rmmod-kping.rc"
rmmod rdmastat
dmesg >"$R/dmesg.txt"
