# shellcheck shell=sh
# Capture: raw NLDEV and sock_diag dump bytes (rdmastat-capture) with the
# referee's view (`rdma -j`, `ss`) of the same moment, for the unit tests in
# tests/fixtures. Connections are held still (clients stopped) so both views agree.
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
set -e
F="$OUT/fixtures"
mkdir -p "$F"
lab_setup
lab_rping_all
# Plain TCP sockets held by a process, beside siw's kernel sockets: an idle
# listener on 7181 and a connection on 7180 (busybox nc listens on [::], which
# ss shows as *; its client connects over IPv4), all in the sock_diag dumps.
nc -l -p 7181 </dev/null >/dev/null 2>&1 &
sleep 600 | nc -l -p 7180 >/dev/null 2>&1 &
lab_wait_port '*' 7180
lab_wait_port '*' 7181
sleep 600 | nc 10.9.0.1 7180 >/dev/null 2>&1 &
lab_wait 10 sh -c "$LAB_SS -Htn state established | grep -qF ':7180 '"
rdmastat-capture "$F"
rdma -j res show cm_id >"$F/rdma-cm_id.json"
rdma -j res show qp >"$F/rdma-qp.json"
rdma -j dev show >"$F/rdma-dev.json"
rdma -j link show >"$F/rdma-link.json"
rdma -j res show cq >"$F/rdma-cq.json"
rdma -j res show mr >"$F/rdma-mr.json"
rdma -j res show pd >"$F/rdma-pd.json"
rdma -j res show ctx >"$F/rdma-ctx.json"
rdma -j statistic show link rxe0/1 >"$F/rdma-stat.json" # siw has none
ss -Htanpe >"$F/ss-tanpe.txt"
# /proc/net/tcp and tcp6 with sock_diag bytes of the same moment: the fallback
# parser's input and its referee.
mkdir -p /tmp/procnet && rdmastat-capture /tmp/procnet >/dev/null
cat /proc/net/tcp >"$F/proc-net-tcp.txt"
cat /proc/net/tcp6 >"$F/proc-net-tcp6.txt"
cp /tmp/procnet/sockdiag-ipv4.bin "$F/proc-net-sockdiag-ipv4.bin"
cp /tmp/procnet/sockdiag-ipv6.bin "$F/proc-net-sockdiag-ipv6.bin"
# What acquire() collects with every need, as root and as an unprivileged user
# (who may not read root's fds and gets no MR keys); and every fd of the rping
# processes as /proc shows it: "pid fd target" per line.
rdmastat-capture --snapshot "$F/snapshot-host.json"
su lab -c "/usr/local/bin/rdmastat-capture --snapshot -" >"$F/snapshot-host-user.json"
for p in $(pidof rping); do
	for fd in /proc/"$p"/fd/*; do
		echo "$p ${fd##*/} $(readlink "$fd")"
	done
done >"$F/rping-fds.txt"
# Owners as /proc shows them, for the join test: "pid uid comm" per line.
for p in $(rdma res show cm_id | sed -n 's/.* pid \([0-9]*\) .*/\1/p' | sort -u); do
	echo "$p $(awk '/^Uid:/ { print $2 }' "/proc/$p/status") $(cat "/proc/$p/comm")"
done >"$F/owners.txt"
[ ! -x /usr/local/bin/rdmastat ] || rdmastat -j -a --pretty >"$F/snapshot.json"
# The port statistics again after a second of traffic (every rping resumed):
# two readings of the same counters, for the rate tests.
xargs kill -CONT </tmp/lab-rping.pids || true # a client that ended meanwhile is no error
sleep 1
mkdir -p /tmp/later
rdmastat-capture --stats /tmp/later >/dev/null
cp /tmp/later/stat-rxe0-1.bin "$F/stat-rxe0-1-later.bin"
lab_stop_pings

# SRQs: on each device a perftest ib_send_bw server receiving on a shared
# receive queue through 3 QPs (--use-srq -q 3), with its client. Both are held
# still while the SRQ dumps, rdma's view and each server's lsof are taken;
# srq-servers.txt says which pid serves on which device ("dev pid" per line).
srq_port=7300
: >"$F/srq-servers.txt"
for pair in siw0:10.9.0.1 rxe0:10.9.0.2; do
	dev=${pair%%:*} addr=${pair#*:}
	ib_send_bw -R -F -d "$dev" -p "$srq_port" --use-srq -q 3 -D 120 >"/tmp/srq-s-$dev.log" 2>&1 &
	s=$!
	lab_wait 10 lab_cm_listening "$srq_port"
	ib_send_bw -R -F -d "$dev" -p "$srq_port" --use-srq -q 3 -D 120 "$addr" >"/tmp/srq-c-$dev.log" 2>&1 &
	c=$!
	lab_wait 30 sh -c "[ \$($LAB_RDMA res show qp | grep -c ' pid $s ') -ge 3 ]"
	lab_wait 30 sh -c "$LAB_RDMA res show srq | grep -q '^dev $dev .* pid $s '"
	kill -STOP "$s" "$c"
	echo "$dev $s" >>"$F/srq-servers.txt"
	srq_pids="${srq_pids:-} $s $c"
	srq_port=$((srq_port + 1))
done
mkdir -p /tmp/srq
rdmastat-capture /tmp/srq >/dev/null
cp /tmp/srq/srq-siw0.bin /tmp/srq/srq-rxe0.bin "$F/"
rdma -j res show srq >"$F/rdma-srq.json"
if [ -x /usr/local/bin/rdmastat ]; then
	while read -r dev pid; do
		rdmastat lsof -j -p "$pid" >"$F/srq-lsof-$dev.json"
	done <"$F/srq-servers.txt"
fi
# shellcheck disable=SC2086 # one word per pid
{
	kill -CONT $srq_pids 2>/dev/null || true # one that ended meanwhile is no error
	kill $srq_pids 2>/dev/null || true
	wait $srq_pids 2>/dev/null || true
}

# Enough ids that one device's cm_id dump spans several messages.
rdmastat-cmids -a 10.9.0.1 -n 400 -t 120 >/tmp/cmids.out &
ids=$!
lab_wait 60 grep -q ready /tmp/cmids.out
mkdir -p /tmp/many
rdmastat-capture /tmp/many >/dev/null
cp /tmp/many/cm_id-siw0.bin "$F/cm_id-many-siw0.bin"
rdma -j res show cm_id dev siw0 >"$F/rdma-cm_id-many.json"
kill "$ids"
wait "$ids" || true
# rping's own payload as its -v prints it, 60 pings (its letters wrap after 58):
# what rdmastat ping's client must send.
rping -s -a 10.9.0.1 -p 7190 -S 64 >/dev/null 2>&1 &
lab_wait 10 lab_cm_listening 7190
rping -c -a 10.9.0.1 -p 7190 -S 64 -C 60 -v >"$F/rping-v-64.txt"
ls -l "$F"
