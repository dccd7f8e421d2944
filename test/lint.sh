#!/bin/bash
# lint.sh - the static bar every change must pass, against KDIR's headers:
#   1. a W=1 build with no warnings at all;
#   2. sparse (C=2: every file) with no reports;
#   3. checkpatch.pl --strict, from Debian's linux-source package.
# Prints KTAP so `make check` reports it like the guest suite.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kdir=${KDIR:?KDIR must name the kernel build directory}
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

echo "TAP version 13"
echo "1..3"

make -s -C "$top" KDIR="$kdir" clean >/dev/null
status=0
make -C "$top" KDIR="$kdir" W=1 >"$log/build" 2>&1 || status=$?
grep -iE 'warning|error' "$log/build" >"$log/out" || true
[[ $status == 0 && ! -s $log/out ]] || { status=1; [[ -s $log/out ]] || cp "$log/build" "$log/out"; }
result 1 "build with W=1 has no warnings" "$status"

# Rebuild everything through sparse; any line it prints is a report.
make -s -C "$top" KDIR="$kdir" clean >/dev/null
status=0
make -C "$top" KDIR="$kdir" C=2 CF=-D__CHECK_ENDIAN__ >"$log/sparse" 2>&1 || status=$?
grep -vE '^make|^  (CHECK|CC|LD|MODPOST|BTF)|^Skipping BTF' "$log/sparse" >"$log/out" || true
[[ $status == 0 && ! -s $log/out ]] || status=1
result 2 "sparse (C=2) is clean" "$status"

# CONST_STRUCT: our copy of the driver's net_device_ops is necessarily
# writable (we set ndo_select_queue in it); everything else is enforced.
status=0
"$(checkpatch)" --strict --no-tree --terse --ignore CONST_STRUCT \
	-f "$top"/src/*.[ch] >"$log/out" 2>&1 || status=$?
result 3 "checkpatch.pl --strict is clean" "$status"

exit "$failed"
