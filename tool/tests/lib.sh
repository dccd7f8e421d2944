#!/bin/bash
# lib.sh - fixtures for the tool's tests: a fake machine below
# $XPS_STEER_ROOT (CPUs, network devices, the module's files, /proc), and
# checks. Sourced by run.sh; every test starts with an empty root.

# The tests' own directory, and the hwloc XML topologies in it.
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the test files that source this one
TOPO=$TESTS/topo

fail() { echo "FAIL: $*" >&2; return 1; }

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" == "$3" ] && return 0
	echo "FAIL: $1" >&2
	diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 1,2d >&2
	return 1
}

# xs ARGS...: run the tool; its stdout in $T_DIR/out, stderr in
# $T_DIR/err, exit code in $rc (never fails the test by itself).
xs() {
	rc=0
	"$XS" "$@" >"$T_DIR/out" 2>"$T_DIR/err" || rc=$?
	out=$(cat "$T_DIR/out")
	errtext=$(cat "$T_DIR/err")
}

# expect_rc WANT: the last xs call's exit code.
expect_rc() {
	[ "$rc" -eq "$1" ] && return 0
	fail "exit code $rc, expected $1; stderr: $errtext; stdout: $out"
}

R() { echo "$XPS_STEER_ROOT$1"; }

# fake_cpus N [ISOLATED] [NOHZ]: N possible and online CPUs.
fake_cpus() {
	local d
	d=$(R /sys/devices/system/cpu)
	mkdir -p "$d"
	echo "0-$(($1 - 1))" >"$d/possible"
	echo "0-$(($1 - 1))" >"$d/online"
	echo "${2:-}" >"$d/isolated"
	echo "${3:-}" >"$d/nohz_full"
}

# hexmask NCPUS CPULIST: the kernel's xps_cpus text for a list.
hexmask() {
	local n=$1 spec=$2 groups g c a b part out="" width
	local -a w=()
	groups=$(((n + 31) / 32))
	((groups)) || groups=1
	IFS=, read -ra parts <<<"$spec"
	for part in "${parts[@]}"; do
		a=${part%-*} b=${part#*-}
		for ((c = a; c <= b; c++)); do
			w[c / 32]=$((${w[c / 32]:-0} | (1 << (c % 32))))
		done
	done
	for ((g = groups - 1; g >= 0; g--)); do
		width=8
		((g != groups - 1 || n % 32 == 0)) || width=$(((n % 32 + 3) / 4))
		out+=$(printf '%0*x' "$width" "${w[g]:-0}")
		((g == 0)) || out+=,
	done
	echo "$out"
}

# fake_netdev IF NQ [DRIVER] [MAC] [BUSID] [NUMA]: a device with NQ active
# tx queues, each with the kernel's xps_cpus (empty).
fake_netdev() {
	local ifn=$1 nq=$2 drv=${3:-virtio_net} mac=${4:-52:54:00:12:34:56}
	local bus=${5:-0000:00:03.0} numa=${6:--1} d q ncpu
	ncpu=$(sed 's/.*-//' "$(R /sys/devices/system/cpu/possible)")
	ncpu=$((ncpu + 1))
	d=$(R "/sys/class/net/$ifn")
	mkdir -p "$d" "$(R "/sys/devices/pci0000:00/$bus")"
	echo "$mac" >"$d/address"
	echo "$numa" >"$(R "/sys/devices/pci0000:00/$bus")/numa_node"
	ln -s "../../../devices/pci0000:00/$bus" "$d/device"
	ln -s "../../../../bus/pci/drivers/$drv" "$(R "/sys/devices/pci0000:00/$bus")/driver"
	for ((q = 0; q < nq; q++)); do
		mkdir -p "$d/queues/tx-$q" "$d/queues/rx-$q"
		hexmask "$ncpu" "" >"$d/queues/tx-$q/xps_cpus"
	done
}

# fake_module STATUS-LINE...: the module loaded, with this status file
# and dev= list (the lines' first words). Attached devices get their
# directory: fake_attached IF NQ [ACTIVE].
fake_module() {
	local m names=()
	m=$(R /sys/module/xps_steer)
	mkdir -p "$m/parameters"
	: >"$m/status"
	for line in "$@"; do
		echo "$line" >>"$m/status"
		names+=("${line%% *}")
	done
	(IFS=,; echo "${names[*]}") >"$m/parameters/dev"
	printf 'select_queue_sb_dev yes\n' >"$m/features"
	mkdir -p "$(R /sys/kernel/xps_steer)"
}

# eth0 attached (virtio_net, 4 queues, 3 in use), eth1 refused (bnx2x,
# its own ndo_select_queue, 2 queues), on 4 CPUs.
fake_attached_and_refused() {
	fake_cpus 4
	fake_netdev eth0 3 virtio_net 52:54:00:aa:bb:01 0000:00:03.0
	fake_netdev eth1 2 bnx2x 52:54:00:aa:bb:02 0000:00:04.0
	fake_module "eth0 attached queues=4 active=3 hook=installed name=eth0" \
		"eth1 refused reason=own-select-queue"
	fake_attached eth0 4 3
}

fake_attached() {
	local ifn=$1 nq=$2 active=${3:-$2} d q ncpu
	ncpu=$(sed 's/.*-//' "$(R /sys/devices/system/cpu/possible)")
	ncpu=$((ncpu + 1))
	d=$(R "/sys/kernel/xps_steer/$ifn")
	mkdir -p "$d"
	: >"$d/map"
	for ((q = 0; q < nq; q++)); do
		mkdir -p "$d/tx-$q"
		echo "tx-$q" >>"$d/map"
		hexmask "$ncpu" "" >"$d/tx-$q/xps_cpus"
		echo >"$d/tx-$q/xps_cpus_list"
		echo 0 >"$d/tx-$q/xps_rxqs"
		echo 0 >"$d/tx-$q/packets"
	done
	printf '%s 0\n' steered steered_by_rxqs kept_socket_queue cpu_in_no_mask \
		subordinate_device traffic_class queue_inactive no_map >"$d/stats"
	: "$active"
}

# fake_errno PATH read|write ERRNO: reads (or writes) of PATH below the
# root fail with ERRNO (a number: 27 EFBIG, 7 E2BIG), as the kernel's
# files may and a plain file cannot (common.c: injected_errno).
fake_errno() {
	echo "$3" >"$(R "$1").$2-errno"
}
