#!/usr/bin/env bash
# The layers' include roots (CMakeLists.txt, rdmastat_layer) hold exactly the
# layers each may see: for every layer and every folder of tool/, a file that
# includes one of the folder's headers must compile with the layer's root iff
# the folder is the layer itself or one it sees. A layer reaching up fails to
# compile, and this shows the build would catch it.
# usage: check.sh LAYERS_ROOT CXX
set -euo pipefail
roots=$1
cxx=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
passed=0
failed=0
for root in "$roots"/*/; do
	layer=$(basename "$root")
	for dir in "$repo"/tool/*/; do
		folder=$(basename "$dir")
		header=$(cd "$dir" && ls -- *.h 2>/dev/null | head -n1)
		[ -n "$header" ] || continue
		expect=no
		[ -e "$root/$folder" ] && expect=yes
		if echo "#include \"$folder/$header\"" |
			"$cxx" -std=c++20 -fsyntax-only -I "$root" -I "$repo/include/uapi" -x c++ - \
				>/dev/null 2>&1; then
			got=yes
		else
			got=no
		fi
		if [ "$got" = "$expect" ]; then
			passed=$((passed + 1))
		else
			echo "FAIL: layer $layer including $folder/$header: compiles=$got, expected $expect"
			failed=$((failed + 1))
		fi
	done
done
# The roots must say something: every layer sees itself, and cli sees every layer.
for root in "$roots"/*/; do
	[ -e "$root/$(basename "$root")" ] || { echo "FAIL: $(basename "$root") does not see itself"; failed=$((failed + 1)); }
done
for dir in "$repo"/tool/*/; do
	[ -e "$roots/cli/$(basename "$dir")" ] || { echo "FAIL: cli does not see $(basename "$dir")"; failed=$((failed + 1)); }
done
echo "layers: $passed passed, $failed failed"
[ "$failed" = 0 ]
