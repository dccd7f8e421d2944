#!/bin/bash
# demo.sh - `make demo`: boot Debian bookworm's kernel in QEMU, send pinned
# traffic from every CPU through a 4-queue device and print the CPU x queue
# packet counts with the stock queue selection, then with xps_steer mapping
# CPU n to queue n. Run as root on Debian 12; installs what it needs.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$TOP/test/deps.sh"
"$TOP/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$TOP/test/guest-kernel.sh" kdir)
make -s -C "$TOP" KDIR="$kdir" >/dev/null
exec "$TOP/test/vm.sh" --ko "$TOP/xps_steer.ko" \
	--script "$TOP/test/guest/demo.sh" --smp 4
