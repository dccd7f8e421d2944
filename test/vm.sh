#!/bin/bash
# vm.sh - boot the Debian guest kernel in QEMU with a throw-away initramfs
# and run one guest test script in it.
#
# Usage:
#   test/vm.sh [options] --script FILE [-- ARGS...]
#
#   --script FILE   guest script, run as `bash FILE ARGS...`; ARGS after `--`
#                   are passed to it. test/guest/ is copied to /test/ in the
#                   guest; a script inside it runs as /test/<relative path>,
#                   any other script is copied to /test/<basename>.
#   --ko FILE       module to install as /lib/modules/<abi>/extra/<name>.ko
#                   before depmod, so `modprobe <name>` works in the guest.
#                   Repeatable. Must be built against `guest-kernel.sh kdir`.
#   --smp N         vCPUs present at boot (default 4)
#   --maxcpus N     possible vCPUs (QEMU -smp N,maxcpus=M; default = --smp)
#   --mem SIZE      guest RAM (default 1G)
#   --timeout SEC   hard limit for the whole QEMU run (default 900)
#   --log FILE      console log (default: a new $TMPDIR/xps_steer-console.*)
#   --append STR    extra kernel command line parameters
#   --module NAME   extra guest-kernel module (plus deps) for the initramfs
#   --virtio-net    add a single-queue virtio-net NIC (QEMU user backend,
#                   restrict=on); the script must `modprobe virtio_pci virtio_net`
#   --kernel-root D boot another kernel: D holds boot/vmlinuz-<abi> and
#                   lib/modules/<abi>/ with modules.dep (a debootstrap chroot
#                   with a linux-image installed, or a `make modules_install
#                   INSTALL_MOD_PATH=D` tree). Default: Debian bookworm's
#                   kernel from guest-kernel.sh.
#   --abi ABI       kernel release under D (default: the only one in
#                   D/lib/modules)
#   --qemu ARG      extra QEMU argument, repeatable (e.g. --qemu -icount
#                   --qemu shift=4)
#
# Every boot uses single-threaded TCG (-accel tcg,thread=single; -icount
# needs it too). Under multi-threaded TCG on a busy host, the kernel's live
# text patching (enabling a tracepoint or a static key) stalled guests:
# one vCPU in text_poke_bp() waiting in smp_call_function_many_cond(),
# another looping in exc_int3. Run in turn, vCPUs never see half-patched
# text, and on 2 host cores it is no slower.
#
# Environment: XPS_STEER_KVM=1 uses -accel kvm (default TCG: nested KVM
# hangs here); XPS_STEER_CACHE overrides the kernel cache dir.
#
# Guest: busybox + iproute2 (ip, tc), iperf3, ethtool, setpriv, kmod
# (modprobe & co.), bash as /bin/sh (busybox sh would run its own `ip`), real
# timeout/env/nice/xargs/find/taskset/chrt/setsid/nsenter/unshare/flock/
# ionice, static builds of test/tools/*.c in /usr/local/bin, and
# the guest kernel's dummy/veth/bonding/tun/team/virtio_net/net/sched modules
# (and xfrm_interface and gtp where they are modules).
# /init mounts proc, sys, devtmpfs, tracefs, debugfs, tmpfs; brings up lo;
# runs the script with bash (stdin /dev/null, cwd /test) and prints
# XPS_STEER_GUEST_EXIT=<rc>, then powers off.
#
# Exit status: 0 only if the guest printed XPS_STEER_GUEST_EXIT=0 and the
# kernel reported no problem (WARNING/BUG/Oops/panic/stall/... in the console,
# or a WARN/oops/bad-page/soft-lockup taint flag); 1 on failure (reason on a
# `vm.sh: FAIL:` line); 2 on usage errors.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
here=$TOP/test

