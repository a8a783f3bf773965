# shellcheck shell=sh
# Container attribution: rping servers in cgroups named as docker, containerd
# (CRI, systemd driver), cri-o (cgroupfs driver) and podman name them, and one
# in a plain cgroup. The scenario writes what it made ($OUT/containers/made:
# port, cgroup path, runtime, id, pod UID, QoS) and what rdmastat said: the
# JSON listing, -e, the filters, export with and without --per-container,
# lsof -j, and -E of clients connecting from the docker container and from
# the plain cgroup; then a process at its rdma cgroup's limit (rdma.max) and
# what rdmastat says of that cgroup.
# [lab][containers] in tests/lab/judges/containers.cpp judges them.
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
# No set -e: lab_capture records each command's status for the tests.
C="$OUT/containers"
mkdir -p "$C"
lab_setup || echo "containers: lab_setup failed"
G=/sys/fs/cgroup
grep -q " $G cgroup2 " /proc/mounts || mount -t cgroup2 none "$G"

hex() { printf '%s' "$1" | sha256sum | cut -c1-64; }
uid1=5f0c9a7e-8b1d-4c2e-9f3a-0d4b6c8e1a27
uid2=a3e1c5d7-2b4f-4a6c-8e0d-1f3b5d7f9a2c
uid1_=$(echo "$uid1" | tr - _)
d=$(hex docker)
c=$(hex containerd)
o=$(hex crio)
p=$(hex podman)
# port address cgroup runtime id pod qos
cat >"$C/made" <<EOF
7340 10.9.0.1 /system.slice/docker-$d.scope docker $d - -
7341 10.9.0.2 /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$uid1_.slice/cri-containerd-$c.scope containerd $c $uid1 burstable
7342 10.9.0.2 /kubepods/besteffort/pod$uid2/crio-$o crio $o $uid2 besteffort
7343 10.9.0.2 /machine.slice/libpod-$p.scope/container podman $p - -
7344 10.9.0.2 /lab.slice/plain.scope - - - -
EOF

pids=
while read -r port addr path _; do
	mkdir -p "$G$path" || echo "containers: cannot make $G$path"
	# The shell joins the cgroup, then becomes rping: the server's pid is in it.
	sh -c "echo \$\$ >$G$path/cgroup.procs && exec rping -s -a $addr -p $port" \
		>/dev/null 2>&1 &
	pids="$pids $!"
	lab_wait 10 lab_cm_listening "$port" || echo "containers: no listener on $port"
	cp "/proc/$!/cgroup" "$C/cgroup-$port" || true
done <"$C/made"

insmod /lib/modules/extra/rdmastat.ko 2>/dev/null || true
lab_capture "$C" all.json rdmastat -j -a
lab_capture "$C" module.json rdmastat --source module -j -a
lab_capture "$C" nldev.json rdmastat --source nldev -j -a
lab_capture "$C" listing.txt rdmastat -a -e
lab_capture "$C" f-docker.json rdmastat -j -a container docker
lab_capture "$C" f-prefix.json rdmastat -j -a container "$(echo "$c" | cut -c1-8)"
lab_capture "$C" f-besteffort.json rdmastat -j -a pod besteffort
lab_capture "$C" f-kubepods.json rdmastat -j -a cgroup /kubepods.slice
lab_capture "$C" f-not.json rdmastat -j -a not cgroup /kubepods and not cgroup /kubepods.slice
lab_capture "$C" metrics.prom rdmastat export --per-container
lab_capture "$C" metrics-off.prom rdmastat export
lab_capture "$C" lsof.json rdmastat lsof -j

# -E follows ids born while it traces: a client in the docker container
# connects to the server there, one in the plain cgroup to the cri-o pod's.
# One -E sees everything, one only the besteffort pod.
rdmastat -E -j >/tmp/ce-all.jsonl 2>"$C/events-all.err" &
e_all=$!
rdmastat -E -j pod besteffort >/tmp/ce-pod.jsonl 2>"$C/events-pod.err" &
e_pod=$!
lab_tracer_ready "$C/events-all.err" || echo "containers: -E never ready"
lab_tracer_ready "$C/events-pod.err" || echo "containers: -E pod never ready"
# The clients ping until both tracers have written an ESTABLISHED of their
# connection: each end's first record was read while its process lived.
sh -c "echo \$\$ >$G/system.slice/docker-$d.scope/cgroup.procs &&
	exec rping -c -a 10.9.0.1 -p 7340" >/dev/null 2>&1 &
