#!/bin/bash
# check-nics.sh - `make check-nics` (also run by `make check`): xps_steer on
# real NIC drivers. For each driver, one QEMU guest (Debian bookworm's 6.1
# kernel from test/guest-kernel.sh, 4 vCPUs, single-threaded TCG, through
# test/vm.sh, whose console verdict applies) whose only NIC is that
# driver's, running test/guest/nics.sh (KTAP, tests nic_<driver>_<test>):
# per-packet steering, modprobe -r under traffic, driver reload, ethtool -L.
#
# Usage:
#   test/check-nics.sh [--ko FILE] [T=name[,name...]]
#       T= runs just these tests (test/guest/nics.sh --list), in the order
#       given within each driver's guest; only the drivers they name are
#       booted. An unknown name is refused (exit 2) before anything boots.
#       Drivers: virtio (virtio-net, 4 queue pairs on a host multi_queue tap
#       without an address), vmxnet3 (QEMU 7.2's model, user backend with
#       restrict=on), igb (Intel 82576: needs QEMU >= 8, run from a cached
#       Debian sid tree, user backend with restrict=on).
#       --ko FILE: test this module (built against `guest-kernel.sh kdir`)
#       instead of building the tree's in a copy.
#   test/check-nics.sh qemu-sid
#       create or refresh the sid QEMU tree and print its path.
#
# The sid QEMU tree: `debootstrap --variant=minbase sid` plus
# qemu-system-x86 (no recommends), ~370 MB, cached in
# ${XPS_STEER_CACHE:-/var/cache/xps_steer}/qemu-sid-<qemu version>, built
# and refreshed with test/lib.sh's root_bootstrap, in_root and apt_update
# (as test/chroot.sh's suite chroots); an `apt-get update` inside at most
# every XPS_STEER_CHROOT_TTL seconds (default 3600;
# XPS_STEER_CHROOT_REFRESH=0: never) upgrades it when sid's QEMU moved. It
# runs QEMU through a wrapper that chroots into the tree in a private mount
# namespace, with /dev, /proc, the kernel cache and vm.sh's temporary
# directory bind-mounted at their own paths.
#
# Guests run one at a time, each waiting for XPS_STEER_QEMU_LOCK (default
# /var/cache/xps_steer/qemu.lock, as the matrix). Output: XPS_STEER_OUT
# (default a new /tmp/xps_steer-nics.*): console-<driver>.log,
# <driver>.tap. Prints one summary line per driver (saying how many tests
# ran again after a TX watchdog, see nics.sh's nic_test) and
# `check-nics: P passed, F failed, S skipped`; exit 0 only if every guest
# passed vm.sh's console verdict and nothing failed.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export DEBIAN_FRONTEND=noninteractive
cache_root=${XPS_STEER_CACHE:-/var/cache/xps_steer}

# ------------------------------------------------------- sid QEMU tree --

# shellcheck disable=SC2016 # a dpkg-query format
sid_qemu_version() { in_root "$1" dpkg-query -W -f='${Version}' qemu-system-x86; }

