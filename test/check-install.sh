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
#   3. with systemd-sysv and udev installed too (the system boots with
#      systemd as init), /etc/xps-steer.conf mapping the NIC (by MAC and
#      driver) CPU c -> queue 3-c, and the test's own unit
#      (test/guest/xps-steer-test.service), that tree becomes an ext4 image
#      (mkfs.ext4 -d);
#   4. the persistence boots: the image is booted as the root filesystem
#      with the chroot's own kernel and initramfs under QEMU TCG, 4 vCPUs,
#      with a virtio-net NIC with 4 queue pairs on a host multiqueue tap,
#      and systemd as init; the guest reboots itself (an orderly reboot,
#      one QEMU run) and is booted 3 times. Each boot's test unit runs
#      test/guest/persist.sh (KTAP output): the map the package's unit put
#      in force at boot, per packet (tracepoint); in the third boot also
#      after a module reload, a driver reload and a hot-plugged device
#      (the udev rules), a CPU hotplug cycle and ethtool -L;
#   5. the NUMA boot (numa_boot): the same image as a snapshot, 2 sockets x
#      2 cores x 2 threads on 2 NUMA nodes, the NIC behind a PCI expander
#      bridge on node 1; test/guest/numa.sh as PID 1: hwloc's view, the
#      tables of xps-steer auto --dry-run for three policies, and auto
#      --policy numa per packet;
#   6. the installation boot, last: test/guest/install.sh runs as PID 1
#      (KTAP output): modinfo, stock spread, `modprobe xps_steer dev=eth0`,
#      per-packet steering with a map the installed xps-steer tool sets,
#      ethtool -L 2 and back to 4, modprobe -r, `apt-get remove`;
#   7. each boot's console is judged by console_verdict (test/lib.sh, as in
#      vm.sh): any kernel WARNING/BUG/oops/stall/taint, a guest failure or a
#      timeout fails.
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
	{ apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" ||
		{ apt-get update -q && apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"; }; } \
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
# jq: the guest test reads the tool's --json output. systemd-sysv, udev:
# the persistence boots have systemd as init (the cached chroot has none).
# hwloc-nox: hwloc-calc for numa_boot's guest. From Debian's archive: if
# the chroot's package lists are stale, update them once.
extra=(jq systemd-sysv udev hwloc-nox)
# systemd's dependencies (dmsetup) would rebuild the initramfs (30 s), which
# the boots do not need: the chroot's own is used.
sed -i 's/^update_initramfs=.*/update_initramfs=no/' "$root/etc/initramfs-tools/update-initramfs.conf"
if ! ov_run apt-get install -y "${inst[@]}" "${extra[@]}" >"$out/apt-install.log" 2>&1 &&
	! { ov_run apt-get update -q && ov_run apt-get install -y "${inst[@]}" "${extra[@]}"; } \
		>>"$out/apt-install.log" 2>&1; then
	tail -n 30 "$out/apt-install.log" >&2
	die "apt-get install ${inst[*]} ${extra[*]} failed (log $out/apt-install.log)"
fi
for deb in "${inst[@]}"; do rm -f "$root$deb"; done
say "apt-get install ${inst[*]} ${extra[*]}: done in $(secs_since "$t") s (log $out/apt-install.log)"
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
# The guest's tests: the persistence boots' script and unit, the PID 1
# script of the last boot, their libraries and the static tools.
mkdir -p "$root/test"
cp "$here/guest/lib.sh" "$here/guest/install-lib.sh" "$here/guest/install.sh" \
	"$here/guest/persist.sh" "$here/guest/numa.sh" "$here/guest/pid1.sh" "$root/test/"
chmod +x "$root/test/install.sh" "$root/test/persist.sh" "$root/test/numa.sh"
cp "$here/guest/xps-steer-test.service" "$root/etc/systemd/system/"
ln -sf ../xps-steer-test.service "$root/etc/systemd/system/multi-user.target.wants/"
# The serial console is the test's: no login prompt on it.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
# The configuration the persistence boots check: the NIC by MAC (set on
# QEMU's command line below) and driver, whatever it is called.
mac=52:54:00:78:70:73
cat >"$root/etc/xps-steer.conf" <<EOF
# make check-install: the test NIC, CPU c -> queue 3-c
[uplink]
mac = $mac
driver = virtio_net
tx-0 = 3
tx-1 = 2
tx-2 = 1
tx-3 = 0
EOF
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

# --- 4. the boots, with a multiqueue NIC ----------------------------------
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
cmdline="root=/dev/vda rootfstype=ext4 rw console=ttyS0 net.ifnames=0"
cmdline+=" panic=-1 oops=panic loglevel=5 printk.time=1"

# boot LOG APPEND [QEMU-ARGS...]: boot the image, console to LOG; the
# status of QEMU (timeout(1)'s 124/137 on a timeout) in QSTATUS.
boot() {
	local log=$1 append=$2 t
	shift 2
	say "booting $abi from the image (tap $tap, 4 queue pairs), console $log"
	t=$(now_us)
	set +e
	timeout --foreground -k 10 "$tmo" \
		qemu-system-x86_64 "${accel[@]}" -smp 4 -m 1G \
		-kernel "$work/vmlinuz-$abi" -initrd "$work/initrd.img-$abi" \
		-append "$cmdline $append" \
		-drive "file=$img,format=raw,if=virtio,cache=unsafe" \
		-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no,queues=4,vhost=off" \
		-device "virtio-net-pci,netdev=n0,mq=on,vectors=10,mac=$mac,$VIRTIO_NET_OPTS" \
		-nodefaults -display none -serial stdio "$@" \
		</dev/null 2>&1 | sed -u 's/\r$//' >"$log"
	QSTATUS=${PIPESTATUS[0]}
	set -e
	say "QEMU ran $(secs_since "$t") s"
}
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

fail=0

# The persistence boots: systemd as init. The guest reboots itself (the
# test unit's SuccessAction=reboot: the orderly shutdown of an operator's
# reboot, and the boot count on the disk must survive it), so QEMU runs
# without -no-reboot: a panic reboots too, and the next boot reports the
# one that did not finish.
t=$(now_us)
boots=3
plog=$out/persist-console.log
boot "$plog" "systemd.show_status=auto"
tr -d '\r' <"$plog" >"$out/persist.tap"
# One part of the console per boot, each ending with its exit line (the
# lines after the last one, the shutdown, go with the last boot).
rm -f "$out"/persist-boot-*.log
awk -v dir="$out" -v last="$boots" '
	{ print > (dir "/persist-boot-" n + 1 ".log") }
	/XPS_STEER_GUEST_EXIT=/ && n + 1 < last { n++ }' "$out/persist.tap"
for ((b = 1; b <= boots; b++)); do
	blog=$out/persist-boot-$b.log
	[[ -e $blog ]] || : >"$blog"
	echo "$ME: persistence boot $b:" >&2
	grep -E '^(not )?ok |^# (FAIL|SKIP)' "$blog" | sed 's/^/  /' >&2 || true
	# The guest's own count must agree: boot b ran the tests of boot b.
	grep -qx "XPS_STEER_PERSIST_BOOT=$b" "$blog" ||
		{ echo "$ME: FAIL: persistence boot $b did not report (log $plog)" >&2; fail=1; }
	qs=0
	((b < boots)) || qs=$QSTATUS
	console_verdict "$ME: persistence boot $b" "$blog" "$qs" "$tmo" || fail=1
done
say "persistence boots: $(tap_summary "$out/persist.tap" || true) in $(secs_since "$t") s"

numa_boot || fail=1

# The installation boot, last (it ends with apt-get remove): install.sh as
# PID 1, no systemd, no udev.
log=$out/console.log
boot "$log" "init=/test/install.sh" -no-reboot
tr -d '\r' <"$log" >"$out/install.tap"
grep -E '^(not )?ok |^# (FAIL|SKIP)' "$out/install.tap" >&2 || true
console_verdict "$ME" "$log" "$QSTATUS" "$tmo" || fail=1
summary=$(tap_summary "$out/persist.tap" "$out/install.tap") || fail=1
# Every install check applies to the package on any machine: a skip fails.
[[ $summary == *", 0 skipped" ]] || fail=1
echo "$ME: $summary in the guests; total $(secs_since "$t_start") s"
echo "$ME: console logs $plog (persistence boots), $log (installation boot)"
((fail == 0)) || die "see above"
echo "$ME: PASS"
