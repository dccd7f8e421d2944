# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# overlay.sh - throw-away copies of the cached chroots (test/chroot.sh), for
# tests that install packages into them. Sourced by bash scripts.
#
#   overlay_up SUITE DIR   mount an overlay of SUITE's chroot on DIR/root
#                          (writes go to DIR/upper); holds a shared lock on
#                          the chroot so chroot.sh cannot replace it meanwhile.
#                          Sets OV_ROOT (the merged tree) and OV_LOWER.
#   overlay_down           unmount it (idempotent; call from an EXIT trap)
#   ov_run CMD...          run CMD inside OV_ROOT (chroot.sh run)

# Needs test/lib.sh sourced first (TOP).
OV_ROOT='' OV_LOWER=''

overlay_up() {
	local suite=$1 dir=$2 cache=${XPS_STEER_CACHE:-/var/cache/xps_steer}
	OV_LOWER=$("$TOP/test/chroot.sh" ensure "$suite") || return 1
	# chroot.sh takes this lock exclusively only while building/refreshing.
	exec {OV_LOCK}>"$cache/chroot-$suite.lock"
	flock -s "$OV_LOCK"
	mkdir -p "$dir/upper" "$dir/work" "$dir/root"
	mount -t overlay overlay \
		-o "lowerdir=$OV_LOWER,upperdir=$dir/upper,workdir=$dir/work" "$dir/root" || return 1
	OV_ROOT=$dir/root
}

overlay_down() {
	if [[ -n $OV_ROOT ]] && mountpoint -q "$OV_ROOT"; then
		umount "$OV_ROOT" || umount -l "$OV_ROOT"
	fi
	OV_ROOT=''
	if [[ -n ${OV_LOCK:-} ]]; then
		exec {OV_LOCK}>&-
		OV_LOCK=''
	fi
}

ov_run() {
	"$TOP/test/chroot.sh" run "$OV_ROOT" "$@"
}
