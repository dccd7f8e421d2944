#!/bin/bash
# check.sh - `make check`: the static checks, then the functional suite in a
# QEMU guest running Debian bookworm's kernel, then the real-NIC-driver lane
# (test/check-nics.sh). Run as root on Debian 12; it
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
# The same module on real NIC drivers (virtio-net, vmxnet3, igb), one guest
# each: `make check-nics` alone.
XPS_STEER_OUT=$out/nics "$top/test/check-nics.sh" --ko "$top/xps_steer.ko" || status=1

# One summary over the KTAP streams; a SKIP is reported, never a pass.
tr -d '\r' <"$out/console.log" >"$out/suite.tap"
# Every row of docs/bad-input.md must have been checked by a passing test.
"$top/test/catalogue.sh" "$top/docs/bad-input.md" "$out/suite.tap" |
	tee "$out/catalogue.tap" || status=1
summary=$(tap_summary "$out/lint.tap" "$out/suite.tap" "$out/catalogue.tap" "$out"/nics/*.tap) || status=1
echo "console log: $out/console.log, real NIC drivers: $out/nics/"
echo "xps_steer: $summary"
exit "$status"
