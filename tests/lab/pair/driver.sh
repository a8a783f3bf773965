#!/usr/bin/env bash
# The two-host lab's driver, on the host beside guests a and b (lab.sh pair
# runs it; see fabric.sh for what the guests do). A real Prometheus scrapes
# both guests' `rdmastat serve --per-connection` through QEMU's forwarded
# ports, and the host's rdmastat ($RDMASTAT) takes the fabric view from it
# and from the guests' snapshots: once with every connection up, once after
# b's side went away. Everything lands in $PAIR_OUT/host for the [pair] tests.
set -euo pipefail
: "${RDMASTAT:?the rdmastat to run on the host}" "${PAIR_OUT:?}" "${PAIR_SHARED:?}"
: "${PAIR_SCRAPE_A:?}" "${PAIR_SCRAPE_B:?}" "${PAIR_PROM_PORT:?}"
H=$PAIR_OUT/host
rm -rf "$H"
mkdir -p "$H/prom"
prom=http://127.0.0.1:$PAIR_PROM_PORT
timeout=${PAIR_TIMEOUT:-300}
say() { printf 'driver: %s\n' "$*"; }

# await NAME...: wait for the guests' signal files; fails after $timeout s,
# or at once when a guest's scenario has ended.
await() {
	local f t=$((timeout * 10))
	for f in "$@"; do
		until [ -e "$PAIR_SHARED/$f" ]; do
			! ended || { say "while waiting for $f"; return 1; }
			t=$((t - 1))
			[ "$t" -gt 0 ] || { say "waited ${timeout}s for $f in vain"; return 1; }
			sleep 0.1
		done
	done
}
signal() { : >"$PAIR_SHARED/$1"; }

# Which instance is which guest, for the tests.
printf 'a=%s\nb=%s\n' "$PAIR_SCRAPE_A" "$PAIR_SCRAPE_B" >"$H/instances"
# The repository's alerting rules, evaluated every second: the half-open
# rule must see what the fabric view sees.
rules=$(cd "$(dirname "$0")/../../../monitoring" && pwd)/rdmastat.rules.yml
cat >"$H/prom/prometheus.yml" <<YML
global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 1s
rule_files: ['$rules']
scrape_configs:
  - job_name: rdmastat
    static_configs:
      - targets: ['$PAIR_SCRAPE_A', '$PAIR_SCRAPE_B']
YML
prometheus --config.file="$H/prom/prometheus.yml" --storage.tsdb.path="$H/prom/data" \
	--web.listen-address="127.0.0.1:$PAIR_PROM_PORT" >"$H/prometheus.log" 2>&1 &
prom_pid=$!
# The guests' last wait; lab.sh pair signals ended-driver however it ends.
trap 'kill "$prom_pid" 2>/dev/null || true; signal finished' EXIT

# ended: true when a guest has ended (ended-a, ended-b) or Prometheus has.
ended() {
	local e
	for e in "$PAIR_SHARED"/ended-[ab]; do
		[ ! -e "$e" ] || { say "${e##*/}"; return 0; }
	done
	kill -0 "$prom_pid" 2>/dev/null || { say "Prometheus exited: see prometheus.log"; return 0; }
	return 1
}
# q QUERY: Prometheus' answer, in at most 5 s.
q() { curl -fsS --max-time 5 "$prom/api/v1/query" --data-urlencode "query=$1"; }

# scraped_since: Prometheus has scraped both guests successfully since the
# host's clock read $1, with two more scrapes each as a margin.
scraped_since() {
	local since=$1 n
	for _ in $(seq $((timeout * 2))); do
		n=$(q "count(up == 1 and on(instance) (timestamp(up) > $((since + 4))))" |
			jq -r '.data.result[0].value[1] // 0' 2>/dev/null || echo 0)
		[ "$n" = 2 ] && return 0
		! ended || return 1
		sleep 0.5
	done
	say "Prometheus did not scrape both guests since $(date -d "@$since")"
	return 1
}

# view N: the fabric view through Prometheus and from the guests' snapshots.
view() {
	local n=$1 s
	for s in "fabric-$n.json:-j" "fabric-$n.txt:" "fabric-$n-all.txt:-a -e" \
		"fabric-$n-7401.txt:--port 7401"; do
		# shellcheck disable=SC2086 # the options are words
		"$RDMASTAT" fabric --prometheus "$prom" ${s#*:} >"$H/${s%%:*}" 2>"$H/${s%%:*}.err" &&
			echo 0 >"$H/${s%%:*}.rc" || echo $? >"$H/${s%%:*}.rc"
	done
	"$RDMASTAT" fabric -j a="$PAIR_OUT/a/fabric/snapshot-$n.json" \
		b="$PAIR_OUT/b/fabric/snapshot-$n.json" >"$H/files-$n.json" 2>"$H/files-$n.json.err" &&
		echo 0 >"$H/files-$n.json.rc" || echo $? >"$H/files-$n.json.rc"
	q rdmastat_connection_info >"$H/connection_info-$n.json" ||
		say "query rdmastat_connection_info: $?"
	# Both guests' scrapes still succeed: a failed one would empty a host.
	q 'up == 1' >"$H/up-$n.json" || say "query up: $?"
	say "view $n: $(cat "$H/fabric-$n.json.rc") (Prometheus), $(cat "$H/files-$n.json.rc") (files)"
	cat "$H/fabric-$n.txt"
}

# alerts N COUNT: the half-open alerts (pending: the rule's `for` has not
# passed), once there are COUNT of them or after 30 s.
alerts() {
	for _ in $(seq 60); do
		q 'ALERTS{alertname="RdmaHalfOpenConnection"}' >"$H/alerts-$1.json" || true
		[ "$(jq '.data.result | length' "$H/alerts-$1.json" 2>/dev/null)" != "$2" ] || break
		sleep 0.5
	done
	say "alerts $1: $(jq -c '[.data.result[].metric | .local_address + ":" +
		((.local_port | select(. != "0")) // ("qp" + .qp_number))]' \
		"$H/alerts-$1.json" 2>/dev/null)"
}

await saved-a-1 saved-b-1
scraped_since "$(date +%s)"
view 1
alerts 1 0
signal kill
await saved-b-2 saved-a-2
scraped_since "$(date +%s)"
view 2
# a's three rping servers and its ibv_rc_pingpong server.
alerts 2 4
say "done"
