#!/usr/bin/env bash
# The layers' include roots (CMakeLists.txt, rdmastat_layer) against the design
# (ARCHITECTURE.md: collect -> model -> analysis -> render -> cli), written here a
# second time on purpose, so a change to either table must be made in both:
#   1. each layer's root links exactly the folders the design lets it see;
#   2. through its root, every header of those folders compiles, and a header of
#      any other folder of tool/ does not: a layer reaching up fails to compile.
# usage: check.sh LAYERS_ROOT CXX
set -uo pipefail
roots=$1
cxx=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
declare -A sees=(
	[common]=""
	[model]="common"
	[collect]="model common"
	[analysis]="model common"
	[ping]="common"
	[render]="analysis ping model common"
	[pipeline]="analysis collect model common"
	[serve]="common"
	[trace]="model common"
	[cli]="render pipeline analysis collect ping serve trace model common"
)
passed=0
failed=0
judge() { # judge OK DESCRIPTION
	if [ "$1" = 1 ]; then
		passed=$((passed + 1))
	else
		echo "FAIL: $2"
		failed=$((failed + 1))
	fi
}

compiles() { # compiles ROOT < SOURCE
	"$cxx" -std=c++20 -fsyntax-only -I "$1" -I "$repo/include/uapi" -x c++ - 2>&1 >/dev/null
}

folders=$(cd "$repo/tool" && ls -d -- */ | tr -d /)
for folder in $folders; do
	judge "$([ -n "${sees[$folder]+x}" ] && echo 1)" "tool/$folder/ is a layer the design does not name"
done
for layer in "${!sees[@]}"; do
	root=$roots/$layer
	want=$(printf '%s\n' $layer ${sees[$layer]} | sort | tr '\n' ' ')
	have=$(cd "$root" 2>/dev/null && ls -- | sort | tr '\n' ' ')
	judge "$([ "$want" = "$have" ] && echo 1)" "layer $layer sees '$have', the design says '$want'"
	# Every header the layer may see, in one translation unit (compiling them one
	# by one costs minutes); a header of any other folder, each on its own.
	seen=""
	for folder in $folders; do
		for header in "$repo/tool/$folder"/*.h; do
			[ -e "$header" ] || continue
			line="#include \"$folder/$(basename "$header")\""
			case " $want " in
			*" $folder "*) seen="$seen$line"$'\n' ;;
			*)
				printf '%s\n' "$line" | compiles "$root" >/dev/null 2>&1 &&
					judge 0 "layer $layer compiles $line, which the design forbids" ||
					judge 1 ""
				;;
			esac
		done
	done
	out=$(printf '%s' "$seen" | compiles "$root" 2>&1) && judge 1 "" ||
		judge 0 "layer $layer cannot compile the headers it may see: $(echo "$out" | head -3)"
done
echo "layers: $passed passed, $failed failed"
[ "$failed" = 0 ]
