#!/usr/bin/env bash
# ctest's "kernel" test: rdmastat.ko and rdmastat_kping.ko build against the
# lab's kernel, rdmastat.ko refuses to build against a kernel source of another
# version, and checkpatch finds no errors in kernel/ and the UAPI headers.
# Leaves both modules in the repo root for the lab test.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
lab=$repo/tests/lab/lab.sh
"$lab" prepare
kbuild=$("$lab" kbuild)
ksrc=$("$lab" ksrc)

echo "== build against $(basename "$kbuild") with KSRC=$ksrc"
make -s -C "$kbuild" M="$repo" KSRC="$ksrc" modules
for ko in rdmastat rdmastat_kping; do
	modinfo "$repo/$ko.ko" | grep -E '^(vermagic|license|alias):'
	modinfo -F alias "$repo/$ko.ko" | grep -qx "net-pf-16-proto-16-family-$ko" ||
		{ echo "FAIL: $ko.ko has no generic netlink family alias"; exit 1; }
done

echo "== a KSRC of another version must not build"
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
ln -s "$ksrc/drivers" "$fake/drivers"
sed 's/^SUBLEVEL = .*/SUBLEVEL = 0/' "$ksrc/Makefile" >"$fake/Makefile"
scratch=$fake/tree
mkdir -p "$scratch"
cp -r "$repo/Kbuild" "$repo/kernel" "$repo/include" "$scratch/"
if make -s -C "$kbuild" M="$scratch" KSRC="$fake" modules >"$fake/log" 2>&1; then
	echo "FAIL: built against a mismatched KSRC"
	exit 1
fi
grep -q 'KSRC is the source of another kernel version' "$fake/log" ||
	{ cat "$fake/log"; echo "FAIL: the mismatch was not the reason"; exit 1; }
echo "refused, as it should"

echo "== checkpatch"
out=$(perl "$ksrc/scripts/checkpatch.pl" --no-tree --terse -f \
	"$repo"/kernel/*.[ch] "$repo"/include/uapi/linux/rdmastat*.h || true)
echo "$out"
if echo "$out" | grep -q ': ERROR:'; then
	echo "FAIL: checkpatch errors"
	exit 1
fi
echo "kernel: 3 passed, 0 failed"
