# shellcheck shell=bash
# Builds the guest initramfs as two concatenated newc archives:
#   base.cpio  busybox, kernel modules, RDMA userspace (cached by content key)
#   run.cpio   /init, /lab (lib.sh, scenarios), --bin and --ko files (every run)

# Modules, loaded in this order with their modules.dep dependencies first.
# A leading '?' marks what only some kernels have as a module: the crc32
# providers that rxe and siw look up at run time (gone or built in on newer
# kernels, where the crc library changed).
LAB_MODS_RDMA=('?crc32_generic' '?crc32c_generic' '?libcrc32c' udp_tunnel ip6_udp_tunnel
	configfs ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm rdma_rxe siw veth)
LAB_MODS_9P=(virtio_pci 9pnet_virtio 9p)
# The two-host lab (lab.sh pair): its guests' network cards, and NVMe over
# Fabrics on RDMA (target, host, and null_blk to back the namespace).
LAB_MODS_NET=(virtio_net)
LAB_MODS_NVME=(null_blk nvmet_rdma nvme_rdma)
# NFS over RDMA: the kernel server (nfsd), client (nfsv4) and their RDMA transport.
LAB_MODS_NFS=(nfsd rpcrdma nfsv4)
# Staged, never insmodded: the kernel loads them (request_module, busybox modprobe)
# on the first sock_diag TCP request, as on a Debian host (rdmastat's host sockets).
LAB_MODS_DIAG=(inet_diag tcp_diag)

# Host programs copied into the guest with their ldd libraries.
lab_guest_programs() {
	dpkg -L rdmacm-utils ibverbs-utils perftest | grep -E '^/usr/s?bin/[^/]+$'
	# UCX's perftest and its InfiniBand transports (rc_verbs and friends), which
	# UCX loads by name from its module folder, so ldd does not find them.
	echo /usr/bin/ucx_perftest
	ls /usr/lib/x86_64-linux-gnu/ucx/libuct_ib.so.0
	echo /usr/bin/rdma /usr/bin/ip /usr/bin/ss /usr/sbin/bpftool
	ls /usr/lib/x86_64-linux-gnu/libibverbs/lib{rxe,siw}-rdmav*.so
	ls /usr/lib/x86_64-linux-gnu/libgcc_s.so.1
}

# Copy a host file to the same place in the stage, canonical directory
# (the guest is usr-merged like the host), dereferencing symlinks.
lab_stage_file() {
	local stage=$1 src=$2 dir
	dir=$(realpath "$(dirname "$src")")
	mkdir -p "$stage$dir"
	[ -e "$stage$dir/${src##*/}" ] || cp -L "$src" "$stage$dir/${src##*/}"
}

# A program or shared object plus every library ldd says it needs.
lab_stage_exe() {
	lab_stage_file "$1" "$2"
	lab_stage_libs "$1" "$2"
}

