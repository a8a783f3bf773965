# SPDX-License-Identifier: MIT
# bash completion for rdmastat(8): subcommands, every option of each, and the
# values the tool accepts (sources, kping modes and memory modes, filter
# keywords and states). tests/completion/check.sh holds the tables below
# against each command's --help, so an option added there and not here fails.

# Options by command path ("rdmastat" is the listing itself).
declare -gA _rdmastat_opts=(
	[rdmastat]="-h --help -V --version -a --all -l --listening -p --processes -e --extend
		-s --summary -4 --ipv4 -6 --ipv6 -w --watch -E --events --interval --count --duration
		--events-buffer --stats -j --json --pretty -H --no-header -n --numeric --input --source"
	[rdmastat devices]="-h --help -j --json --pretty -H --no-header -n --numeric --input --source"
	[rdmastat lsof]="-p -c -u -i -a -t -n --numeric -j --json --pretty -H --no-header --input
		--source -h --help"
	[rdmastat ping]="-h --help -s --server -c --client -a --address -I --source -p --port
		-S --size -C --count --duration --lat --bw --depth -P --persistent
		-v --verbose -V --validate -q -d --debug --quiet -j --json --pretty --timeout"
	[rdmastat kping]="-h --help -j --json --pretty"
	[rdmastat kping start]="-h --help -s --server -c --client -a --address -p --port -C --count
		-S --size -V --validate --mode --depth --mem --timeout -w --wait --wait-timeout
		-j --json --pretty"
	[rdmastat kping stop]="-h --help -j --json --pretty"
	[rdmastat kping show]="-h --help -j --json --pretty"
	[rdmastat check]="-h --help -j --json --pretty -H --no-header --input --source"
	[rdmastat export]="-h --help --input --source --per-process --per-container --per-connection"
	[rdmastat fabric]="-h --help --prometheus --timeout --http.config.file -a --all --port -e
		--extend -j --json --pretty -H --no-header"
	[rdmastat life]="-h --help -j --json -H --no-header -4 --ipv4 -6 --ipv6 --count --duration
		--interval --events-buffer --stats --source"
	[rdmastat serve]="-h --help --input --source --per-process --per-container --per-connection
		--events --events-buffer
		--listen --systemd-socket
		--web.config.file --web.max-requests --web.max-connections
		--web.max-connections-per-client --web.idle-timeout --web.request-timeout"
)

# Subcommands by command path.
declare -gA _rdmastat_subs=(
	[rdmastat]="devices lsof ping kping check export serve life fabric"
	[rdmastat kping]="start stop show"
)

# Options that take a value, by command path (the value is the next word).
declare -gA _rdmastat_valued=(
	[rdmastat]="--interval --count --duration --events-buffer --input --source"
	[rdmastat devices]="--input --source"
	[rdmastat lsof]="-p -c -u --input --source"
	[rdmastat ping]="-a --address -I --source -p --port -S --size -C --count --duration --depth
		--timeout"
	[rdmastat kping start]="-a --address -p --port -C --count -S --size --mode --depth --mem
		--timeout --wait-timeout"
	[rdmastat check]="--input --source"
	[rdmastat export]="--input --source"
	[rdmastat fabric]="--prometheus --timeout --http.config.file --port"
	[rdmastat life]="--count --duration --interval --events-buffer --source"
	[rdmastat serve]="--input --source --events-buffer --listen --web.config.file --web.max-requests
		--web.max-connections --web.max-connections-per-client --web.idle-timeout --web.request-timeout"
)

_rdmastat_filter_words="state src dst sport dport dev pid comm user netns transport
	via qpn rqpn and or not ( )"
_rdmastat_states="IDLE ADDR_QUERY ADDR_RESOLVED ROUTE_QUERY ROUTE_RESOLVED CONNECT
	DISCONNECT ADDR_BOUND LISTEN DEVICE_REMOVAL DESTROYING RESET INIT RTR RTS SQD SQE ERR"

_rdmastat_has() { # WORD LIST...: is WORD one of LIST?
	local w=$1 x
	shift
	for x in $*; do [ "$x" = "$w" ] && return 0; done
	return 1
}

_rdmastat_files() {
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$1"))
	[ "$1" = "" ] || [ "$1" = - ] && COMPREPLY+=(-)
	compopt -o filenames 2>/dev/null || true
}

_rdmastat() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local path=rdmastat i w
	COMPREPLY=()

	# Walk the words before the cursor: subcommands extend the path, an
	# option that takes a value consumes the next word.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if _rdmastat_has "$w" "${_rdmastat_valued[$path]}"; then
			((i++))
		elif [[ $w != -* ]] && _rdmastat_has "$w" "${_rdmastat_subs[$path]}"; then
			path="$path $w"
		fi
	done

	# The value of the option before the cursor.
	if ((COMP_CWORD > 1)) && _rdmastat_has "$prev" "${_rdmastat_valued[$path]}"; then
		case $path:$prev in
		*:--source)
			[ "$path" = "rdmastat ping" ] && return 0 # ping's -I/--source is an address
			COMPREPLY=($(compgen -W "auto nldev module" -- "$cur"))
			;;
		*:--input | *:--web.config.file | *:--http.config.file) _rdmastat_files "$cur" ;;
		"rdmastat kping start:--mode") COMPREPLY=($(compgen -W "ping write-lat write-bw read-lat" -- "$cur")) ;;
		"rdmastat kping start:--mem") COMPREPLY=($(compgen -W "frwr-local frwr-remote dma" -- "$cur")) ;;
		"rdmastat lsof:-u") COMPREPLY=($(compgen -u -- "$cur")) ;;
		"rdmastat lsof:-p") COMPREPLY=($(compgen -W "$(cd /proc 2>/dev/null && compgen -G '[0-9]*')" -- "$cur")) ;;
		esac
		return 0
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${_rdmastat_opts[$path]}" -- "$cur"))
		return 0
	fi
	if [ -n "${_rdmastat_subs[$path]:-}" ]; then
		COMPREPLY=($(compgen -W "${_rdmastat_subs[$path]}" -- "$cur"))
	fi
	if [ "$path" = "rdmastat fabric" ]; then # one snapshot per host
		_rdmastat_files "$cur"
		return 0
	fi
	if [ "$path" = rdmastat ]; then # the listing's filter
		case $prev in
		state) COMPREPLY=($(compgen -W "$_rdmastat_states" -- "${cur^^}")) ;;
		transport) COMPREPLY=($(compgen -W "infiniband ib roce iwarp iw usnic unknown" -- "$cur")) ;;
		via) COMPREPLY=($(compgen -W "cm verbs" -- "$cur")) ;;
		*) COMPREPLY+=($(compgen -W "$_rdmastat_filter_words" -- "$cur")) ;;
		esac
	fi
	return 0
}
complete -F _rdmastat rdmastat
