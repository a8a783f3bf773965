#!/usr/bin/env bash
# ctest's "deb-SUITE": the Debian packages, as a user of SUITE gets them.
#   1. dpkg-buildpackage builds rdmastat and rdmastat-dkms from debian/ in the
#      suite's cached root, with its build dependencies (apt-get build-dep);
#   2. lintian reports no errors (its output is kept in OUTDIR/lintian.txt);
#   3. both packages install with apt in a fresh minbase root of the suite,
#      where rdmastat --version, man rdmastat, a listing of a snapshot,
#      systemd-analyze verify and the offline security review of the unit, the
#      installed bash completion and dkms status are checked.
# usage: check.sh SUITE OUTDIR   (DEB_BUILD_OPTIONS is passed to the build)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SUITE OUTDIR" >&2; exit 2; }
suite=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
rootsh=$repo/tests/roots/root.sh
mkdir -p "$2"
out=$(realpath "$2")
rm -rf "${out:?}"/*
ver=$(dpkg-parsechangelog -l "$repo/debian/changelog" -S Version)
t0=$(date +%s)
fail() {
	echo "FAIL ($suite): $*"
	exit 1
}

# The source package's tree: what git tracks (or would), nothing built.
git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || fail "$repo is not a git checkout: cannot tell sources from build output"
src=$out/src/rdmastat-$ver
mkdir -p "$src"
git -C "$repo" ls-files -z -co --exclude-standard | (cd "$repo" && xargs -0 cp --parents -t "$src")

echo "== $suite: build dependencies and dpkg-buildpackage -b (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-})"
"$rootsh" install "$suite" build-essential dpkg-dev lintian
"$rootsh" run "$suite" --exclusive --bind "$out" sh -c "apt-get build-dep -y -qq '$src' >'$out/build-dep.log' 2>&1" ||
	{ tail -n 20 "$out/build-dep.log"; fail "apt-get build-dep"; }
# Compiled through the suite's ccache: CMake takes the launcher from the
# environment, and paths are keyed relative to the source tree, so a build from
# another clone hits what the last one left. The package itself is as without it.
# Where the root's compiler and ccache are the host's, that is the host's cache:
# the host's build (Makefile) compiles with the package's flags, so the package
# build hits what it compiled (sloppiness and LC_ALL as in CMakeLists.txt's
# launcher: ccache keys on both).
cache=--ccache
version() { "$@" --version 2>/dev/null | head -n1; }
if command -v ccache >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1 &&
	[ "$(version c++)" = "$("$rootsh" run "$suite" sh -c 'c++ --version | head -n1')" ] &&
	[ "$(version ccache)" = "$("$rootsh" run "$suite" --ccache sh -c 'ccache --version | head -n1')" ]; then
	cache=--ccache=$(ccache -k cache_dir)
	echo "the root's compiler and ccache are the host's: building through the host's cache"
fi
"$rootsh" run "$suite" "$cache" --bind "$out" env DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-}" \
	CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache \
	CCACHE_BASEDIR="$src" CCACHE_NOHASHDIR=true LC_ALL=C.UTF-8 \
	CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime \
	sh -c "cd '$src' && dpkg-buildpackage -us -uc -b >'$out/build.log' 2>&1" ||
	{ tail -n 40 "$out/build.log"; fail "dpkg-buildpackage"; }
debs=("$out/src/rdmastat_${ver}_"*.deb "$out/src/rdmastat-dkms_${ver}_all.deb")
ls -l "${debs[@]}"
echo "built in $(($(date +%s) - t0)) s"

echo "== $suite: lintian"
rc=0
"$rootsh" run "$suite" --bind "$out" sh -c "lintian --fail-on error --display-info '$out/src/'*.changes" \
	>"$out/lintian.txt" 2>&1 || rc=$?
sed -i '/^running with root privileges is not recommended/d' "$out/lintian.txt"
cat "$out/lintian.txt"
echo "$("$rootsh" run "$suite" lintian --version): exit $rc; $(grep -c '^E: ' "$out/lintian.txt") errors, $(grep -c '^W: ' "$out/lintian.txt") warnings"
[ "$rc" -eq 0 ] && ! grep -q '^E: ' "$out/lintian.txt" || fail "lintian reports errors"

echo "== $suite: install into a fresh root"
fresh=$out/fresh
"$rootsh" fresh "$suite" "$fresh"
enter() { "$rootsh" enter "$fresh" "$@"; }
mkdir -p "$fresh/tmp/debs"
cp "${debs[@]}" "$repo/tests/fixtures/snapshot-host.json" "$fresh/tmp/debs/"
# man-db and systemd as an administrator's machine has them (minbase has neither).
enter sh -c 'apt-get install -y -qq man-db systemd /tmp/debs/*.deb' >"$out/install.log" 2>&1 ||
	{ tail -n 30 "$out/install.log"; fail "apt-get install of the packages"; }
enter dpkg-query -W rdmastat rdmastat-dkms

v=$(enter rdmastat --version) || fail "rdmastat --version"
echo "rdmastat --version: $v"
[[ $v == *"$ver"* ]] || fail "--version says '$v', the package is $ver"

enter sh -c 'MANPAGER=cat man rdmastat 2>&1' >"$out/man.txt" || fail "man rdmastat"
grep -q 'rdmastat serve' "$out/man.txt" || grep -q 'serve' "$out/man.txt" || fail "man rdmastat has no serve section"
echo "man rdmastat: $(wc -l <"$out/man.txt") lines"
enter sh -c 'MANPAGER=cat man 8 rdmastat-ping >/dev/null && MANPAGER=cat man 8 rdmastat-kping >/dev/null' ||
	fail "man rdmastat-ping / rdmastat-kping"

# The installed binary reads a snapshot with the libraries the package pulled in.
n=$(enter rdmastat --input /tmp/debs/snapshot-host.json -a -j | jq '.connections | length') ||
	fail "rdmastat --input -a -j"
want=$(jq '.connections | length' "$repo/tests/fixtures/snapshot-host.json")
[ "$n" -gt 0 ] && [ "$n" = "$want" ] || fail "rdmastat --input lists $n connections, the snapshot has $want"
echo "rdmastat --input snapshot-host.json -a: $n connections"

# ping and serve run in the helper the package installs; the listing loads no
# TLS or verbs library.
enter rdmastat ping --help >"$out/ping-help.txt" 2>&1 ||
	{ cat "$out/ping-help.txt"; fail "rdmastat ping --help (through /usr/libexec/rdmastat/rdmastat-full)"; }
grep -q '^Usage: rdmastat ping' "$out/ping-help.txt" || fail "rdmastat ping --help printed no usage"
needed=$(enter ldd /usr/sbin/rdmastat)
! grep -Eq 'libgnutls|libcurl|libmicrohttpd|libyaml-cpp|libibverbs|librdmacm|libbpf|libelf|libz' <<<"$needed" || fail "/usr/sbin/rdmastat needs: $needed"
echo "ping through rdmastat-full; /usr/sbin/rdmastat needs $(grep -c '=>' <<<"$needed") libraries"

unit=$(enter sh -c 'ls /usr/lib/systemd/system/rdmastat-serve.service /lib/systemd/system/rdmastat-serve.service 2>/dev/null | head -n1')
[ -n "$unit" ] || fail "no rdmastat-serve.service installed"
[ -f "$fresh/etc/default/rdmastat-serve" ] || fail "no /etc/default/rdmastat-serve"
enter systemd-analyze verify "$unit" 2>&1 | tee "$out/verify.txt"
[ ! -s "$out/verify.txt" ] || fail "systemd-analyze verify $unit"
echo "systemd-analyze verify $unit: clean"
socket=${unit%.service}.socket
enter test -f "$socket" || fail "no rdmastat-serve.socket beside $unit"
enter systemd-analyze verify "$socket" 2>&1 | tee "$out/verify-socket.txt"
[ ! -s "$out/verify-socket.txt" ] || fail "systemd-analyze verify $socket"
state=$(enter systemctl is-enabled rdmastat-serve.socket 2>&1) || true
[ "$state" = disabled ] || fail "rdmastat-serve.socket is '$state' on install, not disabled"
echo "systemd-analyze verify $socket: clean, $state"
state=$(enter systemctl is-enabled rdmastat-serve.service 2>&1) || true
[ "$state" = disabled ] || fail "rdmastat-serve.service is '$state' on install, not disabled"
echo "rdmastat-serve.service: $state until the administrator enables it"
enter systemd-analyze security --offline=true "$unit" >"$out/security.txt" 2>&1 || true
grep -E 'Overall exposure level' "$out/security.txt" || echo "(systemd-analyze security --offline unavailable)"

for f in rdmastat.rules.yml rdmastat.dashboard.json; do
	cmp -s "$fresh/usr/share/rdmastat/$f" "$repo/monitoring/$f" ||
		fail "/usr/share/rdmastat/$f is not installed as the repository has it"
done
echo "monitoring: alerting rules and dashboard in /usr/share/rdmastat/"

comp=$fresh/usr/share/bash-completion/completions/rdmastat
[ -f "$comp" ] || fail "no bash completion installed"
got=$(enter bash -c '. /usr/share/bash-completion/completions/rdmastat
	COMP_WORDS=(rdmastat serve --li); COMP_CWORD=2; _rdmastat; echo "${COMPREPLY[*]}"
	COMP_WORDS=(rdmastat ku); COMP_CWORD=1; _rdmastat; echo "${COMPREPLY[*]}"
	COMP_WORDS=(rdmastat kp); COMP_CWORD=1; _rdmastat; echo "${COMPREPLY[*]}"')
[ "$got" = $'--listen\n\nkping' ] || fail "installed completion offers '$got'"
echo "bash completion: serve --li -> --listen, kp -> kping"

enter dkms status | tee "$out/dkms-status.txt"
grep -q "^rdmastat/$ver" "$out/dkms-status.txt" || fail "dkms does not know rdmastat/$ver"
[ -f "$fresh/usr/src/rdmastat-$ver/dkms-make.sh" ] || fail "no DKMS tree in /usr/src/rdmastat-$ver"
echo "deb-$suite: passed in $(($(date +%s) - t0)) s"
