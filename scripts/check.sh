#!/usr/bin/env bash
# make check and make check-matrix: every stage of the test suite, each timed.
#
#   scripts/check.sh [--matrix] [--serial]
#
# A stage is one command (a make target, or one ctest test as CMakeLists.txt
# defines it) whose output goes to BUILD/check/NAME.log. Stages run in lanes: a
# lane runs its stages in order, and lanes run side by side: one prepares
# each suite's lab cache (its root, kernel, source, siw.ko), the host lane
# builds and tests on the host, a lane per suite's root builds in it (the
# Debian packages; for make check-suite's suite, its install-deps.sh, and the
# package build runs the unit tests), each suite's lane builds its modules and
# boots its guests, and its DKMS lane builds with dkms, then boots. A stage
# that needs another stage's result (the labs need the gcc build and their
# suite's lab cache) waits for it, and is
# skipped if that failed. How stages share the two cores: take_cpu, below
# (CHECK_GUESTS=2 lets two guests run at once). --serial (or CHECK_SERIAL=1)
# runs the lanes one after another instead, the same stages in the same order.
#
# --matrix adds the lane of Debian's newest kernel (sid) and the lane of the
# debug kernel (trixie's source with KASAN and lockdep: its build, then its
# guest): make check-matrix.
#
# At the end, a table of every stage (its lane, when it started, its wall time,
# its result, and what it found cached: ccache hits for a compile, the lab
# cache for a prepare, packages for deps), kept in BUILD/check-times.txt; its
# last line is "check: N passed, N failed, N skipped". A failed stage's log is
# printed when it fails. Exit 0 iff every stage passed.
set -uo pipefail

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
	exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
BUILD=${BUILD:-build}
ASAN_BUILD=${ASAN_BUILD:-build-asan}
SUITE=${SUITE:-trixie}
matrix=0
serial=${CHECK_SERIAL:-0}
guests=${CHECK_GUESTS:-1}
[[ $guests == [12] ]] || usage
while [ $# -gt 0 ]; do
	case $1 in
	--matrix) matrix=1 ;;
	--serial) serial=1 ;;
	*) usage ;;
	esac
	shift
done

logs=$repo/$BUILD/check
rm -rf "$logs"
mkdir -p "$logs"
t_start=$(date +%s)
export MAKEFLAGS= # each stage's make is its own, not a sub-make of ours
RDMASTAT_LAB_GUEST_LOCKS=$logs/.slot0
((guests > 1)) && RDMASTAT_LAB_GUEST_LOCKS+=" $logs/.slot1"
export RDMASTAT_LAB_GUEST_LOCKS

# Why a stage's cache was or was not there, from what the stage left.
cache_note() {
	local name=$1 f=$logs/$1.ccache hits misses
	if [ -f "$f" ]; then
		hits=$(grep -cE '^(direct|preprocessed)_cache_hit$' "$f")
		misses=$(grep -c '^cache_miss$' "$f")
		echo "ccache $hits/$((hits + misses)) hits"
		return
	fi
	case $name in
	deps)
		if grep -q 'apt-get install' "$logs/$name.log"; then
			echo "installed $(grep -o 'apt-get install .*' "$logs/$name.log" | cut -d' ' -f3- | wc -w) packages"
		else
			echo "all installed"
		fi
		;;
	prepare-*)
		local made=()
		grep -q 'debootstrap' "$logs/$name.log" && made+=(root)
		grep -q 'downloading and unpacking' "$logs/$name.log" && made+=(kernel)
		grep -q 'downloading linux-source' "$logs/$name.log" && made+=(source)
		grep -q 'building siw' "$logs/$name.log" && made+=(siw.ko)
		if ((${#made[@]})); then
			echo "lab cache filled: ${made[*]}"
		else
			echo "lab cache warm"
		fi
		;;
	debug-kernel-*)
		if grep -q "debug kernel .* built\|building .* debug kernel" "$logs/$name.log"; then
			echo "debug kernel built"
		else
			echo "debug kernel warm"
		fi
		;;
	esac
}

# How a stage shares the two cores, by name (in the stage's subshell, before
# its command):
#   guest      a lab boot (lab, pair, dkms): lab.sh takes one of CHECK_GUESTS
#              guest slots (1 or 2; default 1) while its guests run, and runs
#              them at normal priority whatever its stage's.
#              The lab's scenarios time real events (connect latencies against
#              cmtime, hostile peers' timeouts, -E's window): they are run with
#              the CPU they were written for, not shared with another guest.
#   first      deps, the gcc build, the lab caches and the modules, what the
#              first guest waits for, the lab and pair stages, and Prometheus and
#              serve (a real scraper against 1000 slow clients; it passed
#              beside three guests, and lost scrapes at SCHED_IDLE): normal
#              priority.
#   background everything else (the other builds, DKMS's, the debug kernel's
#              cold build (most of an hour), the unit tests,
#              the fuzzers, which run a fixed number of executions, the packages):
#              SCHED_IDLE, so it takes only the CPU that the guests leave.
#              Niced (10) instead, a cold suite build beside the trixie lab
#              delayed rdmastat ping's first go-ahead past kping's 5 s.
take_cpu() {
	case $1 in
	kernel-checks-*) chrt --idle -p 0 "$BASHPID" ;;
	# lab.sh takes a slot itself while the guests run (RDMASTAT_LAB_GUEST_LOCKS).
	deps | configure | build | prepare-* | kernel-* | lab-* | pair-* | prometheus) ;;
	*) chrt --idle -p 0 "$BASHPID" ;;
	esac
}

