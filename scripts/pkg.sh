#!/bin/bash
# pkg.sh - packaging helper behind `make check-version`, `make dkms-install`,
# `make dkms-uninstall`, `make deb`, `make rpm` and `make check-packages`
# (docs/install.md). Run from anywhere; paths are relative to the source tree.
#
#   scripts/pkg.sh version          print ./VERSION
#   scripts/pkg.sh check-version    fail unless ./VERSION (the module's
#                                   MODULE_VERSION, via Kbuild) equals
#                                   dkms.conf's PACKAGE_VERSION, the
#                                   debian/changelog version and the RPM
#                                   spec's Version
#   scripts/pkg.sh files            the files the packages ship, one a line:
#                                   module sources for DKMS, then docs
#   scripts/pkg.sh install-src DIR  copy the DKMS source files into DIR
#                                   (normally /usr/src/xps-steer-<version>)
#   scripts/pkg.sh install-conf ROOT  install the modprobe.d rule as
#                                   ROOT/usr/lib/modprobe.d/xps_steer.conf
#   scripts/pkg.sh dkms-install [KVER]   install into /usr/src, dkms add,
#                                   dkms install (for KVER, default the
#                                   running kernel)
#   scripts/pkg.sh dkms-uninstall   dkms remove --all, remove /usr/src copy
#   scripts/pkg.sh deb [OUT]        build the source package and
#                                   xps-steer-dkms_<ver>_all.deb into OUT
#                                   (default build/deb), run lintian on them
#   scripts/pkg.sh rpm [OUT]        build the noarch DKMS rpm (and .src.rpm)
#                                   into OUT (default build/rpm)
#   scripts/pkg.sh compare DEB RPM  fail unless the two packages ship the
#                                   same files with the same content (docs
#                                   compared by name; Debian's copyright and
#                                   changelog.Debian.gz, RPM's licence copy
#                                   excepted)
#   scripts/pkg.sh deps             apt-get install what deb/rpm need
#
# build/ is gitignored. Exit status: 0 on success, 1 on failure (reason on a
# `pkg.sh: FAIL:` line), 2 on usage errors.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=xps-steer
pkg=xps-steer-dkms

die() {
	echo "pkg.sh: FAIL: $*" >&2
	exit 1
}
say() { echo "pkg.sh: $*" >&2; }
usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
	exit 2
}

version() {
	local v
	v=$(cat "$top/VERSION") || die "cannot read $top/VERSION"
	[[ $v =~ ^[0-9]+(\.[0-9]+)*$ ]] || die "VERSION '$v' is not N.N.N"
	echo "$v"
}

