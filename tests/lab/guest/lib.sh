# shellcheck shell=sh
# Lab guest library: scenarios run as `sh SCENARIO` (busybox ash) with cwd $OUT
# and start with `. "$LAB/lib.sh"`. Files written to $OUT appear on the host.
#
# Busybox runs its own applets before $PATH, so a bare `ip` in any busybox sh is
# busybox's ip. The real iproute2 tools are at their full paths (use these, or
# the $LAB_IP/$LAB_SS/$LAB_RDMA variables; after sourcing this file `ip` is a
# function calling the real one, but not in `su lab -c ...` or other shells):
#   /usr/bin/ip (iproute2), /usr/bin/ss, /usr/bin/rdma
# Our binaries (lab.sh run --bin) are in /usr/local/bin, --ko modules in
# /lib/modules/extra. Users: root and lab (uid/gid 1000): `su lab -c CMD`.
export LAB="${LAB:-/lab}" OUT="${OUT:-/out}"
LAB_IP=/usr/bin/ip
LAB_SS=/usr/bin/ss
LAB_RDMA=/usr/bin/rdma
ip() { "$LAB_IP" "$@"; }

# insmod every module listed in FILE (dependency order), skipping loaded ones.
lab_insmod_list() {
	while read -r _m; do
		_n=${_m##*/}
		_n=${_n%.ko}
		[ -d "/sys/module/$(echo "$_n" | tr - _)" ] && continue
		insmod "$_m" || {
			echo "lab: insmod $_m failed" >&2
			return 1
		}
	done <"$1"
}

# The RDMA stack (ib_core, rdma_cm, ucm, uverbs, rxe, siw, ...) and veth.
lab_load_modules() { lab_insmod_list "$LAB/modules/rdma.list"; }

# veth0 10.9.0.1/24 fd00:9::1/64 <-> veth1 10.9.0.2/24 fd00:9::2/64, lo up.
# Like lab_devices_up, a no-op if an earlier scenario of this boot did it.
lab_net_up() {
	"$LAB_IP" link set lo up || return 1
	[ ! -e /sys/class/net/veth0 ] || return 0
	"$LAB_IP" link add veth0 type veth peer name veth1 &&
		"$LAB_IP" addr add 10.9.0.1/24 dev veth0 &&
		"$LAB_IP" addr add 10.9.0.2/24 dev veth1 &&
		"$LAB_IP" -6 addr add fd00:9::1/64 dev veth0 nodad &&
		"$LAB_IP" -6 addr add fd00:9::2/64 dev veth1 nodad &&
		"$LAB_IP" link set veth0 up &&
		"$LAB_IP" link set veth1 up
}

# siw0 on veth0 (iWARP), rxe0 on veth1 (RoCEv2).
lab_devices_up() {
	[ -e /sys/class/infiniband/siw0 ] ||
		"$LAB_RDMA" link add siw0 type siw netdev veth0 || return 1
	[ -e /sys/class/infiniband/rxe0 ] ||
		"$LAB_RDMA" link add rxe0 type rxe netdev veth1 || return 1
	lab_wait 10 test -e /sys/class/infiniband/siw0 -a -e /sys/class/infiniband/rxe0
}

lab_setup() { lab_load_modules && lab_net_up && lab_devices_up; }

# lab_wait SECONDS CMD...: retry CMD every 0.1 s until it succeeds or time is up.
lab_wait() {
	_t=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		_t=$((_t - 1))
		[ "$_t" -gt 0 ] || return 1
		sleep 0.1
	done
}

# lab_wait_wall SECONDS CMD...: as lab_wait, but bounded by the clock rather
# than by tries: lab_wait's 10 tries a second stretch its SECONDS several times
# over when CMD itself takes a quarter of a second, as under TCG.
lab_wait_wall() {
	_end=$(($(cut -d. -f1 /proc/uptime) + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$_end" ] || return 1
		sleep 0.1
	done
}

# True if an rdma_cm listener is bound to PORT (`rdma res show cm_id` prints
# "state LISTEN ... src-addr 10.9.0.1:7174 dst-addr 0.0.0.0:0").
lab_cm_listening() {
	"$LAB_RDMA" res show cm_id | grep -q "state LISTEN .* src-addr [^ ]*:$1 "
}

# Number of connected rdma_cm ids on PORT (the two ends of a local connection).
lab_cm_connected() {
	"$LAB_RDMA" res show cm_id | grep "state CONNECT " | grep -c -e "-addr [^ ]*:$1 "
}

# lab_tracer_ready FILE: wait (up to 60 s) until a tracer (rdmastat -E, life
# or serve --events from the tracepoints), whose stderr goes to FILE, says it
# is ready: every program attached and its seed read, as a user sees it.
lab_tracer_ready() {
	lab_wait_wall 60 grep -q ': ready: tracing' "$1" && return 0
	echo "lab: the tracer writing $1 never said it was ready" >&2
	return 1
}

# lab_wait_port ADDR PORT [SECONDS]: wait for a TCP listener (e.g. siw's) on ADDR:PORT
# as `ss` prints it (IPv6 in brackets: lab_wait_port "[fd00:9::1]" 7176).
lab_wait_port() {
	lab_wait "${3:-10}" sh -c "$LAB_SS -Htln | grep -qF ' $1:$2 '"
}

# lab_rping_start ADDR PORT: an rping server on ADDR:PORT and a client connected
# to it, both in the background; returns once both ends are connected. The
# client is then stopped (SIGSTOP), so the connection stays up, idle, until
# lab_stop_pings; with LAB_RPING_FREEZE=0 it keeps pinging instead. Logs:
# /tmp/rping-{s,c}-PORT.log; pids appended to /tmp/lab-rping.pids.
lab_rping_start() {
	rping -s -a "$1" -p "$2" >"/tmp/rping-s-$2.log" 2>&1 &
	echo "$!" >>/tmp/lab-rping.pids
	lab_wait 10 lab_cm_listening "$2" || {
		echo "lab: rping server on $1 port $2 did not listen" >&2
		return 1
	}
	rping -c -a "$1" -p "$2" >"/tmp/rping-c-$2.log" 2>&1 &
	_c=$!
	echo "$_c" >>/tmp/lab-rping.pids
	lab_wait 20 lab_cm_connected_ge "$2" 2 || {
		echo "lab: rping client to $1 port $2 did not connect" >&2
		return 1
	}
	# Both ids read CONNECT before the handshake ends: stopping the client then
	# would freeze its QP in INIT for good.
	lab_wait 20 lab_qp_settled "$_c" || {
		echo "lab: rping client to $1 port $2 did not bring its QP up" >&2
		return 1
	}
	[ "${LAB_RPING_FREEZE:-1}" = 0 ] || kill -STOP "$_c"
}
lab_cm_connected_ge() { [ "$(lab_cm_connected "$1")" -ge "$2" ]; }

# True once PID has a QP and none in INIT or RTR: rxe reports RTS after the
# client has taken the server's reply; siw reports no QP state (RESET).
lab_qp_settled() {
	_q=$("$LAB_RDMA" res show qp | grep " pid $1 ") || return 1
	! printf '%s\n' "$_q" | grep -Eq ' state (INIT|RTR) '
}

# rping on each device over IPv4 and IPv6: siw 10.9.0.1:7174 and [fd00:9::1]:7176,
# rxe 10.9.0.2:7175 and [fd00:9::2]:7177 (a listener and both ends each).
lab_rping_all() {
	lab_rping_start 10.9.0.1 7174 &&
		lab_rping_start 10.9.0.2 7175 &&
		lab_rping_start fd00:9::1 7176 &&
		lab_rping_start fd00:9::2 7177
}

# lab_capture DIR NAME CMD...: stdout to DIR/NAME, stderr to DIR/NAME.err and
# the exit status to DIR/NAME.rc, for host-side tests to judge.
lab_capture() {
	_d=$1
	_n=$2
	shift 2
	"$@" >"$_d/$_n" 2>"$_d/$_n.err"
	echo $? >"$_d/$_n.rc"
}

# lab_reap PID RCFILE [SECONDS]: wait for PID (killed after SECONDS, default
# 20) and write its exit status to RCFILE.
# Safe under set -e: the status is recorded, not returned.
lab_reap() {
	(sleep "${3:-20}"; kill -KILL "$1" 2>/dev/null) &
	_w=$!
	_r=0
	wait "$1" || _r=$?
	echo "$_r" >"$2"
	kill "$_w" 2>/dev/null || true
}

# lab_section TITLE: a heading in a scenario's log.
lab_section() { printf '\n===== %s\n' "$*"; }

# Kill every rping started by lab_rping_start.
lab_stop_pings() {
	[ -f /tmp/lab-rping.pids ] || return 0
	# A client may have ended already (its connection dropped while it was
	# stopped): not an error, and not one for a scenario under set -e either.
	while read -r _p; do
		kill -CONT "$_p" 2>/dev/null || true
		kill -KILL "$_p" 2>/dev/null || true
	done </tmp/lab-rping.pids
	rm -f /tmp/lab-rping.pids
	sleep 0.5
}

# lab_check DESCRIPTION CMD...: run CMD, print "ok - ..." or "FAIL - ...", count.
LAB_PASSED=0
LAB_FAILED=0
lab_check() {
	_d=$1
	shift
	if "$@"; then
		LAB_PASSED=$((LAB_PASSED + 1))
		echo "ok - $_d"
	else
		LAB_FAILED=$((LAB_FAILED + 1))
		echo "FAIL - $_d"
	fi
}

# Print "N passed, N failed"; status 0 iff nothing failed.
lab_summary() {
	echo "$LAB_PASSED passed, $LAB_FAILED failed"
	[ "$LAB_FAILED" = 0 ]
}

# lab_show CMD...: echo the command, then run it (for readable logs).
lab_show() {
	echo "+ $*"
	"$@"
}

# The two-host lab (lab.sh pair). This guest is $LAB_HOST (a or b), number
# $LAB_HOST_N (1 or 2); its network cards have the MACs 52:54:00:0N:00:0L:
#   L=1  the siw link to the other guest: 10.8.1.N/24, fd00:8:1::N/64, siw0
#   L=2  the rxe link:                    10.8.2.N/24, fd00:8:2::N/64, rxe0
#   L=3  QEMU's user network, 10.0.2.15/24: the host's 127.0.0.1:$LAB_SCRAPE_PORT
#        reaches port 9411 here, and nothing else goes in or out.
# /shared is a directory the guests and the host's driver share: each side
# waits for the files the other creates (lab_pair_signal, lab_pair_await).

# lab_nic MAC: the name of the network device with that MAC.
lab_nic() {
	for _d in /sys/class/net/*; do
		[ "$(cat "$_d/address" 2>/dev/null)" != "$1" ] || {
			echo "${_d##*/}"
			return 0
		}
	done
	return 1
}

# lab_pair_nic L: this guest's network device on link L (1, 2 or 3).
lab_pair_nic() { lab_nic "52:54:00:0$LAB_HOST_N:00:0$1"; }

# Modules, addresses and devices of this guest of the pair. IPv6 addresses
# survive a link going down (keep_addr_on_down): a host whose link went down
# still holds its addresses, as one whose cable was pulled does.
lab_pair_up() {
	lab_load_modules && lab_insmod_list "$LAB/modules/net.list" || return 1
	"$LAB_IP" link set lo up || return 1
	echo 1 >/proc/sys/net/ipv6/conf/all/keep_addr_on_down
	for _l in 1 2 3; do
		lab_wait 10 lab_pair_nic "$_l" || {
			echo "lab: no network card 52:54:00:0$LAB_HOST_N:00:0$_l" >&2
			return 1
		}
	done
	for _l in 1 2; do
		_n=$(lab_pair_nic "$_l")
		"$LAB_IP" addr add "10.8.$_l.$LAB_HOST_N/24" dev "$_n" &&
			"$LAB_IP" -6 addr add "fd00:8:$_l::$LAB_HOST_N/64" dev "$_n" nodad &&
			"$LAB_IP" link set "$_n" up || return 1
	done
	_n=$(lab_pair_nic 3)
	"$LAB_IP" addr add 10.0.2.15/24 dev "$_n" && "$LAB_IP" link set "$_n" up || return 1
	"$LAB_RDMA" link add siw0 type siw netdev "$(lab_pair_nic 1)" &&
		"$LAB_RDMA" link add rxe0 type rxe netdev "$(lab_pair_nic 2)" || return 1
	lab_wait 10 test -e /sys/class/infiniband/siw0 -a -e /sys/class/infiniband/rxe0
}

# lab_pair_signal NAME: tell the other guest and the host's driver NAME happened.
lab_pair_signal() { : >"/shared/$1"; }

# lab_pair_await SECONDS NAME: wait for NAME to be signalled; fails after
# SECONDS, or at once when the other guest or the driver has ended (a scenario
# signals ended-HOST on its way out: lab_pair_end).
lab_pair_await() {
	lab_wait "$1" _lab_pair_ready "$2" || {
		echo "lab: $LAB_HOST waited for $2 in vain" >&2
		return 1
	}
	test -e "/shared/$2"
}
_lab_pair_ready() {
	test -e "/shared/$1" && return 0
	for _e in /shared/ended-*; do
		[ ! -e "$_e" ] || [ "$_e" = "/shared/ended-$LAB_HOST" ] || return 0
	done
	return 1
}

# A pair scenario's first line after lib.sh: signal ended-HOST on exit.
lab_pair_end() { trap 'lab_pair_signal "ended-$LAB_HOST"' EXIT; }
