#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS's build step (dkms.conf MAKE[0]): dkms-make.sh KERNELVER KERNEL_SOURCE_DIR
#
# rdmastat_kping.ko uses public kernel API only and always builds.
# rdmastat.ko reads rdma_cm's private structures (cma_priv.h, restrack.h), which
# no headers package ships. It builds when their source is found:
#   KSRC=<a source tree of exactly this kernel>, or
#   Debian's linux-source-X.Y, which installs only a tarball: the few headers
#   needed are extracted from it into the build tree.
# The source must be of exactly the target's release: for Debian packages the
# source and headers packages must have the same version (e.g. 6.1.158-1), and
# Kbuild checks VERSION.PATCHLEVEL.SUBLEVEL for any tree. Otherwise the build
# fails instead of producing a module that would misread kernel memory. Where
# bpftool and the target's BTF exist, every member of rdma_cm's private
# structures is checked against that BTF too (kernel/rdmastat/btf-layout.sh).
# dkms.conf applies the same rule to decide which modules it expects.
set -eu
kver=$1
kdir=$2
here=$(cd "$(dirname "$0")" && pwd)
series=$(echo "$kver" | cut -d. -f1,2)
ksrc=${KSRC:-}

fail() {
	echo "rdmastat: $*" >&2
	exit 1
}

if [ -z "$ksrc" ]; then
	tarball=$(ls /usr/src/linux-source-"$series".tar.* 2>/dev/null | head -n1 || true)
	if [ -n "$tarball" ]; then
		src=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || true)
		hdr=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null || true)
		if [ -n "$src" ] && [ -n "$hdr" ] && [ "$src" != "$hdr" ]; then
			fail "linux-source-$series $src is not the source of $kver (linux-headers-$kver $hdr);" \
				"install linux-source-$series=$hdr, or remove linux-source-$series to build rdmastat_kping.ko alone"
		fi
		top=linux-source-$series
		ksrc=$here/ksrc
		rm -rf "$ksrc"
		mkdir -p "$ksrc"
		echo "rdmastat: extracting rdma_cm's private headers from $tarball"
		tar -xf "$tarball" -C "$ksrc" --strip-components=1 "$top/Makefile" \
			"$top/drivers/infiniband/core" ||
			fail "cannot extract $top/drivers/infiniband/core from $tarball"
	fi
fi

if [ -n "$ksrc" ]; then
	# The layout guard, from the target's BTF where bpftool finds it.
	"$here/kernel/rdmastat/btf-layout.sh" "$here/btf-layout.h" "$kver" ||
		fail "cannot write the layout guard's header"
	exec make -C "$kdir" M="$here" KSRC="$ksrc" RDMASTAT_BTF_LAYOUT="$here/btf-layout.h" modules
fi
echo "rdmastat: no kernel source for $kver (linux-source-$series): building rdmastat_kping.ko alone"
exec make -C "$kdir" M="$here" RDMASTAT_KPING_ONLY=1 modules
