#!/usr/bin/env bash
# ctest's "lab" test: boots the lab once with the freshly built binaries, runs
# the scenarios, then the [lab] unit tests judge what the guest wrote.
# usage: check.sh RDMASTAT CAPTURE CMIDS TESTS MODULE OUTDIR
set -euo pipefail
[ $# -eq 6 ] || { echo "usage: $0 RDMASTAT CAPTURE CMIDS TESTS MODULE OUTDIR" >&2; exit 2; }
rdmastat=$1 capture=$2 cmids=$3 tests=$4 module=$5 out=$6
[ -f "$module" ] || { echo "lab: $module missing (the kernel test builds it)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$out"
mkdir -p "$out"
"$here/lab.sh" prepare
status=0
"$here/lab.sh" run --out "$out" --bin "$rdmastat" --bin "$capture" --bin "$cmids" \
	--bin "$(dirname "$capture")/rdmastat-bind" \
	--ko "$module" "$here/scenarios/crosscheck.sh" "$here/scenarios/smoke.sh" \
	"$here/scenarios/capture.sh" "$here/scenarios/portshare.sh" \
	"$here/scenarios/module.sh" "$here/scenarios/churn.sh" || status=$?
for log in "$out"/*.log; do
	name=$(basename "$log" .log)
	rc=$(cat "$out/$name.rc" 2>/dev/null || echo "?")
	if [ "$rc" != 0 ]; then
		echo "---- scenario $name failed (rc=$rc); its log:"
		cat "$log"
	fi
done
[ "$status" -eq 0 ] || { echo "lab: scenarios failed (status $status)"; exit 1; }
RDMASTAT_LAB_OUT="$out" "$tests" "[lab]"