kos=() mods=() args=() qemu_extra=()
script='' smp=4 maxcpus='' mem=1G tmo=900 log='' append='' nic=0
kernel_root='' abi=''
while (($#)); do
	case $1 in
	--ko) kos+=("${2:?}") && shift ;;
	--script) script=${2:?} && shift ;;
	--smp) smp=${2:?} && shift ;;
	--maxcpus) maxcpus=${2:?} && shift ;;
	--mem) mem=${2:?} && shift ;;
	--timeout) tmo=${2:?} && shift ;;
	--log) log=${2:?} && shift ;;
	--append) append=${2:?} && shift ;;
	--module) mods+=("${2:?}") && shift ;;
	--virtio-net) nic=1 ;;
	--kernel-root) kernel_root=${2:?} && shift ;;
	--abi) abi=${2:?} && shift ;;
	--qemu) qemu_extra+=("${2:?}") && shift ;;
	--) shift && args=("$@") && break ;;
	-h | --help) usage ;;
	*) die_usage "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[[ -n $script ]] || usage
[[ -f $script ]] || die_usage "no such script: $script"
[[ $smp =~ ^[0-9]+$ && $tmo =~ ^[0-9]+$ ]] || die_usage "--smp/--timeout need numbers"
[[ -z $maxcpus || $maxcpus =~ ^[0-9]+$ ]] || die_usage "--maxcpus needs a number"

if [[ -n $kernel_root ]]; then
	kroot=$(realpath "$kernel_root") || die_usage "no such kernel root: $kernel_root"
	if [[ -z $abi ]]; then
		abis=("$kroot"/lib/modules/*/modules.dep)
		{ ((${#abis[@]} == 1)) && [[ -f ${abis[0]} ]]; } ||
			die_usage "$kroot: need exactly one lib/modules/<abi>/modules.dep, or --abi"
		abi=$(basename "$(dirname "${abis[0]}")")
	fi
else
	# Guest kernel: downloaded/extracted once into the cache (slow), reused after.
	kcache=$("$here/guest-kernel.sh" fetch)
	abi=${kcache##*/kernel-}
	kroot=$kcache/root
fi
kmods=$kroot/lib/modules/$abi
vmlinuz=$kroot/boot/vmlinuz-$abi

# A module built against other headers would only fail inside the guest
# with "Invalid module format"; catch that here with a clear message.
for ko in ${kos[@]+"${kos[@]}"}; do
	[[ -f $ko ]] || die_usage "no such module: $ko"
	vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null) || die_usage "not a kernel module: $ko"
	[[ ${vermagic%% *} == "$abi" ]] ||
		die_usage "$ko is built for '${vermagic%% *}', guest kernel is $abi (KDIR=$("$here/guest-kernel.sh" kdir))"
done

t0=${EPOCHREALTIME/./}
# The initramfs is rebuilt every run (about a second) in a temp dir.
work=$(mktemp -d "${TMPDIR:-/tmp}/xps_steer-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

# merged-/usr layout like the host, so host binaries/libs land where ldd
# says and busybox applet paths (bin/, sbin/, usr/...) all resolve.
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,usr/local/bin,dev,proc,sys,tmp,run,etc,root,test}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

# --- userland -------------------------------------------------------------
# Applet links all go flat into /usr/bin (PATH covers them); they point at
# /usr/bin/busybox, the host binary's own (merged-/usr) path.
cp /bin/busybox "$root/usr/bin/busybox"
/bin/busybox --install -s "$root/usr/bin"

# Debian's busybox-static is built with FEATURE_SH_STANDALONE and
# FEATURE_PREFER_APPLETS: its sh, and applets that run commands (timeout,
# taskset, xargs, env, ...), run their own `ip`/`tc`/... applet for any
# applet name, whatever PATH says. So the guest's /bin/sh is bash (closest
# to busybox ash's dialect), and the command-running wrappers are the real
# coreutils/findutils/util-linux ones, so `timeout 5 ip ...` runs iproute2.
# busybox ash stays available as /bin/ash.
tools=(ip tc iperf3 ethtool setpriv kmod bash
	env timeout nice nohup chroot xargs find taskset chrt setsid nsenter unshare flock ionice)
bins=()
for tool in "${tools[@]}"; do
	bins+=("$(command -v "$tool")") || die_usage "host tool '$tool' missing (run test/deps.sh)"
	rm -f "$root/usr/bin/$tool" "$root/usr/sbin/$tool"
