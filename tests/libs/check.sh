#!/usr/bin/env bash
# Which shared libraries each command loads, as the dynamic loader reports
# them (LD_DEBUG=libs): the listing, lsof, check, export, fabric of snapshots
# and --version load no TLS, compression, HTTP, verbs or BPF library; ping,
# serve, -E and fabric --prometheus, which rdmastat execs rdmastat-full for,
# load theirs (the anchor that shows the check can fail).
# The benchmark's floor (rdmastat-floor) loads no library the listing does not:
# a floor that started slower would flatter every ratio against it.
# usage: check.sh RDMASTAT SNAPSHOT FLOOR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 RDMASTAT SNAPSHOT FLOOR" >&2; exit 2; }
rdmastat=$1 snapshot=$2 floor=$3
heavy='/lib(ssl|crypto|gnutls|curl(-gnutls)?|z|brotli(common|dec|enc)|microhttpd|yaml-cpp|crypt|ibverbs|rdmacm|nl-3|nl-route-3|bpf|elf)\.so'

# The libraries a run initialised, one path per line.
loaded() { LD_DEBUG=libs "$@" 2>&1 >/dev/null | sed -n 's/.*calling init: //p' | sort -u; }

status=0
for words in "--version" "-a -p -e" "-j -a" "-s" "devices" "lsof" "lsof -j -p 224" \
	"check" "export" "fabric -a"; do
	# shellcheck disable=SC2086 # the words are the command line
	args=(--input "$snapshot")
	[ "$words" != "fabric -a" ] || args=("host=$snapshot")
	libs=$(loaded "$rdmastat" $words "${args[@]}" 2>/dev/null || true)
	[ "$words" != "--version" ] || libs=$(loaded "$rdmastat" --version)
	[ -n "$libs" ] || { echo "FAIL: rdmastat $words: LD_DEBUG reported no library"; status=1; }
	if grep -Eq "$heavy" <<<"$libs"; then
		echo "FAIL: rdmastat $words loads: $(grep -E "$heavy" <<<"$libs" | tr '\n' ' ')"
		status=1
	else
		echo "ok: rdmastat $words loads $(wc -l <<<"$libs") libraries, none of TLS, HTTP or verbs"
	fi
done

# ping's help runs in rdmastat-full, whose verbs, HTTP, TLS and BPF libraries load.
libs=$(loaded "$rdmastat" ping --help)
for lib in librdmacm libibverbs libmicrohttpd libgnutls libbpf; do
	if grep -q "/$lib\.so" <<<"$libs"; then
		echo "ok: rdmastat ping --help (rdmastat-full) loads $lib"
	else
		echo "FAIL: rdmastat ping --help did not load $lib: did it run rdmastat-full?"
		status=1
	fi
done
# fabric --prometheus runs in rdmastat-full too, for libcurl (nothing listens
# on port 1: the loader has run by then).
libs=$(loaded "$rdmastat" fabric --prometheus http://127.0.0.1:1 2>/dev/null || true)
if grep -Eq '/libcurl(-gnutls)?\.so' <<<"$libs"; then
	echo "ok: rdmastat fabric --prometheus (rdmastat-full) loads libcurl"
else
	echo "FAIL: rdmastat fabric --prometheus did not load libcurl: did it run rdmastat-full?"
	status=1
fi
# The floor's libraries by name, against the listing's (its dumps may fail
# here: the loader has run by then).
names() { sed 's,.*/,,' | sort -u; }
listing=$(loaded "$rdmastat" -a -p -e --input "$snapshot" 2>/dev/null || true)
floor_libs=$(loaded "$floor" 2>/dev/null || true)
if [ -z "$listing" ] || [ -z "$floor_libs" ]; then
	echo "FAIL: LD_DEBUG reported no library for the listing or for rdmastat-floor"
	status=1
else
	extra=$(comm -13 <(names <<<"$listing") <(names <<<"$floor_libs"))
	if [ -n "$extra" ]; then
		echo "FAIL: rdmastat-floor loads what the listing does not: $(tr '\n' ' ' <<<"$extra")"
		status=1
	else
		echo "ok: rdmastat-floor loads no library the listing does not"
	fi
fi
exit "$status"