# stage LANE NAME [AFTER...] -- CMD...: run CMD once the stages AFTER have
# passed (skip it if one did not), and record its result in NAME.res:
# "result start wall note".
stage() {
	local lane=$1 name=$2 after=() a t0 rc=0 result note
	shift 2
	while [ "$1" != -- ]; do
		after+=("$1")
		shift
	done
	shift
	for a in "${after[@]}"; do
		while [ ! -f "$logs/$a.res" ]; do sleep 1; done
		if [ "$(cut -d' ' -f1 "$logs/$a.res")" != passed ]; then
			echo "$lane" >"$logs/$name.lane"
			echo "skipped $(($(date +%s) - t_start)) 0 $a did not pass" >"$logs/$name.res.tmp"
			mv "$logs/$name.res.tmp" "$logs/$name.res"
			report "$name" "$lane"
			return 1
		fi
	done
	(
		take_cpu "$name"
		date +%s >"$logs/$name.t0"
		CCACHE_STATSLOG=$logs/$name.ccache "$@"
	) >"$logs/$name.log" 2>&1 </dev/null || rc=$?
	t0=$(cat "$logs/$name.t0" 2>/dev/null || date +%s)
	if [ "$rc" = 0 ]; then result=passed; else result=failed; fi
	note=$(cache_note "$name")
	echo "$lane" >"$logs/$name.lane"
	echo "$result $((t0 - t_start)) $(($(date +%s) - t0)) ${note:-}" >"$logs/$name.res.tmp"
	mv "$logs/$name.res.tmp" "$logs/$name.res"
	report "$name" "$lane"
	return "$rc"
}

# One line per finished stage; a failed stage's log after it. Lanes print
# one at a time.
report() {
	local name=$1 lane=$2 result at wall note
	read -r result at wall note <"$logs/$name.res"
	{
		flock 8
		printf 'check: %-13s %-22s %-7s %5s s  %s\n' "$lane" "$name" "$result" "$wall" "$note"
		if [ "$result" = failed ]; then
			echo "---- $name failed; its log ($logs/$name.log):"
			cat "$logs/$name.log"
			echo "---- end of $name's log"
		fi
	} 8>>"$logs/.print"
}

# ctest's tests, by name, in a build directory: their commands and
# environments are defined once, in CMakeLists.txt.
ctest_in() {
	local dir=$1
	shift
	(cd "$repo/$dir" && ctest --output-on-failure --no-tests=error "$@")
}
ctest_one() { ctest_in "$BUILD" -R "^$1\$"; }

# The lanes.
lane_prepare() { # SUITE: its root, its kernel unpacked, its source subset, siw.ko
	stage "$1" "prepare-$1" -- env RDMASTAT_LAB_SUITE="$1" tests/lab/lab.sh prepare
}

lane_host() {
	stage host configure deps -- make --no-print-directory configure BUILD="$BUILD"
	stage host build configure -- make --no-print-directory build BUILD="$BUILD"
	# Early, beside the first guest's boot, rather than beside a later guest's
	# scenarios or after the last.
	stage host prometheus build -- ctest_in "$BUILD" -L prometheus
	stage host unit build -- make --no-print-directory unit BUILD="$BUILD"
	stage host asan-build -- make --no-print-directory asan-build ASAN_BUILD="$ASAN_BUILD"
	stage host asan-unit asan-build -- ctest_in "$ASAN_BUILD" -L unit -E '^layers$'
	stage host fuzz asan-build -- ctest_in "$ASAN_BUILD" -L fuzz -j2
}

lane_suite() { # SUITE: its modules, then its guests
	local s=$1
	stage "$s" "kernel-$s" configure "prepare-$s" -- ctest_one "kernel-$s"
	stage "$s" "lab-$s" build "kernel-$s" -- ctest_one "lab-$s"
	stage "$s" "pair-$s" build "kernel-$s" -- ctest_one "pair-$s"
}

