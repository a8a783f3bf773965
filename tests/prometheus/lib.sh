# shellcheck shell=bash
# Sourced by the tests that run a real Prometheus on loopback (prometheus/,
# serve/); the caller defines fail and a pids array its cleanup kills.

# A loopback TCP port nothing listens on.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
	fail "no free port"
}

# start_prometheus DIR [WEBCONFIG]: Prometheus with DIR/prometheus.yml on a
# free loopback port, its storage and log in DIR, and its own web config (TLS,
# basic auth) when given; sets api to its query API's base URL.
start_prometheus() {
	local port web=() scheme=http
	port=$(free_port)
	if [ -n "${2:-}" ]; then
		web=(--web.config.file="$2")
		scheme=https
	fi
	prometheus --config.file="$1/prometheus.yml" --storage.tsdb.path="$1/data" \
		--web.listen-address="127.0.0.1:$port" "${web[@]}" >"$1/prometheus.log" 2>&1 &
	pids+=("$!")
	# shellcheck disable=SC2034 # api: for the caller
	api="$scheme://127.0.0.1:$port/api/v1"
}

# prom_await SECONDS EXPR [CURL ARGS...]: asks $api every 0.5 s, with curl and
# CURL ARGS (a CA, a client certificate, credentials), until the instant
# query EXPR returns one series; false when SECONDS pass first.
prom_await() {
	local tries=$(($1 * 2)) expr=$2
	shift 2
	for _ in $(seq "$tries"); do
		curl -sf -m 5 "$@" --get "$api/query" --data-urlencode "query=$expr" 2>/dev/null |
			jq -e '.data.result | length == 1' >/dev/null && return 0
		sleep 0.5
	done
	return 1
}
