#!/usr/bin/env bash
# ctest's "lab-debug-SUITE" tests (make check-matrix): the suite's debug
# kernel (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, debug objects:
# tests/lab/sh/debug.sh), with RDMASTAT_LAB_SUITE=SUITE-debug (default trixie).
#  1. rdmastat.ko and rdmastat_kping.ko build against its tree (KSRC = that
#     tree), and so does tests/kernel/fault's deliberate use after free;
#  2. a boot that loads the fault must fail the log check with a KASAN report
#     (the check can fail);
#  3. one boot runs the module, safety, churn, netns, kping and nfs scenarios; the
#     log check (logcheck.sh: KASAN, lockdep, refcount, WARN, BUG lines, each
#     counted and printed) must find nothing, and the scenarios' [lab] tests
#     judge what they wrote, as on Debian's kernels.
# usage: check.sh RDMASTAT CAPTURE CMIDS TESTS OUTDIR
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 RDMASTAT CAPTURE CMIDS TESTS OUTDIR" >&2; exit 2; }
rdmastat=$1 capture=$2 cmids=$3 tests=$4 out=$5
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
lab=$repo/tests/lab/lab.sh
bin=$(dirname "$capture")
# ctest sets RDMASTAT_LAB_SUITE=SUITE-debug; by hand, trixie's.
export RDMASTAT_LAB_DEBUG=1 RDMASTAT_LAB_SUITE=${RDMASTAT_LAB_SUITE:-trixie}
scenarios=(module safety churn netns kping nfs)

rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
t0=$(date +%s)
"$lab" prepare
kver=$("$lab" kver)
ksrc=$("$lab" ksrc)
echo "== $kver (the debug kernel), prepared in $(($(date +%s) - t0)) s"

echo "== modules against $kver with KSRC=$ksrc"
kmod=$out/kmod
mkdir -p "$kmod"
cp "$repo/Kbuild" "$kmod/"
cp -r "$repo/kernel" "$repo/include" "$kmod/"
find "$kmod/kernel" -type f ! -name '*.[ch]' -delete
"$lab" kmake -s M="$kmod" KSRC="$ksrc" modules
kos=(--ko "$kmod/rdmastat.ko" --ko "$kmod/rdmastat_kping.ko")
# The lab's kernel user of rdma_cm, where the tree has it (tests/kernel/ulp).
if [ -f "$repo/tests/kernel/ulp/Kbuild" ]; then
	mkdir -p "$kmod/ulp"
	cp "$repo/tests/kernel/ulp/Kbuild" "$repo/tests/kernel/ulp/"*.c "$kmod/ulp/"
	"$lab" kmake -s M="$kmod/ulp" modules
	kos+=(--ko "$(ls "$kmod"/ulp/*.ko)")
fi
mkdir -p "$out/fault"
cp "$repo/tests/kernel/fault/Kbuild" "$repo/tests/kernel/fault/"*.c "$out/fault/"
"$lab" kmake -s M="$out/fault" modules
modinfo -F vermagic "$kmod/rdmastat.ko"

echo "== the log check catches a deliberate use after free"
t1=$(date +%s)
"$lab" run --out "$out/fault-run" --ko "$out/fault/rdmastat_fault.ko" "$repo/tests/kernel/fault/fault.sh"
verdict=$("$here/logcheck.sh" "$out/fault-run" | head -n1) && {
	echo "$verdict"
	echo "FAIL: the log check passed a boot with a use after free"
	exit 1
}
echo "$verdict"
[[ $verdict =~ KASAN\ [1-9] ]] || { echo "FAIL: no KASAN report counted for the fault"; exit 1; }
grep -m1 'BUG: KASAN: .*rdmastat_fault' "$out/fault-run/dmesg.txt" ||
	{ echo "FAIL: KASAN's report does not name rdmastat_fault"; exit 1; }
echo "caught, as it should be ($(($(date +%s) - t1)) s)"

echo "== scenarios ${scenarios[*]} on $kver"
# Everything is slower under KASAN and lockdep (TCG already is).
export RDMASTAT_LAB_TIMEOUT=${RDMASTAT_LAB_TIMEOUT:-3600}
export RDMASTAT_LAB_SCENARIO_TIMEOUT=${RDMASTAT_LAB_SCENARIO_TIMEOUT:-900}
t1=$(date +%s)
status=0
args=()
for s in "${scenarios[@]}"; do args+=("$repo/tests/lab/scenarios/$s.sh"); done
"$lab" run --out "$out/run" --bin "$rdmastat" --bin "$capture" --bin "$cmids" \
	--bin "$bin/rdmastat-bind" --bin "$bin/rdmastat-hostile" --bin "$bin/rdmastat-qpnum" \
	--bin "$bin/rdmastat-genlprobe" --bin "$bin/rdmastat-oob" --bin "$bin/rdmastat-reject" \
	"${kos[@]}" "${args[@]}" || status=$?
echo "boot and scenarios: $(($(date +%s) - t1)) s"
for s in "${scenarios[@]}"; do
	rc=$(cat "$out/run/$s.rc" 2>/dev/null || echo "?")
	if [ "$rc" != 0 ]; then
		echo "---- scenario $s failed (rc=$rc); its log:"
		cat "$out/run/$s.log" 2>/dev/null || true
	fi
done
echo "== the debug kernel's log"
"$here/logcheck.sh" "$out/run" || status=1
if [ "$status" -ne 0 ]; then
	echo "---- the guest's console (last 40 lines):"
	tail -n 40 "$out/run/console.log" 2>/dev/null || true
	echo "lab-debug: failed"
	exit 1
fi
tags=""
for s in "${scenarios[@]}"; do tags+="${tags:+,}[lab][$s]"; done
RDMASTAT_LAB_OUT="$out/run" "$tests" "$tags"
