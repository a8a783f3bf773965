# NFS over RDMA, the kernel's own: nfsd listens on RDMA port 20049 (every
# address: siw0's 10.9.0.1 and rxe0's 10.9.0.2) and the kernel NFS client
# mounts it over RDMA, lists and unmounts, in a loop, while root and the lab
# user dump rdmastat.ko in loops. No nfs-utils in the guest: nfsd is driven
# through /proc/fs/nfsd, and the export caches that mountd would fill are
# answered by hand (auth.unix.ip, nfsd.fh, nfsd.export channels). Evidence in
# $OUT/nfs; the host-side [lab][nfs] tests judge it.
. "$LAB/lib.sh"
R="$OUT/nfs"
mkdir -p "$R"
capture() { lab_capture "$R" "$@"; }
now() { cut -d. -f1 /proc/uptime; }
PORT=20049
# An expiry far in the future (seconds since the epoch) for the cache entries.
FOREVER=2147483647
DOMAIN=lab

lab_setup || exit 1
insmod /lib/modules/extra/rdmastat.ko || exit 1
# This scenario's part of the kernel log: lines after these.
dmesg0=$(dmesg | wc -l)
nfs_dmesg() { dmesg | tail -n +$((dmesg0 + 1)); }

lab_section "modules"
for m in nfsd rpcrdma nfsv4; do
	modprobe "$m" || {
		echo "nfs: modprobe $m failed" >&2
		exit 1
	}
done

lab_section "the server: nfsd on RDMA port $PORT, exporting a tmpfs as the NFSv4 root"
mkdir -p /srv/nfs /proc/fs/nfsd
mount -t tmpfs -o size=4m,mode=755 nfsroot /srv/nfs || exit 1
echo "hello over rdma" >/srv/nfs/hello
mkdir /srv/nfs/dir
mount -t nfsd nfsd /proc/fs/nfsd || exit 1
# Versions and times only while no server exists: before the port list.
# NFSv4.1 and 4.2 only: v3 would start lockd, which registers with rpcbind.
echo "-3 -4.0 +4.1 +4.2" >/proc/fs/nfsd/versions || exit 1
cat /proc/fs/nfsd/versions >"$R/versions"
echo 10 >/proc/fs/nfsd/nfsv4leasetime
echo 10 >/proc/fs/nfsd/nfsv4gracetime
# "rdma PORT" makes an anonymous (not registered) svcrdma listener on the
# wildcard address, IPv4 and IPv6: rdma_cm listens on every device.
echo "rdma $PORT" >/proc/fs/nfsd/portlist || exit 1
echo 4 >/proc/fs/nfsd/threads || exit 1
cat /proc/fs/nfsd/portlist >"$R/portlist"
cat /proc/fs/nfsd/threads >"$R/threads"

# mountd's answers. auth.unix.ip: "class address expiry domain" (creates the
# domain); nfsd.fh: "domain fsidtype fsid expiry path" (type 1, FSID_NUM: a
# 4-byte fsid in hex, here 0, the NFSv4 root); nfsd.export: "domain path
# expiry flags anonuid anongid fsid". Flags: NFSEXP_INSECURE_PORT (0x2) |
# NFSEXP_NOSUBTREECHECK (0x400) | NFSEXP_FSID (0x2000) = 9218: read-write,
# no root squash, AUTH_SYS.
for a in 10.9.0.1 10.9.0.2 127.0.0.1; do
	printf 'nfsd %s %s %s\n' "$a" "$FOREVER" "$DOMAIN" >/proc/net/rpc/auth.unix.ip/channel ||
		exit 1
done
printf '%s 1 \\x00000000 %s /srv/nfs\n' "$DOMAIN" "$FOREVER" >/proc/net/rpc/nfsd.fh/channel ||
	exit 1
printf '%s /srv/nfs %s 9218 65534 65534 0\n' "$DOMAIN" "$FOREVER" \
	>/proc/net/rpc/nfsd.export/channel || exit 1
for c in auth.unix.ip nfsd.fh nfsd.export; do
	echo "== $c"
	cat "/proc/net/rpc/$c/content"
done >"$R/caches.txt"
lab_wait 10 lab_cm_listening "$PORT" || {
	echo "nfs: no rdma_cm listener on port $PORT" >&2
	rdma res show cm_id >&2
	nfs_dmesg >&2
	exit 1
}
rdma res show cm_id >"$R/listening-rdma-cm_id.txt"

lab_section "the client"
# The kernel's text options (busybox passes them to mount(2) as they are):
# addr= is required, the kernel resolves no names. Over siw NFSv4.1, over rxe
# NFSv4.2: different minor versions make different NFS clients, each with its
# own transport (one version on both would trunk the second mount onto the
# first's connection).
vers_of() { [ "$1" = siw ] && echo 4.1 || echo 4.2; }
addr_of() { [ "$1" = siw ] && echo 10.9.0.1 || echo 10.9.0.2; }
# nfs_mount DEV: mount the server's root over DEV at /mnt/nfs-DEV.
nfs_mount() {
	_a=$(addr_of "$1")
	mkdir -p "/mnt/nfs-$1"
	timeout -s KILL 30 mount -t nfs4 \
		-o "vers=$(vers_of "$1"),proto=rdma,port=$PORT,addr=$_a,clientaddr=$_a,soft,timeo=100,retrans=2" \
		"$_a:/" "/mnt/nfs-$1"
}
nfs_ls() { timeout -s KILL 20 ls "/mnt/nfs-$1" && timeout -s KILL 20 cat "/mnt/nfs-$1/hello"; }
nfs_umount() { timeout -s KILL 30 umount "/mnt/nfs-$1"; }
mounted() { grep -q " /mnt/nfs-$1 nfs4 " /proc/mounts; }

