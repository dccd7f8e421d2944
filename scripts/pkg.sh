#!/bin/bash
# pkg.sh - packaging helper behind `make check-version`, `make dkms-install`,
# `make dkms-uninstall`, `make deb`, `make rpm` and `make check-packages`
# (docs/install.md). Run from anywhere; paths are relative to the source tree.
#
# One source, two packages (.deb and .rpm alike):
#   xps-steer-dkms  (all/noarch) the module's sources for DKMS, the
#                   modprobe.d rule, xps_steer(4), the user docs
#   xps-steer       (arch) the tool: /usr/sbin/xps-steer, its unit, udev
#                   rule, man pages, bash completion, example config;
#                   depends on xps-steer-dkms of the same version
#
#   scripts/pkg.sh version          print ./VERSION
#   scripts/pkg.sh check-version    fail unless ./VERSION (the module's
#                                   MODULE_VERSION, via Kbuild) equals
#                                   dkms.conf's PACKAGE_VERSION, the
#                                   debian/changelog version and the RPM
#                                   spec's Version
#   scripts/pkg.sh files            the module package's files, one a line:
#                                   module sources for DKMS, then user docs
#   scripts/pkg.sh install-src DIR  copy the DKMS source files into DIR
#                                   (normally /usr/src/xps-steer-<version>)
#   scripts/pkg.sh install-conf ROOT  install the modprobe.d rule as
#                                   ROOT/usr/lib/modprobe.d/xps_steer.conf
#   scripts/pkg.sh install-docs DIR copy the user docs into DIR (README.md,
#                                   docs/<name>.md: their links keep working)
#   scripts/pkg.sh dkms-install [KVER]   install into /usr/src, dkms add,
#                                   dkms install (for KVER, default the
#                                   running kernel)
#   scripts/pkg.sh dkms-uninstall   dkms remove --all, remove /usr/src copy
#   scripts/pkg.sh deb [OUT]        build the source package,
#                                   xps-steer-dkms_<ver>_all.deb and
#                                   xps-steer_<ver>_<arch>.deb into OUT
#                                   (default build/deb), run lintian on them;
#                                   print the two .debs' paths
#   scripts/pkg.sh rpm [OUT]        build xps-steer-dkms-<ver>-<rel>.noarch.rpm,
#                                   xps-steer-<ver>-<rel>.<arch>.rpm (and the
#                                   .src.rpm) into OUT (default build/rpm);
#                                   print the two binary rpms' paths
#   scripts/pkg.sh compare DEBS RPMS  fail unless each .deb and the .rpm of
#                                   the same name ship the same files with
#                                   the same content, exactly the expected
#                                   ones (DEBS, RPMS: paths separated by
#                                   newlines or blanks, as deb/rpm print them;
#                                   details at compare() below)
#   scripts/pkg.sh deps             apt-get install what deb/rpm need
#
# DEB_BUILD_OPTIONS=nocheck: deb and rpm do not run the tool's tests.
# build/ is gitignored. Exit status: 0 on success, 1 on failure (reason on a
# `pkg.sh: FAIL:` line), 2 on usage errors.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=xps-steer		# source package, DKMS module name, the tool package
pkg=xps-steer-dkms	# the module package
tool=xps-steer		# the tool package

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
# Documentation. User docs are installed (by xps-steer-dkms, the Architecture:
# all package, which every installation has: the tool depends on it), as
# README.md and docs/<name>.md, the layout their links expect. Developer
# docs (how the project is tested and benchmarked) stay in the source.
# Every file of docs/ must be in one list: `compare` fails otherwise.
user_docs=(
	README.md		# why and when, install, configure, verify, uninstall
	docs/usage.md		# the module's files and parameters
	docs/install.md		# packages, DKMS, Secure Boot, uninstalling
	docs/drivers.md		# which drivers are attached, which refused
	docs/bad-input.md	# every input edge case and its kernel log line
	docs/tuning.md		# choosing a policy, IRQs, irqbalance, NUMA
	docs/compat.md		# the kernels it was built and booted on
	docs/design.md		# how the hook works, what it refuses and why
)
dev_docs=(
	docs/testing.md		# the test harness
	docs/benchmark.md	# how make bench measures
	docs/perf.md		# make bench's last results (one QEMU host)
	docs/perf.png		# its chart
	docs/compat-eras.md	# kernels read or compiled against, not booted
)
# The user docs that exist (all of them, once every one is written).
doc_files() {
	local f
	for f in "${user_docs[@]}"; do
		[[ -f $top/$f ]] && echo "$f"
	done
	return 0
}
# Fails (names them) if a user doc is missing or a file of docs/ is in
# neither list.
check_docs() {
	local f bad=0 known=" ${user_docs[*]} ${dev_docs[*]} "
	for f in "${user_docs[@]}"; do
		[[ -f $top/$f ]] || { echo "pkg.sh: FAIL: user doc $f is missing" >&2 && bad=1; }
	done
	while read -r f; do
		[[ $known == *" $f "* ]] ||
			{ echo "pkg.sh: FAIL: $f is neither a user nor a developer doc (user_docs, dev_docs in scripts/pkg.sh)" >&2 && bad=1; }
	done < <(cd "$top" && find docs -type f | sort)
	return "$bad"
}
install_docs() {	# DIR
	local dir=$1 f
	for f in "${user_docs[@]}"; do
		[[ -f $top/$f ]] || say "WARNING: user doc $f is missing, not installed"
	done
	mkdir -p "$dir"
	(cd "$top" && doc_files | tar -cf - --no-recursion -T - | tar -C "$dir" -xf -)
	say "installed $(doc_files | wc -l) docs into $dir"
}

