# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib.sh - the one library of the host-side test scripts (bash), sourced by
# every entry point under test/ (. "$(dirname "${BASH_SOURCE[0]}")/lib.sh").
#
#   TOP                   the repository's root
#   ME                    the entry script's name (messages start with it)
#   say MSG...            "ME: MSG" on stderr
#   die MSG...            "ME: FAIL: MSG" on stderr, exit 1
#   die_usage MSG...      "ME: MSG" on stderr, exit 2 (a usage error)
#   usage                 the entry script's header comment, exit 2
#   now_us / secs_since T the clock in microseconds, whole seconds since T
#   build_copy DIR KDIR   build the module in a copy of the tree, DIR/build
#                         (the work tree's own build products stay
#                         untouched); the log in DIR/build.log
#   build_test_modules DIR KDIR
#                         build the test-only modules of test/modules/
#                         (ops_copier.ko; never packaged) in a copy,
#                         DIR/test-modules, against KDIR; prints the .ko
#                         paths, one a line (vm.sh --ko each); the log in
#                         DIR/test-modules.log
#   test_names SCRIPT     the names of a guest suite's tests, in order
#   select_names SCRIPT SPEC
#                         SPEC (T=: "name,name...", or empty/"all") checked
#                         against SCRIPT's names before anything boots;
#                         prints the names, one a line; an unknown name is
#                         refused (die_usage)
#   pass MSG / notok MSG [OUT]
#                         a KTAP-style "ok - MSG" / "not ok - MSG" line
#                         (the last lines of OUT as diagnostics), counted
#                         in NPASS / NFAIL
#   on_exit CMD...        run CMD at exit (after those registered before)
#   console_verdict ...   the splat scan of a guest's console (below)
#   mq_tap_add NAME, virtio_mq TAP N [OPTS], vm_args ARRAY
#                         a host multi_queue tap, and a guest's virtio-net
#                         NIC with N queue pairs on it (QEMU arguments;
#                         vm_args: the same for vm.sh, below)
#
# Debian trees (chroot.sh's suite chroots, check-nics.sh's sid QEMU tree):
#   mirror                the Debian mirror the host's apt uses
#   root_bootstrap NAME DIST DIR LOG
#                         debootstrap --variant=minbase DIST into DIR
#                         (debootstrap installed with apt if missing), set
#                         up for apt without recommends, docs or service
#                         starts; dies on failure (NAME in the messages)
#   in_root DIR CMD...    CMD as root inside DIR, clean environment, /proc
#                         /sys /dev mounted in a private mount namespace
#   apt_update DIR LOG NAME
#                         apt-get update inside DIR (a frozen mirror's
#                         expired Release file tolerated, and said so)
#   t_and_counts ARG...   a runner's T= and COUNT=N arguments (below)
#   tap_summary TAP...    "P passed, F failed, S skipped" (below)

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ME=$(realpath "${BASH_SOURCE[-1]}")
ME=${ME#"$TOP"/}
ME=${ME#test/}

say() { echo "$ME: $*" >&2; }
die() {
	echo "$ME: FAIL: $*" >&2
	exit 1
}
die_usage() {
	echo "$ME: $*" >&2
	exit 2
}
usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;/^# shellcheck/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[-1]}" >&2
	exit 2
}

now_us() { echo "${EPOCHREALTIME/./}"; }
secs_since() { echo $((($(now_us) - $1 + 500000) / 1000000)); }

build_copy() {	# DIR KDIR [MAKE-ARGS...]
	mkdir -p "$1/build"
	tar -C "$TOP" --exclude=.git --exclude='*.o' --exclude='*.ko' -cf - . | tar -C "$1/build" -xf -
	make -s -C "$1/build" KDIR="$2" "${@:3}" >"$1/build.log" 2>&1 ||
		{ cat "$1/build.log" >&2; die "module build against $2 failed"; }
}

build_test_modules() {	# DIR KDIR
	local d=$1/test-modules
	rm -rf "$d"
	mkdir -p "$d"
	cp "$TOP"/test/modules/{Kbuild,Makefile} "$TOP"/test/modules/*.c "$d/"
	make -s -C "$d" KDIR="$2" >"$1/test-modules.log" 2>&1 ||
		{ cat "$1/test-modules.log" >&2; die "test module build against $2 failed"; }
	ls "$d"/*.ko
}

NPASS=0 NFAIL=0
pass() {
	echo "ok - $*"
	NPASS=$((NPASS + 1))
}
notok() {
	echo "not ok - $1"
	NFAIL=$((NFAIL + 1))
	[[ -z ${2:-} || ! -s $2 ]] || tail -n 25 "$2" | sed 's/^/#   /'
}

EXIT_CMDS=()
on_exit() {
	EXIT_CMDS+=("$(printf '%q ' "$@")")
	trap run_exit_cmds EXIT
}
run_exit_cmds() {
	local c
	for c in "${EXIT_CMDS[@]}"; do eval "$c" || true; done
}

test_names() {	# SCRIPT
	bash "$1" --list
}

select_names() {	# SCRIPT SPEC
	local script=$1 spec=$2 name
	local -a known want
	mapfile -t known < <(test_names "$script")
	((${#known[@]})) || die "$script --list printed no test names"
	if [[ -z $spec || $spec == all ]]; then
		printf '%s\n' "${known[@]}"
		return 0
	fi
	IFS=, read -ra want <<<"$spec"
	((${#want[@]})) || die_usage "T=$spec names no test"
	for name in "${want[@]}"; do
		[[ " ${known[*]} " == *" $name "* ]] ||
			die_usage "T=$spec: unknown test '$name'; the tests of ${script#"$TOP"/} are: ${known[*]}"
	done
	printf '%s\n' "${want[@]}"
}

# VIRTIO_NET_OPTS: the options every guest's virtio-net NIC gets.
# event_idx=off: with event-index notification suppression, a virtio-net
# TX queue of Debian's 6.1 guest under QEMU 7.2's single-threaded TCG (every
# guest here) now and then stopped for good (NETDEV WATCHDOG, "TX timeout
# on queue: N") under traffic from every CPU, with xps_steer never loaded
# as with it; with it off, or with the guest's virtio_net.napi_tx=0, no
# stall was seen (docs/testing.md, "A stalled virtio-net TX queue").
# shellcheck disable=SC2034 # used by the scripts that source lib.sh
VIRTIO_NET_OPTS=event_idx=off

# mq_tap_add NAME: a host multi_queue tap NAME, up, without an address and
# with IPv6 off: a guest's frames end there, nothing is routed anywhere.
# (The caller deletes it: ip link del NAME.)
mq_tap_add() {
	ip tuntap add dev "$1" mode tap multi_queue || return 1
	sysctl -q -w "net.ipv6.conf.$1.disable_ipv6=1" || true
	ip link set "$1" up
}

# virtio_mq TAP N [DEVICE-OPTS]: VIRTIO_MQ (array) = the QEMU arguments of
# a virtio-net NIC with N queue pairs (multiqueue, a vector per queue plus
# config and control) on the host tap TAP (mq_tap_add), no vhost, no
# option ROM, VIRTIO_NET_OPTS; DEVICE-OPTS (e.g. "bus=pxb1,addr=1") are
# added to the -device. vm_args ARRAY-NAME: the same for test/vm.sh, each
# argument after a --qemu (in VM_ARGS).
virtio_mq() {
	# shellcheck disable=SC2034 # for the caller
	VIRTIO_MQ=(-netdev "tap,id=n0,ifname=$1,script=no,downscript=no,queues=$2,vhost=off"
		-device "virtio-net-pci,netdev=n0,mq=on,vectors=$((2 * $2 + 2)),romfile=,$VIRTIO_NET_OPTS${3:+,$3}")
}
vm_args() {
	local -n from=$1
	local a
	VM_ARGS=()
	for a in "${from[@]}"; do VM_ARGS+=(--qemu "$a"); done
}

# console_verdict NAME LOG QEMU_STATUS TIMEOUT
#   0 only if the guest printed XPS_STEER_GUEST_EXIT=0 and the kernel
#   reported no problem (WARNING/BUG/Oops/panic/stall/... in the console,
#   or a WARN/oops/bad-page/soft-lockup taint flag in the
#   XPS_STEER_GUEST_TAINT=<n> line); else 1, with one `NAME: FAIL: reason`
#   line per problem on stderr. QEMU_STATUS 124/137 (timeout(1)) is a
#   timeout after TIMEOUT seconds.
console_verdict() {
	local name=$1 log=$2 qstatus=$3 tmo=$4 fail=0 line problems taint bad flag rc
	# Only kernel log lines ("[  12.345678] ...", possibly glued to the end of
	# a script's partial line) count, so a test script that merely prints the
	# word WARNING: is not mistaken for a kernel splat.
	problems='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace|KASAN|UBSAN'
	problems+='|possible circular locking|lockdep|rcu_[a-z]+ (self-)?detected stall|RCU stall'
	problems+='|blocked for more than|kmemleak|refcount_t|unregister_netdevice: waiting for'
	if line=$(grep -m1 -E "\[ *[0-9]+\.[0-9]+\] .*($problems)" "$log"); then
		echo "$name: FAIL: kernel reported: ${line#*] }" >&2
		fail=1
	fi
	# Taint flags catch splats the console may have missed. The out-of-tree /
	# unsigned module flags (O, E) are expected and ignored.
	taint=$(sed -n 's/.*XPS_STEER_GUEST_TAINT=\([0-9]*\).*/\1/p' "$log" | tail -n1)
	bad=''
	for flag in 4:M:machine-check 5:B:bad-page 7:D:oops 9:W:warning 14:L:soft-lockup; do
		((${taint:-0} >> ${flag%%:*} & 1)) && bad+=" ${flag#*:}"
	done
	if [[ -n $bad ]]; then
		echo "$name: FAIL: kernel tainted $taint:$bad" >&2
		fail=1
	fi
	rc=$(sed -n 's/.*XPS_STEER_GUEST_EXIT=\([0-9]*\).*/\1/p' "$log" | tail -n1)
	if ((qstatus == 124 || qstatus == 137)); then
		echo "$name: FAIL: timeout after $tmo s" >&2
		fail=1
	elif [[ -z $rc ]]; then
		echo "$name: FAIL: guest did not report an exit status (qemu exit $qstatus)" >&2
		fail=1
	elif ((rc != 0)); then
		echo "$name: FAIL: guest script exited $rc" >&2
		fail=1
	fi
	return "$fail"
}

# stress_lanes "NAME...": the stress suite split over two guests, one
# comma list per line: lane 1 every test not named, lane 2 the named ones,
# both ending with stress_final. A test added to stress.sh lands in lane 1
# unless a caller names it.
stress_lanes() {
	local name l1='' l2=''
	for name in $(test_names "$TOP/test/guest/stress.sh"); do
		[[ $name != stress_final ]] || continue
		if [[ " $1 " == *" $name "* ]]; then
			l2+=$name,
		else
			l1+=$name,
		fi
	done
	printf '%s\n' "${l1}stress_final" "${l2}stress_final"
}

# t_and_counts ARG...: a runner's arguments, T=name,... in T_SPEC and
# COUNT=N... (CYCLES=20 ...) in T_COUNTS; anything else is refused.
t_and_counts() {
	local arg
	T_SPEC='' T_COUNTS=()
	# shellcheck disable=SC2034 # for the runner that calls it
	for arg in "$@"; do
		case $arg in
		T=*) T_SPEC=${arg#T=} ;;
		[A-Z]*=*) T_COUNTS+=("$arg") ;;
		*) die_usage "unknown argument '$arg' (usage: $ME [T=name,...] [COUNT=N...])" ;;
		esac
	done
}

