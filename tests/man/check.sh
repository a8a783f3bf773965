#!/usr/bin/env bash
# ctest's "man" test: every manual page renders without groff warnings, and
# every long option a command's --help lists appears in its page.
# usage: check.sh RDMASTAT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 RDMASTAT" >&2; exit 2; }
rdmastat=$1
man_dir=$(cd "$(dirname "$0")/../../man" && pwd)
status=0

for page in "$man_dir"/*.8; do
	warnings=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null || true)
	if [ -n "$warnings" ]; then
		echo "$(basename "$page"): groff warnings:"
		echo "$warnings"
		status=1
	fi
done

# documented PAGE HELP...: each --option in the help text is in PAGE (as \-\-option).
documented() {
	local page=$1 opt
	shift
	for opt in $("$@" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		if ! grep -qF -- "${opt//-/\\-}" "$man_dir/$page"; then
			echo "$page: $opt (from: rdmastat${*#"$rdmastat"}) is not documented"
			status=1
		fi
	done
}
documented rdmastat.8 "$rdmastat" --help
documented rdmastat.8 "$rdmastat" devices --help
documented rdmastat.8 "$rdmastat" check --help
documented rdmastat.8 "$rdmastat" lsof --help
documented rdmastat.8 "$rdmastat" export --help
documented rdmastat.8 "$rdmastat" serve --help
documented rdmastat.8 "$rdmastat" fabric --help
documented rdmastat-ping.8 "$rdmastat" ping --help
documented rdmastat-kping.8 "$rdmastat" kping --help
[ "$status" = 0 ] && echo "man pages: no warnings, every option documented"
exit "$status"
