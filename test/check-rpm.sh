#!/bin/bash
# check-rpm.sh - `make check-rpm`: the two RPMs (xps-steer-dkms, noarch; the
# xps-steer tool, arch) and their scriptlets, with rpm itself, in a
# throw-away overlay of the bookworm chroot (Debian's rpm package; no RPM
# distribution is reachable here):
#
#   1. the spec builds with Debian's rpm, which has no systemd macros: the
#      tool package then has no scriptlets; with the macros defined (as
#      systemd-rpm-macros does) its %post, %preun and %postun call
#      %systemd_post, %systemd_preun and %systemd_postun_with_restart
#      (rpmspec --parse with stand-in definitions);
#   2. dependencies: xps-steer-dkms requires nothing but dkms (and /bin/sh
#      for its scriptlets); xps-steer requires xps-steer-dkms of its very
#      version-release, and its shared libraries;
#   3. `rpm -i` of both succeeds in a chroot that has four kernels:
#        <abi>           the chroot's own, headers at /lib/modules/<abi>/build
#        <abi>-develonly devel files only as /usr/src/kernels/<kver> (the
#                        layout of RHEL's kernel-devel without the link)
#        <abi>-nodevel   /lib/modules/<kver> and no devel files
#        <abi>-broken    devel files whose build fails
#      %post registers xps-steer/<ver> with dkms, builds and installs it
#      for the first two, says it skips the third and that the fourth
#      failed, and still succeeds; nothing for the host's running kernel,
#      which is not installed in the chroot;
#   4. the tool package's files are in place, `rpm -V` finds them intact
#      and `xps-steer --version` runs there (its libraries from apt);
#   5. `rpm -e xps-steer xps-steer-dkms`: %preun removes every build (no
#      xps_steer.ko is left under /lib/modules), dkms forgets xps-steer,
#      /usr/src/xps-steer-<ver> and the tool's files are gone.
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
out=$("$TOP/scripts/pkg.sh" rpm "$work/out") || die "make rpm failed"
mapfile -t rpms <<<"$out"
((${#rpms[@]} == 2)) || die "make rpm printed ${#rpms[@]} packages, not 2: ${rpms[*]}"
dkmsf=${rpms[0]} toolf=${rpms[1]}
[[ $(rpm -qp --qf '%{NAME} %{ARCH}' "$dkmsf") == "xps-steer-dkms noarch" ]] ||
	die "$dkmsf is not xps-steer-dkms, noarch"
[[ $(rpm -qp --qf '%{NAME}' "$toolf") == xps-steer && $(rpm -qp --qf '%{ARCH}' "$toolf") != noarch ]] ||
	die "$toolf is not xps-steer, arch-specific"
rel=$(rpm -qp --qf '%{RELEASE}' "$dkmsf")

# --- 1. the systemd scriptlets, without and with the macros ----------------
scripts=$(rpm -qp --scripts "$toolf")
[[ -z $scripts ]] || die "without systemd macros, xps-steer has scriptlets: $scripts"
# Stand-ins: each expands to a word naming it, and its arguments.
rpmspec -P "$TOP/rpm/xps-steer.spec" \
	--define 'systemd_post() SYSTEMD_POST %*' \
	--define 'systemd_preun() SYSTEMD_PREUN %*' \
	--define 'systemd_postun_with_restart() SYSTEMD_POSTUN_WITH_RESTART %*' \
	>"$work/parsed.spec" 2>"$work/parse.err" ||
	{ cat "$work/parse.err" >&2 && die "rpmspec --parse with systemd macros failed"; }
for s in post:SYSTEMD_POST preun:SYSTEMD_PREUN postun:SYSTEMD_POSTUN_WITH_RESTART; do
	# The line after "%post" (the tool's, not "%post dkms") is the call.
	got=$(awk -v sec="%${s%%:*}" '$0 == sec { getline; print; exit }' "$work/parsed.spec")
	[[ $got == "${s#*:} xps-steer.service" ]] ||
		die "with systemd macros, %${s%%:*} of xps-steer is '$got', not '${s#*:} xps-steer.service'"
done
pass "spec: builds with Debian's rpm (no systemd macros, no scriptlets); with them, %post/%preun/%postun call %systemd_post/%systemd_preun/%systemd_postun_with_restart"

# --- 2. dependencies --------------------------------------------------------
req=$(rpm -qp --requires "$dkmsf" | grep -vE '^(rpmlib\(|/bin/sh$)' | sort -u)
[[ $req == dkms ]] || die "xps-steer-dkms requires more than dkms: ${req//$'\n'/, }"
req=$(rpm -qp --requires "$toolf")
grep -qx "xps-steer-dkms = $ver-$rel" <<<"$req" || die "xps-steer does not require xps-steer-dkms = $ver-$rel"
grep -q '^libhwloc\.so' <<<"$req" || die "xps-steer has no automatic dependency on libhwloc"
pass "dependencies: xps-steer-dkms requires only dkms; xps-steer requires xps-steer-dkms = $ver-$rel and its libraries"

# --- 3. rpm -i with four kernels --------------------------------------------
overlay_up bookworm "$work/ov" || die "cannot set up an overlay of the bookworm chroot"
abi=$(sed -n 's/^ABI=//p' "$OV_LOWER/.xps_steer-info")
[[ -n $abi && -e $OV_ROOT/lib/modules/$abi/build/Makefile ]] || die "no headers for $abi in the chroot"
# rpm, and the tool's libraries (the .deb's shlibs: Depends).
debs='rpm libhwloc15 libjson-c5 libinih1'
if ! ov_run sh -c "apt-get install -y -q $debs || { apt-get update -q && apt-get install -y -q $debs; }" \
	>"$work/apt.log" 2>&1; then
	tail -n 20 "$work/apt.log" >&2
	die "cannot install rpm and the tool's libraries in the chroot"
fi
k_rpm=$abi-develonly k_none=$abi-nodevel k_bad=$abi-broken
# RHEL's layout: devel files in /usr/src/kernels/<kver>, here a link to the
# chroot's headers, and no /lib/modules/<kver>/build.
mkdir -p "$OV_ROOT/lib/modules/$k_rpm" "$OV_ROOT/usr/src/kernels"
ln -s "/usr/src/linux-headers-$abi" "$OV_ROOT/usr/src/kernels/$k_rpm"
mkdir -p "$OV_ROOT/lib/modules/$k_none"
# A build directory that dkms accepts (it has include/) and whose every
# make target fails.
mkdir -p "$OV_ROOT/lib/modules/$k_bad" "$OV_ROOT/usr/src/broken-devel/include"
printf '%%:\n\t@echo "broken devel files (check-rpm)" >&2; exit 1\n' >"$OV_ROOT/usr/src/broken-devel/Makefile"
ln -s /usr/src/broken-devel "$OV_ROOT/lib/modules/$k_bad/build"
cp "$dkmsf" "$toolf" "$OV_ROOT/tmp/"

# dkms and the libraries come from dpkg here, not from the rpm database.
ov_run rpm -i --nodeps "/tmp/${dkmsf##*/}" "/tmp/${toolf##*/}" >"$work/i.out" 2>&1 ||
	{ cat "$work/i.out" >&2 && die "rpm -i failed"; }
sed 's/^/#   /' "$work/i.out"
st=$(ov_run dkms status -m xps-steer -v "$ver" 2>&1 || true)
while read -r l; do echo "#   dkms status: $l"; done <<<"$st"
for k in "$abi" "$k_rpm"; do
	grep -q "^xps-steer/$ver, $k, [^:]*: installed" <<<"$st" ||
		die "after rpm -i, dkms status does not show xps-steer/$ver installed for $k"
	ko=$(find "$OV_ROOT/lib/modules/$k/updates/dkms" -name 'xps_steer.ko*' 2>/dev/null | head -n1)
	[[ -n $ko ]] || die "after rpm -i, no xps_steer.ko in /lib/modules/$k/updates/dkms"
done
for k in "$k_none" "$k_bad"; do
	! grep -q "^xps-steer/$ver, $k, [^:]*: installed" <<<"$st" || die "dkms says installed for $k"
done
grep -q "kernel $k_none: no devel files, not built" "$work/i.out" ||
	die "%post did not say it skipped $k_none (no devel files)"
# dkms ran make there, and make failed (not a refusal before building).
grep -q "Bad return status for module build on kernel: $k_bad" "$work/i.out" ||
	die "dkms did not report a failed make for $k_bad"
grep -q "could not build for kernel $k_bad" "$work/i.out" ||
	die "%post did not report the failed build for $k_bad"
[[ ! -e $OV_ROOT/lib/modules/$(uname -r) ]] || die "something made /lib/modules/$(uname -r) (the host's kernel)"
pass "rpm -i: %post built and installed xps-steer/$ver for $abi (/lib/modules/<kver>/build) and $k_rpm (/usr/src/kernels/<kver>), skipped $k_none, reported the failed build for $k_bad, installation succeeded"

# --- 4. the tool package ----------------------------------------------------
for f in /usr/sbin/xps-steer /usr/lib/systemd/system/xps-steer.service \
	/usr/lib/udev/rules.d/70-xps-steer.rules /usr/share/man/man8/xps-steer.8* \
	/usr/share/man/man5/xps-steer.conf.5* /usr/share/man/man4/xps_steer.4* \
	/usr/share/bash-completion/completions/xps-steer \
	/usr/share/doc/xps-steer/examples/xps-steer.conf /etc/xps-steer.d; do
	# A pattern: man pages may be compressed.
	compgen -G "$OV_ROOT$f" >/dev/null || die "after rpm -i, no $f"
done
ov_run rpm -V --nodeps xps-steer xps-steer-dkms >"$work/v.out" 2>&1 ||
	{ cat "$work/v.out" >&2 && die "rpm -V xps-steer xps-steer-dkms found changes"; }
out=$(ov_run /usr/sbin/xps-steer --version 2>&1) || die "xps-steer --version failed in the chroot: $out"
[[ $out == "xps-steer $ver" ]] || die "xps-steer --version says '$out', not 'xps-steer $ver'"
pass "the tool package: binary, unit, udev rule, man pages, completion, example, /etc/xps-steer.d in place, rpm -V clean, '$out'"

# --- 5. rpm -e --------------------------------------------------------------
ov_run rpm -e xps-steer xps-steer-dkms >"$work/e.out" 2>&1 ||
	{ cat "$work/e.out" >&2 && die "rpm -e failed"; }
st=$(ov_run dkms status 2>&1 | grep xps-steer || true)
[[ -z $st ]] || die "after rpm -e, dkms still lists: $st"
left=$(find "$OV_ROOT/lib/modules" -name 'xps_steer.ko*' || true)
[[ -z $left ]] || die "after rpm -e: $left"
for f in "/usr/src/xps-steer-$ver" /usr/sbin/xps-steer /usr/lib/systemd/system/xps-steer.service \
	/usr/lib/udev/rules.d/70-xps-steer.rules /usr/lib/modprobe.d/xps_steer.conf /etc/xps-steer.d; do
	[[ ! -e $OV_ROOT$f ]] || die "after rpm -e: $f is left"
done
pass "rpm -e: %preun removed xps-steer from dkms and every kernel's /lib/modules, the files are gone"
echo "$ME: $NPASS passed, 0 failed"
