#!/bin/bash
# guest-kernel.sh - pick, cache and prepare the kernel the QEMU guest boots.
#
# The guest kernel is whatever Debian bookworm's linux-image-amd64 currently
# depends on (e.g. linux-image-6.1.0-57-amd64), so module builds and tests
# track the kernel real users get from the archive.
#
#   guest-kernel.sh abi    print the ABI string (e.g. 6.1.0-57-amd64)
#   guest-kernel.sh fetch  ensure the image is downloaded + extracted into the
#                          cache and linux-headers-<abi> is installed on the
#                          host; print the cache dir. The image tree is in
#                          <cache dir>/root (boot/vmlinuz-<abi>, lib/modules/).
#   guest-kernel.sh kdir   print the headers dir to build against (KDIR=...)
#
# Cache: ${XPS_STEER_CACHE:-/var/cache/xps_steer}/kernel-<abi>/, outside the
# clone because the image is ~70 MB and extracting it is the slow part.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

# The candidate linux-image-amd64 depends on exactly one linux-image-<abi>
# package, pinned to a version: "Depends: linux-image-<abi> (= <version>)".
# One apt-cache call (~0.7 s here) yields both; sets $abi and $ver.
resolve() {
	read -r abi ver < <(apt-cache show --no-all-versions linux-image-amd64 2>/dev/null |
		sed -n 's/^Depends: linux-image-\([^ ,]*\) (= \([^)]*\)).*/\1 \2/p') || true
	if [[ -z ${abi:-} || -z ${ver:-} ]]; then
		echo "guest-kernel.sh: cannot resolve linux-image-amd64 (run apt-get update?)" >&2
		return 1
	fi
}

fetch() {
	local abi ver pkg cache root
	resolve
	pkg=linux-image-$abi
	cache=${XPS_STEER_CACHE:-/var/cache/xps_steer}/kernel-$abi
	root=$cache/root

	# Extract once per package version; the stamp is written last so an
	# interrupted run is redone instead of leaving a half-extracted tree.
	# The lock serialises concurrent first runs (parallel vm.sh).
	mkdir -p "${cache%/*}"
	exec 9>"$cache.lock"
	flock 9
	if [[ $(cat "$cache/.version" 2>/dev/null) != "$ver" ]]; then
		rm -rf "$cache"
		mkdir -p "$cache"
		# apt's _apt sandbox user cannot write here; downloading as root
		# is fine for a cache dir (only the sandbox warning is silenced).
		(cd "$cache" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$ver" >&2) ||
			{ echo "guest-kernel.sh: download failed; stale apt lists? run apt-get update" >&2 && return 1; }
		dpkg-deb -x "$cache/$pkg"_*.deb "$root"
		# The .deb ships no modules.dep (postinst generates it); the guest
		# initramfs builder resolves module dependencies from it.
		depmod -b "$root" "$abi"
		echo "$ver" >"$cache/.version"
	fi

	# Headers for out-of-tree module builds (KDIR), same ABI as the image.
	if ! dpkg-query -W -f='${db:Status-Status}' "linux-headers-$abi" 2>/dev/null | grep -qx installed; then
		apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "linux-headers-$abi" >&2
	fi
	echo "$cache"
}

case ${1:-} in
abi) resolve && echo "$abi" ;;
fetch) fetch ;;
kdir) resolve && echo "/usr/src/linux-headers-$abi" ;;
*)
	echo "usage: $0 abi|fetch|kdir" >&2
	exit 2
	;;
esac
