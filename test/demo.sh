#!/bin/bash
# demo.sh - `make demo`: boot Debian bookworm's kernel in QEMU (4 vCPUs) and
# show, per packet, which TX queue each CPU's packets take:
#   1. a 4-queue dummy device: the stock selection, then xps_steer mapping
#      CPU n to queue n;
#   2. a virtio-net NIC with 4 queue pairs (on a host multi_queue tap
#      without an address: the frames end there): the map CPU n -> queue
#      3-n written to the kernel's own xps_cpus and to xps_steer's, then a
#      CPU offline/online and ethtool -L: the driver resets the kernel's
#      map, xps_steer's is kept and steers every packet.
# Run as root on Debian 12; installs what it needs. Exit status 0 only if
# the guest saw what it shows (test/guest/demo.sh) and the kernel reported
# no problem.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $(id -u) == 0 ]] || die "must run as root (apt, the tap device)"
"$TOP/test/deps.sh"
"$TOP/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$TOP/test/guest-kernel.sh" kdir)
make -s -C "$TOP" KDIR="$kdir" >/dev/null

tap=xpsd$$
tap=${tap:0:15}
# shellcheck disable=SC2317 # run at exit
del_tap() { ip link del "$tap" 2>/dev/null || true; }
on_exit del_tap
trap 'exit 130' INT TERM
mq_tap_add "$tap" || die "cannot create tap $tap"
virtio_mq "$tap" 4
vm_args VIRTIO_MQ
"$TOP/test/vm.sh" --ko "$TOP/xps_steer.ko" \
	--script "$TOP/test/guest/demo.sh" --smp 4 "${VM_ARGS[@]}"
