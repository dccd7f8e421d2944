#!/bin/bash
# check-dkms.sh - `make check-dkms`: prove that dkms.conf works with each
# suite's own dkms (bullseye: 2.8, bookworm: 3.0, sid: 3.2+), as a user runs
# it, in a throw-away overlay of that suite's cached chroot (test/chroot.sh):
#
#   1. the sources go to /usr/src/xps-steer-<ver> (scripts/pkg.sh install-src,
#      the same files as the packages); `dkms add` accepts dkms.conf and dkms
#      prints no warning or deprecation about it;
#   2. `dkms build` and `dkms install` for the chroot's kernel; the module is
#      in /lib/modules/<abi>/updates/dkms, built for <abi> (vermagic), with
#      MODULE_VERSION = ./VERSION;
#   3. BUILD_EXCLUSIVE_KERNEL: `dkms build` for a 3.2 kernel release is
#      refused as excluded (not attempted);
#   4. `dkms remove --all` removes the module from /lib/modules;
#   5. AUTOINSTALL: with the module only added, the hook a kernel package
#      runs on installation (/etc/kernel/postinst.d/dkms <abi>) builds and
#      installs it for that kernel;
#   6. `make dkms-install KVER=<abi>` and `make dkms-uninstall` from a copy
#      of the source tree (no git there: the tarball case) do the same.
#
# Usage: test/check-dkms.sh [SUITE...]   (default: bullseye bookworm sid)
# Prints one "ok"/"not ok" line per step and suite; exits 1 if any failed.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=overlay.sh
. "$TOP/test/overlay.sh"