lab_stage_libs() {
	local stage=$1 src=$2 lib
	for lib in $(ldd "$src" 2>/dev/null | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		lab_stage_file "$stage" "$lib"
	done
}

# Print module paths (relative to /lib/modules/KVER) for the given names,
# dependencies first, each once. Built-in modules are skipped.
lab_mod_closure() {
	local moddir=$1 line path name
	shift
	declare -A mpath=() mdeps=() seen=()
	while IFS= read -r line; do
		path=${line%%:*}
		name=${path##*/}
		name=${name%.ko}
		name=${name//-/_}
		mpath[$name]=$path
		mdeps[$name]=${line#*:}
	done <"$moddir/modules.dep"
	_lab_visit() {
		local n=$1 d dn
		[ -z "${seen[$n]:-}" ] || return 0
		seen[$n]=1
		if [ -z "${mpath[$n]:-}" ] && [ "${2:-}" = optional ]; then
			return 0
		fi
		if [ -z "${mpath[$n]:-}" ]; then
			grep -q "/${n}.ko\$" "$moddir/modules.builtin" 2>/dev/null ||
				grep -q "/${n//_/-}.ko\$" "$moddir/modules.builtin" 2>/dev/null ||
				die "module $n is neither in modules.dep nor built in"
			return 0
		fi
		for d in ${mdeps[$n]}; do
			dn=${d##*/}
			dn=${dn%.ko}
			_lab_visit "${dn//-/_}"
		done
		echo "${mpath[$n]}"
	}
	for name in "$@"; do
		if [ "${name#\?}" != "$name" ]; then
			_lab_visit "${name#\?}" optional
		else
			_lab_visit "$name"
		fi
	done
}

# Stage one module group and write /lab/modules/GROUP.list (insmod order).
lab_stage_mods() {
	local stage=$1 moddir=$2 kver=$3 group=$4 m
	shift 4
	mkdir -p "$stage/lab/modules"
	lab_mod_closure "$moddir" "$@" >"$stage/lab/modules/$group.rel"
	while read -r m; do
		mkdir -p "$stage/usr/lib/modules/$kver/$(dirname "$m")"
		cp "$moddir/$m" "$stage/usr/lib/modules/$kver/$m"
		echo "/lib/modules/$kver/$m"
	done <"$stage/lab/modules/$group.rel" >"$stage/lab/modules/$group.list"
	rm "$stage/lab/modules/$group.rel"
}

# Write a newc archive of directory $1 (root entry included, so mode 755 sticks).
lab_cpio() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet)
}

# Build the cached base archive if needed; print its path.
lab_base_initramfs() {
	local kver kdir moddir key stage f a siw
	kver=$(lab_kver)
	kdir=$LAB_CACHE/$kver
	moddir=$kdir/root/lib/modules/$kver
	# siw.ko: built out of tree into updates/ (Debian's kernels), or in-tree (the debug kernel).
	siw=$(sed -n 's,^\([^:]*/siw\.ko\):.*,\1,p' "$moddir/modules.dep" 2>/dev/null | head -n1)
	if [ ! -f "$kdir/.image.done" ] || [ -z "$siw" ] || [ ! -f "$moddir/$siw" ]; then
		die "guest kernel not prepared: run tests/lab/lab.sh prepare"
	fi
	# The key covers the builder itself and every host file that goes in.
	key=$({
		cat "$LAB_DIR/sh/initramfs.sh"
		echo "${LAB_MODS_RDMA[*]} ${LAB_MODS_9P[*]} ${LAB_MODS_DIAG[*]} ${LAB_MODS_NET[*]} ${LAB_MODS_NVME[*]}"
		lab_guest_programs | xargs stat -L -c '%n %s %Y'
		stat -L -c '%n %s %Y' /usr/bin/busybox "$moddir/modules.dep" "$moddir/$siw"
	} | sha256sum | cut -c1-16)
	f=$kdir/initramfs/base-$key.cpio
	if [ ! -f "$f" ]; then
		log "building base initramfs ($key)"
		mkdir -p "$kdir/initramfs"
		find "$kdir/initramfs" -name 'base-*.cpio' -mmin +10 -delete
		stage=$(mktemp -d "$kdir/initramfs/stage.XXXXXX")
		lab_base_stage "$stage" "$kver" "$moddir"
		lab_cpio "$stage" >"$f.tmp"
		rm -rf "$stage"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# lab_base_initramfs under the cache's lock (runs of several suites may share
# the cache); prints the archive's path.
lab_base_locked() {
	{
		flock 9
		lab_base_initramfs
	} 9>"$LAB_CACHE/.lock"
}

lab_base_stage() {
	local stage=$1 kver=$2 moddir=$3 p a
	chmod 755 "$stage"
	mkdir -p "$stage"/{usr/bin,usr/sbin,usr/lib,usr/lib64,usr/local/bin,usr/local/sbin}
	mkdir -p "$stage"/{dev,proc,sys,out,etc/libibverbs.d,root,home/lab,lab,mnt,run}
	ln -s usr/bin "$stage/bin"
	ln -s usr/sbin "$stage/sbin"
	ln -s usr/lib "$stage/lib"
	ln -s usr/lib64 "$stage/lib64"
	install -d -m 1777 "$stage/tmp"
	chmod 700 "$stage/root"
	chown 1000:1000 "$stage/home/lab"
	mknod -m 600 "$stage/dev/console" c 5 1
	mknod -m 666 "$stage/dev/null" c 1 3
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'lab:x:1000:1000:lab:/home/lab:/bin/sh' \
		>"$stage/etc/passwd"
	printf '%s\n' 'root:x:0:' 'lab:x:1000:' >"$stage/etc/group"
	printf '%s\n' 'root:*:19000:0:99999:7:::' 'lab:*:19000:0:99999:7:::' >"$stage/etc/shadow"
	chmod 600 "$stage/etc/shadow"
	echo lab >"$stage/etc/hostname"
	cp /etc/libibverbs.d/rxe.driver /etc/libibverbs.d/siw.driver "$stage/etc/libibverbs.d/"
	# Real programs first, then busybox applets wherever nothing real sits.
	for p in $(lab_guest_programs); do
		lab_stage_exe "$stage" "$p"
	done
	ln -s /usr/bin/ip "$stage/usr/sbin/ip"
	cp /usr/bin/busybox "$stage/usr/bin/busybox"
	for a in $(/usr/bin/busybox --list-full); do
		a=${a#/}
		case $a in bin/* | sbin/*) a=usr/$a ;; esac
		[ -e "$stage/$a" ] || [ -L "$stage/$a" ] || ln -s /usr/bin/busybox "$stage/$a"
	done
	# Kernel modules: the closure of each group, and a depmod of that subset
	# so that the kernel's own request_module (busybox modprobe) works too.
	lab_stage_mods "$stage" "$moddir" "$kver" 9p "${LAB_MODS_9P[@]}"
	lab_stage_mods "$stage" "$moddir" "$kver" rdma "${LAB_MODS_RDMA[@]}"
	lab_stage_mods "$stage" "$moddir" "$kver" diag "${LAB_MODS_DIAG[@]}"
	lab_stage_mods "$stage" "$moddir" "$kver" net "${LAB_MODS_NET[@]}"
	lab_stage_mods "$stage" "$moddir" "$kver" nvme "${LAB_MODS_NVME[@]}"
	lab_stage_mods "$stage" "$moddir" "$kver" nfs "${LAB_MODS_NFS[@]}"
	cp "$moddir"/modules.{order,builtin,builtin.modinfo} "$stage/usr/lib/modules/$kver/"
	depmod -b "$stage" "$kver"
}

# Build this run's archive into $1: init, guest lib, scenarios, --bin, --ko.
# Remaining args: -b BIN | -k KO | -s SCENARIO (in order).
lab_run_initramfs() {
	local dst=$1 stage opt arg
	shift
	stage=$(mktemp -d "${TMPDIR:-/tmp}/rdmastat-lab-run.XXXXXX")
	chmod 755 "$stage"
	mkdir -p "$stage"/{usr/local/bin,usr/lib/modules/extra,lab/scenarios}
	install -m 755 "$LAB_DIR/guest/init" "$stage/init"
	install -m 644 "$LAB_DIR/guest/lib.sh" "$stage/lab/lib.sh"
	echo "LAB_SCENARIO_TIMEOUT=${RDMASTAT_LAB_SCENARIO_TIMEOUT:-300}" >"$stage/lab/env.sh"
	: >"$stage/lab/run.list"
	while [ $# -gt 0 ]; do
		opt=$1 arg=$2
		shift 2
		case $opt in
		-b)
			lab_stage_libs "$stage" "$arg"
			install -m 755 "$arg" "$stage/usr/local/bin/${arg##*/}"
			# rdmastat execs rdmastat-full, beside it, for ping and serve.
			if [ "${arg##*/}" = rdmastat ] && [ -x "${arg%/*}/rdmastat-full" ]; then
				lab_stage_libs "$stage" "${arg%/*}/rdmastat-full"
				install -m 755 "${arg%/*}/rdmastat-full" "$stage/usr/local/bin/rdmastat-full"
			fi
			;;
		-k) install -m 644 "$arg" "$stage/usr/lib/modules/extra/${arg##*/}" ;;
		-s)
			install -m 644 "$arg" "$stage/lab/scenarios/${arg##*/}"
			echo "${arg##*/}" >>"$stage/lab/run.list"
			;;
		esac
	done
	lab_cpio "$stage" >"$dst"
	rm -rf "$stage"
}