c1=$!
sh -c "echo \$\$ >$G/lab.slice/plain.scope/cgroup.procs &&
	exec rping -c -a 10.9.0.2 -p 7342" >/dev/null 2>&1 &
c2=$!
for w in ce-all:7340 ce-all:7342 ce-pod:7342; do
	lab_wait 20 sh -c "grep '\"cm_event\":\"ESTABLISHED\"' /tmp/${w%:*}.jsonl |
		grep -q '\"port\":${w#*:}[,}]'" || echo "containers: ${w%:*} never saw ${w#*:} up"
done
kill "$c1" "$c2" || echo "containers: a client ended early"
for f in ce-all ce-pod; do
	lab_wait 20 sh -c "grep '\"event\":\"closed\"' /tmp/$f.jsonl | grep -q '\"port\":7342[,}]'" ||
		echo "containers: $f never saw 7342's ends close"
done
lab_wait 20 sh -c "grep '\"event\":\"closed\"' /tmp/ce-all.jsonl | grep -q '\"port\":7340[,}]'" ||
	echo "containers: -E never saw 7340's ends close"
kill -INT "$e_all" "$e_pod"
lab_reap "$e_all" "$C/events-all.rc"
lab_reap "$e_pod" "$C/events-pod.rc"
cp /tmp/ce-all.jsonl "$C/events-all.jsonl"
cp /tmp/ce-pod.jsonl "$C/events-pod.jsonl"

# The rdma cgroup controller: a cgroup whose rdma.max allows rxe0 two device
# contexts and 4 objects. rdmastat-verbsqps in it opens rxe0 and makes a PD,
# a CQ and QPs until the kernel refuses one, then holds what it made. The
# cgroup's own files (rdma.current, rdma.max) are the referee.
L=$G/lab.slice/limited.scope
cp "$G/cgroup.controllers" "$C/rdmacg-controllers"
{ echo +rdma >"$G/cgroup.subtree_control" && echo +rdma >"$G/lab.slice/cgroup.subtree_control" &&
	mkdir -p "$L" && echo "rxe0 hca_handle=2 hca_object=4" >"$L/rdma.max"; } 2>"$C/rdmacg-setup.err" ||
	echo "containers: cannot set up the rdma cgroup: $(cat "$C/rdmacg-setup.err")"
echo /lab.slice/limited.scope >"$C/rdmacg-path"
sh -c "echo \$\$ >$L/cgroup.procs && exec rdmastat-verbsqps -d rxe0 -n 8 -k -t 600" \
	>"$C/rdmacg-verbsqps.out" 2>&1 &
vq=$!
echo "$vq" >"$C/rdmacg-pid"
lab_wait 20 grep -q '^ready' "$C/rdmacg-verbsqps.out" ||
	echo "containers: rdmastat-verbsqps never ready: $(cat "$C/rdmacg-verbsqps.out")"
cp "$L/rdma.current" "$C/rdmacg-current"
cp "$L/rdma.max" "$C/rdmacg-max"
lab_capture "$C" rdmacg.json rdmastat -j -a
lab_capture "$C" rdmacg.txt rdmastat -a -e
lab_capture "$C" rdmacg-lsof.json rdmastat lsof -j -p "$vq"
lab_capture "$C" rdmacg-lsof.txt rdmastat lsof -p "$vq"
lab_capture "$C" rdmacg.prom rdmastat export
cp "$L/rdma.current" "$C/rdmacg-current-after"
kill "$vq" 2>/dev/null
wait "$vq" 2>/dev/null
# The controller off again for the scenarios after this one.
rmdir "$L" 2>/dev/null
echo -rdma >"$G/lab.slice/cgroup.subtree_control" 2>/dev/null
echo -rdma >"$G/cgroup.subtree_control" 2>/dev/null

for pid in $pids; do
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
done
echo "containers: done"
