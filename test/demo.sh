#!/bin/bash
# demo.sh - `make demo`: boot Debian bookworm's kernel in QEMU, send pinned
# traffic from every CPU through a 4-queue device and print the CPU x queue
# packet counts with the stock queue selection, then with xps_steer mapping
# CPU n to queue n. Run as root on Debian 12; installs what it needs.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

"$top/test/deps.sh"
"$top/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$top/test/guest-kernel.sh" kdir)
make -s -C "$top" KDIR="$kdir" >/dev/null
exec "$top/test/vm.sh" --ko "$top/xps_steer.ko" \
	--script "$top/test/guest/demo.sh" --smp 4