# What the guests need not wait for: the modules' refusals of a mismatched
# source and checkpatch, in the background once the modules are built.
lane_kernel_checks() { # SUITE
	stage "$1" "kernel-checks-$1" "kernel-$1" -- ctest_one "kernel-checks-$1"
}

# The debug kernel of SUITE (tests/lab/sh/debug.sh): its build, in the
# background (a cold one takes most of an hour), then its guests.
lane_debug() { # SUITE
	local s=$1
	stage "$s-debug" "debug-kernel-$s" "prepare-$s" -- \
		env RDMASTAT_LAB_SUITE="$s-debug" tests/lab/lab.sh prepare
	stage "$s-debug" "lab-debug-$s" build "debug-kernel-$s" -- ctest_one "lab-debug-$s"
}

# DKMS's builds in SUITE's root, in the background from the start, then its
# guest, which takes a guest slot like the others (and normal priority with it).
lane_dkms() { # SUITE
	stage "dkms-$1" "dkms-$1" build "prepare-$1" -- ctest_one "dkms-$1"
}

# The builds in a suite's root, beside that suite's guests: the suite's Debian
# packages. For SUITE (make check-suite's), scripts/install-deps.sh first, and
# the package build is check-suite's build and unit tests, with -Werror
# (CMakeLists.txt: RDMASTAT_DEB_CHECK_SUITES), so the tool is compiled there
# once, not twice. Each root has a lane: the suite lanes share it (apt and
# dpkg one at a time: root.sh run --exclusive), not the guests.
lane_root() { # SUITE
	local s=$1 after="prepare-$s"
	if [ "$s" = "$SUITE" ]; then
		stage "root-$s" "deps-$s" "prepare-$s" -- \
			tests/suites/check.sh --deps-only "$s" "$BUILD/suite-$s"
		after="deps-$s"
	fi
	# After the host's build: a package built with the host's compiler hits
	# its ccache (tests/deb/check.sh), but only once it is filled.
	stage "root-$s" "deb-$s" configure build "$after" -- ctest_one "deb-$s"
}

suites=(bookworm trixie)
debug_suites=()
((matrix)) && suites+=(sid) && debug_suites+=(trixie)
mode=parallel
((serial)) && mode=serial
echo "check: $mode lanes; logs in $logs"

stage host deps -- make --no-print-directory deps
lanes=()
if ((serial)); then
	for s in "${suites[@]}"; do lane_prepare "$s"; done
	lane_host
	for s in bookworm trixie; do lane_root "$s"; done
	for s in "${suites[@]}"; do lane_suite "$s"; done
	for s in "${suites[@]}"; do lane_kernel_checks "$s"; done
	for s in "${suites[@]}"; do lane_dkms "$s"; done
	for s in "${debug_suites[@]}"; do lane_debug "$s"; done
else
	# Downloads and roots (network, unpacking) while the tool compiles.
	for s in "${suites[@]}"; do
		lane_prepare "$s" &
		lanes+=($!)
	done
	lane_host &
	lanes+=($!)
	for s in bookworm trixie; do
		lane_root "$s" &
		lanes+=($!)
	done
	for s in "${suites[@]}"; do
		lane_suite "$s" &
		lanes+=($!)
		lane_kernel_checks "$s" &
		lanes+=($!)
		lane_dkms "$s" &
		lanes+=($!)
	done
	for s in "${debug_suites[@]}"; do
		lane_debug "$s" &
		lanes+=($!)
	done
	wait "${lanes[@]}"
fi

# The table, by start time.
table=$repo/$BUILD/check-times.txt
passed=0 failed=0 skipped=0
{
	echo "# make check$( ((matrix)) && echo -matrix), $mode lanes, $(date -u '+%F %H:%M UTC')," \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores"
	printf '%-22s %-13s %6s %6s  %-7s %s\n' stage lane start wall result cached
	for f in "$logs"/*.res; do
		name=$(basename "$f" .res)
		read -r result at wall note <"$f"
		printf '%s %-22s %-13s %6s %6s  %-7s %s\n' "$at" "$name" "$(cat "$logs/$name.lane")" \
			"$at" "$wall" "$result" "$note"
	done | sort -n -k1,1 | cut -d' ' -f2-
	total=$(($(date +%s) - t_start))
	echo "total wall time: $total s ($((total / 60)) min $((total % 60)) s)"
} >"$table"
for f in "$logs"/*.res; do
	case $(cut -d' ' -f1 "$f") in
	passed) passed=$((passed + 1)) ;;
	failed) failed=$((failed + 1)) ;;
	*) skipped=$((skipped + 1)) ;;
	esac
done
echo "check: $passed passed, $failed failed, $skipped skipped" >>"$table"
echo
cat "$table"
[ "$failed" = 0 ] && [ "$skipped" = 0 ]