done
# Binaries plus every shared library ldd lists, loader included, at their
# host paths (--parents creates the dirs, through the lib -> usr/lib links).
mapfile -t libs < <(ldd "${bins[@]}" | grep -o '^[[:space:]].*/[^ ]*' | grep -o '/[^ ]*' | sort -u)
cp -L --parents "${bins[@]}" "${libs[@]}" "$root/"
rm -f "$root/usr/bin/sh"
ln -s bash "$root/usr/bin/sh"
for n in modprobe insmod rmmod lsmod depmod modinfo; do
	rm -f "$root/usr/bin/$n" "$root/usr/sbin/$n"
	ln -s ../bin/kmod "$root/usr/sbin/$n"
done
# tc netem delay distributions (tiny data files; tc's .so plugins are not needed).
if [[ -d /usr/lib/x86_64-linux-gnu/tc ]]; then
	mkdir -p "$root/usr/lib/x86_64-linux-gnu/tc"
	cp /usr/lib/x86_64-linux-gnu/tc/*.dist "$root/usr/lib/x86_64-linux-gnu/tc/"
fi

# Test tools: static, so they need nothing from the initramfs.
shopt -s nullglob
for src in "$here"/tools/*.c; do
	name=$(basename "$src" .c)
	gcc -O2 -Wall -static -o "$root/usr/local/bin/$name" "$src" ||
		{ echo "vm.sh: FAIL: cannot build $src" >&2 && exit 1; }
done
shopt -u nullglob

# Guest scripts.
if [[ -d $here/guest ]]; then
	cp -a "$here/guest/." "$root/test/"
fi
script_abs=$(realpath "$script")
guest_dir=$(realpath -m "$here/guest")
if [[ $script_abs == "$guest_dir"/* ]]; then
	guest_script=/test/${script_abs#"$guest_dir"/}
else
	guest_script=/test/$(basename "$script")
	cp "$script_abs" "$root$guest_script"
fi

# --- kernel modules -------------------------------------------------------
# Resolve dependencies with the image's modules.dep (generated into the
# cache by guest-kernel.sh) via host modprobe --show-depends.
gmods=$root/lib/modules/$abi
mkdir -p "$gmods/extra"
cp "$kmods"/modules.{builtin,builtin.modinfo,order} "$gmods/"
want=(dummy veth bonding tun team virtio_net virtio_pci)
# Kernels from 6.12 on ship compressed modules (.ko.xz).
for f in "$kmods"/kernel/drivers/net/team/team_mode_*.ko* "$kmods"/kernel/net/sched/*.ko*; do
	[[ -e $f ]] && f=${f##*/} && want+=("${f%%.ko*}")
done
# Devices refused_devices creates, where this kernel has them as modules.
for f in "$kmods"/kernel/net/xfrm/xfrm_interface*.ko* "$kmods"/kernel/drivers/net/gtp.ko*; do
	[[ -e $f ]] && f=${f##*/} && want+=("${f%%.ko*}")
done
want+=(${mods[@]+"${mods[@]}"})
deps=$(modprobe -d "$kroot" -S "$abi" --show-depends -a "${want[@]}") ||
	die_usage "cannot resolve guest modules: ${want[*]}"
files=()
while read -r kind path _; do
	[[ $kind == insmod ]] && files+=("${path#"$kmods"/}") # not "builtin <name>"
done <<<"$deps"
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u) # shared deps repeat
(cd "$kmods" && cp --parents "${files[@]}" "$gmods/")
for ko in ${kos[@]+"${kos[@]}"}; do
	cp "$ko" "$gmods/extra/"
done
# With xps_steer in the guest (--ko, or --module from a DKMS install), its
# modprobe.d rule as the packages install it: `modprobe -r` detaches first.
if [[ -n $(find "$gmods" -name 'xps_steer.ko*' -print -quit) ]]; then
	install -D -m 0644 "$here/../scripts/modprobe-xps_steer.conf" \
		"$root/usr/lib/modprobe.d/xps_steer.conf"
fi
depmod -b "$root" "$abi"

# --- /init ----------------------------------------------------------------
# Script path and arguments, single-quoted for the guest shell.
squote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	printf 'script=%s\nset --' "$(squote "$guest_script")"
	for a in ${args[@]+"${args[@]}"}; do printf ' %s' "$(squote "$a")"; done
	echo
} >"$root/etc/xps_steer_run"

