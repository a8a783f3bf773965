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
