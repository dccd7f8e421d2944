#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# numa.sh - PID 1 of the installation test's NUMA guest (test/check-install.sh,
# numa_boot): the image install.sh runs in (xps-steer-dkms and xps-steer
# installed by apt, and hwloc-nox for hwloc-calc), booted with two NUMA
# nodes: 2 sockets x 2 cores x 2 threads, CPUs 0-3 (socket 0) on node 0,
# 4-7 (socket 1) on node 1, and eth0, virtio-net with 4 queue pairs,
# behind a PCI expander bridge on node 1. KTAP output on the console, then
# XPS_STEER_GUEST_TAINT=<n> and XPS_STEER_GUEST_EXIT=<rc>, then power off.
#
# What it proves: hwloc in the guest sees that machine; `xps-steer auto
# --dry-run` prints the tables written out below for the numa, cache and
# one-to-one policies; `xps-steer auto --policy numa` writes its map and
# every packet follows it (net/net_dev_start_xmit; eth0 has a qdisc, so
# the sender is told by the frame's length, as in install.sh).

# shellcheck source=pid1.sh
. /test/pid1.sh
pid1_start xps-numa

# shellcheck source=lib.sh
. /test/lib.sh

DEV=eth0
NQ=4
PKTS=100		# per CPU and run
BASE=200		# UDP payload of CPU c: BASE + c bytes
FRAME=$((BASE + 42))	# Ethernet + IPv4 + UDP headers
DST=10.9.0.2

# The tables the policies must give on this machine, worked out by hand
# from xps-steer(8)'s rules. numa: eth0's node 1 has 4 CPUs for 4 queues,
# split by the cache rule (node 1's socket, its L3, 2 cores of 2 threads:
# a thread each); node 0's CPUs keep the stock selection.
WANT_NUMA='tx-0 4
tx-1 5
tx-2 6
tx-3 7'
NOTE_NUMA='note: NUMA node 0 (CPUs 0-3) got no queue: its CPUs keep the stock selection'
# cache: 2 queues per socket, a core (both threads) each.
WANT_CACHE='tx-0 0-1
tx-1 2-3
tx-2 4-5
tx-3 6-7'
# one-to-one: CPU k to queue k mod 4.
WANT_ONE='tx-0 0,4
tx-1 1,5
tx-2 2,6
tx-3 3,7'
# The numa map as xps_cpus masks, and each CPU's queue: CPUs 0-3 any.
MASKS_NUMA='10 20 40 80'
numa_spec() {
	local c
	for c in "${CPUS[@]}"; do
		if ((c >= 4)); then
			printf '%s:%s:%s ' "$c" $((c - 4)) "$PKTS"
		else
			printf '%s:*:%s ' "$c" "$PKTS"
		fi
	done
}

# expect_out LABEL WANT GOT: the exact text, else the test fails showing both.
expect_out() {
	[ "$2" = "$3" ] && return 0
	fail "$1: expected"
	diag "$2"
	diag "got:"
	diag "$3"
	return 1
}

# send_all: every CPU sends PKTS datagrams (16 flows), pinned; $W/tbl is
# the sender CPU x queue table, from the frame lengths.
send_all() {
	local c
	trace_start "$DEV"
	for c in "${CPUS[@]}"; do
		flood - "$c" "$DST" 16 "$PKTS" -s $((BASE + c)) || { trace_stop; return 1; }
	done
	trace_stop
	sender_table "$DEV" "$FRAME" >"$W/tbl"
	diag "sender CPU x queue, frames of $FRAME+cpu bytes ($MOVED handed to the driver by another CPU than the sender):"
	tbl_matrix "$W/tbl" "$NQ"
}

# auto POLICY [ARGS...]: xps-steer auto eth0 --policy POLICY ARGS; its
# stdout in AUTO_OUT, stderr (the notes) in AUTO_ERR; fails the test on a
# non-zero exit.
auto() {
	local p=$1 rc
	shift
	xps-steer auto "$DEV" --policy "$p" "$@" >"$W/auto.out" 2>"$W/auto.err"
	rc=$?
	AUTO_OUT=$(cat "$W/auto.out")
	AUTO_ERR=$(cat "$W/auto.err")
	diag "xps-steer auto $DEV --policy $p${*:+ $*}: exit $rc"
	diag_file "$W/auto.out"
	[ -s "$W/auto.err" ] && diag_file "$W/auto.err"
	[ "$rc" = 0 ] || fail "xps-steer auto $DEV --policy $p${*:+ $*} exited $rc"
	return "$rc"
}

# ---------------------------------------------------------------- tests --

