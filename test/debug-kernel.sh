#!/bin/bash
# debug-kernel.sh - build, cache and locate the xps_steer debug guest kernel.
#
# Debian's linux-source-6.1 (x86_64_defconfig trimmed and extended by
# test/debug.config: KASAN, UBSAN, KMEMLEAK, PROVE_LOCKING/PROVE_RCU,
# DEBUG_OBJECTS_RCU_HEAD, DEBUG_ATOMIC_SLEEP, DEBUG_NET, netdev/netns
# refcount trackers, full preemption), built with `nice` on every core.
#
#   debug-kernel.sh build   build unless cached; print the cache dir
#   debug-kernel.sh root    print the install root for `test/vm.sh
#                           --kernel-root` (boot/vmlinuz-<abi>, lib/modules/<abi>)
#   debug-kernel.sh abi     print the kernel release (e.g. 6.1.192-xpsdebug)
#   debug-kernel.sh kdir    print the build dir to build xps_steer against
#   debug-kernel.sh key     print the cache key
#   (root/abi/kdir fail if the kernel is not built yet)
#
# Cache: ${XPS_STEER_CACHE:-/var/cache/xps_steer}/debug-kernel-<key>/ with
# key = <linux-source-6.1 package version>-<hash of debug.config and the
# build recipe below>. A flock serialises concurrent builds; the stamp
# (.stamp) is written last. An interrupted build resumes (make is
# incremental) once its configuration was verified (.configured), else it
# starts over. The build time is kept in <cache>/build-seconds.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
here=$TOP/test
frag=$here/debug.config
src_tar=/usr/src/linux-source-6.1.tar.xz
srcpkg=linux-source-6.1
# Bump when the build steps below change in a way that changes the result.
recipe=1


deps() {
	local p missing=()
	for p in $srcpkg build-essential flex bison bc libelf-dev libssl-dev kmod cpio xz-utils; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
	done
	if ((${#missing[@]})); then
		say "installing ${missing[*]}"
		apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
			{ apt-get update -qq && apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
	fi
}

key() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' $srcpkg 2>/dev/null) || die "$srcpkg is not installed"
	echo "$ver-$({ cat "$frag" && echo "recipe=$recipe"; } | sha256sum | cut -c1-12)"
}

cache_dir() { echo "${XPS_STEER_CACHE:-/var/cache/xps_steer}/debug-kernel-$(key)"; }

# verify SRC: every option line of debug.config must be in .config as
# written. Positive lines (=y/=m/values) are the checkers and what the
# suites need: a miss fails. "is not set" lines only trim the build: a miss
# (something selects it) is reported, not fatal.
verify() {
	local line opt miss=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$1/.config" && continue
			opt=${line%%=*}
			say "FAIL: $line wanted, .config has: $(grep -E "^(# )?${opt}[= ]" "$1/.config" || echo 'nothing (unknown or unmet dependency)')"
			miss=1
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -q "^$opt=" "$1/.config" && say "note: $opt stays enabled (selected by something else)"
			;;
		esac
	done <"$frag"
	((!miss)) || die "debug.config not satisfied by olddefconfig (see above)"
}

build() {
	local cache src root abi t0 t1 jobs resumed
	deps
	cache=$(cache_dir)
	mkdir -p "${cache%/*}"
	exec 9>"$cache.lock"
	flock 9
	if [[ -f $cache/.stamp ]]; then
		echo "$cache"
		return
	fi
	src=$cache/src
	root=$cache/root
	jobs=$(nproc)
	t0=$(date +%s)
	if [[ -f $cache/.configured ]]; then
		# An interrupted build (no stamp) of a verified config: make
		# picks up where it stopped (kbuild deletes half-written objects).
		say "resuming the build in $cache (nice, -j$jobs)"
		rm -rf "$root"
		resumed=1
	else
		rm -rf "$cache"
		mkdir -p "$cache"
		say "cold build into $cache (nice, -j$jobs); this takes a while"
		tar -xJf "$src_tar" -C "$cache"
		mv "$cache/linux-source-6.1" "$src"
		cp "$frag" "$cache/debug.config"
		nice make -s -C "$src" x86_64_defconfig >&2
		(cd "$src" && nice scripts/kconfig/merge_config.sh -m .config "$cache/debug.config" >/dev/null) ||
			die "merge_config.sh failed"
		nice make -s -C "$src" olddefconfig >&2
		verify "$src"
		touch "$cache/.configured"
		resumed=0
	fi
	nice make -s -C "$src" -j"$jobs" bzImage modules >&2 || die "kernel build failed"
	abi=$(make -s -C "$src" kernelrelease)
	mkdir -p "$root/boot"
	cp "$src/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$abi"
	cp "$src/.config" "$root/boot/config-$abi"
	cp "$src/System.map" "$root/boot/System.map-$abi"
	nice make -s -C "$src" modules_install INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 >&2
	depmod -b "$root" "$abi"
	[[ -f $root/lib/modules/$abi/modules.dep ]] || die "no modules.dep in $root/lib/modules/$abi"
	t1=$(date +%s)
	if ((resumed)); then
		echo "$((t1 - t0)) (resumed build: this part only)" >"$cache/build-seconds"
	else
		echo "$((t1 - t0))" >"$cache/build-seconds"
	fi
	echo "$abi" >"$cache/abi"
	key >"$cache/.stamp"
	say "built $abi in $(cat "$cache/build-seconds") s (nice, -j$jobs on $(nproc) cores)"
	echo "$cache"
}

built() {
	local cache
	cache=$(cache_dir)
	[[ -f $cache/.stamp ]] || die "debug kernel not built (run test/debug-kernel.sh build)"
	echo "$cache"
}

case ${1:-} in
build) build ;;
root) echo "$(built)/root" ;;
abi) cat "$(built)/abi" ;;
kdir) echo "$(built)/src" ;;
key) key ;;
*)
	echo "usage: $0 build|root|abi|kdir|key" >&2
	exit 2
	;;
esac
