#!/usr/bin/env bash
# Cached Debian roots (debootstrap --variant=minbase), one per suite, for work
# that must happen with a suite's own compiler and packages: the lab's kernel
# modules, the Debian 13 build stage, DKMS and package installation tests.
#
#   root.sh path SUITE              create the root if needed; print its directory
#   root.sh install SUITE PKG...    apt-get install into the root (missing ones only)
#   root.sh run SUITE [--exclusive] [--ccache[=DIR]] [--bind DIR]... CMD...
#                                   run CMD in the root: own mount namespace, /proc
#                                   mounted (objtool needs it), each DIR bind-mounted
#                                   at the same path, network as on the host;
#                                   --exclusive: holding the root's lock, as install
#                                   does (for CMDs that run apt or dpkg: several
#                                   runs may share a root, one apt at a time);
#                                   --ccache: with ccache installed in the root and
#                                   its cache kept in the lab cache (ccache/SUITE),
#                                   or in DIR, CCACHE_DIR set, CCACHE_STATSLOG's
#                                   folder bound
#   root.sh fresh SUITE DIR         copy of the pristine minbase root into DIR
#                                   (for installation tests that need a clean system)
#   root.sh enter DIR [--bind DIR]... CMD...
#                                   run CMD in the root at DIR (a fresh one), as run does
#
# SUITE is a Debian codename (bookworm, trixie, sid, ...). The cache is
# $RDMASTAT_LAB_CACHE/roots (default /var/cache/rdmastat-lab/roots); the mirror is
# $RDMASTAT_DEBIAN_MIRROR (default http://deb.debian.org/debian). Needs root.
set -euo pipefail

ROOTS=${RDMASTAT_LAB_CACHE:-/var/cache/rdmastat-lab}/roots
MIRROR=${RDMASTAT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

say() { printf 'root: %s\n' "$*" >&2; }
die() {
	printf 'root: error: %s\n' "$*" >&2
	exit 1
}
usage() {
	sed -n '2,25s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

# Stable suites get their security and point-update archives so that a root
# sees the same kernel as an up-to-date machine of that release. Unstable
# suites' Release files can be expired: do not let that stop apt.
write_apt_config() {
	local dir=$1 suite=$2
	{
		echo "deb $MIRROR $suite main"
		if [ "$suite" != sid ] && [ "$suite" != unstable ]; then
			echo "deb $MIRROR $suite-updates main"
			echo "deb ${MIRROR%/debian}/debian-security $suite-security main"
		fi
	} >"$dir/etc/apt/sources.list"
	cat >"$dir/etc/apt/apt.conf.d/90rdmastat" <<-EOF
		Acquire::Check-Valid-Until "false";
		APT::Install-Recommends "false";
		APT::Sandbox::User "root";
		Dpkg::Use-Pty "false";
	EOF
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

# Run CMD inside DIR in a private mount namespace (mounts vanish with it).
in_root() {
	local dir=$1 binds=() b
	shift
	while [ "${1:-}" = --bind ]; do
		binds+=("$(realpath "$2")")
		shift 2
	done
	# The root bound onto itself is a mount point, as / is on a machine: tools
	# run inside may then make their own private mount namespaces.
	local script='mount --bind "$R" "$R" && mount -t proc proc "$R/proc"'
	for b in "${binds[@]}"; do
		mkdir -p "$dir$b"
		script+="; mount --bind '$b' \"\$R$b\""
	done
	R=$dir unshare -m --propagation private sh -c "$script"'; exec chroot "$R" "$@"' sh "$@"
}

# The pristine root is SUITE.base; the working root SUITE is a copy of it.
ensure_root() {
	local suite=$1 base=$ROOTS/$1.base dir=$ROOTS/$1
	[ -f "$dir/.done" ] && return
	command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null ||
		die "cannot install debootstrap"
	if [ ! -f "$base/.done" ]; then
		say "debootstrap --variant=minbase $suite (about a minute)"
		rm -rf "$base"
		mkdir -p "$ROOTS"
		debootstrap --variant=minbase "$suite" "$base" "$MIRROR" >"$ROOTS/$suite.debootstrap.log" 2>&1 ||
			{ tail -n 20 "$ROOTS/$suite.debootstrap.log" >&2; die "debootstrap $suite failed"; }
		write_apt_config "$base" "$suite"
		in_root "$base" apt-get update -qq >/dev/null || die "apt-get update in the $suite root failed"
		touch "$base/.done"
	fi
	rm -rf "$dir"
	cp -a "$base" "$dir"
}

install_pkgs() {
	local suite=$1 dir=$ROOTS/$1 p missing=()
	shift
	for p in "$@"; do
		in_root "$dir" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	say "$suite: apt-get install ${missing[*]}"
	write_apt_config "$dir" "$suite"
	if ! in_root "$dir" apt-get install -y -qq "${missing[@]}" >/dev/null 2>"$dir/.apt.log"; then
		# Lists older than the archive (a superseded kernel): refresh once.
		if ! in_root "$dir" apt-get update -qq >/dev/null ||
			! in_root "$dir" apt-get install -y -qq "${missing[@]}" >/dev/null 2>"$dir/.apt.log"; then
			grep -v '^debconf' "$dir/.apt.log" >&2
			die "apt-get install in the $suite root failed"
		fi
	fi
}

if [ "${1:-}" = enter ]; then
	[ $# -ge 3 ] && [ -d "$2" ] || usage
	dir=$2
	shift 2
	in_root "$dir" "$@"
	exit
fi
cmd=${1:-}
suite=${2:-}
[ -n "$cmd" ] && [ -n "$suite" ] || usage
[[ $suite =~ ^[a-z]+$ ]] || die "not a Debian suite name: $suite"
shift 2
mkdir -p "$ROOTS"
exec 9>"$ROOTS/.$suite.lock"
case $cmd in
path)
	flock 9
	ensure_root "$suite"
	echo "$ROOTS/$suite"
	;;
install)
	flock 9
	ensure_root "$suite"
	install_pkgs "$suite" "$@"
	;;
run)
	flock 9
	ensure_root "$suite"
	binds=()
	exclusive=0
	if [ "${1:-}" = --exclusive ]; then
		exclusive=1
		shift
	fi
	case ${1:-} in --ccache | --ccache=?*) cdir=${1#--ccache} ;; *) cdir=none ;; esac
	if [ "$cdir" != none ]; then
		shift
		install_pkgs "$suite" ccache
		# Each suite's ccache has a folder of its own (its version may differ
		# from the host's), unless the caller names one.
		export CCACHE_DIR=${cdir#=}
		[ -n "$CCACHE_DIR" ] || CCACHE_DIR=${ROOTS%/roots}/ccache/$suite
		mkdir -p "$CCACHE_DIR"
		binds+=(--bind "$CCACHE_DIR")
		if [ -n "${CCACHE_STATSLOG:-}" ]; then
			mkdir -p "$(dirname "$CCACHE_STATSLOG")"
			binds+=(--bind "$(dirname "$CCACHE_STATSLOG")")
		fi
	fi
	((exclusive)) || flock -u 9 # several runs may share a root
	in_root "$ROOTS/$suite" "${binds[@]}" "$@"
	;;
fresh)
	[ $# -eq 1 ] || usage
	flock 9
	ensure_root "$suite"
	rm -rf "$1"
	cp -a "$ROOTS/$suite.base" "$1"
	rm -f "$1/.done"
	;;
*) usage ;;
esac
