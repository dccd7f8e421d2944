#!/bin/bash
# warm.sh - `make warm`: fill every cache CI (.ci/run) uses, and nothing
# else: no test runs, no file of the clone changes. Run it first on a new
# machine, in the background if you like (`make warm >/tmp/warm.log 2>&1 &`):
# every cache it fills is locked while it is built, so a test that needs
# the same cache waits for it, and host apt installs wait for apt's lock.
#
# Usage: test/warm.sh [host|trees|all]
#   host   the host's packages (test/deps.sh, the packaging tools, clang
#          for the fuzzers, debootstrap, mkfs.ext4), the guest kernel
#          (test/guest-kernel.sh) and checkpatch.pl (test/lint.sh): what
#          `make check` needs before it can start
#   trees  the Debian trees: the sid QEMU tree of the igb guest
#          (test/check-nics.sh qemu-sid) first, then the four suite chroots
#          of the matrix (test/chroot.sh ensure; bookworm's is also
#          check-install's), created in parallel (mostly downloads)
#   all    host, then trees (the default)
# Cache: ${XPS_STEER_CACHE:-/var/cache/xps_steer}. Prints each step's time;
# exits non-zero if any cache could not be filled.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

what=${1:-all}
case $what in
host | trees | all) ;;
-h | --help) usage ;;
*) die_usage "unknown argument '$what' (usage: test/warm.sh [host|trees|all])" ;;
esac
(($# <= 1)) || die_usage "one argument at most (usage: test/warm.sh [host|trees|all])"
[[ $(id -u) == 0 ]] || die "must run as root (apt, debootstrap, chroot)"
export DEBIAN_FRONTEND=noninteractive

# step NAME CMD...: run CMD, say how long it took.
step() {
	local name=$1 t
	shift
	t=$(now_us)
	"$@" || die "$name failed"
	say "$name: ready in $(secs_since "$t") s"
}

# Host packages that neither deps.sh nor pkg.sh installs: the fuzzers'
# clang and its runtime (test/fuzz/run.sh), debootstrap (chroot.sh,
# check-nics.sh), mkfs.ext4 (check-install.sh).
host_extra() {
	local p missing=()
	for p in clang libclang-rt-14-dev debootstrap e2fsprogs; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	say "installing ${missing[*]}"
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		{ apt-get update -qq &&
			apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
}

warm_host() {
	step "host packages (test/deps.sh)" "$TOP/test/deps.sh"
	step "packaging tools (scripts/pkg.sh deps)" "$TOP/scripts/pkg.sh" deps
	step "clang, debootstrap, e2fsprogs" host_extra
	step "guest kernel (test/guest-kernel.sh)" "$TOP/test/guest-kernel.sh" fetch
	step "checkpatch.pl (test/lint.sh)" "$TOP/test/lint.sh" checkpatch
}

# The chroots are independent downloads: all at once, each logged.
chroots() {
	local s rc=0 log pids=() logs=()
	log=$(mktemp -d /tmp/xps_steer-warm.XXXXXX)
	for s in bullseye bookworm bookworm-backports sid; do
		"$TOP/test/chroot.sh" ensure "$s" >/dev/null 2>"$log/$s.log" &
		pids+=($!) logs+=("$log/$s.log")
	done
	for s in "${!pids[@]}"; do
		wait "${pids[s]}" || { rc=1 && sed 's/^/  /' "${logs[s]}" >&2; }
	done
	rm -rf "$log"
	return "$rc"
}

warm_trees() {
	# First: make check's igb guest needs it, the matrix only later.
	step "sid QEMU tree (test/check-nics.sh qemu-sid)" "$TOP/test/check-nics.sh" qemu-sid >/dev/null
	step "suite chroots (test/chroot.sh ensure)" chroots
}

t0=$(now_us)
[[ $what == trees ]] || warm_host
[[ $what == host ]] || warm_trees
say "$what: every cache ready in $(secs_since "$t0") s"
