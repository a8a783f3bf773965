# shellcheck shell=bash
# Helpers of tests/serve/check.sh and bench.sh, sourced. The caller sets
# rdmastat, flood, snapshot and work (a temp dir), and traps EXIT to cleanup.
# Every wait is bounded in count and time.
# shellcheck disable=SC2154 # rdmastat, flood, snapshot, work: the caller's

# shellcheck source=tests/prometheus/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../prometheus/lib.sh"

pids=()
declare -A flood_pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
fail() { echo "serve: FAIL: $*" >&2; exit 1; }

# The HTTP status of a curl request ("000" when none came), bounded.
code() { curl -s -m 10 -o /dev/null -w '%{http_code}' "$@" || true; }

# serve NAME ARGS...: rdmastat serve of the snapshot on a kernel-chosen port of
# 127.0.0.1 (unless ARGS has a --listen), its soft descriptor limit lowered to
# 512 so that it must raise it itself. Sets serve_pid, url (of /metrics),
# base (scheme://host:port) and hostport; waits 10 s at most for it to listen.
serve() {
	local name=$1 listen=(--listen 127.0.0.1:0)
	shift
	[[ " $* " != *" --listen "* ]] || listen=()
	(
		ulimit -Sn 512 2>/dev/null || true
		exec "$rdmastat" serve "${listen[@]}" --input "$snapshot" "$@"
	) >"$work/$name.out" 2>"$work/$name.err" &
	serve_pid=$!
	pids+=("$serve_pid")
	for _ in $(seq 100); do
		grep -qs '^rdmastat: serving ' "$work/$name.out" && break
		kill -0 "$serve_pid" 2>/dev/null || break
		sleep 0.1
	done
	url=$(sed -n 's|^rdmastat: serving \(https\{0,1\}://[^ ]*/metrics\)$|\1|p' "$work/$name.out")
	[ -n "$url" ] || fail "serve $*: did not start: $(cat "$work/$name.out" "$work/$name.err")"
	base=${url%/metrics}
	# shellcheck disable=SC2034 # the caller's
	hostport=${base#*://}
}

# stop PID: ends a child and reaps it.
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# alive PID WHAT: fails unless the child still runs.
alive() { kill -0 "$1" 2>/dev/null || fail "$2 died"; }

# flood NAME ARGS...: rdmastat-flood ARGS in the background; waits 30 s at most
# for its "held N" line.
flood() {
	local name=$1
	shift
	"$flood" "$@" >"$work/$name.out" 2>"$work/$name.err" &
	flood_pids[$name]=$!
	pids+=("$!")
	for _ in $(seq 300); do
		grep -qs '^held ' "$work/$name.out" && return 0
		kill -0 "${flood_pids[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	fail "rdmastat-flood $*: no connections held: $(cat "$work/$name.err")"
}

# unflood NAME: ends the flood (SIGTERM; it reports) and sets closed to how many
# of its connections the server had closed.
unflood() {
	local p=${flood_pids[$1]}
	kill -TERM "$p" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	wait "$p" 2>/dev/null || true
	closed=$(sed -n 's/^closed \([0-9]*\) of .*/\1/p' "$work/$1.out")
	[ -n "$closed" ] || fail "rdmastat-flood $1 did not report: $(cat "$work/$1.out" "$work/$1.err")"
}

# certs DIR: a test CA (ca), a server certificate for 127.0.0.1 (server), a
# client certificate (client) it signed, and an untrusted CA (rogue-ca) with a
# client certificate of its own (rogue). EC P-256 keys, valid two days.
certs() {
	local d=$1
	mkdir -p "$d"
	key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$d/$1.key" 2>/dev/null; }
	ca() {
		key "$1"
		openssl req -x509 -new -key "$d/$1.key" -subj "/CN=rdmastat test $1" -days 2 \
			-addext basicConstraints=critical,CA:TRUE \
			-addext keyUsage=critical,keyCertSign,cRLSign -out "$d/$1.crt" 2>/dev/null
	}
	leaf() { # NAME CA EXTENSIONS
		key "$1"
		openssl req -new -key "$d/$1.key" -subj "/CN=$1" -out "$d/$1.csr" 2>/dev/null
		printf '%s\n' basicConstraints=CA:FALSE keyUsage=critical,digitalSignature "$3" >"$d/$1.ext"
		openssl x509 -req -in "$d/$1.csr" -CA "$d/$2.crt" -CAkey "$d/$2.key" \
			-set_serial "$((RANDOM * 32768 + RANDOM))" -days 2 -extfile "$d/$1.ext" \
			-out "$d/$1.crt" 2>/dev/null
	}
	if ! { ca ca && ca rogue-ca &&
		leaf server ca 'subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth' &&
		leaf client ca extendedKeyUsage=clientAuth &&
		leaf rogue rogue-ca extendedKeyUsage=clientAuth; }; then
		fail "openssl could not make the test certificates"
	fi
	openssl verify -CAfile "$d/ca.crt" "$d/server.crt" "$d/client.crt" >/dev/null ||
		fail "the test certificates do not verify"
}

# bcrypt USER PASS COST: the hash htpasswd makes.
bcrypt() { htpasswd -nbBC "$3" "$1" "$2" | sed -n "s/^$1://p"; }
