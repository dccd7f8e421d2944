#!/bin/bash
# lint.sh - the static bar every change must pass, against KDIR's headers:
#   1. a W=1 build with no warnings at all;
#   2. sparse (C=2: every file) with no reports;
#   3. checkpatch.pl --strict, from Debian's linux-source package;
#   (1-3 also for the test-only modules of test/modules/, built in a copy)
#   4. the compat fallbacks this kernel does not need, all forced on
#      (XPS_STEER_FORCE_FALLBACKS=1), build with W=1 and sparse cleanly,
#      and W=1 does not change what the compile probes find (they are
#      built without W=1's -Wextra);
#   5. src/probes/config.sh writes the same header under bash and dash
#      (kbuild runs it with bash before 5.4, with dash since), and that
#      header compiles;
#   6. the build works in the shapes of pre-5.4 kbuild that we cannot
#      boot here: scripts run by bash (CONFIG_SHELL=/bin/bash), and
#      probes given no KBUILD_MODNAME by kbuild (3.10: modname_flags
#      empty), with the same probe results as the normal build;
#   7. shellcheck reports nothing on any shell script of the repository
#      (test/, scripts/, .ci/run, src/probes/*.sh, debian/ maintainer
#      scripts), and no script disables a check for the whole file: every
#      `# shellcheck disable=` stands right before the one command it is
#      for and says why (`# shellcheck disable=SCnnnn # why`), and
#      .shellcheckrc disables nothing;
#   8. docs/drivers.md and README's table of drivers are what
#      scripts/drivers-md.sh prints from the
#      denylist, the refusal log lines and the tests.
# Prints KTAP so `make check` reports it like the guest suite (make check
# runs it as the test named `lint`). `test/lint.sh checkpatch` only
# extracts checkpatch.pl into the cache (make warm).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cache=${XPS_STEER_CACHE:-/var/cache/xps_steer}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
failed=0

result() { # result N description status-file
	if [[ $3 == 0 ]]; then
		echo "ok $1 - $2"
	else
		echo "not ok $1 - $2"
		sed 's/^/# /' "$log/out"
		failed=1
	fi
}

# checkpatch.pl and its data files, extracted once per linux-source version.
checkpatch() {
	local tarballs tarball ver dir
	tarballs=(/usr/src/linux-source-*.tar.xz)
	tarball=${tarballs[-1]}
	ver=$(dpkg-query -W -f='${Version}' "$(basename "$tarball" .tar.xz)")
	dir=$cache/checkpatch-$ver
	if [[ ! -x $dir/scripts/checkpatch.pl ]]; then
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
		tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1 \
			--wildcards '*/scripts/checkpatch.pl' \
			'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	echo "$dir/scripts/checkpatch.pl"
}

# `test/lint.sh checkpatch`: only fill checkpatch's cache (make warm).
if [[ ${1:-} == checkpatch ]]; then
	checkpatch >/dev/null
	exit 0
fi
kdir=${KDIR:?KDIR must name the kernel build directory}

echo "TAP version 13"
echo "1..8"

