# shellcheck shell=bash
# lab.sh deps / prepare: host packages; for the suite's kernel, in the suite's
# root: the unpacked linux-image, the kernel source subset and siw.ko.

LAB_HOST_PACKAGES=(
	qemu-system-x86 busybox-static cpio xz-utils zstd kmod make gcc debootstrap
	rdma-core rdmacm-utils ibverbs-utils ibverbs-providers perftest ucx-utils iproute2 bpftool
)
# What building out-of-tree modules needs in the suite's root, besides
# linux-headers-KVER (which brings that kernel's compiler and kbuild).
LAB_ROOT_PACKAGES=(make libelf-dev bc flex bison kmod xz-utils)

lab_deps() {
	if ! apt-cache show qemu-system-x86 >/dev/null 2>&1; then
		apt-get update -qq
	fi
	if ! lab_apt_install "${LAB_HOST_PACKAGES[@]}"; then
		log "apt-get install failed; refreshing package lists and retrying"
		apt-get update -qq
		lab_apt_install "${LAB_HOST_PACKAGES[@]}" || die "apt-get install failed"
	fi
}

# apt-get download PACKAGES in the suite's root into DIR (bound into the root).
lab_root_download() {
	local dir=$1
	shift
	mkdir -p "$dir"
	lab_root --bind "$dir" sh -c 'cd "$1" && shift && apt-get download -qq "$@" >/dev/null' \
		sh "$dir" "$@" || die "apt-get download $* ($LAB_SUITE) failed"
}

