#!/usr/bin/env bash
# ctest's "serve" test: `rdmastat serve` under slow clients, TLS and its limits,
# all on loopback. Bad web configs are refused naming the key; a real
# Prometheus (Debian's prometheus) scrapes serve over HTTP, then over TLS with
# basic auth and a required client certificate, each for 30 s while
# rdmastat-flood holds 1000 idle or half-sent connections from 127.0.0.2-9, and
# no scrape may fail; curl checks of TLS, client certificates, passwords and
# versions; the per-client, total, request and idle limits; configured headers.
# Certificates come from openssl, bcrypt hashes from htpasswd (apache2-utils).
# usage: check.sh RDMASTAT FLOOD SNAPSHOT OUTDIR
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 RDMASTAT FLOOD SNAPSHOT OUTDIR" >&2; exit 2; }
rdmastat=$1 flood=$2 snapshot=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
# shellcheck source=tests/serve/lib.sh
. "$here/lib.sh"
trap 'cp "$work"/*.out "$work"/*.err "$work"/*.log "$out"/ 2>/dev/null || true; cleanup' EXIT
for c in prometheus openssl htpasswd curl jq ss; do
	command -v "$c" >/dev/null || fail "$c is not installed (scripts/install-deps.sh installs it)"
done

pki=$work/pki
certs "$pki"
hash=$(bcrypt prom secret 10)
[[ $hash == "\$2"* ]] || fail "htpasswd made no bcrypt hash"
mtls=(--cacert "$pki/ca.crt" --cert "$pki/client.crt" --key "$pki/client.key")
echo "ok - test CA, server and client certificates, bcrypt hash"

# a. Bad web configs: exit 2 before listening, the message names the key.
refuse() { # NAME KEY-REGEX, the YAML on stdin
	local f=$pki/bad-$1.yml rc=0
	cat >"$f"
	timeout 10 "$rdmastat" serve --listen 127.0.0.1:0 --input "$snapshot" \
		--web.config.file "$f" >"$work/bad.out" 2>"$work/bad.err" </dev/null || rc=$?
	[ "$rc" = 2 ] || fail "web config $1: exit $rc, expected 2: $(cat "$work/bad.err")"
	! grep -q serving "$work/bad.out" || fail "web config $1: serve listened"
	{ grep -qF "rdmastat: serve: $f: " "$work/bad.err" && grep -Eq "$2" "$work/bad.err"; } ||
		fail "web config $1: the message does not name the file and '$2': $(cat "$work/bad.err")"
	echo "ok - web config refused: $1: $(head -1 "$work/bad.err" | sed "s|$pki/||")"
}
refuse missing-cert 'tls_server_config\.cert_file' <<'Y'
tls_server_config:
  cert_file: missing.crt
  key_file: server.key
Y
refuse bad-hash 'basic_auth_users\.alice' <<'Y'
basic_auth_users:
  alice: not-a-bcrypt-hash
Y
refuse unknown-key 'tls_server_confg' <<'Y'
tls_server_confg:
  cert_file: server.crt
Y
refuse unknown-tls-key 'client_auth([^_]|$)' <<'Y'
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth: RequireAndVerifyClientCert
Y
refuse ca-without-auth-type 'client_ca_file|client_auth_type' <<'Y'
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_ca_file: ca.crt
Y
refuse require-without-ca 'client_ca_file|client_auth_type' <<'Y'
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
Y
refuse bad-auth-type 'client_auth_type' <<'Y'
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: Sometimes
Y
refuse bad-version 'min_version' <<'Y'
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  min_version: TLS99
Y
refuse key-mismatch 'cert_file|key_file' <<'Y'
tls_server_config:
  cert_file: server.crt
  key_file: client.key
Y
refuse no-key 'key_file' <<'Y'
tls_server_config:
  cert_file: server.crt
Y
refuse bad-header 'X-Powered-By' <<'Y'
http_server_config:
  headers:
    X-Powered-By: rdmastat
