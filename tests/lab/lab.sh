#!/usr/bin/env bash
# rdmastat test lab: a real Linux RDMA stack (soft iWARP siw, soft RoCE rxe)
# inside a QEMU guest running Debian's kernel. See tests/lab/README.md.
#
#   lab.sh deps                 apt-get install what the lab needs on the host
#   lab.sh prepare              fill the cache (guest kernel, ksrc, siw.ko, base initramfs)
#   lab.sh run [--out DIR] [--bin PATH]... [--ko PATH]... SCENARIO.sh...
#   lab.sh pair [--out DIR] [--bin PATH]... [--ko PATH]... SCENARIO.sh DRIVER
#                               two guests joined by siw and rxe links, and a host driver
#   lab.sh kmake ARGS...        make -C <guest kernel's headers> ARGS in the suite's root
#   lab.sh kver | ksrc | kdir   print guest kernel version / source subset / unpacked kernel
# RDMASTAT_LAB_SUITE (bookworm, trixie, sid; default bookworm) picks the kernel;
# RDMASTAT_LAB_DEBUG=1 (or a suite named SUITE-debug) its debug build (sh/debug.sh).
set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/sh/common.sh
. "$LAB_DIR/sh/common.sh"
# shellcheck source=tests/lab/sh/debug.sh
. "$LAB_DIR/sh/debug.sh"

usage() {
	sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
case $cmd in
deps | -h | --help | help) ;;
*) # resolve once (apt-cache takes ~0.5 s)
	_LAB_BASE_KVER=$(lab_base_kver)
	_LAB_KVER=$(lab_kver)
	;;
esac
case $cmd in
deps)
	# shellcheck source=tests/lab/sh/prepare.sh
	. "$LAB_DIR/sh/prepare.sh"
	lab_deps
	;;
prepare)
	# shellcheck source=tests/lab/sh/prepare.sh
	. "$LAB_DIR/sh/prepare.sh"
	# shellcheck source=tests/lab/sh/initramfs.sh
	. "$LAB_DIR/sh/initramfs.sh"
	mkdir -p "$LAB_CACHE"
	{
		flock 9
		lab_prepare
		((LAB_DEBUG)) || lab_base_initramfs >/dev/null
	} 9>"$LAB_CACHE/.lock"
	if ((LAB_DEBUG)); then
		lab_debug_locked
		lab_base_locked >/dev/null
	fi
	;;
run | pair)
	# shellcheck source=tests/lab/sh/prepare.sh
	. "$LAB_DIR/sh/prepare.sh"
	# shellcheck source=tests/lab/sh/initramfs.sh
	. "$LAB_DIR/sh/initramfs.sh"
	mkdir -p "$LAB_CACHE"
	{
		flock 9
		lab_prepare quiet # a no-op when the cache is warm
	} 9>"$LAB_CACHE/.lock"
	((LAB_DEBUG == 0)) || lab_debug_locked
	# shellcheck source=tests/lab/sh/run.sh
	. "$LAB_DIR/sh/run.sh"
	# shellcheck source=tests/lab/sh/pair.sh
	. "$LAB_DIR/sh/pair.sh"
	if [ "$cmd" = run ]; then lab_run "$@"; else lab_pair "$@"; fi
	;;
kver) lab_kver ;;
ksrc) echo "$(lab_kdir)/ksrc" ;;
kmake)
	# shellcheck source=tests/lab/sh/prepare.sh
	. "$LAB_DIR/sh/prepare.sh"
	lab_kmake "$@"
	;;
kdir) echo "$(lab_kdir)/root" ;;
-h | --help | help) usage ;;
*) usage ;;
esac
