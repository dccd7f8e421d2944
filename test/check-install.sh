#!/bin/bash
# check-install.sh - `make check-install`: install the Debian package as a
# user would and prove, on a booted system with a real multiqueue NIC, that
# the DKMS-built module steers every packet.
#
#   1. build xps-steer-dkms_<ver>_all.deb and xps-steer_<ver>_<arch>.deb
#      (scripts/pkg.sh deb, lintian-clean);
#   2. in a throw-away overlay of the cached bookworm chroot (test/chroot.sh),
#      `apt-get install` both: the module package's own
#      DKMS hook must build and install the module for the chroot's kernel
#      (checked: dkms status, /lib/modules/<abi>/updates/dkms/xps_steer.ko,
#      its vermagic), and nothing for the host's kernel;
#   3. that tree becomes an ext4 image (mkfs.ext4 -d) and is booted as the
#      root filesystem with the chroot's own kernel and initramfs under QEMU
#      TCG, 4 vCPUs, with a virtio-net NIC with 4 queue pairs on a host
#      multiqueue tap; test/guest/install.sh runs as PID 1 (KTAP output):
#      modinfo, stock spread, `modprobe xps_steer dev=eth0`, per-packet
#      steering (tracepoint) with a map the installed xps-steer tool sets,
#      ethtool -L 2 and back to 4, modprobe -r, `apt-get remove`;
#   4. the console is judged by console_verdict (test/lib.sh, as in vm.sh):
#      any kernel WARNING/BUG/oops/stall/taint, a guest failure or a timeout
#      fails.
#
# Environment: XPS_STEER_OUT (output dir, default a new /tmp dir),
# XPS_STEER_TIMEOUT (QEMU limit, default 900 s), XPS_STEER_KVM=1 for KVM.
# Exit status 0 only if every step passed.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=overlay.sh
. "$TOP/test/overlay.sh"
here=$TOP/test

[[ $(id -u) == 0 ]] || die "must run as root (chroot, mounts, tap device)"
tmo=${XPS_STEER_TIMEOUT:-900}
out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-install.XXXXXX)}
mkdir -p "$out"
out=$(realpath "$out")
t_start=$(now_us)