t_numa_topology() {
	local n pci got
	for n in 0 1; do
		diag "node$n: CPUs $(cat /sys/devices/system/node/node$n/cpulist 2>&1)"
	done
	[ "$(cat /sys/devices/system/cpu/online)" = 0-7 ] ||
		fail "CPUs online: $(cat /sys/devices/system/cpu/online), expected 0-7"
	[ "$(cat /sys/devices/system/node/node1/cpulist 2>&1)" = 4-7 ] ||
		fail "the kernel's node 1 is not CPUs 4-7"
	modprobe virtio_net 2>/dev/null
	wait_until 10 test -d /sys/class/net/"$DEV" || { fail "no $DEV"; return; }
	pci=$(dirname "$(readlink -f /sys/class/net/"$DEV"/device)")
	diag "$DEV: ${pci#/sys/devices/}, NUMA node $(cat "$pci/numa_node"), $(txq_count "$DEV") tx queues"
	[ "$(cat "$pci/numa_node")" = 1 ] || fail "$DEV's PCI device is on node $(cat "$pci/numa_node"), not 1"
	[ "$(txq_count "$DEV")" = "$NQ" ] || fail "$DEV has $(txq_count "$DEV") tx queues, expected $NQ"
	# hwloc's view, which the tool's policies use.
	lstopo-no-graphics >"$W/lstopo" 2>&1
	diag_file "$W/lstopo" 40
	for n in package:2 numa:2 core:4 pu:8 l3cache:2; do
		got=$(hwloc-calc --number-of "${n%:*}" all 2>&1)
		[ "$got" = "${n#*:}" ] || fail "hwloc-calc --number-of ${n%:*} all: '$got', expected ${n#*:}"
	done
	got=$(hwloc-calc --physical-output --intersect numa os="$DEV" 2>&1)
	diag "hwloc: $DEV is local to NUMA node $got"
	[ "$got" = 1 ] || fail "hwloc-calc -I numa os=$DEV: '$got', expected 1"
	must ip addr add 10.9.0.1/24 dev "$DEV" || return
	must ip link set "$DEV" up || return
	must ip neigh replace "$DST" lladdr 02:00:00:00:00:02 dev "$DEV" nud permanent || return
	wait_until 20 carrier_on "$DEV" || fail "$DEV: no carrier"
	trace_setup || fail "no tracing"
}

t_numa_stock() {
	send_all || return
	# The numa map's check must fail on the stock selection (virtio-net's
	# own XPS puts CPUs 4-7 on queues 2, 2, 3, 3).
	if check_tbl "$W/tbl" "$NQ" 0 0 "$(numa_spec)" >"$W/chk.out"; then
		fail "without xps_steer every packet already follows the numa map: the steering check could not fail"
	else
		diag "stock selection differs from the numa map (as it must)"
	fi
}

t_numa_dry_run() {
	klog_mark
	must modprobe xps_steer dev="$DEV" || return
	expect_tree "$DEV" "$NQ" || return
	auto numa --dry-run || return
	expect_out "numa, the table" "$WANT_NUMA" "$AUTO_OUT"
	expect_out "numa, the notes" "$NOTE_NUMA" "$AUTO_ERR"
	auto cache --dry-run || return
	expect_out "cache, the table" "$WANT_CACHE" "$AUTO_OUT"
	expect_out "cache, the notes" "" "$AUTO_ERR"
	auto one-to-one --dry-run || return
	expect_out "one-to-one, the table" "$WANT_ONE" "$AUTO_OUT"
	expect_out "one-to-one, the notes" "" "$AUTO_ERR"
	# --dry-run wrote nothing (8 CPUs: two hex digits a mask).
	expect_masks "$DEV" 00 00 00 00
}

t_numa_steer() {
	local -a masks
	need_module || return
	auto numa || return
	expect_out "numa, the table written" "$WANT_NUMA" "$AUTO_OUT"
	read -ra masks <<<"$MASKS_NUMA"
	expect_masks "$DEV" "${masks[@]}" || return
	send_all || return
	check_tbl "$W/tbl" "$NQ" 0 0 "$(numa_spec)" >"$W/chk.out"
	awk '{ print "# numa map: " $0 }' "$W/chk.out"
	grep -q '^FAIL' "$W/chk.out" && fail "numa map: per-packet check failed (spec: $(numa_spec))"
	must modprobe -r xps_steer
}

test_def numa_topology "2 sockets, 2 NUMA nodes, 8 CPUs; eth0 (4 queues) on node 1, for the kernel and for hwloc"
test_def numa_stock "stock selection is not the numa map (the check can fail)"
test_def numa_dry_run "xps-steer auto --dry-run: the numa, cache and one-to-one tables and notes written out here; nothing written"
test_def numa_steer "xps-steer auto --policy numa: CPUs 4-7 (eth0's node) a queue each, every packet on it; CPUs 0-3 stock"

main() {
	select_tests all || return 1
	run_selected numa || return 1
	[ "$N_SKIP" = 0 ]
}

main </dev/null 2>&1
rc=$?
if [ "$$" = 1 ] && klog_splats "$W/bad.txt"; then
	echo "# the kernel log has warnings:"
	sed 's/^/#   /' "$W/bad.txt"
	rc=1
fi
pid1_end "$rc"
