# shellcheck shell=bash
# The suite's debug kernel (RDMASTAT_LAB_DEBUG=1, or RDMASTAT_LAB_SUITE=SUITE-debug):
# Debian's linux-source-X.Y of exactly the version of the suite's kernel, built
# in the suite's root with its compiler, from Debian's own config trimmed by
# localmodconfig to the modules the lab loads (and NFS over RDMA's), with
# KASAN (generic), lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, debug objects and
# siw built in-tree. The unpacked kernel's layout is the one lab_prep_image
# makes ($LAB_CACHE/KVER/root/{boot,lib/modules/KVER}), and ksrc/ is the whole
# built tree, so run, kmake and ksrc work unchanged. The build is keyed
# (.debug.key): a warm prepare does nothing, a changed recipe, module list or
# Debian config reconfigures and rebuilds in place, through ccache.

# Modules kept besides the lab's own (initramfs.sh, NFS over RDMA's included):
# the NFS client's other versions and the UDP socket diag, for a later scenario.
LAB_DEBUG_EXTRA_MODS=(sunrpc nfs nfsv3 udp_diag)

# The kernel release's suffix (CONFIG_LOCALVERSION): KVER is the source's version and this.
LAB_DEBUG_SUFFIX=-rdmastat-debug
# scripts/config arguments applied after localmodconfig. Symbols a kernel
# does not have are dropped by olddefconfig; LAB_DEBUG_MUST is checked after it.
LAB_DEBUG_CONFIG=(
	# The checks.
	--enable KASAN --enable KASAN_GENERIC --enable KASAN_INLINE --enable KASAN_VMALLOC
	--enable PROVE_LOCKING --enable DEBUG_ATOMIC_SLEEP --enable DEBUG_LIST
	--enable DEBUG_OBJECTS --enable DEBUG_OBJECTS_FREE --enable DEBUG_OBJECTS_TIMERS
	--enable DEBUG_OBJECTS_WORK
	# The lab loads ~70 modules: lockdep's tables must not run out ("BUG: MAX_LOCKDEP_...").
	--set-val LOCKDEP_BITS 16 --set-val LOCKDEP_CHAINS_BITS 17 --set-val LOCKDEP_STACK_TRACE_BITS 20
	# Soft iWARP, which Debian does not build.
	--module RDMA_SIW
	# What would need keys or slow the build for nothing the lab uses: no
	# signing, no compression (busybox insmod), no DWARF and so no BTF.
	--disable SECURITY_LOCKDOWN_LSM --disable SECURITY_LOCKDOWN_LSM_EARLY # (it selects MODULE_SIG)
	--disable MODULE_SIG --disable MODULE_SIG_ALL --set-str MODULE_SIG_KEY ""
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	--disable MODULE_COMPRESS --disable MODULE_COMPRESS_XZ --enable MODULE_COMPRESS_NONE
	--disable DEBUG_INFO --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_DWARF5
	--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE
	--disable IKHEADERS --set-str LOCALVERSION "$LAB_DEBUG_SUFFIX" --disable LOCALVERSION_AUTO
)
# Lines the built config must have, and (after '!') must not.
LAB_DEBUG_MUST=(CONFIG_KASAN=y CONFIG_KASAN_GENERIC=y CONFIG_PROVE_LOCKING=y
	CONFIG_DEBUG_ATOMIC_SLEEP=y CONFIG_DEBUG_LIST=y CONFIG_RDMA_SIW=m
	'!CONFIG_MODULE_SIG=y' '!CONFIG_DEBUG_INFO_BTF=y' '!CONFIG_MODULE_COMPRESS=y')
# The guest's extra kernel parameters (run.sh): every KASAN report, not only
# the first; warnings on the console too (quiet shows errors only), where
# lockdep's and WARN's reports survive a scenario's `dmesg -c` (logcheck.sh
# reads both the console and dmesg.txt).
# shellcheck disable=SC2034 # used by run.sh
LAB_DEBUG_APPEND="kasan_multi_shot loglevel=5"
# zstd: Debian compresses the kernel image with it (KERNEL_ZSTD).
LAB_DEBUG_ROOT_PACKAGES=(libssl-dev cpio perl ccache zstd)

