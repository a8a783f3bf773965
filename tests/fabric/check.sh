#!/usr/bin/env bash
# shellcheck disable=SC2154 # hostport (serve) and api (start_prometheus): set by lib.sh
# ctest's "fabric" test: `rdmastat fabric --prometheus` against a real
# Prometheus (Debian's prometheus) that serves its API only over TLS, with
# basic auth and a required client certificate (its own --web.config.file),
# while it scrapes `rdmastat serve --per-connection` fed by a lab snapshot. With
# the right --http.config.file (CA, client certificate and key, password file)
# fabric must show what it shows from the snapshot itself; a wrong CA, a wrong
# password, no client certificate, no config and plain http must each be
# refused with exit 2 and a message that says what is wrong. Certificates come
# from openssl, the hash from htpasswd (tests/serve/lib.sh).
# usage: check.sh RDMASTAT SNAPSHOT OUTDIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 RDMASTAT SNAPSHOT OUTDIR" >&2; exit 2; }
rdmastat=$1 snapshot=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
# shellcheck source=tests/serve/lib.sh
. "$here/../serve/lib.sh"
fail() { echo "fabric: FAIL: $*" >&2; exit 1; }
trap 'cp "$work"/*.log "$work"/*.err "$out"/ 2>/dev/null || true; cleanup' EXIT
# Everything here is on loopback: a proxy from the environment would take it.
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
for c in prometheus openssl htpasswd curl jq ss; do
	command -v "$c" >/dev/null || fail "$c is not installed (scripts/install-deps.sh installs it)"
done

pki=$work/pki
certs "$pki"
printf 'prom-secret\n' >"$pki/password"
printf 'wrong\n' >"$pki/wrong-password"
cat >"$pki/web.yml" <<Y
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
basic_auth_users:
  prom: $(bcrypt prom prom-secret 10)
Y
# client NAME CA PASSWORD-FILE [CERT]: an http_config file in pki/.
client() {
	{
		printf 'basic_auth:\n  username: prom\n  password_file: %s\n' "$3"
		printf 'tls_config:\n  ca_file: %s\n' "$2"
		[ -z "${4:-}" ] || printf '  cert_file: %s.crt\n  key_file: %s.key\n' "$4" "$4"
	} >"$pki/$1.yml"
}
client good ca.crt password client
client rogue-ca rogue-ca.crt password client
client wrong-password ca.crt wrong-password client
client no-cert ca.crt password
echo "ok - test CA, certificates, Prometheus web config and client configs"

# rdmastat serve of the snapshot (plain http), scraped by Prometheus over TLS.
serve exporter --per-connection
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: rdmastat
    static_configs:
      - targets: ['$hostport']
YML
start_prometheus "$work" "$pki/web.yml"
prom=${api%/api/v1}
prom_await 60 'count(rdmastat_connection_info)' --cacert "$pki/ca.crt" --cert "$pki/client.crt" \
	--key "$pki/client.key" -u prom:prom-secret ||
	{ tail -20 "$work/prometheus.log"; fail "Prometheus never scraped rdmastat serve"; }
echo "ok - Prometheus serves its API over TLS with basic auth and client certificates ($prom)"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' --cacert "$pki/ca.crt" --cert "$pki/client.crt" \
	--key "$pki/client.key" "$api/query?query=up" || true)
[ "$code" = 401 ] || fail "Prometheus answered $code without a password: its web config is not on"

# 1. The right config: fabric shows over TLS what it shows from the snapshot.
rc=0
"$rdmastat" fabric --prometheus "$prom" --http.config.file "$pki/good.yml" -a -j \
	>"$out/tls.json" 2>"$work/tls.err" || rc=$?
[ "$rc" -le 1 ] || fail "fabric over TLS: exit $rc: $(cat "$work/tls.err")"
[ "$(jq -r .source "$out/tls.json")" = prometheus ] || fail "fabric over TLS: source is not prometheus"
"$rdmastat" fabric "host=$snapshot" -a -j >"$out/files.json" 2>/dev/null || true
rows() { jq -c '[.connections[] | [.status, [.ends[].connection | [.device, .local, .peer,
	.state, .cm_id, .owner.pid]]]] | sort' "$1"; }
[ "$(rows "$out/tls.json")" = "$(rows "$out/files.json")" ] ||
	fail "fabric over TLS differs from the snapshot's: $(diff <(rows "$out/tls.json" | jq .) \
		<(rows "$out/files.json" | jq .) | head -20)"
[ "$(jq -c .summary "$out/tls.json")" = "$(jq -c .summary "$out/files.json")" ] ||
	fail "fabric over TLS: summary $(jq -c .summary "$out/tls.json")"
# Independently: the snapshot's listeners and both ends of each connected pair.
states=$("$rdmastat" -a -j --input "$snapshot" | jq -c '[.connections[].state]')
listen=$(jq '[.[] | select(. == "LISTEN")] | length' <<<"$states")
connect=$(jq '[.[] | select(. == "CONNECT")] | length' <<<"$states")
[ "$listen" -gt 0 ] && [ "$connect" -gt 0 ] || fail "the snapshot has no listener or connection"
jq -e --argjson l "$listen" --argjson c "$connect" \
	'.summary.listening == $l and .summary.established * 2 == $c and
	 ([.hosts[].name] == ["'"$hostport"'"])' "$out/tls.json" >/dev/null ||
	fail "fabric over TLS: $(jq -c '{summary, hosts}' "$out/tls.json"), the snapshot: $listen listening, $connect connected ends"
echo "ok - fabric over TLS with basic auth and a client certificate lists $listen listeners and $((connect / 2)) connections, as the snapshot holds"

# 2. Refusals: exit 2 and one line that says what is wrong.
refused() { # NAME REGEX ARGS...
	local name=$1 want=$2 rc=0
	shift 2
	timeout 30 "$rdmastat" fabric "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
	[ "$rc" = 2 ] || fail "$name: exit $rc, expected 2: $(cat "$work/$name.err")"
	[ ! -s "$work/$name.out" ] || fail "$name: printed a fabric: $(head -3 "$work/$name.out")"
	grep -Eq "^rdmastat: fabric: .*($want)" "$work/$name.err" ||
		fail "$name: the message does not say '$want': $(cat "$work/$name.err")"
	echo "ok - refused: $name: $(head -1 "$work/$name.err")"
}
refused rogue-ca 'tls_config\.ca_file' --prometheus "$prom" --http.config.file "$pki/rogue-ca.yml"
refused no-config 'tls_config\.ca_file' --prometheus "$prom"
refused wrong-password 'HTTP 401.*basic_auth' --prometheus "$prom" \
	--http.config.file "$pki/wrong-password.yml"
refused no-client-cert 'does it require a client certificate' --prometheus "$prom" --http.config.file "$pki/no-cert.yml"
refused plain-http 'HTTP 400' --prometheus "http://${prom#https://}" \
	--http.config.file "$pki/good.yml"
refused secret-in-url 'http\.config\.file' --prometheus "https://prom:prom-secret@${prom#https://}"
printf 'basic_auth:\n  username: prom\n  password_file: nope\n' >"$pki/bad.yml"
refused bad-config 'bad\.yml: basic_auth\.password_file: .*No such file' --prometheus "$prom" \
	--http.config.file "$pki/bad.yml"