# tap_summary TAP...: prints "P passed, F failed, S skipped" over these KTAP
# files (a SKIP is counted as a skip, never as a pass). Returns 1 unless
# something passed and nothing failed.
tap_summary() {
	local all passed failed skipped
	all=$(cat "$@" | tr -d '\r')
	skipped=$(grep -cE '^ok [0-9]+ .*# SKIP' <<<"$all" || true)
	passed=$(($(grep -cE '^ok [0-9]+' <<<"$all" || true) - skipped))
	failed=$(grep -cE '^not ok [0-9]+' <<<"$all" || true)
	echo "$passed passed, $failed failed, $skipped skipped"
	((passed > 0 && failed == 0))
}

# The Debian mirror the host's apt uses ("500 http://.../debian bookworm/main
# amd64 Packages" in apt-cache policy), so a proxy/mirror setup carries over;
# XPS_STEER_MIRROR overrides it.
mirror() {
	local m
	m=${XPS_STEER_MIRROR:-$(apt-cache policy 2>/dev/null |
		awk '$3 ~ /^bookworm\// && $2 ~ /^https?:/ { print $2; exit }')}
	echo "${m:-http://deb.debian.org/debian}"
}

root_bootstrap() {	# NAME DIST DIR LOG
	local name=$1 dist=$2 dir=$3 logf=$4 m t
	command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=600 install -y -q debootstrap >>"$logf" 2>&1 || die "cannot install debootstrap"
	m=$(mirror)
	t=$(now_us)
	say "$name: debootstrap --variant=minbase $dist from $m (log $logf)"
	if ! debootstrap --variant=minbase "$dist" "$dir" "$m" >>"$logf" 2>&1; then
		tail -n 20 "$logf" >&2
		die "$name: debootstrap failed (log $logf)"
	fi
	say "$name: debootstrap done in $(secs_since "$t") s"
	printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
		>"$dir/etc/apt/apt.conf.d/90xps-steer"
	# No docs, man pages or translations: smaller and faster to unpack.
	printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/man/*' \
		'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/info/*' \
		>"$dir/etc/dpkg/dpkg.cfg.d/90xps-steer-nodoc"
	printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
	chmod +x "$dir/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

# in_root DIR CMD...: CMD inside DIR, mounts private to a new mount namespace
# (they vanish when CMD ends, however it ends).
in_root() {
	local dir=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- /bin/bash -c '
		set -e
		d=$1
		shift
		mount -t proc proc "$d/proc"
		mount -t sysfs sysfs "$d/sys"
		mount --rbind /dev "$d/dev"
		exec chroot "$d" /usr/bin/env -i \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"' \
		in_root "$dir" "$@"
}

# apt-get update in DIR (log to LOGF). A frozen mirror (a snapshot, as on
# some CI hosts) serves Release files past their Valid-Until date; apt then
# refuses them, so the check is switched off in this tree, and said so.
apt_update() {	# DIR LOGF NAME
	local out
	if out=$(in_root "$1" apt-get update -q 2>&1) && ! grep -q 'is expired' <<<"$out"; then
		echo "$out" >>"$2"
		return 0
	fi
	echo "$out" >>"$2"
	grep -q 'is expired' <<<"$out" || return 1
	say "$3: the mirror's Release file has expired (a frozen mirror?): Acquire::Check-Valid-Until off in this tree"
	echo 'Acquire::Check-Valid-Until "false";' >"$1/etc/apt/apt.conf.d/91xps-steer-valid-until"
	in_root "$1" apt-get update -q >>"$2" 2>&1
}