# sid_key DIR: rename DIR to qemu-sid-<installed QEMU version>, stamp it,
# print the new path.
sid_key() {
	local dir=$1 ver new
	ver=$(sid_qemu_version "$dir")
	[[ -n $ver ]] || return 1
	new=$cache_root/qemu-sid-${ver#*:}
	if [[ $dir != "$new" ]]; then
		rm -rf "$new"
		mv "$dir" "$new"
	fi
	date -u +%FT%TZ >"$new/.xps_steer-ready"
	touch "$new/.xps_steer-checked"
	echo "$new"
}

sid_build() {
	local tmp=$cache_root/qemu-sid.tmp logf=$cache_root/qemu-sid.log t=$SECONDS
	rm -rf "$tmp"
	: >"$logf"
	root_bootstrap sid sid "$tmp" "$logf"
	{ apt_update "$tmp" "$logf" sid &&
		in_root "$tmp" nice -n 5 apt-get install -y -q qemu-system-x86 >>"$logf" 2>&1 &&
		in_root "$tmp" apt-get clean; } ||
		{ tail -n 20 "$logf" >&2; die "sid: installing qemu-system-x86 failed (log $logf)"; }
	tmp=$(sid_key "$tmp") || die "sid: no qemu-system-x86 in $tmp"
	say "sid: built $tmp in $((SECONDS - t)) s"
	echo "$tmp"
}

# qemu_sid: the ready sid QEMU tree (built or refreshed as needed); prints
# its path.
qemu_sid() {
	local dir='' d cand logf=$cache_root/qemu-sid.log
	[[ $(id -u) == 0 ]] || die "must run as root (debootstrap, chroot)"
	mkdir -p "$cache_root"
	exec {sid_lock}>"$cache_root/qemu-sid.lock"
	flock "$sid_lock"
	for d in "$cache_root"/qemu-sid-[0-9]*; do
		[[ -f $d/.xps_steer-ready ]] || continue
		[[ -z $dir || $d -nt $dir ]] && dir=$d
	done
	for d in "$cache_root/qemu-sid.tmp" "$cache_root"/qemu-sid-[0-9]*; do
		[[ -e $d && $d != "$dir" ]] && say "sid: removing stale $d" && rm -rf "$d"
	done
	if [[ -z $dir ]]; then
		dir=$(sid_build)
	elif [[ ${XPS_STEER_CHROOT_REFRESH:-1} != 0 ]] &&
		(($(date +%s) - $(stat -c %Y "$dir/.xps_steer-checked") >= ${XPS_STEER_CHROOT_TTL:-3600})); then
		cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
		apt_update "$dir" "$logf" sid || die "sid: apt-get update failed in $dir (log $logf)"
		cand=$(in_root "$dir" apt-cache policy qemu-system-x86 | awk '/Candidate:/ { print $2 }')
		if [[ $cand != "$(sid_qemu_version "$dir")" ]]; then
			say "sid: qemu-system-x86 moved to $cand: upgrading $dir"
			if in_root "$dir" apt-get install -y -q qemu-system-x86 >>"$logf" 2>&1 &&
				in_root "$dir" apt-get clean; then
				dir=$(sid_key "$dir")
			else
				say "sid: upgrade failed, rebuilding"
				rm -rf "$dir"
				dir=$(sid_build)
			fi
		fi
		touch "$dir/.xps_steer-checked"
	fi
	# Released: the caller holds a shared lock while it runs QEMU from it.
	exec {sid_lock}>&-
	echo "$dir"
}

# sid_wrapper ROOT DIR: write DIR/qemu-system-x86_64, which runs ROOT's QEMU
# with the paths vm.sh hands it (the kernel cache, its temporary
# directory) bind-mounted at the same place inside ROOT.
sid_wrapper() {
	local root=$1 dir=$2 binds
	binds=$(printf '%q ' "$cache_root" "${TMPDIR:-/tmp}")
	mkdir -p "$dir"
	cat >"$dir/qemu-system-x86_64" <<EOF
#!/bin/bash
# Generated by test/check-nics.sh: QEMU from the sid tree $root.
exec unshare --mount --propagation private -- /bin/bash -c '
	set -e
	r=\$1
	shift
	mount -t proc proc "\$r/proc"
	mount --rbind /dev "\$r/dev"
	for d in $binds; do
		mkdir -p "\$r\$d"
		mount --bind "\$d" "\$r\$d"
	done
	exec chroot "\$r" /usr/bin/qemu-system-x86_64 "\$@"' qemu-sid $(printf '%q' "$root") "\$@"
EOF
	chmod +x "$dir/qemu-system-x86_64"
}

# ------------------------------------------------------------ the lane --

if [[ ${1:-} == qemu-sid ]]; then
	(($# == 1)) || usage
	qemu_sid
	exit 0
fi

ko='' spec=''
while (($#)); do
	case $1 in
	--ko) ko=$(realpath "${2:?}") && shift ;;
	T=*) spec=${1#T=} ;;
	-h | --help) usage ;;
	*) die_usage "unknown argument '$1' (usage: test/check-nics.sh [--ko FILE] [T=name[,name...]])" ;;
	esac
	shift
done
names=$(select_names "$TOP/test/guest/nics.sh" "$spec") || exit
[[ $(id -u) == 0 ]] || die "must run as root (tap device, chroot)"

# The drivers to boot, in this order, each with its selected tests.
declare -A tests_of=()
drivers=()
for drv in virtio vmxnet3 igb; do
	sel=$(grep "^nic_${drv}_" <<<"$names" | paste -sd,) || true
	[[ -n $sel ]] || continue
	drivers+=("$drv")
	tests_of[$drv]=$sel
done

out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-nics.XXXXXX)}
mkdir -p "$out"
out=$(realpath "$out")
t_start=$SECONDS