# The first mounts, kept up for the snapshot.
devs=""
for dev in siw rxe; do
	if nfs_mount "$dev" >"$R/first-mount-$dev.out" 2>&1; then
		echo 0 >"$R/first-mount-$dev.rc"
		devs="$devs $dev"
	else
		echo $? >"$R/first-mount-$dev.rc"
		echo "nfs: the first mount over $dev failed" >&2
	fi
done
echo "$devs" >"$R/devices"
grep " nfs4 " /proc/mounts >"$R/mounts.txt"
for dev in $devs; do
	capture "first-ls-$dev.txt" nfs_ls "$dev"
done

lab_section "one snapshot while mounted"
# NLDEV's view and rdmastat.ko's, one after the other (the connections are idle).
capture mounted-rdma-qp.json rdma -j res show qp
capture mounted-rdma-cm_id.json rdma -j res show cm_id
capture mounted-root.json rdmastat --source module -a -j
capture mounted-lab.json su lab -c "rdmastat --source module -a -j"
capture mounted-rdma-qp-after.json rdma -j res show qp
capture mounted-rdma-cm_id.txt rdma res show cm_id
capture mounted-rdma-qp.txt rdma res show qp
capture mounted-root.txt rdmastat --source module -a -e -p
for dev in $devs; do
	nfs_umount "$dev" || echo "nfs: the first umount over $dev failed" >&2
done
[ -n "$devs" ] || {
	nfs_dmesg >&2
	nfs_dmesg >"$R/dmesg.txt"
	exit 1
}

lab_section "mount, ls, umount in a loop while root and the lab user dump"
rm -rf /tmp/nfs-stop /tmp/nfs-dumps
mkdir -p /tmp/nfs-dumps "$R/caught"
# A dump "caught" a mount when it lists a connection to the server's port.
caught() { grep -q '"peer":{[^}]*"port":'"$PORT" "$1"; }
# dump_loop NAME CMD...: run CMD until /tmp/nfs-stop exists; write
# "dumps failures dumps-that-caught-a-mount" to $R/dumps-NAME, and keep the
# dumps that caught one in $R/caught.
dump_loop() {
	_name=$1
	shift
	_n=0 _bad=0 _seen=0
	while [ ! -e /tmp/nfs-stop ]; do
		_f=/tmp/nfs-dumps/$_name-$_n.json
		if "$@" >"$_f" 2>"/tmp/nfs-dumps/$_name.err"; then
			if caught "$_f"; then
				_seen=$((_seen + 1))
				cp "$_f" "$R/caught/"
			fi
		else
			_bad=$((_bad + 1))
			cat "/tmp/nfs-dumps/$_name.err" >>"$R/dumps-$_name.err"
		fi
		rm -f "$_f"
		_n=$((_n + 1))
	done
	echo "$_n $_bad $_seen" >"$R/dumps-$_name"
}
dump_loop root rdmastat --source module -a -j &
root_loop=$!
dump_loop lab su lab -c "rdmastat --source module -a -j" &
lab_loop=$!
# Cycles: each device of $devs in turn; up to 10 rounds or about 30 s.
: >"$R/cycles.tsv"
end=$(($(now) + 30))
round=0
while [ "$round" -lt 10 ] && [ "$(now)" -lt "$end" ]; do
	round=$((round + 1))
	for dev in $devs; do
		t0=$(now)
		nfs_mount "$dev" >>"$R/cycles.err" 2>&1
		m=$?
		l=-1 u=-1
		if [ "$m" = 0 ]; then
			nfs_ls "$dev" >/dev/null 2>>"$R/cycles.err"
			l=$?
			nfs_umount "$dev" >>"$R/cycles.err" 2>&1
			u=$?
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$dev" "$m" "$l" "$u" "$(($(now) - t0))" \
			>>"$R/cycles.tsv"
	done
done
: >/tmp/nfs-stop
lab_reap "$root_loop" "$R/root-loop.rc" 60
lab_reap "$lab_loop" "$R/lab-loop.rc" 60
cat "$R/cycles.tsv"
echo "root dumps: $(cat "$R/dumps-root"), lab dumps: $(cat "$R/dumps-lab")"

lab_section "the server stops"
for dev in siw rxe; do
	! mounted "$dev" || umount -f "/mnt/nfs-$dev" || true
done
grep " nfs4 " /proc/mounts >"$R/left-mounts.txt"
echo 0 >/proc/fs/nfsd/threads
lab_wait_wall 10 sh -c "! rdma res show cm_id | grep -q ':$PORT '" || true
capture stopped-rdma-cm_id.txt rdma res show cm_id
capture stopped-root.json rdmastat --source module -a -j
umount /proc/fs/nfsd
umount /srv/nfs
sleep 1
nfs_dmesg >"$R/dmesg.txt"
exit 0
