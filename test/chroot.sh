#!/bin/bash
# chroot.sh - cached Debian chroots (debootstrap --variant=minbase), each with
# one suite's own compiler, kernel image + headers and dkms: for building,
# DKMS-installing and booting (test/vm.sh --kernel-root) xps_steer against
# that suite's kernel.
#
# Usage:
#   test/chroot.sh ensure SUITE      create the chroot, or refresh it when the
#                                    suite's kernel package moved; print its path
#   test/chroot.sh path SUITE        print the cached chroot's path (fails if
#                                    it is not built)
#   test/chroot.sh run ROOT CMD...   run CMD as root inside ROOT (a SUITE, or a
#                                    chroot directory such as an overlay of
#                                    one) with /proc, /sys and /dev mounted in
#                                    a private mount namespace: the mounts
#                                    vanish when CMD ends, however it ends.
#                                    Clean environment (PATH, HOME, LANG=C.UTF-8,
#                                    DEBIAN_FRONTEND=noninteractive); exit
#                                    status is CMD's.
#   test/chroot.sh info ROOT         print the chroot's facts (KEY=value lines:
#                                    SUITE ABI KERNEL_PKG KERNEL_VERSION GCC DKMS)
#
# SUITE: bullseye (5.10), bookworm (6.1), bookworm-backports (a bookworm
# chroot whose kernel comes from bookworm-backports, 6.12), sid (newest).
# Each holds gcc, make, dkms, kmod, xz-utils, openssl, linux-image-amd64,
# linux-headers-amd64 (the suite's current ABI), iproute2, ethtool, procps.
# Packages come from the Debian mirror the host's apt uses (override with
# XPS_STEER_MIRROR; security updates from XPS_STEER_SECURITY_MIRROR).
#
# Cache: ${XPS_STEER_CACHE:-/var/cache/xps_steer}/chroot-<suite>-<version>,
# <version> being the kernel image package's version. `ensure` runs apt-get
# update inside; if the candidate kernel differs it upgrades in place (the old
# kernel is purged, the directory renamed to the new key), and if that fails it
# builds afresh. The stamp .xps_steer-ready is written last: a half-built
# chroot is never used. The check is skipped if the last one is less than
# XPS_STEER_CHROOT_TTL seconds old (default 3600; 0: always check), or
# always with XPS_STEER_CHROOT_REFRESH=0 (offline).
# Locking: chroot-<suite>.lock is held exclusively while `ensure` builds or
# refreshes, shared while `run` works in the chroot; hold a shared flock on it
# yourself while you use the path in other ways (e.g. as an overlay lower dir).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# One block, parsed before it runs: editing this file while a command runs
# (matrix runs are long) cannot change the running one.
{

export DEBIAN_FRONTEND=noninteractive
cache_root=${XPS_STEER_CACHE:-/var/cache/xps_steer}
suites=(bullseye bookworm bookworm-backports sid)
# openssl: DKMS 3.x makes its MOK key with it and signs modules, as for users.
pkgs=(gcc make libc6-dev dkms kmod xz-utils openssl linux-image-amd64 linux-headers-amd64
	iproute2 ethtool procps)

# secs_dec T: seconds since T (now_us), one decimal.
secs_dec() { printf '%d.%d' $((($(now_us) - $1) / 1000000)) $((($(now_us) - $1) / 100000 % 10)); }

check_suite() {
	local s
	for s in "${suites[@]}"; do
		[[ $1 == "$s" ]] && return 0
	done
	echo "chroot.sh: unknown suite '$1' (one of: ${suites[*]})" >&2
	exit 2
}

# Ready chroot of a suite (newest if several), or nothing.
# The key starts with a digit, so "bookworm" never matches bookworm-backports.
current() {
	local d best=''
	for d in "$cache_root/chroot-$1-"[0-9]*; do
		[[ -f $d/.xps_steer-ready ]] || continue
		[[ -z $best || $d -nt $best ]] && best=$d
	done
	echo "$best"
}

# "PKG VERSION" of the real kernel image linux-image-amd64 points at:
# candidate (after apt-get update) or installed.
kernel_candidate() {
	in_root "$1" apt-cache show --no-all-versions linux-image-amd64 | sed -n 's/^Depends: //p' |
		grep -o 'linux-image-[^ ,]* (= [^)]*)' | head -n1 | sed 's/ (= \(.*\))$/ \1/'
}
kernel_installed() {
	local pkg
	# shellcheck disable=SC2016 # a dpkg-query format, not shell
	pkg=$(in_root "$1" dpkg-query -W -f='${Depends}' linux-image-amd64 |
		grep -o 'linux-image-[^ ,]*' | head -n1)
	[[ -n $pkg ]] || return 1
	# shellcheck disable=SC2016 # a dpkg-query format, not shell
	echo "$pkg $(in_root "$1" dpkg-query -W -f='${Version}' "$pkg")"
}

# Record the facts (and verify the tree is usable for builds and boots).
write_info() {
	local dir=$1 suite=$2 abis abi pkg ver gccv dkmsv
	abis=("$dir"/lib/modules/*/modules.dep)
	if ((${#abis[@]} != 1)) || [[ ! -f ${abis[0]} ]]; then
		die "$suite: expected exactly one kernel in $dir/lib/modules, found: ${abis[*]}"
	fi
	abi=$(basename "$(dirname "${abis[0]}")")
	[[ -f $dir/boot/vmlinuz-$abi ]] || die "$suite: no $dir/boot/vmlinuz-$abi"
	[[ -f $dir/usr/src/linux-headers-$abi/Makefile ]] || die "$suite: no headers for $abi"
	read -r pkg ver < <(kernel_installed "$dir") || die "$suite: linux-image-amd64 not installed"
	gccv=$(in_root "$dir" gcc -dumpfullversion)
	# shellcheck disable=SC2016 # a dpkg-query format, not shell
	dkmsv=$(in_root "$dir" dpkg-query -W -f='${Version}' dkms)
	printf 'SUITE=%s\nABI=%s\nKERNEL_PKG=%s\nKERNEL_VERSION=%s\nGCC=%s\nDKMS=%s\n' \
		"$suite" "$abi" "$pkg" "$ver" "$gccv" "$dkmsv" >"$dir/.xps_steer-info"
}

sources() {	# SUITE MIRROR: the chroot's sources.list
	local suite=$1 m=$2 sec
	sec=${XPS_STEER_SECURITY_MIRROR:-${m%/debian}/debian-security}
	case $suite in
	sid) echo "deb $m sid main" ;;
	*)
		local base=${suite%-backports}
		echo "deb $m $base main"
		echo "deb $m $base-updates main"
		echo "deb $sec $base-security main"
		[[ $suite == *-backports ]] && echo "deb $m $suite main"
		;;
	esac
	return 0
}

build_chroot() {	# SUITE: debootstrap + packages into chroot-SUITE.tmp, then rename
	local suite=$1 tmp=$cache_root/chroot-$1.tmp m t dist key
	local logf=$cache_root/chroot-$1.log
	m=$(mirror)
	dist=${suite%-backports}
	rm -rf "$tmp"
	: >"$logf"
	root_bootstrap "$suite" "$dist" "$tmp" "$logf"

	t=$(now_us)
	sources "$suite" "$m" >"$tmp/etc/apt/sources.list"
	if [[ $suite == *-backports ]]; then
		# The kernel (and its kbuild/headers) from backports, all else stable.
		printf 'Package: linux-*\nPin: release n=%s\nPin-Priority: 990\n' "$suite" \
			>"$tmp/etc/apt/preferences.d/kernel-backports"
	fi
	# shellcheck disable=SC2094 # the log is only appended to
	if ! { apt_update "$tmp" "$logf" "$suite" &&
		in_root "$tmp" apt-get install -y -q "${pkgs[@]}" &&
		in_root "$tmp" apt-get clean; } >>"$logf" 2>&1; then
		tail -n 30 "$logf" >&2
		die "$suite: installing ${pkgs[*]} failed (log $logf)"
	fi
	say "$suite: packages installed in $(secs_dec "$t") s"
	write_info "$tmp" "$suite"
	key=$(sed -n 's/^KERNEL_VERSION=//p' "$tmp/.xps_steer-info")
	rm -rf "$cache_root/chroot-$suite-$key"
	mv "$tmp" "$cache_root/chroot-$suite-$key"
	date -u +%FT%TZ >"$cache_root/chroot-$suite-$key/.xps_steer-ready"
	echo "$cache_root/chroot-$suite-$key"
}

# Upgrade DIR to the candidate kernel; print the new path. Fails on any error.
upgrade() {
	local suite=$1 dir=$2 new=$3 old logf=$cache_root/chroot-$1.log key
	read -r old _ < <(kernel_installed "$dir")
	rm -f "$dir/.xps_steer-ready"
	{
		in_root "$dir" apt-get dist-upgrade -y -q &&
			in_root "$dir" apt-get purge -y -q "$old" "${old/linux-image-/linux-headers-}" &&
			in_root "$dir" apt-get autoremove --purge -y -q &&
			in_root "$dir" apt-get clean
	} >>"$logf" 2>&1 || return 1
	(write_info "$dir" "$suite") || return 1
	key=$(sed -n 's/^KERNEL_VERSION=//p' "$dir/.xps_steer-info")
	[[ $key == "$new" ]] || return 1
	rm -rf "$cache_root/chroot-$suite-$key"
	mv "$dir" "$cache_root/chroot-$suite-$key"
	date -u +%FT%TZ >"$cache_root/chroot-$suite-$key/.xps_steer-ready"
	echo "$cache_root/chroot-$suite-$key"
}

ensure() {
	local suite=$1 dir t pkg cand d missing have
	check_suite "$suite"
	[[ $(id -u) == 0 ]] || die "must run as root (debootstrap, chroot, mounts)"
	mkdir -p "$cache_root"
	# Checked recently: no lock (the exclusive one would wait for every
	# user holding the shared one), no apt-get update.
	dir=$(current "$suite")
	if [[ -n $dir && -f $dir/.xps_steer-checked ]] &&
		(($(date +%s) - $(stat -c %Y "$dir/.xps_steer-checked") < ${XPS_STEER_CHROOT_TTL:-3600})); then
		say "$suite: checked less than ${XPS_STEER_CHROOT_TTL:-3600} s ago: $dir"
		echo "$dir"
		return 0
	fi
	exec 9>"$cache_root/chroot-$suite.lock"
	flock 9
	dir=$(current "$suite")
	# Leftovers of interrupted or superseded builds.
	for d in "$cache_root/chroot-$suite.tmp" "$cache_root/chroot-$suite-"[0-9]*; do
		[[ -e $d && $d != "$dir" ]] && say "$suite: removing stale $d" && rm -rf "$d"
	done
	if [[ -z $dir ]]; then
		t=$(now_us)
		dir=$(build_chroot "$suite")
		say "$suite: built $dir in $(secs_dec "$t") s"
	elif [[ ${XPS_STEER_CHROOT_REFRESH:-1} != 0 ]]; then
		t=$(now_us)
		cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
		apt_update "$dir" "$cache_root/chroot-$suite.log" "$suite" ||
			die "$suite: apt-get update failed in $dir (log $cache_root/chroot-$suite.log)"
		# Packages added to the list since the chroot was built.
		# shellcheck disable=SC2016 # a dpkg-query format, not shell
		mapfile -t missing < <(in_root "$dir" dpkg-query -W -f='${Package} ${db:Status-Status}\n' \
			"${pkgs[@]}" 2>/dev/null | awk '$2 != "installed" { print $1 }')
		# shellcheck disable=SC2016 # a dpkg-query format, not shell
		mapfile -t have < <(in_root "$dir" dpkg-query -W -f='${Package}\n' "${pkgs[@]}" 2>/dev/null)
		for pkg in "${pkgs[@]}"; do
			[[ " ${have[*]} " == *" $pkg "* ]] || missing+=("$pkg")
		done
		if ((${#missing[@]})); then
			say "$suite: installing ${missing[*]}"
			in_root "$dir" apt-get install -y -q "${missing[@]}" >>"$cache_root/chroot-$suite.log" 2>&1 ||
				die "$suite: installing ${missing[*]} failed (log $cache_root/chroot-$suite.log)"
			in_root "$dir" apt-get clean
			write_info "$dir" "$suite"
		fi
		if ! read -r pkg cand < <(kernel_candidate "$dir"); then
			in_root "$dir" apt-cache policy linux-image-amd64 >&2 || true
			die "$suite: no candidate for linux-image-amd64 in $dir (apt-cache policy above; log $cache_root/chroot-$suite.log)"
		fi
		if [[ $dir == "$cache_root/chroot-$suite-$cand" ]]; then
			say "$suite: up to date ($pkg $cand; checked in $(secs_dec "$t") s)"
		else
			say "$suite: kernel moved to $pkg $cand: upgrading $dir"
			if ! dir=$(upgrade "$suite" "$dir" "$cand"); then
				say "$suite: upgrade failed, rebuilding from scratch"
				rm -rf "$(current "$suite")" "$cache_root/chroot-$suite-"[0-9]*
				dir=$(build_chroot "$suite")
			fi
			say "$suite: refreshed to $dir in $(secs_dec "$t") s"
		fi
	fi
	[[ ${XPS_STEER_CHROOT_REFRESH:-1} == 0 ]] || touch "$dir/.xps_steer-checked"
	echo "$dir"
}

root_of() {	# SUITE or directory -> chroot directory
	if [[ -d $1 && $1 == */* ]]; then
		echo "$1"
	else
		check_suite "$1"
		local d
		d=$(current "$1")
		[[ -n $d ]] || die "$1: no chroot built yet (run: $0 ensure $1)"
		echo "$d"
	fi
}

case ${1:-} in
ensure)
	(($# == 2)) || usage
	ensure "$2"
	;;
path)
	(($# == 2)) || usage
	check_suite "$2"
	d=$(current "$2")
	[[ -n $d ]] || die "$2: no chroot built yet (run: $0 ensure $2)"
	echo "$d"
	;;
run)
	(($# >= 3)) || usage
	[[ $(id -u) == 0 ]] || die "must run as root (chroot, mounts)"
	root=$(root_of "$2")
	shift 2
	if [[ $root == "$cache_root"/chroot-* ]]; then
		s=${root#"$cache_root"/chroot-}
		s=${s%%-[0-9]*}
		exec 9>"$cache_root/chroot-$s.lock"
		flock -s 9
	fi
	in_root "$root" "$@"
	;;
info)
	(($# == 2)) || usage
	root=$(root_of "$2")
	cat "$root/.xps_steer-info"
	;;
-h | --help | help) usage ;;
*) usage ;;
esac
exit
}