# The tool's source (tool/: C, Makefile, tests, man pages, unit, rules...),
# without build products (tool/Makefile builds ./xps-steer and build-san/).
tool_files() {
	local filter='^tool/(xps-steer|build-san/.*|.*\.o)$'
	if [[ $(git -C "$top" rev-parse --show-toplevel 2>/dev/null) == "$top" ]]; then
		git -C "$top" ls-files --cached --others --exclude-standard -- tool |
			while read -r f; do [[ -f $top/$f ]] && echo "$f"; done
	else
		(cd "$top" && find tool -type f)
	fi | grep -vE "$filter" | sort -u
}

# What each package must ship, one "SOURCE PATH" line a file: SOURCE is
# the file of the tree it is a copy of (- for the tool's binary), PATH where
# it is installed, in the RPM's terms (/usr/lib for Debian's /lib, man
# pages uncompressed, without the distributions' own copyright, changelog
# and licence files). `compare` holds both packages of each format to it.
manifest() {	# PACKAGE
	local v f
	v=$(version)
	case $1 in
	"$pkg")
		src_files | while read -r f; do echo "$f usr/src/$name-$v/$f"; done
		echo "$conf_src $conf_dst"
		echo "tool/man/xps_steer.4 usr/share/man/man4/xps_steer.4"
		doc_files | while read -r f; do echo "$f usr/share/doc/$pkg/$f"; done
		;;
	"$tool")
		cat <<-EOF
			- usr/sbin/xps-steer
			tool/man/xps-steer.8 usr/share/man/man8/xps-steer.8
			tool/man/xps-steer.conf.5 usr/share/man/man5/xps-steer.conf.5
			tool/xps-steer.service usr/lib/systemd/system/xps-steer.service
			tool/70-xps-steer.rules usr/lib/udev/rules.d/70-xps-steer.rules
			tool/completion/xps-steer usr/share/bash-completion/completions/xps-steer
			tool/xps-steer.conf.example usr/share/doc/$tool/examples/xps-steer.conf
		EOF
		;;
	esac | sort -k2
}
# Empty directories a package must ship: "PATH/" lines.
manifest_dirs() {	# PACKAGE
	[[ $1 == "$tool" ]] && echo "etc/xps-steer.d/"
	return 0
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
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends dkms >&2 ||
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
	# The packaging tools, cpio for `compare`, and the tool's build
	# dependencies (debian/control's Build-Depends; jq for its tests).
	for p in dpkg-dev debhelper dh-dkms fakeroot lintian rpm cpio build-essential \
		pkg-config libhwloc-dev libjson-c-dev libinih-dev jq; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		{ apt-get update -q >&2 &&
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2; } ||
		die "cannot install ${missing[*]}"
}

