#!/bin/bash
# check-rpm.sh - `make check-rpm`: the RPM's scriptlets, with rpm itself, in a
# throw-away overlay of the bookworm chroot (Debian's rpm package; no RPM
# distribution is reachable here):
#
#   1. `rpm -i xps-steer-dkms-<ver>-1.noarch.rpm` succeeds and its %post
#      registers xps-steer/<ver> with dkms and tries `dkms install` for the
#      running kernel; in a chroot that is the host's kernel, which has no
#      headers there, so the build fails and %post must say so without
#      failing the installation;
#   2. the files are in /usr/src/xps-steer-<ver>; `dkms install -k <abi>`
#      (what %post does on a real system) builds for the chroot's kernel;
#   3. `rpm -e` runs %preun: dkms forgets xps-steer, no xps_steer.ko is left
#      in /lib/modules, /usr/src/xps-steer-<ver> is gone.
#
# Usage: test/check-rpm.sh. Exit status 0 only if every step passed.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=overlay.sh
. "$TOP/test/overlay.sh"
[[ $(id -u) == 0 ]] || die "must run as root"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/xps_steer-rpm.XXXXXX")
on_exit overlay_down
on_exit rm -rf "$work"

ver=$("$TOP/scripts/pkg.sh" version)
rpmf=$("$TOP/scripts/pkg.sh" rpm "$work/out") || die "make rpm failed"
overlay_up bookworm "$work/ov" || die "cannot set up an overlay of the bookworm chroot"
abi=$(sed -n 's/^ABI=//p' "$OV_LOWER/.xps_steer-info")
if ! ov_run sh -c 'command -v rpm >/dev/null || { apt-get update -q && apt-get install -y -q rpm; }' \
	>"$work/apt.log" 2>&1; then
	tail -n 20 "$work/apt.log" >&2
	die "cannot install rpm in the chroot"
fi
cp "$rpmf" "$OV_ROOT/tmp/"

# dkms and gcc come from dpkg here, not from the rpm database: --nodeps.
ov_run rpm -i --nodeps "/tmp/${rpmf##*/}" >"$work/i.out" 2>&1 ||
	{ cat "$work/i.out" >&2 && die "rpm -i failed"; }
sed 's/^/#   /' "$work/i.out"
st=$(ov_run dkms status -m xps-steer -v "$ver" 2>&1)
grep -q "xps-steer/$ver" <<<"$st" || die "after rpm -i, dkms status shows no xps-steer/$ver: $st"
grep -q "could not build for kernel" "$work/i.out" ||
	die "%post did not report the failed build for the host's kernel $(uname -r)"
pass "rpm -i: %post registered xps-steer/$ver with dkms, reported the failed build for $(uname -r), install succeeded"

[[ -f $OV_ROOT/usr/src/xps-steer-$ver/dkms.conf && -f $OV_ROOT/usr/src/xps-steer-$ver/Kbuild ]] ||
	die "no /usr/src/xps-steer-$ver/{dkms.conf,Kbuild} after rpm -i"
ov_run dkms install -m xps-steer -v "$ver" -k "$abi" >"$work/d.out" 2>&1 ||
	{ tail -n 20 "$work/d.out" >&2 && die "dkms install -k $abi failed"; }
ko=$(find "$OV_ROOT/lib/modules/$abi/updates/dkms" -name 'xps_steer.ko*' | head -n1 || true)
[[ -n $ko ]] || die "no xps_steer.ko for $abi after dkms install"
pass "the rpm's /usr/src/xps-steer-$ver builds with dkms for $abi: ${ko#"$OV_ROOT"}"

ov_run rpm -e xps-steer-dkms >"$work/e.out" 2>&1 ||
	{ cat "$work/e.out" >&2 && die "rpm -e failed"; }
st=$(ov_run dkms status 2>&1 | grep xps-steer || true)
[[ -z $st ]] || die "after rpm -e, dkms still lists: $st"
left=$(find "$OV_ROOT/lib/modules" -name 'xps_steer.ko*' || true)
[[ -z $left ]] || die "after rpm -e: $left"
[[ ! -e $OV_ROOT/usr/src/xps-steer-$ver ]] || die "after rpm -e: /usr/src/xps-steer-$ver is left"
pass "rpm -e: %preun removed it from dkms and /lib/modules, files gone"
echo "$ME: $NPASS passed, 0 failed"
