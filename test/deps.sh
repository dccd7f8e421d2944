#!/bin/bash
# deps.sh - install every host package the xps_steer tests need (Debian 12).
#
# Run as root. Idempotent and quiet: when everything is installed it only
# queries dpkg; `apt-get update` runs at most once, and only if something is
# missing (or apt has no package lists yet, so the guest ABI is unknown).
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

pkgs=(
	build-essential # gcc, make, libc6-dev (static libc for test/tools)
	qemu-system-x86 # the guest VM
	busybox-static  # guest userland
	iperf3 iproute2 ethtool util-linux kmod # copied into the guest
	cpio xz-utils   # initramfs / kernel packaging
	sparse          # make C=1 static checks
	shellcheck      # test/lint.sh: every shell script
	linux-source-6.1
	pkg-config libhwloc-dev libjson-c-dev libinih-dev # the xps-steer tool
	jq              # the tool's tests read its --json output
)

updated=0
apt_update_once() {
	if ((!updated)); then
		apt-get update -qq
		updated=1
	fi
}

is_installed() {
	dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed
}

# The headers must match the guest kernel, whose ABI comes from apt's lists.
find_missing() {
	local abi p
	if ! abi=$("$TOP/test/guest-kernel.sh" abi 2>/dev/null); then
		apt_update_once
		abi=$("$TOP/test/guest-kernel.sh" abi)
	fi
	missing=()
	for p in "${pkgs[@]}" "linux-headers-$abi"; do
		is_installed "$p" || missing+=("$p")
	done
}

find_missing
((${#missing[@]})) || exit 0
# Stale lists may name an ABI the archive no longer carries: refresh, then
# re-resolve the ABI before installing.
if ((!updated)); then
	apt_update_once
	find_missing
fi
echo "deps.sh: installing ${missing[*]}" >&2
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