cat >"$root/init" <<'EOF'
#!/usr/bin/busybox sh
# Generated by test/vm.sh. PID 1: prepare the system, run the test script,
# report its exit status and power off (never return: PID 1 exiting panics).
# In this busybox shell `ip` etc. are applets; the test script runs under
# /bin/sh (bash), where PATH finds the real tools.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
ip link set lo up
hostname xps-guest
# Users for setpriv/iperf3 privilege-drop tests; glibc >= 2.34 has the
# "files" NSS backend built in, nsswitch.conf just avoids "compat".
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >/etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\nnobody:x:65534:\n' >/etc/group
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' >/etc/nsswitch.conf
printf '127.0.0.1 localhost\n::1 localhost\n' >/etc/hosts

. /etc/xps_steer_run
cd /test
/bin/bash "$script" "$@" </dev/null 2>&1
rc=$?
echo
echo "XPS_STEER_GUEST_TAINT=$(cat /proc/sys/kernel/tainted)"
echo "XPS_STEER_GUEST_EXIT=$rc"
# Let the UART drain the tty buffer before the machine disappears: stty
# applies settings with TCSADRAIN, which waits until output is sent.
stty -F /dev/console onlcr 2>/dev/null
sleep 0.1
poweroff -f
EOF
chmod +x "$root/init"

initrd=$work/initrd.cpio
(cd "$root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) >"$initrd"
t1=${EPOCHREALTIME/./}
echo "vm.sh: initramfs $(du -h "$initrd" | cut -f1), $(find "$gmods" -name '*.ko*' | wc -l) modules, built in $(((t1 - t0) / 1000)) ms; kernel $abi" >&2

# --- boot -----------------------------------------------------------------
if [[ ${XPS_STEER_KVM:-0} == 1 ]]; then
	accel=(-accel kvm -cpu host)
else
	# shellcheck disable=SC2054 # one QEMU argument, commas included
	accel=(-accel tcg,thread=single)
fi
netdev=()
if ((nic)); then
	netdev=(-netdev 'user,id=n0,restrict=on' -device "virtio-net-pci,netdev=n0,$VIRTIO_NET_OPTS")
fi
# loglevel=5 (not 4): WARNING splats are KERN_WARNING (4) and only levels
# below the console loglevel reach the console we scan. no_timer_check:
# on a busy host a TCG guest can miss the boot-time check that the timer
# ticks through the IO-APIC, and panics ("IO-APIC + timer doesn't work");
# virtual machines are told to skip it.
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=5 printk.time=1 no_timer_check $append"

if [[ -z $log ]]; then
	log=$(mktemp "${TMPDIR:-/tmp}/xps_steer-console.XXXXXX")
fi
: >"$log" || die_usage "cannot write log file: $log"
echo "vm.sh: console log: $log" >&2

start=${EPOCHREALTIME/./}
# --foreground keeps QEMU in our process group so Ctrl-C reaches it; stdin
# is /dev/null so QEMU never puts a terminal into raw mode. sed strips the
# serial console's CRs (unbuffered, so output stays live).
set +e
timeout --foreground -k 10 "$tmo" \
	qemu-system-x86_64 "${accel[@]}" -smp "$smp${maxcpus:+,maxcpus=$maxcpus}" -m "$mem" \
	-kernel "$vmlinuz" -initrd "$initrd" -append "$cmdline" \
	-nodefaults -display none -no-reboot -serial stdio ${netdev[@]+"${netdev[@]}"} \
	${qemu_extra[@]+"${qemu_extra[@]}"} \
	</dev/null 2>&1 | sed -u 's/\r$//' | tee "$log"
status=("${PIPESTATUS[@]}")
set -e
elapsed=$(((${EPOCHREALTIME/./} - start) / 1000000))

# --- verdict --------------------------------------------------------------
fail=0
console_verdict vm.sh "$log" "${status[0]}" "$tmo" || fail=1
if ((fail)); then
	echo "vm.sh: console log: $log" >&2
	exit 1
fi
echo "vm.sh: PASS ($elapsed s, log $log)" >&2
