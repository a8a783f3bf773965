#!/usr/bin/env bash
# ctest's "completion": completion/rdmastat.bash against the tool itself.
#   1. Its tables hold exactly the options and subcommands each command's
#      --help lists (so an option added to the tool and not to the completion
#      fails here).
#   2. Completions, as bash asks for them in a non-interactive shell: a
#      subcommand, an option of a subcommand, option values, filter keywords.
# usage: check.sh RDMASTAT
set -euo pipefail
export LC_ALL=C # sort: -E and -e are different options
[ $# -eq 1 ] || { echo "usage: $0 RDMASTAT" >&2; exit 2; }
rdmastat=$1
comp=$(cd "$(dirname "$0")/../.." && pwd)/completion/rdmastat.bash
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# The options a --help lists: first field of each option line, split at commas;
# only its first Options: section. kping's --help goes on with each subcommand's
# (from its "Usage: start" line), and "kping start --help" prints the same.
help_options() {
	local sub=""
	[ $# -eq 2 ] && sub=$2
	"$rdmastat" "$@" --help | awk -v want="$sub" '
		want != "" && !found { found = ($0 ~ ("^Usage: " want " ")); next }
		/^[A-Z][a-z]*:/ { in_opts = ($0 ~ /^Options:/ && !seen++); next }
		in_opts && /^  +-/ { n = split($1, o, ","); for (i = 1; i <= n; i++) print o[i] }' | sort -u
}
help_subcommands() {
	"$rdmastat" "$@" --help | awk '
		/^[A-Z][a-z]*:/ { in_subs = ($0 ~ /^Subcommands:/ && !seen++); next }
		in_subs && /^  +[a-z]/ { print $1 }' | sort -u
}
table() { # ARRAY PATH: the completion's table entry, one word per line
	bash -c '. "$0"; eval "v=\${$1[\$2]:-}"; for w in $v; do printf "%s\n" "$w"; done' "$comp" "$1" "rdmastat${2:+ $2}" | sort -u
}

for path in "" devices lsof ping kping "kping start" "kping stop" "kping show" check export serve \
	fabric life; do
	# shellcheck disable=SC2086 # the path is words
	want=$(help_options $path)
	[ -n "$want" ] || fail "rdmastat $path --help lists no options"
	got=$(table _rdmastat_opts "$path")
	if [ "$want" != "$got" ]; then
		fail "options of 'rdmastat $path': --help and the completion differ:"
		diff <(echo "$want") <(echo "$got") | sed -n 's/^</  only in --help:/p; s/^>/  only in completion:/p'
	fi
done
for path in "" kping; do
	# shellcheck disable=SC2086
	want=$(help_subcommands $path)
	got=$(table _rdmastat_subs "$path")
	[ "$want" = "$got" ] || fail "subcommands of 'rdmastat $path': --help has $(echo $want), completion $(echo $got)"
done
# Options that take a value are options of that command.
for path in "" devices lsof ping "kping start" check export serve fabric life; do
	for o in $(table _rdmastat_valued "$path"); do
		table _rdmastat_opts "$path" | grep -qx -- "$o" || fail "valued option $o is not an option of 'rdmastat $path'"
	done
done

# complete LINE: what bash offers for the last word of LINE (a trailing space
# means a new, empty word), as "complete -F _rdmastat" would compute it.
complete_line() {
	bash -c '. "$0"; read -ra COMP_WORDS <<<"$1"; [[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _rdmastat 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$comp" "$1"
}
expect() { # LINE WANT: the offered words, sorted, space-separated
	local got
	got=$(complete_line "$1")
	if [ "${got% }" = "$2" ]; then echo "ok: '$1' -> $2"; else fail "'$1' offers '${got% }', want '$2'"; fi
}
expect "rdmastat ser" "serve"
expect "rdmastat l" "life lsof"
expect "rdmastat li" "life"
expect "rdmastat serve --li" "--listen"
expect "rdmastat serve --per" "--per-connection --per-container --per-process"
expect "rdmastat export --per-cont" "--per-container"
expect "rdmastat fabric --pro" "--prometheus"
expect "rdmastat fa" "fabric"
expect "rdmastat --so" "--source"
expect "rdmastat --source " "auto module nldev"
expect "rdmastat check --source n" "nldev"
expect "rdmastat --source nldev -e -p d" "dev devices dport dst"
expect "rdmastat kping st" "start stop"
expect "rdmastat kping start --mem " "dma frwr-local frwr-remote"
expect "rdmastat kping start --mode write" "write-bw write-lat"
expect "rdmastat kping start --w" "--wait --wait-timeout"
expect "rdmastat ping --la" "--lat"
expect "rdmastat ping -I " ""
expect "rdmastat state lis" "LISTEN"
expect "rdmastat transport i" "ib infiniband iw iwarp"
expect "rdmastat lsof -u roo" "root"
expect "rdmastat devices --js" "--json"

if ((fails)); then
	echo "completion: $fails failures"
	exit 1
fi
echo "completion: passed"