# Host tools: QEMU, mkfs.ext4, a static libc for the test tools, debootstrap
# (chroot.sh), modinfo (kmod), the packaging tools (pkg.sh deps).
need=(qemu-system-x86 e2fsprogs build-essential debootstrap iproute2 kmod)
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
done
if ((${#missing[@]})); then
	say "installing ${missing[*]}"
	{ apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		{ apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; }; } \
		>"$out/apt-host.log" 2>&1 || die "cannot install ${missing[*]} (log $out/apt-host.log)"
fi
"$TOP/scripts/pkg.sh" deps

tap=''
work=$(mktemp -d "${TMPDIR:-/var/tmp}/xps_steer-install.XXXXXX")
del_tap() { [[ -z $tap ]] || ip link del "$tap" 2>/dev/null; }
on_exit overlay_down
on_exit del_tap
on_exit rm -rf "$work"
trap 'exit 130' INT TERM

# --- 1. the package --------------------------------------------------------
t=$(now_us)
ver=$("$TOP/scripts/pkg.sh" version)
# Two packages: xps-steer-dkms (the module) and xps-steer (the tool).
debs=$("$TOP/scripts/pkg.sh" deb "$out/deb") || die "make deb failed"
mapfile -t debs <<<"$debs"
((${#debs[@]} == 2)) || die "pkg.sh deb gave ${#debs[@]} packages, expected 2: ${debs[*]}"
say "built ${debs[*]} in $(secs_since "$t") s"

# --- 2. apt install in a copy of the bookworm chroot -----------------------
t=$(now_us)
overlay_up bookworm "$work/ov" || die "cannot set up an overlay of the bookworm chroot"
root=$OV_ROOT
abi=$(sed -n 's/^ABI=//p' "$OV_LOWER/.xps_steer-info")
[[ -n $abi && -f $root/boot/vmlinuz-$abi ]] || die "no kernel in $OV_LOWER"
[[ -f $root/boot/initrd.img-$abi ]] || die "no initramfs /boot/initrd.img-$abi in $OV_LOWER"
say "chroot $OV_LOWER (kernel $abi) ready in $(secs_since "$t") s, overlay in $work/ov"
t=$(now_us)
cp "${debs[@]}" "$root/tmp/"
inst=()
for deb in "${debs[@]}"; do inst+=("/tmp/${deb##*/}"); done
# jq: the guest test reads the tool's --json output; hwloc-nox: hwloc-calc
# for numa_boot's guest.
if ! ov_run apt-get install -y "${inst[@]}" jq hwloc-nox >"$out/apt-install.log" 2>&1; then
	tail -n 30 "$out/apt-install.log" >&2
	die "apt-get install ${inst[*]} failed (log $out/apt-install.log)"
fi
for deb in "${inst[@]}"; do rm -f "$root$deb"; done
say "apt-get install ${inst[*]}: done in $(secs_since "$t") s (log $out/apt-install.log)"
# The package's postinst (dh_dkms) must have built it, for the chroot's
# kernel: the host's kernel ($(uname -r)) has no headers in the chroot.
st=$(ov_run dkms status -m xps-steer -v "$ver" 2>&1 || true)
say "dkms status: ${st//$'\n'/; }"
grep -q "xps-steer/$ver, $abi, [^:]*: installed" <<<"$st" ||
	die "dkms status does not show xps-steer/$ver installed for $abi"
grep -Eq "Building module|make -j|Installing /lib/modules/$abi/updates/dkms/xps_steer.ko|xps_steer.ko:" "$out/apt-install.log" ||
	die "apt-get install output shows no DKMS build (log $out/apt-install.log)"
ko=$(find "$root/lib/modules/$abi/updates/dkms" -name 'xps_steer.ko*' 2>/dev/null | head -n1 || true)
[[ -n $ko ]] || die "no xps_steer.ko in /lib/modules/$abi/updates/dkms"
vm=$(modinfo -F vermagic "$ko" | awk '{ print $1 }')
[[ $vm == "$abi" ]] || die "${ko#"$root"} is built for '$vm', not $abi"
host_ko=$(find "$root/lib/modules" -path "*/$(uname -r)/*" -name 'xps_steer.ko*' 2>/dev/null || true)
[[ -z $host_ko ]] || die "a module was built for the host kernel $(uname -r): $host_ko"
say "DKMS built ${ko#"$root"} for $abi (vermagic $vm) from the package's postinst"

# --- 3. the root filesystem image ------------------------------------------
t=$(now_us)
# The guest's test: PID 1 script, lib.sh and the static tools.
mkdir -p "$root/test"
cp "$here/guest/lib.sh" "$here/guest/install.sh" "$here/guest/numa.sh" "$root/test/"
chmod +x "$root/test/install.sh" "$root/test/numa.sh"
for tool in udpflood xwrite; do
	gcc -O2 -Wall -static -o "$root/usr/local/bin/$tool" "$here/tools/$tool.c" ||
		die "cannot build test/tools/$tool.c"
done
printf 'EXPECT_VERSION=%s\nEXPECT_ABI=%s\n' "$ver" "$abi" >"$root/test/expect.env"
mb=$(du -sm --apparent-size "$root" | cut -f1)
img=$work/root.img
rm -f "$img"
truncate -s "$((mb * 13 / 10 + 512))M" "$img"
mkfs.ext4 -q -F -L xpsroot -E root_owner=0:0 -d "$root" "$img" >"$out/mkfs.log" 2>&1 ||
	die "mkfs.ext4 -d failed (log $out/mkfs.log)"
cp "$root/boot/vmlinuz-$abi" "$root/boot/initrd.img-$abi" "$work/"
overlay_down
say "root image $(du -h --apparent-size "$img" | cut -f1) (${mb} MB used) in $(secs_since "$t") s"

# --- 4. boot it with a multiqueue NIC -------------------------------------
tap=xpsi$$
tap=${tap:0:15}
ip tuntap add dev "$tap" mode tap multi_queue || die "cannot create tap $tap"
ip link set "$tap" up
if [[ ${XPS_STEER_KVM:-0} == 1 ]]; then
	accel=(-accel kvm -cpu host)
else
	# shellcheck disable=SC2054 # one QEMU argument, commas included (see test/vm.sh)
	accel=(-accel tcg,thread=single)
fi
# numa_boot: the same image (a snapshot: left unchanged) booted with two
# NUMA nodes, 2 sockets x 2 cores x 2 threads (CPUs 0-3 on node 0, 4-7 on
# node 1; an Intel vendor so that the guest sees the threads), and the NIC,
# virtio-net with 4 queue pairs, behind a PCI expander bridge on node 1;
# test/guest/numa.sh as PID 1 checks hwloc's view, the policies' tables
# and per-packet steering with the numa policy. Console
# $out/console-numa.log, KTAP $out/numa.tap; 1 if anything failed.
numa_boot() {
	local log=$out/console-numa.log t rc=0 summary
	local cmd="root=/dev/vda rootfstype=ext4 rw init=/test/numa.sh console=ttyS0 net.ifnames=0"
	local -a st
	virtio_mq "$tap" 4 bus=pxb1,addr=1
	say "NUMA boot: 2 nodes, 8 CPUs, eth0 on node 1, console $log"
	t=$(now_us)
	set +e
	timeout --foreground -k 10 "$tmo" \
		qemu-system-x86_64 "${accel[@]}" -cpu qemu64,vendor=GenuineIntel \
		-smp 8,sockets=2,cores=2,threads=2 -m 1G \
		-object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M \
		-numa node,nodeid=0,cpus=0-3,memdev=m0 -numa node,nodeid=1,cpus=4-7,memdev=m1 \
		-kernel "$work/vmlinuz-$abi" -initrd "$work/initrd.img-$abi" \
		-append "$cmd panic=-1 oops=panic loglevel=5 printk.time=1" \
		-drive "file=$img,format=raw,if=none,id=d0,cache=unsafe,snapshot=on" \
		-device virtio-blk-pci,drive=d0,bus=pci.0 \
		-device pxb,id=pxb1,bus_nr=16,numa_node=1 "${VIRTIO_MQ[@]}" \
		-nodefaults -display none -no-reboot -serial stdio \
		</dev/null 2>&1 | sed -u 's/\r$//' >"$log"
	st=("${PIPESTATUS[@]}")
	set -e
	tr -d '\r' <"$log" >"$out/numa.tap"
	grep -E '^(not )?ok |^# (FAIL|SKIP)' "$out/numa.tap" >&2 || true
	console_verdict "$ME: NUMA" "$log" "${st[0]}" "$tmo" || rc=1
	summary=$(tap_summary "$out/numa.tap") || rc=1
	[[ $summary == *", 0 skipped" ]] || rc=1
	say "NUMA boot: $summary, $(secs_since "$t") s"
	return "$rc"
}

log=$out/console.log
cmdline="root=/dev/vda rootfstype=ext4 rw init=/test/install.sh console=ttyS0 net.ifnames=0"
cmdline+=" panic=-1 oops=panic loglevel=5 printk.time=1"
fail=0
numa_boot || fail=1
say "booting $abi from the image (tap $tap, 4 queue pairs), console $log"
t=$(now_us)
set +e
timeout --foreground -k 10 "$tmo" \
	qemu-system-x86_64 "${accel[@]}" -smp 4 -m 1G \
	-kernel "$work/vmlinuz-$abi" -initrd "$work/initrd.img-$abi" -append "$cmdline" \
	-drive "file=$img,format=raw,if=virtio,cache=unsafe" \
	-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no,queues=4,vhost=off" \
	-device "virtio-net-pci,netdev=n0,mq=on,vectors=10,$VIRTIO_NET_OPTS" \
	-nodefaults -display none -no-reboot -serial stdio \
	</dev/null 2>&1 | sed -u 's/\r$//' >"$log"
status=("${PIPESTATUS[@]}")
set -e
say "QEMU ran $(secs_since "$t") s"

tr -d '\r' <"$log" >"$out/install.tap"
grep -E '^(not )?ok |^# (FAIL|SKIP)' "$out/install.tap" >&2 || true
console_verdict "$ME" "$log" "${status[0]}" "$tmo" || fail=1
summary=$(tap_summary "$out/install.tap") || fail=1
# Every install check applies to the package on any machine: a skip fails.
[[ $summary == *", 0 skipped" ]] || fail=1
echo "$ME: $summary in the guest; total $(secs_since "$t_start") s"
echo "$ME: console log $log"
((fail == 0)) || die "see above"
echo "$ME: PASS"