check_version() {
	local v d c s bad=0
	v=$(version)
	d=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$top/dkms.conf")
	# First changelog entry: "xps-steer (0.1.0) unstable; urgency=medium"
	c=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$top/debian/changelog")
	s=$(sed -n 's/^Version:[[:space:]]*//p' "$top/rpm/$name.spec")
	for pair in "dkms.conf PACKAGE_VERSION:$d" "debian/changelog:$c" "rpm/$name.spec Version:$s"; do
		if [[ ${pair##*:} != "$v" ]]; then
			echo "pkg.sh: FAIL: ${pair%:*} is '${pair##*:}', VERSION is '$v'" >&2
			bad=1
		fi
	done
	((!bad)) || exit 1
	say "version $v: VERSION, dkms.conf, debian/changelog and rpm/$name.spec agree"
}

# The DKMS source files: what a build needs (Kbuild, Makefile, VERSION,
# dkms.conf, src/ with everything in it); never tests or build products.
# The licence is packaged as each distribution wants it (Debian:
# /usr/share/doc/<pkg>/copyright, RPM: %license), not in /usr/src. From git when the tree is a clone (tracked plus new,
# unignored files), else every file but kbuild's products.
src_files() {
	local paths=(Kbuild Makefile VERSION dkms.conf src)
	# Only if $top is the clone's top (a staged copy under build/ is not).
	if [[ $(git -C "$top" rev-parse --show-toplevel 2>/dev/null) == "$top" ]]; then
		git -C "$top" ls-files --cached --others --exclude-standard -- "${paths[@]}" |
			while read -r f; do [[ -f $top/$f ]] && echo "$f"; done | sort -u
	else
		(cd "$top" && find "${paths[@]}" -type f \
			! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
			! -name '*.cmd' ! -name '*.a' ! -name modules.order \
			! -name Module.symvers ! -path '*/.tmp_versions/*' | sort)
	fi
}
doc_files() {
	(cd "$top" && find README.md docs -type f -name '*.md' | sort)
}

install_src() {	# DIR
	local dir=$1
	mkdir -p "$dir"
	(cd "$top" && src_files | tar -cf - --no-recursion -T - | tar -C "$dir" -xf -)
	say "installed $(src_files | wc -l) source files into $dir"
}

# The modprobe.d rule that makes `modprobe -r xps_steer` detach first.
conf_src=scripts/modprobe-xps_steer.conf
conf_dst=usr/lib/modprobe.d/xps_steer.conf
install_conf() {	# ROOT
	install -D -m 0644 "$top/$conf_src" "$1/$conf_dst"
	say "installed $1/$conf_dst"
}

need_dkms() {
	command -v dkms >/dev/null && return 0
	say "installing dkms"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dkms >&2 ||
		die "cannot install dkms"
}

dkms_install() {	# [KVER]
	local v k=${1:-$(uname -r)}
	v=$(version)
	check_version
	need_dkms
	[[ $(id -u) == 0 ]] || die "dkms-install must run as root"
	if dkms status -m "$name" -v "$v" 2>/dev/null | grep -q .; then
		say "removing the registered $name/$v first"
		dkms remove -m "$name" -v "$v" --all >&2 || die "dkms remove $name/$v failed"
	fi
	rm -rf "/usr/src/$name-$v"
	install_src "/usr/src/$name-$v"
	install_conf /
	dkms add -m "$name" -v "$v" >&2 || die "dkms add $name/$v failed"
	dkms install -m "$name" -v "$v" -k "$k" >&2 ||
		die "dkms install $name/$v for kernel $k failed (headers: linux-headers-$k)"
	say "installed: $(dkms status -m "$name" -v "$v" -k "$k")"
}

dkms_uninstall() {
	local v
	v=$(version)
	need_dkms
	[[ $(id -u) == 0 ]] || die "dkms-uninstall must run as root"
	if dkms status -m "$name" -v "$v" 2>/dev/null | grep -q .; then
		dkms remove -m "$name" -v "$v" --all >&2 || die "dkms remove $name/$v failed"
	else
		say "$name/$v is not registered with dkms"
	fi
	rm -rf "/usr/src/$name-$v"
	rm -f "/$conf_dst"
	say "removed $name/$v"
}

deps() {
	local p missing=()
	for p in dpkg-dev debhelper dh-dkms fakeroot lintian rpm; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		{ apt-get update -q >&2 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; } ||
		die "cannot install ${missing[*]}"
}

# A clean copy of the source tree (what a release tarball holds): the
# shipped files plus debian/, rpm/ and scripts/; never build/ or kbuild products.
stage() {	# DIR
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$top" && { src_files; doc_files; echo LICENSE; find debian rpm scripts -type f; } | sort -u |
		tar -cf - --no-recursion -T - | tar -C "$dir" -xf -)
}

deb() {	# [OUT]
	local out=${1:-$top/build/deb} v
	v=$(version)
	check_version
	deps
	mkdir -p "$out"
	out=$(realpath "$out")
	rm -f "$out/${name}_$v"* "$out/${pkg}_$v"*
	stage "$out/$name-$v"
	say "dpkg-buildpackage in $out/$name-$v"
	(cd "$out/$name-$v" && dpkg-buildpackage -us -uc >"$out/build.log" 2>&1) ||
		{ tail -n 30 "$out/build.log" >&2 && die "dpkg-buildpackage failed (log $out/build.log)"; }
	rm -rf "${out:?}/$name-$v"
	[[ -f $out/${pkg}_${v}_all.deb ]] || die "no $out/${pkg}_${v}_all.deb"
	say "lintian $out/${name}_${v}_*.changes"
	# --fail-on warning: an error or a warning fails; info tags are shown.
	lintian --info --display-info --fail-on error,warning "$out/${name}_${v}"_*.changes >&2 ||
		die "lintian reported problems (above)"
	say "lintian: clean"
	echo "$out/${pkg}_${v}_all.deb"
}

rpm_() {	# [OUT]
	local out=${1:-$top/build/rpm} v topdir
	v=$(version)
	check_version
	deps
	mkdir -p "$out"
	out=$(realpath "$out")
	topdir=$out/rpmbuild
	rm -rf "$topdir"
	mkdir -p "$topdir"/{SOURCES,SPECS,BUILD,RPMS,SRPMS}
	stage "$topdir/$name-$v"
	tar -C "$topdir" -czf "$topdir/SOURCES/$name-$v.tar.gz" "$name-$v"
	rm -rf "${topdir:?}/$name-$v"
	cp "$top/rpm/$name.spec" "$topdir/SPECS/"
	say "rpmbuild -ba $topdir/SPECS/$name.spec"
	# Debian's rpm has no rpm database of build dependencies: --nodeps.
	rpmbuild -ba --nodeps --define "_topdir $topdir" "$topdir/SPECS/$name.spec" \
		>"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2 && die "rpmbuild failed (log $out/build.log)"; }
	rm -f "$out"/*.rpm
	mv "$topdir"/RPMS/noarch/*.rpm "$topdir"/SRPMS/*.rpm "$out/"
	rm -rf "$topdir"
	[[ -f $out/$pkg-$v-1.noarch.rpm ]] || die "no $out/$pkg-$v-1.noarch.rpm"
	echo "$out/$pkg-$v-1.noarch.rpm"
}

# compare DEB RPM: unpack both, compare /usr/src/<name>-<ver> byte for
# byte, the doc trees by path, and both against `files`.
compare() {
	local debf=$1 rpmf=$2 v w bad=0
	v=$(version)
	w=$(mktemp -d "${TMPDIR:-/tmp}/xps_steer-pkgcmp.XXXXXX")
	# shellcheck disable=SC2064 # expand now: the trap removes this very directory
	trap "rm -rf '$w'" EXIT
	mkdir -p "$w/deb" "$w/rpm"
	dpkg-deb -x "$debf" "$w/deb"
	(cd "$w/rpm" && rpm2cpio "$(realpath "$rpmf")" | cpio -idm --quiet)
	# Every file with its sha256, relative to the unpacked root.
	sums() { (cd "$1" && find . -type f -printf '%P\n' | sort | xargs -r sha256sum); }
	sums "$w/deb" >"$w/deb.sums"
	sums "$w/rpm" >"$w/rpm.sums"
	local srcd=usr/src/$name-$v
	grep "  $srcd/" "$w/deb.sums" >"$w/deb.src" || true
	grep "  $srcd/" "$w/rpm.sums" >"$w/rpm.src" || true
	(cd "$top" && src_files | sed "s|^|$srcd/|") >"$w/want.src"
	if ! diff -u "$w/deb.src" "$w/rpm.src" >"$w/diff.src"; then
		echo "pkg.sh: FAIL: $srcd differs between the .deb and the .rpm:" >&2
		cat "$w/diff.src" >&2
		bad=1
	fi
	if ! diff -u "$w/want.src" <(awk '{ print $2 }' "$w/deb.src") >"$w/diff.want"; then
		echo "pkg.sh: FAIL: $srcd in the packages is not exactly the DKMS source list:" >&2
		cat "$w/diff.want" >&2
		bad=1
	fi
	# Docs: same paths under /usr/share/doc/<pkg>, minus packaging files.
	docs() {
		awk '{ print $2 }' "$1" | sed -n "s|^usr/share/doc/$pkg/||p" |
			grep -vxE 'copyright|changelog(\.Debian)?\.gz|LICENSE' | sort
	}
	if ! diff -u <(docs "$w/deb.sums") <(docs "$w/rpm.sums") >"$w/diff.doc"; then
		echo "pkg.sh: FAIL: the documentation differs between the .deb and the .rpm:" >&2
		cat "$w/diff.doc" >&2
		bad=1
	fi
	if ! diff -u <(doc_files) <(docs "$w/deb.sums") >"$w/diff.wdoc"; then
		echo "pkg.sh: FAIL: the packaged docs are not README.md and docs/*.md:" >&2
		cat "$w/diff.wdoc" >&2
		bad=1
	fi
	# The modprobe.d rule, the same in both.
	local c
	for c in deb rpm; do
		if ! grep -qx "$(cd "$top" && sha256sum <"$conf_src" | cut -d' ' -f1)  $conf_dst" "$w/$c.sums"; then
			echo "pkg.sh: FAIL: the .$c does not ship $conf_src as /$conf_dst" >&2
			bad=1
		fi
	done
	# Anything else (tests, build products, stray paths) is a failure.
	local other
	other=$(awk '{ print $2 }' "$w/deb.sums" "$w/rpm.sums" |
		grep -vE "^($srcd/|usr/share/doc/$pkg/|usr/share/licenses/$pkg/LICENSE$|$conf_dst$)" || true)
	if [[ -n $other ]]; then
		echo "pkg.sh: FAIL: unexpected files in the packages:" >&2
		echo "$other" >&2
		bad=1
	fi
	((!bad)) || exit 1
	say "same content: $(wc -l <"$w/deb.src") source files, $(docs "$w/deb.sums" | wc -l) docs in both packages"
}

case ${1:-} in
version) version ;;
check-version) check_version ;;
files) (cd "$top" && { src_files; doc_files; }) ;;
install-src) (($# == 2)) || usage && install_src "$2" ;;
install-conf) (($# == 2)) || usage && install_conf "$2" ;;
dkms-install) dkms_install "${2:-}" ;;
dkms-uninstall) dkms_uninstall ;;
deb) deb "${2:-}" ;;
rpm) rpm_ "${2:-}" ;;
compare) (($# == 3)) || usage && compare "$2" "$3" ;;
deps) deps ;;
*) usage ;;
esac
