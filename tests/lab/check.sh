#!/usr/bin/env bash
# ctest's "lab" test: boots the lab once with the freshly built binaries, runs
# the scenarios, then the [lab] unit tests judge what the guest wrote.
# usage: check.sh RDMASTAT CAPTURE CMIDS TESTS MODULE KPING OUTDIR
set -euo pipefail
[ $# -eq 7 ] || { echo "usage: $0 RDMASTAT CAPTURE CMIDS TESTS MODULE KPING OUTDIR" >&2; exit 2; }
rdmastat=$1 capture=$2 cmids=$3 tests=$4 module=$5 kping=$6 out=$7
ulp=$(dirname "$module")/ulp/rdmastat_ulp_test.ko
for ko in "$module" "$kping" "$ulp"; do
	[ -f "$ko" ] || { echo "lab: $ko missing (the kernel test builds it)" >&2; exit 1; }
done
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$out"
mkdir -p "$out"
# The Grafana dashboard's queries, for eventsedge to run in the guest.
jq -r '.panels[].targets[].expr' "$here/../../monitoring/rdmastat.dashboard.json" \
	>"$out/dashboard-queries"
"$here/lab.sh" prepare
# One boot runs every scenario: allow the whole run more than lab.sh's default.
export RDMASTAT_LAB_TIMEOUT=${RDMASTAT_LAB_TIMEOUT:-1200}
status=0
"$here/lab.sh" run --out "$out" --bin "$rdmastat" --bin "$capture" --bin "$cmids" \
	--bin "$(dirname "$capture")/rdmastat-bind" --bin "$(dirname "$capture")/rdmastat-hostile" \
	--bin "$(dirname "$capture")/rdmastat-qpnum" --bin "$(dirname "$capture")/rdmastat-genlprobe" \
	--bin "$(dirname "$capture")/rdmastat-oob" --bin "$(dirname "$capture")/rdmastat-reject" \
	--bin "$(dirname "$capture")/rdmastat-verbsqps" --bin "$(dirname "$capture")/rdmastat-connchurn" \
	--bin /usr/bin/prometheus \
	--ko "$module" --ko "$kping" --ko "$ulp" "$here/scenarios/crosscheck.sh" "$here/scenarios/smoke.sh" \
	"$here/scenarios/verbs.sh" \
	"$here/scenarios/capture.sh" "$here/scenarios/portshare.sh" \
	"$here/scenarios/module.sh" "$here/scenarios/safety.sh" "$here/scenarios/netns.sh" \
	"$here/scenarios/containers.sh" \
	"$here/scenarios/monitor.sh" "$here/scenarios/events.sh" "$here/scenarios/eventsedge.sh" \
	"$here/scenarios/ping.sh" "$here/scenarios/pingopts.sh" \
	"$here/scenarios/kping.sh" "$here/scenarios/churn.sh" "$here/scenarios/nfs.sh" ||
	status=$?
for log in "$out"/*.log; do
	name=$(basename "$log" .log)
	[ "$name" != console ] || continue # the guest's console, not a scenario
	rc=$(cat "$out/$name.rc" 2>/dev/null || echo "?")
	if [ "$rc" != 0 ]; then
		echo "---- scenario $name failed (rc=$rc); its log:"
		cat "$log"
	fi
done
if [ "$status" -ne 0 ]; then
	echo "---- the guest's console (last 40 lines):"
	tail -n 40 "$out/console.log" 2>/dev/null || true
	echo "lab: scenarios failed (status $status)"
	exit 1
fi
# Prometheus' own linter on the exporter's output taken with rping traffic.
promtool check metrics <"$out/monitor/export.prom"
promtool check metrics <"$out/events/metrics.prom"
RDMASTAT_LAB_OUT="$out" "$tests" "[lab]~[pair]"