# Unpack the kernel (never installed anywhere): linux-image-KVER and, on suites
# where that is a metapackage, the parts it depends on (sid: linux-binary-KVER,
# linux-modules-KVER, linux-base-KVER: every dependency named linux-*-KVER).
# Normalise merged-/usr trees (lib -> usr/lib, boot/vmlinuz-KVER), decompress
# modules (busybox insmod cannot read .ko.xz/.ko.zst), depmod.
lab_prep_image() {
	local kdir=$1 kver=$2 deb n parts
	[ -f "$kdir/.image.done" ] && return
	log "downloading and unpacking $LAB_SUITE's kernel $kver"
	rm -rf "$kdir/root" "$kdir/dl"
	parts=$(lab_root apt-cache depends "linux-image-$kver" 2>/dev/null |
		awk -v k="$kver" '$1 == "Depends:" && $2 ~ /^linux-/ &&
			substr($2, length($2) - length(k)) == "-" k { print $2 }' | sort -u)
	# shellcheck disable=SC2086 # one word per package
	lab_root_download "$kdir/dl" "linux-image-$kver" $parts
	deb=$(find "$kdir/dl" -name "linux-image-${kver}_*.deb" | head -n1)
	[ -n "$deb" ] || die "apt-get download linux-image-$kver failed"
	dpkg-deb -f "$deb" Version >"$kdir/version"
	for deb in "$kdir"/dl/*.deb; do
		dpkg-deb -x "$deb" "$kdir/root"
	done
	if [ ! -e "$kdir/root/lib" ] && [ -d "$kdir/root/usr/lib/modules" ]; then
		ln -s usr/lib "$kdir/root/lib"
	fi
	if [ ! -e "$kdir/root/boot/vmlinuz-$kver" ]; then
		[ -f "$kdir/root/lib/modules/$kver/vmlinuz" ] || die "no vmlinuz in $LAB_SUITE's $kver"
		mkdir -p "$kdir/root/boot"
		ln -s "../lib/modules/$kver/vmlinuz" "$kdir/root/boot/vmlinuz-$kver"
	fi
	n=$(find "$kdir/root/lib/modules/$kver/" -name '*.ko.xz' | wc -l)
	if ((n)); then
		log "decompressing $n .ko.xz modules"
		find "$kdir/root/lib/modules/$kver/" -name '*.ko.xz' -print0 | xargs -0 -r -P2 -n64 xz -d
	fi
	n=$(find "$kdir/root/lib/modules/$kver/" -name '*.ko.zst' | wc -l)
	if ((n)); then
		log "decompressing $n .ko.zst modules"
		find "$kdir/root/lib/modules/$kver/" -name '*.ko.zst' -print0 | xargs -0 -r -P2 -n64 zstd -q -d --rm
	fi
	depmod -b "$kdir/root" "$kver"
	rm -rf "$kdir/dl"
	touch "$kdir/.image.done"
}

# The subset of linux-source that out-of-tree modules need (siw; rdmastat.ko
# includes drivers/infiniband/core/cma_priv.h), of exactly the image's version.
lab_prep_ksrc() {
	local kdir=$1 kver=$2 series deb top
	[ -f "$kdir/.ksrc2.done" ] && return
	series=$(echo "$kver" | cut -d. -f1,2)
	top=linux-source-$series
	log "downloading linux-source-$series=$(cat "$kdir/version") and extracting the RDMA subset"
	rm -rf "$kdir/ksrc" "$kdir/dl"
	mkdir -p "$kdir/ksrc"
	lab_root_download "$kdir/dl" "linux-source-$series=$(cat "$kdir/version")"
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

# make -C <the kernel's headers> ARGS..., in the suite's root, with that
# suite's compiler. The repository, the kernel's cache directory and any
# M=/KSRC= directory are visible in the root at their own paths.
# The debug kernel (RDMASTAT_LAB_DEBUG): make -C its built tree, with the
# compiler it was built with.
lab_kmake() {
	local kver a binds=(--bind "$LAB_REPO" --bind "$(lab_kdir)")
	kver=$(lab_kver)
	for a in "$@"; do
		case $a in M=* | KSRC=*) binds+=(--bind "${a#*=}") ;; esac
	done
	if ((LAB_DEBUG)); then
		[ -f "$(lab_kdir)/.image.done" ] || die "no debug kernel $kver: run tests/lab/lab.sh prepare"
		local cc
		cc=$(cat "$(lab_kdir)/cc")
		lab_root "${binds[@]}" make -C "$(lab_kdir)/ksrc" CC="$cc" HOSTCC="$cc" "$@"
		return
	fi
	lab_root "${binds[@]}" make -C "/usr/src/linux-headers-$kver" "$@"
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
	log "building siw.ko ($LAB_SUITE's compiler)"
	rm -rf "$kdir/siw-build"
	mkdir -p "$b"
	cp -r "$kdir/ksrc/drivers/infiniband/sw/siw/." "$b/"
	if ! lab_kmake M="$b" CONFIG_RDMA_SIW=m -j"$(nproc)" modules >"$kdir/siw-build/build.log" 2>&1; then
		tail -n 30 "$kdir/siw-build/build.log" >&2
		die "siw build failed (log: $kdir/siw-build/build.log)"
	fi
	cp "$b/siw.ko" "$kdir/siw.ko"
}

# The suite's Debian kernel; its debug build is lab_prep_debug's (debug.sh),
# which lab.sh runs after this, under a lock of its own.
lab_prepare() {
	local kver kdir t0
	t0=$(lab_now)
	kver=$(lab_base_kver)
	kdir=$LAB_CACHE/$kver
	mkdir -p "$kdir"
	"$LAB_ROOTSH" install "$LAB_SUITE" "${LAB_ROOT_PACKAGES[@]}" "linux-headers-$kver" ||
		die "cannot install linux-headers-$kver in the $LAB_SUITE root"
	lab_prep_image "$kdir" "$kver"
	lab_prep_ksrc "$kdir" "$kver"
	lab_prep_siw "$kdir" "$kver"
	echo "$kver" >"$LAB_CACHE/$LAB_SUITE.kver"
	[ "${1:-}" = quiet ] || log "prepared $LAB_SUITE's $kver in $kdir ($(lab_elapsed "$t0") s)"
}
