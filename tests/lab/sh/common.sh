# shellcheck shell=bash
# Shared settings and helpers for lab.sh (sourced, not run).

LAB_CACHE=${RDMASTAT_LAB_CACHE:-/var/cache/rdmastat-lab}
# shellcheck disable=SC2034 # used by run.sh
LAB_REPO=$(cd "$LAB_DIR/../.." && pwd)
export DEBIAN_FRONTEND=noninteractive

log() { printf 'lab: %s\n' "$*" >&2; }
die() {
	printf 'lab: error: %s\n' "$*" >&2
	exit 1
}

# The Debian suite whose kernel the lab boots (bookworm: 6.1, trixie: 6.12,
# sid: the newest). Its kernel modules (siw, ours) are built in a cached
# debootstrap root of that suite, with that suite's compiler (tests/roots/root.sh).
LAB_SUITE=${RDMASTAT_LAB_SUITE:-bookworm}
# The suite's debug kernel (tests/lab/sh/debug.sh) instead of Debian's build:
# RDMASTAT_LAB_DEBUG=1, or a suite named SUITE-debug (trixie-debug).
LAB_DEBUG=0
case ${RDMASTAT_LAB_DEBUG:-0} in 0 | "") ;; *) LAB_DEBUG=1 ;; esac
if [ "${LAB_SUITE%-debug}" != "$LAB_SUITE" ]; then
	LAB_SUITE=${LAB_SUITE%-debug}
	LAB_DEBUG=1
fi
LAB_ROOTSH=$LAB_REPO/tests/roots/root.sh

# Run a command in the suite's root; --bind DIR arguments first.
lab_root() { "$LAB_ROOTSH" run "$LAB_SUITE" "$@"; }

# The version of the suite's Debian kernel, e.g. 6.1.0-56-amd64.
# RDMASTAT_LAB_KVER overrides; otherwise what the suite's linux-image-amd64
# depends on; otherwise the one last prepared for the suite (lists stale or no network).
lab_base_kver() {
	if [ -n "${RDMASTAT_LAB_KVER:-}" ]; then
		echo "$RDMASTAT_LAB_KVER"
		return
	fi
	if [ -z "${_LAB_BASE_KVER:-}" ]; then
		"$LAB_ROOTSH" path "$LAB_SUITE" >/dev/null || die "no $LAB_SUITE root"
		_LAB_BASE_KVER=$(lab_root apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-amd64\)$/\1/p' | head -n1)
		if [ -z "$_LAB_BASE_KVER" ]; then
			_LAB_BASE_KVER=$(cat "$LAB_CACHE/$LAB_SUITE.kver" 2>/dev/null || true)
		fi
		[ -n "$_LAB_BASE_KVER" ] || die "cannot resolve $LAB_SUITE's kernel (tests/roots/root.sh)"
	fi
	echo "$_LAB_BASE_KVER"
}

# The guest kernel version: the suite's Debian kernel, or its debug build
# (lab_debug_kver: the source's version and -rdmastat-debug, e.g. 6.12.118-rdmastat-debug).
lab_kver() {
	if ((LAB_DEBUG)); then
		lab_debug_kver
	else
		lab_base_kver
	fi
}

# Per-kernel cache directory.
lab_kdir() { echo "$LAB_CACHE/$(lab_kver)"; }

# Is a Debian package installed?
lab_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# apt-get install the packages that are not installed yet, quietly; fails if apt fails.
lab_apt_install() {
	local p missing=()
	for p in "$@"; do
		lab_installed "$p" || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	log "apt-get install ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
		2> >(grep -v '^debconf: delaying package configuration' >&2)
}

# Seconds since the epoch with centiseconds, for timings.
lab_now() { date +%s.%N | cut -c1-13; }
lab_elapsed() { awk -v a="$1" -v b="$(lab_now)" 'BEGIN { printf "%.1f", b - a }'; }

# RDMASTAT_LAB_GUEST_LOCKS: lock files of which a run or a pair holds one while
# its guests run (make check's guest slots: scripts/check.sh); unset, none.
# The guests' processes keep the lock until they end. While it holds a slot,
# lab.sh runs at normal priority even if its caller runs at SCHED_IDLE (make
# check runs the DKMS builds so): the scenarios time real events.
lab_take_guest_slot() {
	local f
	[ -n "${RDMASTAT_LAB_GUEST_LOCKS:-}" ] || return 0
	while :; do
		for f in $RDMASTAT_LAB_GUEST_LOCKS; do
			exec 19>"$f"
			if flock -n 19; then
				LAB_WAS_IDLE=
				if chrt -p "$BASHPID" | grep -q SCHED_IDLE; then
					LAB_WAS_IDLE=1
					chrt --other -p 0 "$BASHPID"
				fi
				return 0
			fi
		done
		sleep 1
	done
}
lab_drop_guest_slot() {
	exec 19>&-
	[ -z "${LAB_WAS_IDLE:-}" ] || chrt --idle -p 0 "$BASHPID"
}