suites=("$@")
((${#suites[@]})) || suites=(bullseye bookworm sid)
[[ $(id -u) == 0 ]] || die "must run as root"

ver=$("$TOP/scripts/pkg.sh" version)
name=xps-steer
work=$(mktemp -d "${TMPDIR:-/tmp}/xps_steer-dkms.XXXXXX")
on_exit overlay_down
on_exit rm -rf "$work"

# ok/fail MSG: one result line of this suite (lib.sh's pass/notok).
ok() { pass "$suite: $*"; }
fail() { notok "$suite: $*" "$work/out"; }
# step DESC CMD...: run CMD in the overlay, output in $work/out.
step() {
	local desc=$1
	shift
	local rc=0
	ov_run "$@" >"$work/out" 2>&1 || rc=$?
	((rc)) || return 0
	# A failed build: what the compiler said is in dkms's make.log.
	cat "$OV_ROOT/var/lib/dkms/$name/$ver/build/make.log" >>"$work/out" 2>/dev/null || true
	fail "$desc (exit status $rc)"
	return 1
}
# Complaints about dkms.conf (a deprecated, obsolete or ignored directive).
clean_output() {
	if grep -iE 'deprecat|obsolete|dkms\.conf|unsupported|ignor' "$work/out" >"$work/warn"; then
		fail "$1: dkms complained:"
		sed 's/^/#   /' "$work/warn"
		return 1
	fi
}

for suite in "${suites[@]}"; do
	t0=$SECONDS
	overlay_down
	rm -rf "$work/ov"
	if ! overlay_up "$suite" "$work/ov"; then
		fail "cannot set up an overlay of the chroot"
		continue
	fi
	abi=$(sed -n 's/^ABI=//p' "$OV_LOWER/.xps_steer-info")
	dkmsv=$(sed -n 's/^DKMS=//p' "$OV_LOWER/.xps_steer-info")
	echo "# $suite: kernel $abi, dkms $dkmsv"
	"$TOP/scripts/pkg.sh" install-src "$OV_ROOT/usr/src/$name-$ver" 2>/dev/null

	if step "dkms add" dkms add -m "$name" -v "$ver" && clean_output "dkms add"; then
		ok "dkms $dkmsv add accepts dkms.conf"
	fi
	if step "dkms build -k $abi" dkms build -m "$name" -v "$ver" -k "$abi" &&
		clean_output "dkms build" &&
		step "dkms install -k $abi" dkms install -m "$name" -v "$ver" -k "$abi"; then
		ko=$(find "$OV_ROOT/lib/modules/$abi/updates/dkms" -name 'xps_steer.ko*' 2>/dev/null | head -n1 || true)
		if [[ -z $ko ]]; then
			fail "no xps_steer.ko* in /lib/modules/$abi/updates/dkms after dkms install"
		else
			mv_=$(ov_run modinfo -F vermagic "${ko#"$OV_ROOT"}" | awk '{ print $1 }')
			mver=$(ov_run modinfo -F version "${ko#"$OV_ROOT"}")
			if [[ $mv_ == "$abi" && $mver == "$ver" ]]; then
				ok "dkms build/install for $abi: ${ko#"$OV_ROOT"} (vermagic $mv_, version $mver)"
			else
				fail "${ko#"$OV_ROOT"}: vermagic '$mv_' (want $abi), version '$mver' (want $ver)"
			fi
		fi
	fi
	# An excluded kernel: dkms must refuse before trying to build. A fake
	# /lib/modules/<old>/build pointing at real headers makes sure it is the
	# exclusion, not missing headers, that stops it.
	old=3.2.0-4-amd64
	mkdir -p "$OV_ROOT/lib/modules/$old"
	ln -s "/usr/src/linux-headers-$abi" "$OV_ROOT/lib/modules/$old/build"
	ov_run dkms build -m "$name" -v "$ver" -k "$old" >"$work/out" 2>&1 && rc=0 || rc=$?
	if ((rc != 0)) && grep -qiE 'exclusive|not supported|excluded' "$work/out"; then
		ok "BUILD_EXCLUSIVE_KERNEL refuses kernel $old (exit $rc: $(grep -iE -m1 'exclusive|not supported|excluded' "$work/out" | sed 's/^ *//'))"
	else
		fail "dkms build for excluded kernel $old: exit $rc, no exclusion message"
	fi
	if step "dkms remove --all" dkms remove -m "$name" -v "$ver" --all; then
		left=$(find "$OV_ROOT/lib/modules" -name 'xps_steer.ko*' 2>/dev/null || true)
		if [[ -z $left ]]; then
			ok "dkms remove --all leaves no xps_steer.ko in /lib/modules"
		else
			fail "after dkms remove: $left"
		fi
	fi
	# AUTOINSTALL, through the kernel packages' own hook.
	if step "dkms add (again)" dkms add -m "$name" -v "$ver" &&
		step "/etc/kernel/postinst.d/dkms $abi" /etc/kernel/postinst.d/dkms "$abi"; then
		ko=$(find "$OV_ROOT/lib/modules/$abi/updates/dkms" -name 'xps_steer.ko*' 2>/dev/null || true)
		if [[ -n $ko ]]; then
			ok "AUTOINSTALL: the kernel postinst hook built and installed ${ko#"$OV_ROOT"}"
		else
			fail "AUTOINSTALL: /etc/kernel/postinst.d/dkms $abi installed nothing"
		fi
	fi
	step "dkms remove --all" dkms remove -m "$name" -v "$ver" --all || true
	# make dkms-install / dkms-uninstall from an unpacked source tree, with
	# a stray build product that must not reach /usr/src.
	mkdir -p "$OV_ROOT/tmp/xps-src"
	(cd "$TOP" && "$TOP/scripts/pkg.sh" files && find debian rpm scripts -type f) |
		(cd "$TOP" && tar -cf - --no-recursion -T -) | tar -C "$OV_ROOT/tmp/xps-src" -xf -
	touch "$OV_ROOT/tmp/xps-src/src/stray.o"
	if step "make dkms-install" make -C /tmp/xps-src dkms-install KVER="$abi"; then
		ko=$(find "$OV_ROOT/lib/modules/$abi/updates/dkms" -name 'xps_steer.ko*' 2>/dev/null || true)
		if [[ -z $ko ]]; then
			fail "make dkms-install: no xps_steer.ko for $abi"
		elif [[ -e $OV_ROOT/usr/src/$name-$ver/src/stray.o ]]; then
			fail "make dkms-install copied a build product (src/stray.o) to /usr/src"
		elif [[ ! -e $OV_ROOT/usr/lib/modprobe.d/xps_steer.conf ]]; then
			fail "make dkms-install did not install /usr/lib/modprobe.d/xps_steer.conf"
		elif step "make dkms-uninstall" make -C /tmp/xps-src dkms-uninstall; then
			left=$(find "$OV_ROOT/lib/modules" "$OV_ROOT/usr/lib/modprobe.d" -name 'xps_steer.*' 2>/dev/null || true)
			if [[ -z $left && ! -e $OV_ROOT/usr/src/$name-$ver ]]; then
				ok "make dkms-install KVER=$abi installs ${ko#"$OV_ROOT"} and the modprobe.d rule, make dkms-uninstall removes them and /usr/src/$name-$ver"
			else
				fail "after make dkms-uninstall: ${left:-} $(ls -d "$OV_ROOT/usr/src/$name-$ver" 2>/dev/null)"
			fi
		fi
	fi
	overlay_down
	echo "# $suite: $((SECONDS - t0)) s"
done
echo "$ME: $NPASS passed, $NFAIL failed"
((NFAIL == 0))
