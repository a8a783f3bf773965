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

# The guest kernel version, e.g. 6.1.0-56-amd64. RDMASTAT_LAB_KVER overrides;
# otherwise what linux-image-amd64 depends on; otherwise the newest prepared one.
lab_kver() {
	if [ -n "${RDMASTAT_LAB_KVER:-}" ]; then
		echo "$RDMASTAT_LAB_KVER"
		return
	fi
	if [ -z "${_LAB_KVER:-}" ]; then
		_LAB_KVER=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-amd64\)$/\1/p' | head -n1)
		if [ -z "$_LAB_KVER" ]; then
			# apt lists missing or stale: fall back to what the cache holds.
			_LAB_KVER=$(find "$LAB_CACHE" -mindepth 1 -maxdepth 1 -name '*-amd64' \
				-printf '%f\n' 2>/dev/null | sort -V | tail -n1)
		fi
		[ -n "$_LAB_KVER" ] || die "cannot resolve the guest kernel (run: apt-get update)"
	fi
	echo "$_LAB_KVER"
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
