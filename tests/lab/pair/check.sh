#!/usr/bin/env bash
# ctest's "pair" test: the two-host lab (lab.sh pair) with the freshly built
# rdmastat in both guests and on the host, then the [pair] tests judge what
# the guests and the host's driver wrote.
# usage: check.sh RDMASTAT TESTS KPING OUTDIR (rdmastat.ko is taken from KPING's folder)
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 RDMASTAT TESTS KPING OUTDIR" >&2; exit 2; }
rdmastat=$(realpath "$1") tests=$2 kping=$3 out=$4
module=$(dirname "$kping")/rdmastat.ko
for ko in "$kping" "$module"; do
	[ -f "$ko" ] || { echo "lab: $ko missing (the kernel test builds it)" >&2; exit 1; }
done
here=$(cd "$(dirname "$0")" && pwd)
lab=$here/..

rm -rf "$out"
mkdir -p "$out"
"$lab/lab.sh" prepare
status=0
RDMASTAT=$rdmastat "$lab/lab.sh" pair --out "$out" --bin "$rdmastat" --ko "$kping" --ko "$module" \
	"$here/fabric.sh" "$here/driver.sh" || status=$?
if [ "$status" -ne 0 ]; then
	for h in a b; do
		echo "---- guest $h: fabric.log"
		cat "$out/$h/fabric.log" 2>/dev/null || true
		echo "---- guest $h: console (last 30 lines)"
		tail -n 30 "$out/$h/console.log" 2>/dev/null || true
	done
	echo "---- the host's driver"
	cat "$out/driver.log" 2>/dev/null || true
	echo "lab: the two-host lab failed (status $status)"
	exit 1
fi
cat "$out/driver.log"
RDMASTAT_LAB_OUT="$out" "$tests" "[pair]"