Y
refuse bad-yaml 'line|column' <<'Y'
tls_server_config: [cert_file
Y
rc=0
timeout 10 "$rdmastat" serve --listen 127.0.0.1:0 --input "$snapshot" \
	--web.config.file "$pki/none.yml" >/dev/null 2>"$work/bad.err" || rc=$?
{ [ "$rc" = 2 ] && grep -qF "$pki/none.yml" "$work/bad.err"; } ||
	fail "a missing web config file: exit $rc: $(cat "$work/bad.err")"
echo "ok - web config refused: a file that does not exist"

# The servers the flood runs against, the connections held past the window.
serve plain --web.idle-timeout 120 --web.request-timeout 120
plain_pid=$serve_pid plain_url=$url plain_hostport=$hostport
read -r soft hard < <(awk '/^Max open files/ { print $4, $5 }' "/proc/$plain_pid/limits")
# Enough for --web.max-connections (default 4096), as far as the hard limit allows.
[ "$hard" = unlimited ] || hard=$((hard < 4096 ? hard : 4096))
[ "$soft" = unlimited ] || [ "$soft" -ge "$hard" ] ||
	fail "serve did not raise its descriptor limit (soft $soft, needs $hard)"
echo "ok - serve raised its soft descriptor limit from 512 to $soft"
cat >"$pki/tls.yml" <<Y
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_ca_file: ca.crt
  client_auth_type: RequireAndVerifyClientCert
basic_auth_users:
  prom: '$hash'
http_server_config:
  headers:
    X-Frame-Options: deny
    X-Content-Type-Options: nosniff
Y
serve tls --web.config.file "$pki/tls.yml" --web.idle-timeout 120 --web.request-timeout 120
tls_pid=$serve_pid tls_url=$url tls_base=$base tls_hostport=$hostport
[[ $tls_url == https://127.0.0.1:* ]] || fail "the TLS serve announces $tls_url"
echo "ok - serve listens on $plain_url and $tls_url"

# Prometheus scrapes both every second, with a timeout of 1 s.
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rdmastat
    static_configs:
      - targets: ['$plain_hostport']
  - job_name: rdmastat_tls
    scheme: https
    tls_config:
      ca_file: $pki/ca.crt
      cert_file: $pki/client.crt
      key_file: $pki/client.key
    basic_auth:
      username: prom
      password: secret
    static_configs:
      - targets: ['$tls_hostport']
YML
start_prometheus "$work"
value() { # QUERY [TIME]: the first sample's value, or "none"
	curl -sf -m 5 --get "$api/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		jq -r '.data.result[0].value[1] // "none"' || echo none
}
targets() { curl -sf -m 5 "$api/targets" | jq -c '.data.activeTargets[] | [.labels.job, .health, .lastError]' || true; }
for _ in $(seq 120); do
	[ "$(value 'count(up == 1)' 2>/dev/null)" = 2 ] && break
	sleep 0.5
done
[ "$(value 'count(up == 1)')" = 2 ] || { tail -5 "$work/prometheus.log"; targets; fail "Prometheus never scraped both serves"; }
echo "ok - Prometheus scrapes serve over HTTP and over TLS with basic auth and a client certificate"

# window JOB URL CURL-ARGS...: Prometheus scrapes for 30 s while the flood is held
# (it is running); curl gets 200 from URL every 3 s; then no scrape of JOB failed.
window() {
	local job=$1 u=$2 t0 t1 n min
	shift 2
	t0=$(date +%s)
	t1=$((t0 + 31))
	for _ in $(seq 12); do
		[ "$(date +%s)" -lt "$t1" ] || break
		[ "$(code "$@" "$u")" = 200 ] || fail "$job: curl got no 200 from $u during the flood"
		sleep 3
	done
	while [ "$(date +%s)" -lt $((t1 + 2)) ]; do sleep 0.5; done
	alive "$plain_pid" "the plain serve"
	alive "$tls_pid" "the TLS serve"
	n=$(value "count_over_time(up{job=\"$job\"}[30s])" "$t1")
	min=$(value "min_over_time(up{job=\"$job\"}[30s])" "$t1")
	echo "$job: $n scrapes in the 30 s under the flood, lowest up $min, slowest $(value \
		"max_over_time(scrape_duration_seconds{job=\"$job\"}[30s])" "$t1") s"
	{ [ "$n" != none ] && [ "$n" -ge 25 ] && [ "$min" = 1 ]; } ||
		{ targets; fail "$job: scrapes failed under the flood ($n scrapes, lowest up $min)"; }
}

# b. 1000 half-sent requests (no blank line), 125 from each of 127.0.0.2-9.
half='GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: flood\r\n'
flood plain-flood --sources 127.0.0.2-127.0.0.9 --send "$half" 127.0.0.1 "${plain_hostport##*:}" 1000 120
window rdmastat "$plain_url"
unflood plain-flood
[ "$closed" = 0 ] || fail "serve closed $closed of the 1000 held connections within the idle timeout"
echo "ok - no scrape failed while 1000 half-sent connections were held; serve closed none"

# c. The same over TLS: 500 silent connections and 500 that sent the first 11
# bytes of a ClientHello announcing 200.
hello='\x16\x03\x01\x00\xc8\x01\x00\x00\xc4\x03\x03'
tls_port=${tls_hostport##*:}
flood tls-idle --sources 127.0.0.2-127.0.0.9 127.0.0.1 "$tls_port" 500 120
flood tls-hello --sources 127.0.0.2-127.0.0.9 --send "$hello" 127.0.0.1 "$tls_port" 500 120
window rdmastat_tls "$tls_url" "${mtls[@]}" -u prom:secret
unflood tls-idle
idle_closed=$closed
unflood tls-hello
{ [ "$idle_closed" = 0 ] && [ "$closed" = 0 ]; } ||
	fail "the TLS serve closed $idle_closed silent and $closed half-hello connections of 1000"
echo "ok - no TLS scrape failed while 1000 silent or half-handshake connections were held"
# What Prometheus stored over TLS equals what rdmastat -a -j lists.
curl -sf -m 5 --get "$api/query" --data-urlencode \
	'query=sum by (device, transport, state) (rdmastat_connections{job="rdmastat_tls"})' |
	jq -r '.data.result[] | "\(.metric.device) \(.metric.transport) \(.metric.state) \(.value[1])"' |
	sort >"$out/tls-query.txt" || true
"$rdmastat" -a -j --input "$snapshot" |
	jq -r '.connections | group_by([.device, .transport, .state])[] |
		"\(.[0].device) \(.[0].transport) \(.[0].state) \(length)"' | sort >"$out/listed.txt"
diff -u "$out/listed.txt" "$out/tls-query.txt" >&2 ||
	fail "Prometheus' rdmastat_connections over TLS differ from rdmastat -a -j"
echo "ok - Prometheus query over TLS, sum by (device, transport, state) (rdmastat_connections), equals rdmastat -a -j:"
sed 's/^/    /' "$out/tls-query.txt"

# d. curl against the TLS serve.
curl -sf -m 10 "${mtls[@]}" -u prom:secret -D "$work/tls-headers.txt" "$tls_url" >"$out/tls-metrics.prom" ||
	fail "curl with a client certificate and the password got no 200"
grep -q '^rdmastat_connections{' "$out/tls-metrics.prom" || fail "the TLS /metrics has no rdmastat_connections"
echo "ok - TLS, client certificate and password: 200 with rdmastat_connections"
[ "$(code "${mtls[@]}" -u prom:secret "$tls_base/")" = 200 ] || fail "TLS / is not 200"
[ "$(code "${mtls[@]}" -u prom:secret "$tls_base/no/such/path")" = 404 ] || fail "TLS unknown path is not 404"
for cred in prom:wrong nobody:secret; do
	c=$(curl -s -m 10 "${mtls[@]}" -u "$cred" -o /dev/null -D "$work/401.txt" -w '%{http_code}' "$tls_url" || true)
	[ "$c" = 401 ] || fail "user:password $cred: HTTP $c, expected 401"
	grep -qi '^WWW-Authenticate: Basic' "$work/401.txt" || fail "the 401 has no WWW-Authenticate: Basic"
done
[ "$(code "${mtls[@]}" "$tls_url")" = 401 ] || fail "no password: not 401"
echo "ok - a wrong or missing password: 401 with WWW-Authenticate: Basic"
c=$(code --cacert "$pki/ca.crt" -u prom:secret "$tls_url")
[ "$c" != 200 ] || fail "no client certificate: 200"
echo "ok - no client certificate: refused (HTTP $c)"
c=$(code --cacert "$pki/ca.crt" --cert "$pki/rogue.crt" --key "$pki/rogue.key" -u prom:secret "$tls_url")
[ "$c" != 200 ] || fail "a client certificate of an untrusted CA: 200"
echo "ok - a client certificate of an untrusted CA: refused (HTTP $c)"
# The CA's server certificate (extendedKeyUsage serverAuth only) as a client's:
# not fit for client authentication, as Go's crypto/tls also judges.
c=$(code --cacert "$pki/ca.crt" --cert "$pki/server.crt" --key "$pki/server.key" -u prom:secret "$tls_url")
[ "$c" != 200 ] || fail "a trusted certificate for servers only, as a client's: 200"
echo "ok - a trusted certificate for servers only, as a client's: refused (HTTP $c)"
c=$(code -u prom:secret "http://$tls_hostport/metrics")
[ "$c" != 200 ] || fail "plain HTTP to the TLS port: 200"
alive "$tls_pid" "the TLS serve after plain HTTP"
[ "$(code "${mtls[@]}" -u prom:secret "$tls_url")" = 200 ] || fail "no TLS scrape after plain HTTP"
echo "ok - plain HTTP to the TLS port: refused (HTTP $c); TLS scrapes go on"
stop "$tls_pid"
cat >"$pki/tls13.yml" <<'Y'
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  min_version: TLS13
Y
serve tls13 --web.config.file "$pki/tls13.yml"
c=$(code --cacert "$pki/ca.crt" --tls-max 1.2 "$url")
[ "$c" != 200 ] || fail "min_version TLS13: TLS 1.2 answered 200"
[ "$(code --cacert "$pki/ca.crt" --tlsv1.3 "$url")" = 200 ] || fail "min_version TLS13: TLS 1.3 refused"
stop "$serve_pid"
echo "ok - min_version TLS13: TLS 1.2 refused (HTTP $c), TLS 1.3 answered"

# e. Connection limits: 8 per client, 16 in all.
serve limits --web.max-connections-per-client 8 --web.max-connections 16 --web.idle-timeout 60 \
	--web.request-timeout 60
port=${hostport##*:}
flood five --sources 127.0.0.5 --send "$half" 127.0.0.1 "$port" 8 60
c=$(code --interface 127.0.0.5 "$url")
[ "$c" != 200 ] || fail "a 9th connection from 127.0.0.5 answered 200"
[ "$(code "$url")" = 200 ] || fail "127.0.0.1 refused while 127.0.0.5 holds its 8"
flood five-more --sources 127.0.0.5 127.0.0.1 "$port" 1 1
wait "${flood_pids[five-more]}" || true
grep -q '^closed 1 of 1$' "$work/five-more.out" || fail "a 9th from 127.0.0.5 was not closed: $(cat "$work/five-more.out")"
echo "ok - per client: the 9th connection from 127.0.0.5 closed (curl: HTTP $c), 127.0.0.1 answered"
flood six --sources 127.0.0.6 127.0.0.1 "$port" 8 60
c=$(code "$url")
[ "$c" != 200 ] || fail "a 17th connection answered 200"
unflood five
unflood six
for _ in $(seq 50); do
	[ "$(code --interface 127.0.0.5 "$url")" = 200 ] && break
	sleep 0.1
done
[ "$(code --interface 127.0.0.5 "$url")" = 200 ] || fail "127.0.0.5 still refused after its connections closed"
stop "$serve_pid"
echo "ok - in all: a 17th connection refused (HTTP $c); answered again once the 16 closed"

# f, g. One request at a time, a slow password (bcrypt cost 13) and headers:
# 6 requests at once, one checks its password and the others get 503 (first:
# serve may remember a password it checked).
slow=$(bcrypt slow secret 13)
cat >"$pki/limits.yml" <<Y
basic_auth_users:
  slow: '$slow'
http_server_config:
  headers:
    X-Frame-Options: deny
    Strict-Transport-Security: max-age=31536000
Y
serve requests --web.config.file "$pki/limits.yml" --web.max-requests 1
seq 6 | xargs -P 6 -I{} curl -s -m 10 -u slow:secret -o /dev/null -w '%{http_code}\n' "$url" >"$work/codes" || true
{ grep -q '^200$' "$work/codes" && grep -q '^503$' "$work/codes" && ! grep -qv '^\(200\|503\)$' "$work/codes"; } ||
	fail "max-requests 1, 6 at once: $(sort "$work/codes" | uniq -c | tr '\n' ' ')"
[ "$(code -u slow:secret "$url")" = 200 ] || fail "max-requests 1: no 200 after the burst"
echo "ok - max-requests 1: $(grep -c 503 "$work/codes") of 6 simultaneous requests got 503"
curl -sf -m 10 -u slow:secret -D "$work/headers.txt" -o /dev/null "$url" || fail "basic auth over HTTP: no 200"
{ grep -qi '^X-Frame-Options: deny' "$work/headers.txt" &&
	grep -qi '^Strict-Transport-Security: max-age' "$work/headers.txt"; } ||
	fail "configured headers missing: $(cat "$work/headers.txt")"
grep -qi '^X-Frame-Options: deny' "$work/tls-headers.txt" || fail "the TLS serve sent no X-Frame-Options"
echo "ok - http_server_config.headers appear in the answers"
for t in 5 0.5 abc -1; do
	c=$(code -u slow:secret -H "X-Prometheus-Scrape-Timeout-Seconds: $t" "$url")
	[ "$t" != 5 ] || [ "$c" = 200 ] || fail "X-Prometheus-Scrape-Timeout-Seconds: 5: HTTP $c"
done
alive "$serve_pid" "serve after odd scrape timeouts"
stop "$serve_pid"
echo "ok - X-Prometheus-Scrape-Timeout-Seconds: 5 answered; odd values did not hurt"

# h. The idle timeout closes silent and half-sent connections.
serve idle --web.idle-timeout 2
flood idle-flood --sources 127.0.0.3 --send "$half" 127.0.0.1 "${hostport##*:}" 10 5
wait "${flood_pids[idle-flood]}" || true
grep -q '^closed 10 of 10$' "$work/idle-flood.out" ||
	fail "--web.idle-timeout 2: after 5 s $(tr '\n' ' ' <"$work/idle-flood.out")"
[ "$(code "$url")" = 200 ] || fail "no 200 after the idle timeout"
stop "$serve_pid"
echo "ok - --web.idle-timeout 2 closed 10 half-sent connections within 5 s"

# The request timeout closes a client that is never silent but never done: a
# byte every 0.25 s, against an idle timeout it never reaches.
serve trickle --web.idle-timeout 30 --web.request-timeout 2
trickle() { # PORT: 0 once a write fails (the server closed), 1 if 10 s pass
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	for _ in $(seq 40); do
		printf 'G' >&3 2>/dev/null || return 0
		sleep 0.25
	done
	return 1
}
start=$(date +%s%N)
(trap '' PIPE; trickle "${hostport##*:}") || fail "--web.request-timeout 2: a trickling client was served 10 s"
ms=$((($(date +%s%N) - start) / 1000000))
{ [ "$ms" -ge 1500 ] && [ "$ms" -le 6000 ]; } ||
	fail "--web.request-timeout 2: the trickling client was closed after $ms ms"
[ "$(code "$url")" = 200 ] || fail "no 200 after the request timeout"
stop "$serve_pid"
echo "ok - --web.request-timeout 2 closed a client trickling a byte every 0.25 s after $ms ms"

# i. IPv6 loopback, and socket activation.
if ip -6 addr show dev lo 2>/dev/null | grep -q 'inet6 ::1/'; then
	serve ipv6 --listen '[::1]:0'
	[ "$(code -g "$url")" = 200 ] || fail "serve on [::1]: $url is not 200"
	stop "$serve_pid"
	echo "ok - serve on $url"
fi
if command -v systemd-socket-activate >/dev/null; then
	p=$(free_port)
	systemd-socket-activate -l "127.0.0.1:$p" "$rdmastat" serve --systemd-socket \
		--input "$snapshot" >"$work/activated.out" 2>"$work/activated.err" &
	activator=$!
	pids+=("$activator")
	for _ in $(seq 50); do
		ss -Htln "sport = :$p" | grep -q . && break
		sleep 0.1
	done
	[ "$(code "http://127.0.0.1:$p/metrics")" = 200 ] ||
		fail "--systemd-socket: no 200: $(cat "$work/activated.err")"
	stop "$activator"
	echo "ok - serve --systemd-socket answers on the socket systemd-socket-activate passed"
fi
# --events on the live kernel: where the tracepoints cannot be used (no
# rdma_cm here, as on CI) serve says why once and serves rdmastat_events_up 0
# beside the rest; where they can, 1.
"$rdmastat" serve --events --listen 127.0.0.1:0 >"$work/events.out" 2>"$work/events.err" &
events_pid=$!
pids+=("$events_pid")
for _ in $(seq 100); do
	grep -qs '^rdmastat: serving ' "$work/events.out" && break
	sleep 0.1
done
events_url=$(sed -n 's|^rdmastat: serving \(http://[^ ]*/metrics\)$|\1|p' "$work/events.out")
[ -n "$events_url" ] || fail "serve --events did not start: $(cat "$work/events.err")"
curl -sf -m 10 "$events_url" >"$work/events.prom" || fail "serve --events: no /metrics"
promtool check metrics <"$work/events.prom" || fail "serve --events: promtool check metrics"
want=0
[ "$(id -u)" != 0 ] || [ ! -e /sys/kernel/btf/rdma_cm ] || want=1
grep -qx "rdmastat_events_up $want" "$work/events.prom" ||
	fail "serve --events: want rdmastat_events_up $want: $(grep events_up "$work/events.prom")"
if [ "$want" = 0 ]; then
	[ "$(grep -c -- '--events: ' "$work/events.err")" = 1 ] ||
		fail "serve --events: the reason, once, on stderr: $(cat "$work/events.err")"
fi
stop "$events_pid"
echo "ok - serve --events serves rdmastat_events_up $want"
alive "$plain_pid" "the plain serve"
echo "ok - serve passed"
