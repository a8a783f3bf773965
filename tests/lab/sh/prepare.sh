# shellcheck shell=bash
# lab.sh deps / prepare: host packages, guest kernel, kernel source subset, siw.ko.

LAB_HOST_PACKAGES=(
	qemu-system-x86 busybox-static cpio xz-utils zstd kmod make gcc
	rdma-core rdmacm-utils ibverbs-utils ibverbs-providers perftest iproute2
)

# apt-get download into the current directory without the _apt sandbox warning.
lab_apt_download() {
	apt-get download -qq -o APT::Sandbox::User=root "$@" >/dev/null
}

lab_deps() {
	# Fresh machine (no lists) or lists too old to know the kernel: refresh once.
	if ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
		apt-get update -qq
	fi
	local kver
	kver=$(lab_kver)
	if ! lab_apt_install "${LAB_HOST_PACKAGES[@]}" "linux-headers-$kver"; then
		log "apt-get install failed; refreshing package lists and retrying"
		apt-get update -qq
		lab_apt_install "${LAB_HOST_PACKAGES[@]}" "linux-headers-$kver" ||
			die "apt-get install failed"
	fi
}

# Unpack linux-image-<kver> (never installed on the host), decompress its modules
# if Debian compressed them (busybox insmod cannot read .ko.xz/.ko.zst), depmod.
lab_prep_image() {
	local kdir=$1 kver=$2 deb n
	[ -f "$kdir/.image.done" ] && return
	log "downloading and unpacking linux-image-$kver"
	rm -rf "$kdir/root" "$kdir/dl"
	mkdir -p "$kdir/dl"
	(cd "$kdir/dl" && lab_apt_download "linux-image-$kver")
	deb=$(find "$kdir/dl" -name "linux-image-${kver}_*.deb" | head -n1)
	[ -n "$deb" ] || die "apt-get download linux-image-$kver failed"
	dpkg-deb -f "$deb" Version >"$kdir/version"
	dpkg-deb -x "$deb" "$kdir/root"
	n=$(find "$kdir/root/lib/modules/$kver" -name '*.ko.xz' | wc -l)
	if ((n)); then
		log "decompressing $n .ko.xz modules"
		find "$kdir/root/lib/modules/$kver" -name '*.ko.xz' -print0 | xargs -0 -r -P2 -n64 xz -d
	fi
	n=$(find "$kdir/root/lib/modules/$kver" -name '*.ko.zst' | wc -l)
	if ((n)); then
		log "decompressing $n .ko.zst modules"
		find "$kdir/root/lib/modules/$kver" -name '*.ko.zst' -print0 | xargs -0 -r -P2 -n64 zstd -q -d --rm
	fi
	depmod -b "$kdir/root" "$kver"
	rm -rf "$kdir/dl"
	touch "$kdir/.image.done"
}

# The subset of linux-source that out-of-tree modules need (siw, and later our
# own module, which includes drivers/infiniband/core/cma_priv.h).
lab_prep_ksrc() {
	local kdir=$1 kver=$2 series deb top
	[ -f "$kdir/.ksrc2.done" ] && return
	series=$(echo "$kver" | cut -d. -f1,2)
	top=linux-source-$series
	log "downloading linux-source-$series=$(cat "$kdir/version") and extracting the RDMA subset"
	rm -rf "$kdir/ksrc" "$kdir/dl"
	mkdir -p "$kdir/dl" "$kdir/ksrc"
	(cd "$kdir/dl" && lab_apt_download "linux-source-$series=$(cat "$kdir/version")")
	deb=$(find "$kdir/dl" -name "linux-source-${series}_*.deb" | head -n1)
	[ -n "$deb" ] || die "apt-get download linux-source-$series failed"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$top.tar.xz" |
		tar -xJ -C "$kdir/ksrc" --strip-components=1 \
			"$top/drivers/infiniband" "$top/include/rdma" "$top/include/uapi/rdma" \
			"$top/Makefile" "$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
			"$top/scripts/const_structs.checkpatch"
	[ -f "$kdir/ksrc/drivers/infiniband/core/cma_priv.h" ] || die "ksrc extraction incomplete"
	rm -rf "$kdir/dl"
	touch "$kdir/.ksrc2.done"
}

# Debian does not build CONFIG_RDMA_SIW: build siw.ko out of tree, then put a
# stripped copy into the unpacked kernel's updates/ so modules.dep knows it.
lab_prep_siw() {
	local kdir=$1 kver=$2
	local m=$kdir/root/lib/modules/$kver
	[ -f "$kdir/siw.ko" ] || lab_build_siw "$kdir" "$kver"
	[ -f "$m/updates/siw.ko" ] && return
	mkdir -p "$m/updates"
	strip --strip-debug -o "$m/updates/siw.ko" "$kdir/siw.ko"
	depmod -b "$kdir/root" "$kver"
}

lab_build_siw() {
	local kdir=$1 kver=$2 b
	b=$kdir/siw-build/drivers/infiniband/sw/siw
	log "building siw.ko"
	rm -rf "$kdir/siw-build"
	mkdir -p "$b"
	cp -r "$kdir/ksrc/drivers/infiniband/sw/siw/." "$b/"
	if ! make -C "/usr/src/linux-headers-$kver" M="$b" CONFIG_RDMA_SIW=m \
		-j"$(nproc)" modules >"$kdir/siw-build/build.log" 2>&1; then
		tail -n 30 "$kdir/siw-build/build.log" >&2
		die "siw build failed (log: $kdir/siw-build/build.log)"
	fi
	cp "$b/siw.ko" "$kdir/siw.ko"
}

lab_prepare() {
	local kver kdir t0
	t0=$(lab_now)
	kver=$(lab_kver)
	kdir=$LAB_CACHE/$kver
	mkdir -p "$kdir"
	lab_installed "linux-headers-$kver" || lab_apt_install "linux-headers-$kver" ||
		die "cannot install linux-headers-$kver (run: lab.sh deps)"
	lab_prep_image "$kdir" "$kver"
	lab_prep_ksrc "$kdir" "$kver"
	lab_prep_siw "$kdir" "$kver"
	[ "${1:-}" = quiet ] || log "prepared $kver in $kdir ($(lab_elapsed "$t0") s)"
}