"$TOP/test/deps.sh"
"$TOP/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$TOP/test/guest-kernel.sh" kdir)

tap=''
work=$(mktemp -d "${TMPDIR:-/tmp}/xps_steer-nics.XXXXXX")
on_exit rm -rf "$work"
# shellcheck disable=SC2317 # run at exit
del_tap() {
	[[ -z $tap ]] || ip link del "$tap" 2>/dev/null || true
	tap=''
}
on_exit del_tap
trap 'exit 130' INT TERM

# The module under test: built in a copy, so the clone stays clean.
if [[ -z $ko ]]; then
	build_copy "$work" "$kdir"
	ko=$work/build/xps_steer.ko
fi
say "module $ko"

qemu_lock=${XPS_STEER_QEMU_LOCK:-$cache_root/qemu.lock}
mkdir -p "${qemu_lock%/*}"
status=0
taps=()
summary_lines=()

for drv in "${drivers[@]}"; do
	t=$SECONDS
	args=(--ko "$ko" --smp 4 --mem 1G --timeout "${XPS_STEER_TIMEOUT:-900}"
		--log "$out/console-$drv.log" --script "$TOP/test/guest/nics.sh")
	path=$PATH
	case $drv in
	virtio)
		# A host multi_queue tap with no address: the guest's frames end
		# there; nothing is routed anywhere.
		tap=xpsn$$
		tap=${tap:0:15}
		mq_tap_add "$tap" || die "cannot create tap $tap"
		virtio_mq "$tap" 4
		vm_args VIRTIO_MQ
		args+=("${VM_ARGS[@]}")
		;;
	vmxnet3)
		args+=(--module vmxnet3 --qemu -netdev --qemu "user,id=n0,restrict=on"
			--qemu -device --qemu "vmxnet3,netdev=n0,romfile=")
		;;
	igb)
		sid=$(qemu_sid) || die "no sid QEMU tree"
		exec {sid_use}>"$cache_root/qemu-sid.lock"
		flock -s "$sid_use"
		sid_wrapper "$sid" "$work/qemu-sid"
		path=$work/qemu-sid:$PATH
		say "igb: QEMU $(sid_qemu_version "$sid") from $sid"
		args+=(--module igb --qemu -netdev --qemu "user,id=n0,restrict=on"
			--qemu -device --qemu "igb,netdev=n0,romfile=")
		;;
	esac
	exec {lock}>"$qemu_lock"
	if ! flock -n "$lock"; then
		say "$drv: waiting for $qemu_lock (another guest runs)"
		flock "$lock"
	fi
	say "$drv: booting (console $out/console-$drv.log; tests ${tests_of[$drv]})"
	rc=0
	PATH=$path nice -n 5 "$TOP/test/vm.sh" "${args[@]}" -- "$drv" "T=${tests_of[$drv]}" \
		>"$out/vm-$drv.log" 2>&1 || rc=$?
	exec {lock}>&-
	if [[ $drv == igb ]]; then
		exec {sid_use}>&-
	fi
	del_tap
	tr -d '\r' <"$out/console-$drv.log" >"$out/$drv.tap"
	grep -E '^(not )?ok |^# (FAIL|SKIP|RETRY)' "$out/$drv.tap" >&2 || true
	if ((rc != 0)); then
		grep 'FAIL' "$out/vm-$drv.log" >&2 || tail -n 5 "$out/vm-$drv.log" >&2
		status=1
	fi
	txqs=$(sed -n 's/^# nic: driver=[^ ]* txqs=\([0-9]*\).*/\1/p' "$out/$drv.tap" | head -n1)
	att=$(sed -n 's/^# nic: driver=[^ ]* xps_steer=//p' "$out/$drv.tap" | head -n1)
	res=$(tap_summary "$out/$drv.tap") || status=1
	# A test run again after the driver's TX watchdog fired (nics.sh).
	retried=$(grep -c '^# RETRY:' "$out/$drv.tap") && res+=", $retried run again after a TX watchdog"
	summary_lines+=("$drv: ${txqs:-?} tx queues, xps_steer: ${att:-?}; $res; $((SECONDS - t)) s")
	say "${summary_lines[-1]}"
	taps+=("$out/$drv.tap")
done

for line in "${summary_lines[@]}"; do
	echo "$ME: $line"
done
total=$(tap_summary "${taps[@]}") || status=1
echo "$ME: $total ($((SECONDS - t_start)) s; logs in $out)"
exit "$status"
