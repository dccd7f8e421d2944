#!/bin/bash
# check.sh - `make check`: the static checks, then the functional suite in a
# QEMU guest running Debian bookworm's kernel. Run as root on Debian 12; it
# installs what it needs with apt. Exits non-zero if anything failed.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=verdict.sh
. "$top/test/verdict.sh"
out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-check.XXXXXX)}
mkdir -p "$out"

"$top/test/deps.sh"
"$top/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$top/test/guest-kernel.sh" kdir)

status=0
KDIR=$kdir "$top/test/lint.sh" | tee "$out/lint.tap" || status=1

# lint.sh leaves a sparse build behind: build the module under test afresh.
make -s -C "$top" KDIR="$kdir" clean >/dev/null
make -s -C "$top" KDIR="$kdir" >/dev/null
"$top/test/vm.sh" --ko "$top/xps_steer.ko" --script "$top/test/guest/suite.sh" \
	--smp 4 --log "$out/console.log" || status=1

# One summary over the KTAP streams; a SKIP is reported, never a pass.
tr -d '\r' <"$out/console.log" >"$out/suite.tap"
# Every row of docs/bad-input.md must have been checked by a passing test.
"$top/test/catalogue.sh" "$top/docs/bad-input.md" "$out/suite.tap" |
	tee "$out/catalogue.tap" || status=1
summary=$(tap_summary "$out/lint.tap" "$out/suite.tap" "$out/catalogue.tap") || status=1
echo "console log: $out/console.log"
echo "xps_steer: $summary"
exit "$status"
