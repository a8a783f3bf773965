# The port-sharing story (issue: lsof and check): an rping server on siw holds
# TCP port 4567 through the host stack, so a plain TCP program cannot bind it,
# and ss shows the socket with no process. rdmastat lsof -i and check explain
# it. On rxe (RoCE: its own port space) the same port number binds fine.
# Writes evidence to $OUT/portshare; the [lab][lsof] tests judge it.
. "$LAB/lib.sh"
R="$OUT/portshare"
mkdir -p "$R"
capture() { lab_capture "$R" "$@"; }
lab_setup || exit 1

rping -s -a 10.9.0.1 -p 4567 >/tmp/rping-4567.log 2>&1 &
siw_server=$!
echo "$siw_server" >>/tmp/lab-rping.pids
lab_wait 10 lab_cm_listening 4567 || exit 1
rping -s -a 10.9.0.2 -p 4568 >/tmp/rping-4568.log 2>&1 &
echo "$!" >>/tmp/lab-rping.pids
lab_wait 10 lab_cm_listening 4568 || exit 1
# A connection too, so the rping server has QPs, CQs, MRs and PDs to list.
rping -c -a 10.9.0.1 -p 4567 >/tmp/rping-4567-c.log 2>&1 &
client=$!
echo "$client" >>/tmp/lab-rping.pids
lab_wait 20 lab_cm_connected_ge 4567 2 || exit 1
kill -STOP "$client"
echo "$siw_server" >"$R/siw-server-pid"

lab_section "The application cannot bind 4567 on siw's address"
capture bind-siw.txt rdmastat-bind 10.9.0.1 4567
cat "$R/bind-siw.txt"
lab_section "ss -tlnp: the port is taken, nobody owns it"
capture ss.txt ss -tlnp
cat "$R/ss.txt"
lab_section "rdmastat lsof -i :4567"
capture lsof-i.txt rdmastat lsof -i :4567
capture lsof-i.json rdmastat lsof -j -i :4567
cat "$R/lsof-i.txt"
lab_section "On rxe the same kind of port binds: RoCE has its own port space"
rdmastat-bind 10.9.0.2 4568 30 >"$R/bind-rxe.txt" 2>&1 &
binder=$!
lab_wait 10 grep -q bound "$R/bind-rxe.txt"
cat "$R/bind-rxe.txt"
lab_section "rdmastat check"
capture check.txt rdmastat check
capture check.json rdmastat check -j
cat "$R/check.txt"
echo "exit status $(cat "$R/check.txt.rc")"
kill "$binder"
lab_section "rdmastat lsof -p <rping server>"
capture lsof-p.txt rdmastat lsof -p "$siw_server"
capture lsof-p.json rdmastat lsof -j -p "$siw_server"
cat "$R/lsof-p.txt"
ls -l "/proc/$siw_server/fd" >"$R/proc-fd.txt"
capture rdma-res.json rdma -j res show
for kind in cm_id qp cq mr pd; do
	rdma -j res show "$kind" >"$R/rdma-$kind.json" 2>/dev/null
done
# The pids rdma reports are the creating threads: their processes, for the judge.
for p in $(cat "$R"/rdma-*.json | tr ',{' '\n\n' | sed -n 's/^"pid":\([0-9]*\).*/\1/p' | sort -u); do
	echo "$p $(awk '/^Tgid:/ { print $2 }' "/proc/$p/status")"
done >"$R/tgid.txt"
capture terse.txt rdmastat lsof -t -i :4567

lab_section "Without sock_diag: the same answers from /proc/net/tcp"
# With sock_diag (tcp_diag loaded on demand), then without: the modules
# unloaded and the kernel unable to load them again, as on a kernel built
# without INET_DIAG or in a container that refuses it.
nodiag_views() {
	capture "$1-lsof-i.json" rdmastat lsof -j -i :4567
	capture "$1-check.json" rdmastat check -j
	capture "$1-export.prom" rdmastat export
}
nodiag_views diag
cat /proc/net/tcp >"$R/proc-net-tcp.txt"
cat /proc/net/tcp6 >"$R/proc-net-tcp6.txt"
grep -E '^(tcp_diag|inet_diag) ' /proc/modules >"$R/diag-modules-before" || true
modprobe_path=$(cat /proc/sys/kernel/modprobe)
echo /nonexistent >/proc/sys/kernel/modprobe
rmmod tcp_diag 2>/dev/null
rmmod inet_diag 2>/dev/null
grep -E '^(tcp_diag|inet_diag) ' /proc/modules >"$R/diag-modules-after" || true
capture ss-nodiag.txt "$LAB_SS" -Htan
nodiag_views nodiag
echo "$modprobe_path" >/proc/sys/kernel/modprobe
lab_stop_pings
