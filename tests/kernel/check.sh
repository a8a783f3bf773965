#!/usr/bin/env bash
# ctest's "kernel-SUITE" and "kernel-checks-SUITE" tests. --build (kernel-SUITE,
# what the lab waits for): rdmastat.ko and rdmastat_kping.ko build against the
# lab kernel of RDMASTAT_LAB_SUITE with that suite's compiler, and neither
# carries a module alias (nothing loads them but an admin). --checks
# (kernel-checks-SUITE, beside the guests): rdmastat.ko refuses to build
# against a kernel source of another version or of another rdma_id_private
# layout, and that kernel's checkpatch finds no errors or warnings in kernel/
# and the UAPI headers beyond the exceptions listed below by name. Without
# either, both.
# usage: check.sh [--build | --checks] OUTDIR   (the modules are built in OUTDIR)
set -euo pipefail
part=all
case ${1:-} in
--build | --checks) part=${1#--} && shift ;;
esac
[ $# -eq 1 ] || { echo "usage: $0 [--build | --checks] OUTDIR" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
lab=$repo/tests/lab/lab.sh
"$lab" prepare
ksrc=$("$lab" ksrc)

# Sources only: objects in the repository may come from another compiler.
copy_sources() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$repo/Kbuild" "$1/"
	cp -r "$repo/kernel" "$1/"
	find "$1/kernel" -type f ! -name '*.[ch]' -delete
	cp -r "$repo/include" "$1/"
}
mkdir -p "$1"
out=$(realpath "$1")
kver=$("$lab" kver)

build() {
	copy_sources "$out"
	echo "== the layout guard's input: rdma_cm's BTF of $kver"
	"$repo/kernel/rdmastat/btf-layout.sh" "$out/btf-layout.h" "$kver" "$("$lab" kdir)"
	grep -q '^RDMASTAT_BTF_FIELD(rdma_id_private, state, ' "$out/btf-layout.h" ||
		{ cat "$out/btf-layout.h"; echo "FAIL: no layout from the lab kernel's BTF"; exit 1; }
	echo "== build against $kver (${RDMASTAT_LAB_SUITE:-bookworm}) with KSRC=$ksrc"
	"$lab" kmake -s M="$out" KSRC="$ksrc" RDMASTAT_BTF_LAYOUT="$out/btf-layout.h" modules
	# The lab's imitation of NFS/RDMA's server: a kernel user of rdma_cm that
	# destroys its QP behind rdma_cm's back (tests/kernel/ulp).
	rm -rf "$out/ulp"
	mkdir -p "$out/ulp"
	cp "$repo/tests/kernel/ulp/Kbuild" "$repo/tests/kernel/ulp/"*.c "$out/ulp/"
	"$lab" kmake -s M="$out/ulp" modules
	for ko in rdmastat rdmastat_kping; do
		modinfo "$out/$ko.ko" | grep -E '^(vermagic|license|alias):'
		# No alias: a family lookup by anyone must not load the module.
		if modinfo -F alias "$out/$ko.ko" | grep -q .; then
			echo "FAIL: $ko.ko carries a module alias: $(modinfo -F alias "$out/$ko.ko")"
			exit 1
		fi
	done
}

if [ "$part" != checks ]; then
	build
	[ "$part" = build ] && { echo "kernel: modules built"; exit 0; }
fi

[ -f "$out/btf-layout.h" ] || { echo "FAIL: no build in $out: run --build first"; exit 1; }
echo "== a KSRC of another version must not build"
fake=$(mktemp -d)
trap '[ -n "${RDMASTAT_KEEP:-}" ] || rm -rf "$fake"' EXIT
ln -s "$ksrc/drivers" "$fake/drivers"
sed 's/^SUBLEVEL = .*/SUBLEVEL = 0/' "$ksrc/Makefile" >"$fake/Makefile"
scratch=$fake/tree
copy_sources "$scratch"
if "$lab" kmake -s M="$scratch" KSRC="$fake" modules >"$fake/log" 2>&1; then
	echo "FAIL: built against a mismatched KSRC"
	exit 1
fi
grep -q 'KSRC is the source of another kernel version' "$fake/log" ||
	{ cat "$fake/log"; echo "FAIL: the mismatch was not the reason"; exit 1; }
echo "refused, as it should"

echo "== a KSRC of the same version with another rdma_id_private must not build"
# A patched copy: one more member before state moves every member after it.
patched=$fake/patched
mkdir -p "$patched/drivers/infiniband"
cp "$ksrc/Makefile" "$patched/"
cp -r "$ksrc/drivers/infiniband/core" "$patched/drivers/infiniband/"
sed -i 's/^\tenum rdma_cm_state\s*state;/\tint rdmastat_test_pad;\n&/' \
	"$patched/drivers/infiniband/core/cma_priv.h"
grep -q rdmastat_test_pad "$patched/drivers/infiniband/core/cma_priv.h" ||
	{ echo "FAIL: the test could not patch cma_priv.h"; exit 1; }
copy_sources "$scratch"
cp "$out/btf-layout.h" "$scratch/"
if "$lab" kmake -s M="$scratch" KSRC="$patched" RDMASTAT_BTF_LAYOUT="$scratch/btf-layout.h" \
	modules >"$fake/log" 2>&1; then
	echo "FAIL: built against a KSRC whose rdma_id_private differs from the kernel's BTF"
	exit 1
fi
grep -o 'rdma_id_private\.state: offset or size in KSRC differs[^"]*' "$fake/log" ||
	{ cat "$fake/log"; echo "FAIL: the layout was not the reason, or the member not named"; exit 1; }
echo "refused, naming the member, as it should"

echo "== checkpatch (errors and warnings)"
# Deliberate exceptions, by file and checkpatch type, each with its reason:
#   kernel/rdmastat/conn.c LINUX_VERSION_CODE: an out-of-tree module that reads
#     rdma_cm's private layout must refuse a KSRC of another kernel version;
#     upstream code would not need the check.
allowed=(
	"kernel/rdmastat/conn.c:LINUX_VERSION_CODE"
)
out=$(cd "$repo" && perl "$ksrc/scripts/checkpatch.pl" --no-tree --terse --show-types \
	-f kernel/*.h kernel/*/*.[ch] tests/kernel/ulp/*.c include/uapi/linux/rdmastat*.h || true)
echo "$out"
bad=0
while IFS= read -r line; do
	[[ $line =~ ^([^:]+):[0-9]+:\ (ERROR|WARNING|CHECK):([A-Z_0-9]+): ]] || continue
	key="${BASH_REMATCH[1]}:${BASH_REMATCH[3]}"
	ok=0
	for a in "${allowed[@]}"; do [[ $key == "$a" ]] && ok=1; done
	if ((ok)); then
		echo "allowed: $key"
	else
		echo "FAIL: checkpatch: $line"
		bad=1
	fi
done <<<"$out"
((bad == 0)) || exit 1
# The filter must see what checkpatch prints: a deliberate warning is caught.
probe=$(mktemp -d)
printf '// SPDX-License-Identifier: GPL-2.0\nint f(void)\n{\n\treturn 0;;\n}\n' >"$probe/probe.c"
probe_out=$(perl "$ksrc/scripts/checkpatch.pl" --no-tree --terse --show-types \
	-f "$probe/probe.c" || true)
rm -rf "$probe"
[[ $probe_out =~ :[0-9]+:\ WARNING:ONE_SEMICOLON: ]] ||
	{ echo "$probe_out"; echo "FAIL: checkpatch output format not recognised"; exit 1; }
echo "kernel: 3 passed, 0 failed"
