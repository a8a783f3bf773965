#!/usr/bin/env bash
# ctest's "dkms-SUITE": the DKMS source tree as a user installs it, built by
# Debian's dkms in the suite's root for the lab kernel of that suite:
#   1. without kernel source: rdmastat_kping.ko alone;
#   2. with linux-source-X.Y of another version: refused;
#   3. with linux-source-X.Y of the kernel's version: dkms install builds both
#      (the private headers come from the tarball);
# then the lab boots that kernel with exactly the .ko files DKMS produced and
# runs the module scenario and its [lab][module] assertions.
# usage: check.sh RDMASTAT CAPTURE CMIDS TESTS OUTDIR   (RDMASTAT_LAB_SUITE picks the suite)
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 RDMASTAT CAPTURE CMIDS TESTS OUTDIR" >&2; exit 2; }
rdmastat=$1 capture=$2 cmids=$3 tests=$4
repo=$(cd "$(dirname "$0")/../.." && pwd)
lab=$repo/tests/lab/lab.sh
rootsh=$repo/tests/roots/root.sh
suite=${RDMASTAT_LAB_SUITE:-bookworm}
mkdir -p "$5"
out=$(realpath "$5")
rm -rf "${out:?}"/*

"$lab" prepare
kver=$("$lab" kver)
series=$(echo "$kver" | cut -d. -f1,2)
version=$(cat "$("$lab" kdir)/../version")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$repo/dkms.conf")
"$rootsh" install "$suite" dkms "linux-headers-$kver"
root=$("$rootsh" path "$suite")
in_root() { "$rootsh" run "$suite" "$@"; }
in_root_apt() { "$rootsh" run "$suite" --exclusive "$@"; } # apt: one at a time per root

# The source tree as the rdmastat-dkms package installs it.
src=$root/usr/src/rdmastat-$ver
in_root_apt sh -c "dkms remove rdmastat/$ver --all >/dev/null 2>&1; apt-get purge -y -qq 'linux-source-$series' >/dev/null 2>&1" || true
rm -rf "$src"
mkdir -p "$src"
cp "$repo/Kbuild" "$repo/dkms.conf" "$repo/dkms-make.sh" "$src/"
cp -r "$repo/kernel" "$src/"
find "$src/kernel" -type f ! -name '*.[ch]' ! -name btf-layout.sh -delete
cp -r "$repo/include" "$src/"
in_root dkms add "rdmastat/$ver" >/dev/null

built() { # the modules dkms built for the kernel, by name
	find "$root/var/lib/dkms/rdmastat/$ver/$kver" -name '*.ko*' -printf '%f\n' 2>/dev/null | sort | tr '\n' ' '
}

echo "== $suite: dkms build -k $kver, no kernel source"
in_root dkms build "rdmastat/$ver" -k "$kver" >"$out/build-nosource.log" 2>&1 ||
	{ cat "$out/build-nosource.log"; echo "FAIL: dkms build without source"; exit 1; }
grep 'rdmastat_kping.ko alone' "$out/build-nosource.log" || true
[[ $(built) == rdmastat_kping.ko* ]] && [[ $(built) != *rdmastat.ko* ]] ||
	{ echo "FAIL: built without source: $(built)"; exit 1; }
echo "built: $(built)"
in_root dkms status "rdmastat/$ver"
in_root dkms remove "rdmastat/$ver" --all >/dev/null

echo "== $suite: dkms build with linux-source-$series of another version"
other=$(in_root apt-cache madison "linux-source-$series" | awk -F'|' -v v="$version" \
	'{ gsub(/ /, "", $2); if ($2 != v) { print $2; exit } }')
if [ -n "$other" ]; then
	"$rootsh" install "$suite" "linux-source-$series=$other"
	in_root dkms add "rdmastat/$ver" >/dev/null
	if in_root dkms build "rdmastat/$ver" -k "$kver" >"$out/build-mismatch.log" 2>&1; then
		cat "$out/build-mismatch.log"
		echo "FAIL: built rdmastat.ko against linux-source-$series $other for $kver ($version)"
		exit 1
	fi
	# dkms keeps the build's own output in make.log.
	cat "$root/var/lib/dkms/rdmastat/$ver/build/make.log" >>"$out/build-mismatch.log"
	grep -q "is not the source of $kver" "$out/build-mismatch.log" ||
		{ cat "$out/build-mismatch.log"; echo "FAIL: refused for another reason"; exit 1; }
	echo "refused, as it should: $(grep -o "linux-source-$series $other is not the source of [^;]*" "$out/build-mismatch.log")"
	in_root dkms remove "rdmastat/$ver" --all >/dev/null
	in_root_apt apt-get purge -y -qq "linux-source-$series" >/dev/null
else
	echo "skipped: the archive has one linux-source-$series version only ($version)"
fi

echo "== $suite: dkms install -k $kver with linux-source-$series=$version"
"$rootsh" install "$suite" "linux-source-$series=$version"
in_root dkms add "rdmastat/$ver" >/dev/null
in_root dkms install "rdmastat/$ver" -k "$kver" >"$out/install.log" 2>&1 ||
	{ cat "$out/install.log"; echo "FAIL: dkms install"; exit 1; }
in_root dkms status | tee "$out/dkms-status.txt"
grep -q "rdmastat/$ver, $kver, x86_64: installed" "$out/dkms-status.txt" ||
	{ echo "FAIL: dkms status does not show rdmastat installed for $kver"; exit 1; }
mkdir -p "$out/ko"
for m in rdmastat rdmastat_kping; do
	f=$(find "$root/lib/modules/$kver/updates/dkms" -name "$m.ko*" | head -n1)
	[ -n "$f" ] || { echo "FAIL: dkms installed no $m.ko"; exit 1; }
	case $f in
	*.xz) xz -dc "$f" >"$out/ko/$m.ko" ;;
	*.zst) zstd -qdc "$f" >"$out/ko/$m.ko" ;;
	*) cp "$f" "$out/ko/$m.ko" ;;
	esac
	modinfo -F vermagic "$out/ko/$m.ko"
done

echo "== $suite: the lab with DKMS's modules"
"$lab" run --out "$out/lab" --bin "$rdmastat" --bin "$capture" --bin "$cmids" \
	--ko "$out/ko/rdmastat.ko" --ko "$out/ko/rdmastat_kping.ko" "$repo/tests/lab/scenarios/module.sh" ||
	{ cat "$out/lab/module.log"; exit 1; }
RDMASTAT_LAB_OUT="$out/lab" "$tests" "[lab][module]"
