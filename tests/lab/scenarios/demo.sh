# shellcheck shell=sh
# Demo (make demo): the story rdmastat was made for, on a real kernel RDMA
# stack (soft iWARP siw0 on 10.9.0.1, soft RoCE rxe0 on 10.9.0.2). An iWARP
# listener takes a TCP port from the host stack, and a TCP service cannot have
# it: ss sees the port taken and no owner, rdmastat lsof -i names the holder,
# rdmastat check explains the conflict. Then connections that come and go
# (-E, with a refused client's reason, and life), a container's listener in
# the listing, and the verdict as metrics. Each step is one screen at most,
# with a line saying what to notice.
. "$LAB/lib.sh"

run() {
	echo "\$ $*"
	"$@"
	r=$?
	[ "$r" -lt 128 ] || { echo "demo: '$*' died (status $r)"; exit 1; }
	return "$r"
}
notice() { echo "# $*"; }

lab_setup || exit 1
# An rping server on siw's address, port 4567, with one client connected: an
# application using RDMA over iWARP.
rping -s -a 10.9.0.1 -p 4567 >/dev/null 2>&1 &
echo "$!" >>/tmp/lab-rping.pids
lab_wait 10 lab_cm_listening 4567 || exit 1
rping -c -a 10.9.0.1 -p 4567 >/dev/null 2>&1 &
client=$!
echo "$client" >>/tmp/lab-rping.pids
lab_wait 20 lab_cm_connected_ge 4567 2 || exit 1
kill -STOP "$client"

lab_section "1. A TCP service wants port 4567 on the iWARP address"
notice "iWARP runs over TCP: siw's listener took 4567 from the host's TCP stack"
run rdmastat-bind 10.9.0.1 4567

lab_section "2. ss: the port is taken, and no process owns it"
notice "the RDMA side is invisible: a kernel socket, no users:(...)"
run ss -tlnp 'sport = :4567'

lab_section "3. rdmastat lsof -i :4567 names every holder"
notice "the rping server's pid, its cm_id, and the kernel socket iWARP holds for it"
run rdmastat lsof -i :4567

lab_section "4. rdmastat check explains it"
notice "siw runs on the host's TCP stack, so the host knows the port: OK, and the reason"
notice "names siw's kernel socket. On a hardware iWARP RNIC (cxgb4, irdma) a host socket on"
notice "the port is a CONFLICT, exit status 1: both stacks claim it (the lab has no RNIC)"
run rdmastat check
echo "exit status $?"

lab_section "5. rdmastat -E: a refused client, and a connection that comes and goes"
rdmastat -E >/tmp/demo-events.txt 2>/tmp/demo-events.err &
ev=$!
rdmastat life >/tmp/demo-life.txt 2>/tmp/demo-life.err &
lf=$!
# Both say on stderr when they are ready; what happens after that is reported.
lab_tracer_ready /tmp/demo-events.err && lab_tracer_ready /tmp/demo-life.err ||
	echo "demo: -E or life never said it was ready"
rdmastat-reject 10.9.0.2 7307 1 >/dev/null 2>&1 &
rj=$!
lab_wait 10 lab_cm_listening 7307
timeout 20 rping -c -a 10.9.0.2 -p 7307 -C 1 >/dev/null 2>&1
lab_reap "$rj" /tmp/demo-reject.rc 20
rping -s -a 10.9.0.2 -p 7220 -C 3 >/dev/null 2>&1 &
lab_wait 10 lab_cm_listening 7220
rping -c -a 10.9.0.2 -p 7220 -C 3 >/dev/null 2>&1
# The user-visible end: both tools have printed the short connection's close.
lab_wait 20 grep -q ':7220 .*closed\|closed.*:7220' /tmp/demo-events.txt
lab_wait 20 grep -q ':7220' /tmp/demo-life.txt
kill "$ev" "$lf"
wait "$ev" "$lf" 2>/dev/null
notice "the reject on 7307 carries its reason; 7220 is seen from request to close"
echo "\$ rdmastat -E"
head -1 /tmp/demo-events.err
# Without the date, so that a line fits a screen.
grep -E ':(7307|7220)' /tmp/demo-events.txt | sed 's/^[0-9-]*T//' | cut -c1-190 | head -24

lab_section "6. rdmastat life: a line per connection as it ends"
notice "how long each handshake took, how long each lived, and how it ended (a reject: why)"
echo "\$ rdmastat life"
grep -E '^[A-Za-z]|:7220|:7307' /tmp/demo-life.txt | head -8

lab_section "7. Containers: whose listener is it?"
G=/sys/fs/cgroup
grep -q " $G cgroup2 " /proc/mounts || mount -t cgroup2 none "$G"
id=$(printf demo | sha256sum | cut -c1-64)
mkdir -p "$G/system.slice/docker-$id.scope"
sh -c "echo \$\$ >$G/system.slice/docker-$id.scope/cgroup.procs && exec rping -s -a 10.9.0.2 -p 7340" \
	>/dev/null 2>&1 &
echo "$!" >>/tmp/lab-rping.pids
lab_wait 10 lab_cm_listening 7340 || exit 1
notice "a server started in a docker container's cgroup: -e names the container"
run rdmastat -a -e

lab_section "8. rdmastat export: the same verdict as metrics for Prometheus"
notice "rdmastat_port_checks{verdict=\"CONFLICT\"} is what the shipped alert rule watches"
run sh -c "rdmastat export | grep -E '^rdmastat_(port_checks|connections)[{ ]' | head -12"

lab_stop_pings