# The test-only modules (test/modules/) are built in a copy, FLAGS given.
tmods() {	# NAME MAKE-FLAGS...
	local name=$1
	shift
	rm -rf "$log/tmods"
	mkdir -p "$log/tmods"
	cp "$TOP"/test/modules/{Kbuild,Makefile} "$TOP"/test/modules/*.c "$log/tmods/"
	make -C "$log/tmods" KDIR="$kdir" "$@" >"$log/$name" 2>&1
}

make -s -C "$TOP" KDIR="$kdir" clean >/dev/null
status=0
make -C "$TOP" KDIR="$kdir" W=1 >"$log/build" 2>&1 || status=$?
tmods tbuild W=1 || status=$?
cat "$log/build" "$log/tbuild" | grep -iE 'warning|error' >"$log/out" || true
[[ $status == 0 && ! -s $log/out ]] || { status=1; [[ -s $log/out ]] || cat "$log/build" "$log/tbuild" >"$log/out"; }
result 1 "build with W=1 has no warnings" "$status"
mkdir "$log/results"
cp "$TOP"/.probes/*.result "$log/results/"

# Rebuild everything through sparse; any line it prints is a report.
make -s -C "$TOP" KDIR="$kdir" clean >/dev/null
status=0
make -C "$TOP" KDIR="$kdir" C=2 CF=-D__CHECK_ENDIAN__ >"$log/sparse" 2>&1 || status=$?
tmods tsparse C=2 CF=-D__CHECK_ENDIAN__ || status=$?
noise='^make|^  (CHECK|CC|LD|MODPOST|BTF|PROBE)|^Skipping BTF|^xps_steer: compat probes:'
cat "$log/sparse" "$log/tsparse" | grep -vE "$noise" >"$log/out" || true
[[ $status == 0 && ! -s $log/out ]] || status=1
result 2 "sparse (C=2) is clean" "$status"

# CONST_STRUCT: our copy of the driver's net_device_ops is necessarily
# writable (we set ndo_select_queue in it); everything else is enforced.
# compat.h and the probes exist to name old interfaces, so for them alone
# also: DEPRECATED_API/STRLCPY (fallbacks and probes for old kernels),
# LINUX_VERSION_CODE/CONSTANT_COMPARISON (the one hard-minimum check),
# MACRO_ARG_REUSE/MACRO_ARG_PRECEDENCE (fallbacks shaped like the
# upstream macros they replace: rcu_replace_pointer(), struct_size()).
status=0
core=()
for f in "$TOP"/src/*.[ch]; do
	[[ $f == */compat.h ]] || core+=("$f")
