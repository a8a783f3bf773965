#!/usr/bin/env bash
# The tool on another Debian release: in a cached debootstrap root of SUITE,
# scripts/install-deps.sh installs what it names (as on a fresh machine of that
# release), then the tool and the unit tests are built with that release's
# compiler and libraries (Catch2 3 on trixie), through the suite's ccache
# (tests/roots/root.sh run --ccache), and run (ctest -L unit).
# With --deps-only, only the first step: make check's package build of SUITE
# (tests/deb/check.sh with DEB_BUILD_OPTIONS=werror) builds and runs the rest.
# usage: check.sh [--deps-only] SUITE BUILDDIR
set -euo pipefail
deps_only=0
[ "${1:-}" = --deps-only ] && deps_only=1 && shift
[ $# -eq 2 ] || { echo "usage: $0 [--deps-only] SUITE BUILDDIR" >&2; exit 2; }
suite=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$2"
build=$(realpath "$2")
root=$repo/tests/roots/root.sh
t0=$(date +%s)

"$root" path "$suite" >/dev/null
echo "== $suite: scripts/install-deps.sh"
log=$build/install-deps.log
"$root" run "$suite" --exclusive --bind "$repo" "$repo/scripts/install-deps.sh" >"$log" 2>&1 ||
	{ tail -n 30 "$log"; echo "$suite: install-deps.sh failed (log: $log)"; exit 1; }
"$root" run "$suite" sh -c '. /etc/os-release; echo "$PRETTY_NAME"; c++ --version | head -n1;
	dpkg-query -W -f="\${Package} \${Version}\n" catch2 cmake'
if ((deps_only)); then
	echo "$suite: scripts/install-deps.sh passed in $(($(date +%s) - t0)) s"
	exit 0
fi
# The build directory may live inside the repository: bind both.
binds=(--bind "$repo")
case $build/ in "$repo"/*) ;; *) binds+=(--bind "$build") ;; esac
echo "== $suite: build and unit tests"
"$root" run "$suite" --ccache "${binds[@]}" sh -ec "
	cmake -S '$repo' -B '$build' -G Ninja -DRDMASTAT_WERROR=ON -DRDMASTAT_LAB=OFF \
		-DRDMASTAT_CCACHE=ON >/dev/null
	cmake --build '$build' >'$build/build.log' 2>&1 || { tail -n 40 '$build/build.log'; exit 1; }
	'$build/rdmastat' --version
	cd '$build' && ctest --output-on-failure -L unit"
echo "$suite: passed in $(($(date +%s) - t0)) s"