# Files of the tree under PATHS: from git in a clone (tracked plus new,
# unignored files), else all.
tree_files() {	# PATHS...
	if [[ $(git -C "$top" rev-parse --show-toplevel 2>/dev/null) == "$top" ]]; then
		git -C "$top" ls-files --cached --others --exclude-standard -- "$@" |
			while read -r f; do [[ -f $top/$f ]] && echo "$f"; done
	else
		(cd "$top" && find "$@" -type f)
	fi
}

# A clean copy of the source tree (what a release tarball holds): the
# module's and the tool's sources, all docs (developer docs too: they are
# part of the source), LICENSE, debian/, rpm/ and scripts/; never build/,
# kbuild's or the tool's build products.
stage() {	# DIR
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$top" && { src_files; tree_files README.md docs LICENSE debian rpm scripts; tool_files; } |
		sort -u | tar -cf - --no-recursion -T - | tar -C "$dir" -xf -)
}

deb() {	# [OUT]
	local out=${1:-$top/build/deb} v arch f debs
	v=$(version)
	check_version
	deps
	check_docs || say "WARNING: docs above (make check-packages fails on them)"
	arch=$(dpkg --print-architecture)
	debs=("${pkg}_${v}_all.deb" "${tool}_${v}_$arch.deb")
	mkdir -p "$out"
	out=$(realpath "$out")
	rm -f "$out/${name}_$v"* "$out/${pkg}_$v"* "$out/${tool}-dbgsym_$v"*
	stage "$out/$name-$v"
	say "dpkg-buildpackage in $out/$name-$v"
	(cd "$out/$name-$v" && dpkg-buildpackage -us -uc >"$out/build.log" 2>&1) ||
		{ tail -n 30 "$out/build.log" >&2 && die "dpkg-buildpackage failed (log $out/build.log)"; }
	rm -rf "${out:?}/$name-$v"
	for f in "${debs[@]}"; do
		[[ -f $out/$f ]] || die "no $out/$f"
	done
	say "lintian $out/${name}_${v}_*.changes"
	# Any error, warning or info tag fails (docs/testing.md): fix it, or
	# override a false positive in debian/*.lintian-overrides, saying why.
	lintian --info --display-info --fail-on error,warning,info "$out/${name}_${v}"_*.changes >&2 ||
		die "lintian reported problems (above)"
	say "lintian: clean"
	printf "$out/%s\n" "${debs[@]}"
}