done
{
	"$(checkpatch)" --strict --no-tree --terse --ignore CONST_STRUCT \
		-f "${core[@]}" || status=$?
	"$(checkpatch)" --strict --no-tree --terse --ignore CONST_STRUCT \
		--ignore DEPRECATED_API,STRLCPY,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		--ignore MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE \
		-f "$TOP"/src/compat.h "$TOP"/src/probes/*.c || status=$?
	# The test-only modules: nothing ignored.
	"$(checkpatch)" --strict --no-tree --terse -f "$TOP"/test/modules/*.c || status=$?
	# The operators' tool, userspace C in kernel style. Not for it: the
	# kernel's own macros (__printf, __weak, u64), which userspace has
	# not, and LONG_LINE_STRING: its messages are not split, so that they
	# can be grepped for (long code lines are still reported).
	"$(checkpatch)" --strict --no-tree --terse \
		--ignore PREFER_PRINTF,PREFER_DEFINED_ATTRIBUTE_MACRO,PREFER_KERNEL_TYPES,LONG_LINE_STRING \
		-f "$TOP"/tool/*.[ch] || status=$?
} >"$log/out" 2>&1
result 3 "checkpatch.pl --strict is clean" "$status"

# Fallbacks are dead code on the kernels we can boot: compile them anyway.
probes() { grep -h '^xps_steer: compat probes:' "$@"; }
make -s -C "$TOP" KDIR="$kdir" clean >/dev/null
status=0
XPS_STEER_FORCE_FALLBACKS=1 make -C "$TOP" KDIR="$kdir" W=1 C=2 CF=-D__CHECK_ENDIAN__ \
	>"$log/forced" 2>&1 || status=$?
grep -vE "$noise" "$log/forced" >"$log/out" || true
if [[ $(probes "$log/build") != $(probes "$log/sparse") ]]; then
	{ echo "W=1 changed the probe results:"; probes "$log/build" "$log/sparse"; } >>"$log/out"
fi
[[ $status == 0 && ! -s $log/out ]] || status=1
result 4 "forced compat fallbacks build cleanly (W=1, sparse)" "$status"

# The probe header from the same results, under each shell kbuild uses;
# XPS_STEER_FEATURES must be one string literal.
status=0
: >"$log/out"
for sh in bash dash; do
	"$sh" "$TOP/src/probes/config.sh" "$log/config-$sh.h" "$log"/results/*.result \
		>/dev/null 2>>"$log/out" || status=1
	printf 'static const char features[] = XPS_STEER_FEATURES;\n' |
		gcc -Wall -Werror -fsyntax-only -include "$log/config-$sh.h" -x c - \
			>>"$log/out" 2>&1 || { echo "the $sh header does not compile" >>"$log/out"; status=1; }
done
if [[ $status == 0 ]] && ! cmp "$log/config-bash.h" "$log/config-dash.h" >>"$log/out" 2>&1; then
	diff "$log/config-bash.h" "$log/config-dash.h" >>"$log/out"
	status=1
fi
result 5 "probe header is the same from bash and dash, and compiles" "$status"

# Kbuild before 5.4 runs scripts with bash; 3.10's gives the probes no
# KBUILD_MODNAME (modname_flags empty: the module's own objects cannot
# build like that, hence -k, but the probes must all answer as before).
status=0
: >"$log/out"
make -s -C "$TOP" KDIR="$kdir" clean >/dev/null
make -C "$TOP" KDIR="$kdir" CONFIG_SHELL=/bin/bash >"$log/bash" 2>&1 || status=1
make -s -C "$TOP" KDIR="$kdir" clean >/dev/null
make -k -C "$TOP" KDIR="$kdir" CONFIG_SHELL=/bin/bash modname_flags= \
	>"$log/nomodname" 2>&1 || true
for shape in bash nomodname; do
	if [[ $(probes "$log/$shape") != $(probes "$log/build") ]]; then
		{ echo "$shape shape: probe results differ from the normal build:"
		  probes "$log/$shape" || echo '(no probe line: the probes failed)'
		  grep -E 'xps_steer: |error' "$log/$shape"; } >>"$log/out"
		status=1
	fi
done
grep -iE 'warning|error' "$log/bash" >>"$log/out" && status=1
result 6 "pre-5.4 kbuild shapes (bash scripts, no KBUILD_MODNAME for probes)" "$status"
make -s -C "$TOP" KDIR="$kdir" clean >/dev/null

# Every shell script: by extension, plus the extension-less ones.
status=0
: >"$log/out"
mapfile -t scripts < <(cd "$TOP" && {
	find test scripts src/probes tool -name '*.sh' -type f
	echo .ci/run
	echo tool/completion/xps-steer
	for f in debian/{preinst,postinst,prerm,postrm,config} debian/*.{preinst,postinst,prerm,postrm}; do
		[[ -f $f ]] && echo "$f"
	done
} | sort)
for f in "${scripts[@]}"; do
	(cd "$TOP" && shellcheck -x "$f") >>"$log/out" 2>&1 || status=1
	# A directive in the header (before the first command) covers the
	# whole file; any directive must give its reason.
	awk -v f="$f" '
		/^[ \t]*#/ || /^[ \t]*$/ {
			if ($0 ~ /^[ \t]*# shellcheck disable=/) {
				if (!started) { print f ":" FNR ": file-wide shellcheck disable: " $0; bad = 1 }
				else if ($0 !~ /# shellcheck disable=SC[0-9]+(,SC[0-9]+)* # [^ ]/) { print f ":" FNR ": shellcheck disable without a reason: " $0; bad = 1 }
			}
			next
		}
		{ started = 1 }
		END { exit bad }' "$TOP/$f" >>"$log/out" || status=1
done
if grep -q 'disable' "$TOP/.shellcheckrc" 2>/dev/null; then
	echo ".shellcheckrc disables checks: $(grep disable "$TOP/.shellcheckrc")" >>"$log/out"
	status=1
fi
result 7 "shellcheck is clean on ${#scripts[@]} shell scripts (shellcheck $(shellcheck --version | sed -n 's/^version: //p'))" "$status"

# The drivers page is generated: it must match its sources.
status=0
: >"$log/out"
if ! "$TOP/scripts/drivers-md.sh" >"$log/drivers.md" 2>>"$log/out"; then
	status=1
elif ! diff -u "$TOP/docs/drivers.md" "$log/drivers.md" >>"$log/out"; then
	echo "docs/drivers.md is out of date: run scripts/drivers-md.sh >docs/drivers.md" >>"$log/out"
	status=1
fi
# The README's table of drivers: the lines between its two markers.
if ! "$TOP/scripts/drivers-md.sh" --readme >"$log/readme-drivers" 2>>"$log/out"; then
	status=1
elif ! sed -n '/^<!-- drivers-md.sh --readme: begin -->$/,/^<!-- drivers-md.sh --readme: end -->$/p' "$TOP/README.md" |
	sed '1d;$d' | diff -u - "$log/readme-drivers" >>"$log/out"; then
	echo "README.md's table of drivers is out of date: paste scripts/drivers-md.sh --readme between its markers" >>"$log/out"
	status=1
fi
result 8 "docs/drivers.md and README's table of drivers are what scripts/drivers-md.sh prints" "$status"

exit "$failed"
