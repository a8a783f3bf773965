#!/usr/bin/env bash
# Installs, from Debian's archive, everything rdmastat needs to build and test
# on a fresh Debian 12 (bookworm) or 13 (trixie) machine. Idempotent; needs root.
# Package names are the ones both releases have: Debian's default clang (14 on
# bookworm, 19 on trixie) through its metapackages, Catch2 2 or 3 as packaged.
set -euo pipefail

packages=(
	build-essential cmake pkg-config ninja-build
	libmnl-dev nlohmann-json3-dev catch2 libcli11-dev libfmt-dev
	libibverbs-dev librdmacm-dev rdma-core
	libmicrohttpd-dev libgnutls28-dev libyaml-cpp-dev libcrypt-dev libcurl4-gnutls-dev prometheus curl jq iproute2
	openssl apache2-utils
	libbpf-dev bpftool
	groff man-db
	clang libclang-rt-dev
	ccache
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "install-deps: apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