rpm_() {	# [OUT]
	local out=${1:-$top/build/rpm} v topdir arch dkmsf toolf flags=()
	v=$(version)
	check_version
	# On Debian, apt brings what is missing and rpmbuild cannot check the
	# BuildRequires (they are dpkg's packages): --nodeps. On an RPM
	# distribution rpmbuild checks them (dnf builddep rpm/xps-steer.spec).
	if command -v dpkg-query >/dev/null; then
		deps
		flags+=(--nodeps)
	fi
	check_docs || say "WARNING: docs above (make check-packages fails on them)"
	arch=$(rpm --eval '%{_target_cpu}')
	mkdir -p "$out"
	out=$(realpath "$out")
	topdir=$out/rpmbuild
	rm -rf "$topdir"
	mkdir -p "$topdir"/{SOURCES,SPECS,BUILD,RPMS,SRPMS}
	stage "$topdir/$name-$v"
	tar -C "$topdir" -czf "$topdir/SOURCES/$name-$v.tar.gz" "$name-$v"
	rm -rf "${topdir:?}/$name-$v"
	cp "$top/rpm/$name.spec" "$topdir/SPECS/"
	# An RPM distribution's rpmbuild has its hardening flags in %optflags
	# and %build_ldflags. Debian's rpm has "-O2 -g" and no %build_ldflags:
	# give it the usual set (Fedora's, without its gcc spec files), so that
	# the .rpm built here is hardened like the .deb (compare checks both).
	if [[ -z $(rpm --eval '%{?build_ldflags}') ]]; then
		flags+=(--define "optflags -O2 -g -Wall -Werror=format-security -Wp,-D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection -fPIE"
			--define "build_ldflags -Wl,-z,relro -Wl,-z,now -pie")
	fi
	# DEB_BUILD_OPTIONS=nocheck skips the tool's tests in both builds.
	[[ " ${DEB_BUILD_OPTIONS:-} " != *" nocheck "* ]] || flags+=(--without check)
	say "rpmbuild -ba $topdir/SPECS/$name.spec${DEB_BUILD_OPTIONS:+ (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)}"
	rpmbuild -ba --define "_topdir $topdir" "${flags[@]}" "$topdir/SPECS/$name.spec" \
		>"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2 && die "rpmbuild failed (log $out/build.log)"; }
	rm -f "$out"/*.rpm
	mv "$topdir"/RPMS/*/*.rpm "$topdir"/SRPMS/*.rpm "$out/"
	rm -rf "$topdir"
	# Release is 1%{?dist}: whatever the dist tag, one of each.
	dkmsf=$(find "$out" -maxdepth 1 -name "$pkg-$v-*.noarch.rpm")
	toolf=$(find "$out" -maxdepth 1 -name "$tool-$v-*.$arch.rpm")
	[[ -n $dkmsf && $dkmsf != *$'\n'* ]] || die "not one $out/$pkg-$v-*.noarch.rpm"
	[[ -n $toolf && $toolf != *$'\n'* ]] || die "not one $out/$tool-$v-*.$arch.rpm"
	printf '%s\n' "$dkmsf" "$toolf"
}

# compare DEBS RPMS: each package of one format against its namesake of
# the other, and both against manifest(): the same paths (Debian's /lib as
# /usr/lib, man pages uncompressed; Debian's copyright, changelog and
# lintian overrides, RPM's licence copy and build-id links aside) with the
# same content, byte for byte, as the tree's files; the tool's binary
# (built separately) only hardened in both and printing the version. Also:
# the empty directories, the architectures, the tool depending on the
# module package of the same version, the RPM module package requiring
# nothing but dkms, every doc classified (check_docs).
compare() {
	local v w bad=0 a f n fmt list rel
	local -A got=()
	v=$(version)
	w=$(mktemp -d "${TMPDIR:-/tmp}/xps_steer-pkgcmp.XXXXXX")
	# shellcheck disable=SC2064 # expand now: the trap removes this very directory
	trap "rm -rf '$w'" EXIT
	fail() { echo "pkg.sh: FAIL: $*" >&2 && bad=1; }
	for a in "$@"; do
		mapfile -t list < <(tr -s '[:blank:]' '\n' <<<"$a" | sed '/^$/d')
		for f in "${list[@]}"; do
			[[ -f $f ]] || die "compare: no file $f"
			case $f in
			*.src.rpm) continue ;;
			*.deb) fmt=deb n=$(dpkg-deb -f "$f" Package) ;;
			*.rpm) fmt=rpm n=$(rpm -qp --qf '%{NAME}' "$f" 2>/dev/null) ;;
			*) die "compare: $f is neither a .deb nor an .rpm" ;;
			esac
			[[ $n == "$pkg" || $n == "$tool" ]] || die "compare: $f is package '$n', not $pkg or $tool"
			[[ -z ${got[$fmt/$n]:-} ]] || die "compare: two ${fmt}s of $n: ${got[$fmt/$n]} $f"
			got[$fmt/$n]=$(realpath "$f")
			mkdir -p "$w/$fmt/$n"
			if [[ $fmt == deb ]]; then
				dpkg-deb -x "$f" "$w/$fmt/$n"
			else
				(cd "$w/$fmt/$n" && rpm2cpio "${got[$fmt/$n]}" | cpio -idm --quiet)
			fi
		done
	done
	for n in "$pkg" "$tool"; do
		for fmt in deb rpm; do
			[[ -n ${got[$fmt/$n]:-} ]] || die "compare: no .$fmt of $n given"
		done
	done
	check_docs || bad=1

	for n in "$pkg" "$tool"; do
		expected "$n" >"$w/$n.want"
		manifest_dirs "$n" >"$w/$n.wantdirs"
		for fmt in deb rpm; do
			listing "$w/$fmt/$n" "$n" >"$w/$n.$fmt"
			dirs "$w/$fmt/$n" >"$w/$n.$fmt.dirs"
		done
		if ! diff -u "$w/$n.deb" "$w/$n.rpm" >"$w/diff"; then
			fail "$n: the .deb and the .rpm ship different files or content (path, sha256 of the uncompressed file):"
			cat "$w/diff" >&2
		fi
		for fmt in deb rpm; do
			if ! diff -u "$w/$n.want" "$w/$n.$fmt" >"$w/diff"; then
				fail "$n: the .$fmt is not what scripts/pkg.sh manifest says (- expected, + shipped):"
				cat "$w/diff" >&2
			fi
			if ! diff -u "$w/$n.wantdirs" "$w/$n.$fmt.dirs" >"$w/diff"; then
				fail "$n: the .$fmt's empty directories differ (- expected, + shipped):"
				cat "$w/diff" >&2
			fi
		done
		# The licence, as each distribution ships it.
		[[ -s $w/deb/$n/usr/share/doc/$n/copyright ]] || fail "$n: the .deb has no /usr/share/doc/$n/copyright"
		cmp -s "$top/LICENSE" "$w/rpm/$n/usr/share/licenses/$n/LICENSE" ||
			fail "$n: the .rpm's /usr/share/licenses/$n/LICENSE is not ./LICENSE"
	done

	# The tool's binaries: built separately, so compared by what they are.
	for fmt in deb rpm; do
		check_binary "$w/$fmt/$tool/usr/sbin/xps-steer" ".$fmt" || bad=1
	done

	# Architectures and relationships.
	[[ $(dpkg-deb -f "${got[deb/$pkg]}" Architecture) == all ]] || fail "$pkg.deb is not Architecture: all"
	[[ $(dpkg-deb -f "${got[deb/$tool]}" Architecture) != all ]] || fail "$tool.deb is Architecture: all"
	[[ $(rpm -qp --qf '%{ARCH}' "${got[rpm/$pkg]}") == noarch ]] || fail "$pkg.rpm is not noarch"
	[[ $(rpm -qp --qf '%{ARCH}' "${got[rpm/$tool]}") != noarch ]] || fail "$tool.rpm is noarch"
	dpkg-deb -f "${got[deb/$tool]}" Depends | tr ',' '\n' | grep -qx " *$pkg (= $v)" ||
		fail "$tool.deb does not depend on $pkg (= $v): $(dpkg-deb -f "${got[deb/$tool]}" Depends)"
	dpkg-deb -f "${got[deb/$pkg]}" Depends | grep -q 'dkms' || fail "$pkg.deb does not depend on dkms"
	rel=$(rpm -qp --qf '%{RELEASE}' "${got[rpm/$pkg]}")
	rpm -qp --requires "${got[rpm/$tool]}" 2>/dev/null | grep -qx "$pkg = $v-$rel" ||
		fail "$tool.rpm does not require $pkg = $v-$rel"
	a=$(rpm -qp --requires "${got[rpm/$pkg]}" 2>/dev/null | grep -vE '^(rpmlib\(|/bin/sh$)' | sort -u)
	[[ $a == dkms ]] || fail "$pkg.rpm requires more than dkms: ${a//$'\n'/, }"

	((!bad)) || exit 1
	say "same content in the .deb and the .rpm: $pkg $(wc -l <"$w/$pkg.deb") files ($(src_files | wc -l) DKMS sources, $(doc_files | wc -l) docs), $tool $(wc -l <"$w/$tool.deb") files; binaries hardened"
}

# "PATH SHA256" of what the manifest says a package ships.
expected() {	# PACKAGE
	local src dst
	manifest "$1" | while read -r src dst; do
		if [[ $src == - ]]; then
			echo "$dst -"
		elif [[ -f $top/$src ]]; then
			echo "$dst $(sha256sum <"$top/$src" | cut -d' ' -f1)"
		else
			echo "$dst MISSING-FROM-THE-TREE:$src"
		fi
	done | sort
}
# "PATH SHA256" of what an unpacked package ships, in the manifest's terms.
listing() {	# ROOT PACKAGE
	local root=$1 n=$2 p q sum
	(cd "$root" && find . \( -type f -o -type l \) -printf '%P\n') | sort | while read -r p; do
		q=$p
		case $q in
		usr/share/doc/"$n"/copyright | usr/share/doc/"$n"/changelog.gz | \
			usr/share/doc/"$n"/changelog.Debian.gz | usr/share/licenses/"$n"/LICENSE | \
			usr/share/lintian/overrides/"$n" | usr/lib/.build-id/*)
			continue ;;
		lib/* | sbin/* | bin/*) q=usr/$q ;;
		esac
		if [[ -L $root/$p ]]; then
			sum="symlink:$(readlink "$root/$p")"
		elif [[ $q == usr/sbin/xps-steer ]]; then
			sum=-
		else
			case $q in
			*.gz) sum=$(gzip -dc <"$root/$p" | sha256sum) q=${q%.gz} ;;
			*.xz) sum=$(xz -dc <"$root/$p" | sha256sum) q=${q%.xz} ;;
			*.bz2) sum=$(bzip2 -dc <"$root/$p" | sha256sum) q=${q%.bz2} ;;
			*.zst) sum=$(zstd -dcq <"$root/$p" | sha256sum) q=${q%.zst} ;;
			*) sum=$(sha256sum <"$root/$p") ;;
			esac
			sum=${sum%% *}
		fi
		echo "$q $sum"
	done | sort
}
dirs() {	# ROOT: its empty directories, as PATH/
	(cd "$1" && find . -mindepth 1 -type d -empty -printf '%P/\n') | sed -E 's,^(lib|sbin|bin)/,usr/\1/,' | sort
}
# The tool's binary: PIE, full RELRO, fortified calls, runs.
check_binary() {	# FILE LABEL
	local f=$1 l=$2 ok=0 out h p d syms
	[[ -f $f ]] || { echo "pkg.sh: FAIL: the $l has no /usr/sbin/xps-steer" >&2 && return 1; }
	# Whole outputs first: in `readelf | grep -q`, grep stopping early
	# fails readelf (SIGPIPE), and so the pipeline (pipefail).
	h=$(readelf -hW "$f") p=$(readelf -lW "$f") d=$(readelf -dW "$f") syms=$(readelf --dyn-syms -W "$f")
	grep -Eq 'Type:[[:space:]]+DYN' <<<"$h" ||
		{ echo "pkg.sh: FAIL: the $l's xps-steer is not PIE" >&2 && ok=1; }
	grep -q GNU_RELRO <<<"$p" ||
		{ echo "pkg.sh: FAIL: the $l's xps-steer has no RELRO" >&2 && ok=1; }
	grep -Eq 'BIND_NOW|FLAGS_1.*[[:space:]]NOW' <<<"$d" ||
		{ echo "pkg.sh: FAIL: the $l's xps-steer has no BIND_NOW (-z now)" >&2 && ok=1; }
	(($(grep -Eo '__[a-z0-9_]+_chk\b' <<<"$syms" | grep -cvx __stack_chk_fail) > 0)) ||
		{ echo "pkg.sh: FAIL: the $l's xps-steer calls no fortified function (_FORTIFY_SOURCE)" >&2 && ok=1; }
	grep -q __stack_chk_fail <<<"$syms" ||
		{ echo "pkg.sh: FAIL: the $l's xps-steer has no stack protector" >&2 && ok=1; }
	out=$("$f" --version 2>&1) || true
	[[ $out == "xps-steer $(version)" ]] ||
		{ echo "pkg.sh: FAIL: the $l's xps-steer --version says '$out'" >&2 && ok=1; }
	return "$ok"
}

case ${1:-} in
version) version ;;
check-version) check_version ;;
files) (cd "$top" && { src_files; doc_files; }) ;;
install-src) (($# == 2)) || usage && install_src "$2" ;;
install-conf) (($# == 2)) || usage && install_conf "$2" ;;
install-docs) (($# == 2)) || usage && install_docs "$2" ;;
manifest) (($# == 2)) || usage && manifest "$2" ;;
dkms-install) dkms_install "${2:-}" ;;
dkms-uninstall) dkms_uninstall ;;
deb) deb "${2:-}" ;;
rpm) rpm_ "${2:-}" ;;
compare) (($# >= 3)) || usage && shift && compare "$@" ;;
deps) deps ;;
*) usage ;;
esac