# The upstream version (make kernelversion) of a Debian linux version:
# 6.12.118-1 -> 6.12.118, 6.19~rc5-1~exp1 -> 6.19.0-rc5, 7.2-1~exp1 -> 7.2.0.
lab_debug_kernelversion() {
	local up=${1%-*} rc=""
	if [[ $up == *~rc* ]]; then
		rc=-rc${up##*~rc}
		up=${up%%~*}
	fi
	[[ $up == *.*.* ]] || up=$up.0
	echo "$up$rc"
}

# The debug kernel's release (uname -r), from the Debian version of the
# suite's kernel (recorded by lab_prep_image, or asked of apt).
lab_debug_kver() {
	local base v
	if [ -n "${_LAB_KVER:-}" ]; then
		echo "$_LAB_KVER"
		return
	fi
	base=$(lab_base_kver)
	v=$(cat "$LAB_CACHE/$base/version" 2>/dev/null || true)
	if [ -z "$v" ]; then
		v=$(lab_root apt-cache show "linux-image-$base" 2>/dev/null |
			sed -n 's/^Version: //p' | head -n1)
	fi
	[ -n "$v" ] || die "cannot resolve the version of $LAB_SUITE's linux-image-$base"
	echo "$(lab_debug_kernelversion "$v")$LAB_DEBUG_SUFFIX"
}

# The lsmod-style list localmodconfig keeps: the closure of every module the
# lab loads, in Debian's build of the suite's kernel, and of NFS over RDMA's.
lab_debug_lsmod() {
	local moddir=$1
	lab_mod_closure "$moddir" "${LAB_MODS_RDMA[@]}" "${LAB_MODS_9P[@]}" "${LAB_MODS_NET[@]}" \
		"${LAB_MODS_NVME[@]}" "${LAB_MODS_DIAG[@]}" "${LAB_MODS_NFS[@]}" "${LAB_DEBUG_EXTRA_MODS[@]}" |
		sed 's,.*/,,; s,\.ko$,,; s,-,_,g' | LC_ALL=C sort -u
}

# Configure the tree at $1 from Debian's config $2 and the lsmod list $3.
lab_debug_configure() {
	local src=$1 config=$2 lsmod=$3 cc=$4 m
	cp "$config" "$src/.config"
	# shellcheck disable=SC2016 # the inner shell expands them
	lab_root --bind "$(dirname "$lsmod")" --bind "$src" \
		sh -c 'cd "$1" && shift && yes "" | make -s "$@" localmodconfig' \
		sh "$src" CC="$cc" HOSTCC="$cc" LSMOD="$lsmod" >"$src/../configure.log" 2>&1 ||
		{ tail -n 20 "$src/../configure.log" >&2; die "make localmodconfig failed"; }
	"$src/scripts/config" --file "$src/.config" "${LAB_DEBUG_CONFIG[@]}"
	lab_root --bind "$src" make -s -C "$src" CC="$cc" HOSTCC="$cc" olddefconfig \
		>>"$src/../configure.log" 2>&1 || die "make olddefconfig failed"
	for m in "${LAB_DEBUG_MUST[@]}"; do
		if [ "${m#!}" != "$m" ]; then
			! grep -qx "${m#!}" "$src/.config" || die "debug config has '${m#!}' (see $src/.config)"
		else
			grep -qx "$m" "$src/.config" || die "debug config lacks '$m' (see $src/.config)"
		fi
	done
}

# Build the configured tree and install it as lab_prep_image would unpack it.
lab_debug_build() {
	local kdir=$1 kver=$2 cc=$3 src=$1/ksrc rel
	local ccache=$LAB_CACHE/ccache/$LAB_SUITE-debug
	mkdir -p "$ccache"
	log "building $LAB_SUITE's debug kernel $kver ($(nproc) jobs at nice 10; log: $kdir/build.log)"
	if ! lab_root --bind "$src" --bind "$ccache" env PATH="/usr/lib/ccache:/usr/bin:/bin:/usr/sbin:/sbin" \
		CCACHE_DIR="$ccache" CCACHE_BASEDIR="$src" CCACHE_MAXSIZE=4G \
		nice -n 10 make -C "$src" -j"$(nproc)" CC="$cc" HOSTCC="$cc" bzImage modules \
		>"$kdir/build.log" 2>&1; then
		tail -n 40 "$kdir/build.log" >&2
		die "debug kernel build failed (log: $kdir/build.log)"
	fi
	rel=$(lab_root --bind "$src" make -s -C "$src" CC="$cc" HOSTCC="$cc" kernelrelease)
	[ "$rel" = "$kver" ] || die "the debug kernel's release is $rel, not $kver"
	rm -rf "$kdir/root"
	mkdir -p "$kdir/root/boot"
	lab_root --bind "$kdir" make -s -C "$src" CC="$cc" HOSTCC="$cc" \
		INSTALL_MOD_PATH="$kdir/root" INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install \
		>>"$kdir/build.log" 2>&1 || die "modules_install failed (log: $kdir/build.log)"
	rm -f "$kdir/root/lib/modules/$kver/build" "$kdir/root/lib/modules/$kver/source"
	cp "$src/arch/x86/boot/bzImage" "$kdir/root/boot/vmlinuz-$kver"
	cp "$src/System.map" "$kdir/root/boot/System.map-$kver"
	cp "$src/.config" "$kdir/root/boot/config-$kver"
	if [ ! -e "$kdir/root/lib" ] && [ -d "$kdir/root/usr/lib/modules" ]; then
		ln -s usr/lib "$kdir/root/lib" # merged-/usr, as lab_prep_image leaves it
	fi
	depmod -b "$kdir/root" "$kver"
}

# Fill $LAB_CACHE/DKVER for the suite whose Debian kernel lab_prepare just
# prepared (BASE), unless its key says it is there already.
lab_prep_debug() {
	local base=$1 kver kdir bdir v series top deb cc key t0
	t0=$(lab_now)
	kver=$(lab_debug_kver)
	kdir=$LAB_CACHE/$kver
	bdir=$LAB_CACHE/$base
	v=$(cat "$bdir/version")
	series=$(echo "$base" | cut -d. -f1,2)
	top=linux-source-$series
	# The compiler Debian built the kernel with (its config names it).
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$bdir/root/boot/config-$base")
	[ -n "$cc" ] || die "no CONFIG_CC_VERSION_TEXT in $base's config"
	mkdir -p "$kdir"
	lab_debug_lsmod "$bdir/root/lib/modules/$base" >"$kdir/lsmod.new"
	key=$({
		echo "$v $cc"
		declare -f lab_debug_configure lab_debug_build
		printf '%s\n' "${LAB_DEBUG_CONFIG[@]}" "${LAB_DEBUG_MUST[@]}"
		cat "$kdir/lsmod.new" "$bdir/root/boot/config-$base"
	} | sha256sum | cut -c1-16)
	if [ -f "$kdir/.image.done" ] && [ "$(cat "$kdir/.debug.key" 2>/dev/null)" = "$key" ]; then
		rm -f "$kdir/lsmod.new"
		return
	fi
	rm -f "$kdir/.image.done"
	mv "$kdir/lsmod.new" "$kdir/lsmod"
	"$LAB_ROOTSH" install "$LAB_SUITE" "${LAB_DEBUG_ROOT_PACKAGES[@]}" ||
		die "cannot install ${LAB_DEBUG_ROOT_PACKAGES[*]} in the $LAB_SUITE root"
	if [ "$(cat "$kdir/version" 2>/dev/null)" != "$v" ] || [ ! -f "$kdir/.src.done" ]; then
		log "downloading $top=$v and extracting it whole"
		rm -rf "$kdir/ksrc" "$kdir/dl" "$kdir/.src.done"
		mkdir -p "$kdir/ksrc"
		lab_root_download "$kdir/dl" "$top=$v"
		deb=$(find "$kdir/dl" -name "${top}_*.deb" | head -n1)
		[ -n "$deb" ] || die "apt-get download $top failed"
		dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$top.tar.xz" |
			tar -xJ -C "$kdir/ksrc" --strip-components=1
		rm -rf "$kdir/dl"
		echo "$v" >"$kdir/version"
		touch "$kdir/.src.done"
	fi
	[ "$(lab_debug_kernelversion "$v")" = "$(lab_root --bind "$kdir" make -s -C "$kdir/ksrc" kernelversion)" ] ||
		die "$top=$v is not kernel $(lab_debug_kernelversion "$v")"
	lab_debug_configure "$kdir/ksrc" "$bdir/root/boot/config-$base" "$kdir/lsmod" "$cc"
	lab_debug_build "$kdir" "$kver" "$cc"
	echo "$cc" >"$kdir/cc"
	echo "$key" >"$kdir/.debug.key"
	touch "$kdir/.image.done"
	log "built $LAB_SUITE's debug kernel $kver in $kdir ($(lab_elapsed "$t0") s)"
}

# lab_prep_debug under a lock of the debug kernel's own: a cold build takes
# most of an hour, and must not hold the cache's lock (other suites' runs) meanwhile.
lab_debug_locked() {
	{
		flock 8
		lab_prep_debug "$(lab_base_kver)"
	} 8>"$LAB_CACHE/.debug-$LAB_SUITE.lock"
}
