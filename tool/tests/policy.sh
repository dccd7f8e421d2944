#!/bin/bash
# policy.sh - xps-steer auto with the one-to-one, cache and numa policies
# on synthetic machines (hwloc XML in topo/, made by topo/gen.py), written
# through the module's map file or the kernel's xps_cpus, and its errors.
#
# The expected tables are worked out by hand from the rules in
# xps-steer(8), POLICIES; the reasoning is in the comments. Machines:
#   2s-16c-smt2.xml     2 sockets x 16 cores x 2 threads, a NUMA node and
#                       an L3 per socket, L2/L1d per core; core c (0-31,
#                       socket 0 has 0-15) has CPUs c and c+32; eth0 on
#                       node 1 (PCI 0000:3b:00.0)
#   1s-4c.xml           1 socket x 4 cores, no SMT: CPUs 0-3
#   2s-4l3-8c-smt2.xml  128 CPUs: 2 sockets (a node each) x 4 L3 x 8 cores
#                       x 2 threads (EPYC 7543-like); core c (0-63) has
#                       CPUs c and c+64, L3 j (0-7) cores 8j..8j+7; eth0
#                       on node 1
#   4n-2c-smt2.xml      4 nodes (packages) x 2 cores x 2 threads; core c
#                       (0-7) has CPUs c and c+8, node n cores 2n, 2n+1;
#                       eth0 on node 2; latencies from node 2: node 3 16,
#                       nodes 0 and 1 21
#   1s-4c-smt-off.xml   1 socket x 4 cores, SMT switched off: CPUs 0-3
#                       online, their siblings 4-7 offline
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

po_map() { cat "$(R "/sys/kernel/xps_steer/$1/map")"; }

# po_attached IF NQ [ACTIVE]: IF attached to the module (its kernel
# directories must exist: fake_netdev first).
po_attached() {
	fake_module "$1 attached queues=$2 active=${3:-$2} hook=installed name=$1"
	fake_attached "$1" "$2" "${3:-$2}"
}

# (a) one-to-one: CPUs 0..63 in order, CPU k to tx-(k mod 16).
test_tool_policy_2s16c_one_to_one() {
	fake_cpus 64
	fake_netdev eth0 16 i40e 52:54:00:12:34:56 0000:3b:00.0 1
	xs auto eth0 --policy one-to-one --dry-run --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 0
	expect_eq "table" "tx-0 0,16,32,48
tx-1 1,17,33,49
tx-2 2,18,34,50
tx-3 3,19,35,51
tx-4 4,20,36,52
tx-5 5,21,37,53
tx-6 6,22,38,54
tx-7 7,23,39,55
tx-8 8,24,40,56
tx-9 9,25,41,57
tx-10 10,26,42,58
tx-11 11,27,43,59
tx-12 12,28,44,60
tx-13 13,29,45,61
tx-14 14,30,46,62
tx-15 15,31,47,63" "$out"
	expect_eq "no notes" "" "$errtext"
}

# (a) cache, written through the module: the machine's 2 packages (< 16)
# share the queues by CPUs, 32:32 -> 8 each; a package's one L3 takes
# its 8; the L3's 16 cores (>= 8) make 8 groups of 2 cores. tx-q is
# cores 2q and 2q+1: CPUs 2q, 2q+1, 2q+32, 2q+33. Every queue is inside
# an L3: no note.
test_tool_policy_2s16c_cache() {
	local want
	fake_cpus 64
	fake_netdev eth0 16 i40e 52:54:00:12:34:56 0000:3b:00.0 1
	po_attached eth0 16
	xs auto eth0 --policy cache --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 0
	want="tx-0 0-1,32-33
tx-1 2-3,34-35
tx-2 4-5,36-37
tx-3 6-7,38-39
tx-4 8-9,40-41
tx-5 10-11,42-43
tx-6 12-13,44-45
tx-7 14-15,46-47
tx-8 16-17,48-49
tx-9 18-19,50-51
tx-10 20-21,52-53
tx-11 22-23,54-55
tx-12 24-25,56-57
tx-13 26-27,58-59
tx-14 28-29,60-61
tx-15 30-31,62-63"
	expect_eq "table" "$want" "$out"
	expect_eq "no notes" "" "$errtext"
	expect_eq "map file written" "$want" "$(po_map eth0)"
}

# (a) numa: eth0's node 1 has 32 eligible CPUs >= 16: all 16 queues go
# there, split with the cache rule: 16 cores of the L3 in 16 groups, tx-q
# is core 16+q (CPUs 16+q, 48+q). Node 0 gets none: a note.
test_tool_policy_2s16c_numa() {
	local want
	fake_cpus 64
	fake_netdev eth0 16 i40e 52:54:00:12:34:56 0000:3b:00.0 1
	po_attached eth0 16
	xs auto eth0 --policy numa --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 0
	want="tx-0 16,48
tx-1 17,49
tx-2 18,50
tx-3 19,51
tx-4 20,52
tx-5 21,53
tx-6 22,54
tx-7 23,55
tx-8 24,56
tx-9 25,57
tx-10 26,58
tx-11 27,59
tx-12 28,60
tx-13 29,61
tx-14 30,62
tx-15 31,63"
	expect_eq "table" "$want" "$out"
	expect_eq "notes" "note: NUMA node 0 (CPUs 0-15,32-47) got no queue: its CPUs keep the stock selection" "$errtext"
	expect_eq "map file written" "$want" "$(po_map eth0)"
}

# (a) with isolcpus=2-7,34-39 and nohz_full=8-9,40-41: cores 2-9 are
# out. cache: package 0 has 16 eligible CPUs (cores 0,1,10-15), package 1
# 32; 16 queues by largest remainder: 16*16/48 = 5.33, 16*32/48 = 10.67
# -> 5 and 10, the one left to package 1 (.67 > .33): 5 and 11.
# Package 0, 5 groups of its 8 cores (2 CPUs each, 16 in all), each cut
# nearest 16*g/5 = 3.2, 6.4, 9.6, 12.8 CPUs: after 2, 3, 5, 6 cores
# (4, 6, 10, 12 CPUs): [0 1] [10] [11 12] [13] [14 15].
# Package 1, 11 groups of 16 cores, cuts nearest 32*g/11 = 2.9, 5.8,
# 8.7, 11.6, 14.5, 17.5, 20.4, 23.3, 26.2, 29.1 CPUs: after 1, 3, 4, 6,
# 7, 9, 10, 12, 13, 15 cores: [16] [17 18] [19] [20 21] [22] [23 24] [25]
# [26 27] [28] [29 30] [31].
test_tool_policy_2s16c_isolated() {
	fake_cpus 64 2-7,34-39 8-9,40-41
	fake_netdev eth0 16 i40e 52:54:00:12:34:56 0000:3b:00.0 1
	xs auto eth0 --policy cache --dry-run --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 0
	expect_eq "cache table" "tx-0 0-1,32-33
tx-1 10,42
tx-2 11-12,43-44
tx-3 13,45
tx-4 14-15,46-47
tx-5 16,48
tx-6 17-18,49-50
tx-7 19,51
tx-8 20-21,52-53
tx-9 22,54
tx-10 23-24,55-56
tx-11 25,57
tx-12 26-27,58-59
tx-13 28,60
tx-14 29-30,61-62
tx-15 31,63" "$out"
	expect_eq "cache notes" "note: CPUs 2-9,34-41 (isolated or nohz_full) are in no queue: they keep the stock selection" "$errtext"
	# one-to-one: the 48 eligible CPUs in order (0 1 10-31 32 33 42-63),
	# the k-th to tx-(k mod 16): tx-q gets the q-th, (q+16)-th, (q+32)-th.
	xs auto eth0 --policy one-to-one --dry-run --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 0
	expect_eq "one-to-one table" "tx-0 0,24,48
tx-1 1,25,49
tx-2 10,26,50
tx-3 11,27,51
tx-4 12,28,52
tx-5 13,29,53
tx-6 14,30,54
tx-7 15,31,55
tx-8 16,32,56
tx-9 17,33,57
tx-10 18,42,58
tx-11 19,43,59
tx-12 20,44,60
tx-13 21,45,61
tx-14 22,46,62
tx-15 23,47,63" "$out"
	# numa: node 0's eligible CPUs in the note are without the excluded.
	xs auto eth0 --policy numa --dry-run --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 0
	expect_eq "numa tx-0" "tx-0 16,48" "$(head -n 1 <<<"$out")"
	expect_eq "numa notes" "note: NUMA node 0 (CPUs 0-1,10-15,32-33,42-47) got no queue: its CPUs keep the stock selection
note: CPUs 2-9,34-41 (isolated or nohz_full) are in no queue: they keep the stock selection" "$errtext"
}

# (b) 4 CPUs, 8 queues. one-to-one: CPU k to tx-k, tx-4..7 empty. cache:
# the L3's 4 cores (< 8) get 2 queues each; a core's one CPU takes the
# first of its two: tx-0, 2, 4, 6. numa: one node, so cache, with a note.
test_tool_policy_1s4c_8queues() {
	fake_cpus 4
	fake_netdev eth0 8 igb 52:54:00:12:34:56 0000:01:00.0 0
	po_attached eth0 8
	xs auto eth0 --policy one-to-one --dry-run --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "one-to-one" "tx-0 0
tx-1 1
tx-2 2
tx-3 3
tx-4
tx-5
tx-6
tx-7" "$out"
	expect_eq "one-to-one notes" "note: tx-4..tx-7: no CPU (8 queues for 4 eligible CPUs)" "$errtext"
	xs auto eth0 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "cache" "tx-0 0
tx-1
tx-2 1
tx-3
tx-4 2
tx-5
tx-6 3
tx-7" "$out"
	expect_eq "cache notes" "note: tx-1, tx-3, tx-5, tx-7: no CPU (8 queues for 4 eligible CPUs)" "$errtext"
	expect_eq "cache map file" "$out" "$(po_map eth0)"
	xs auto eth0 --policy numa --dry-run --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "numa is cache" "tx-0 0
tx-1
tx-2 1
tx-3
tx-4 2
tx-5
tx-6 3
tx-7" "$out"
	expect_eq "numa notes" "note: one NUMA node: the same as policy cache
note: tx-1, tx-3, tx-5, tx-7: no CPU (8 queues for 4 eligible CPUs)" "$errtext"
}

# (c) 128 CPUs, 3 queues.
# one-to-one: CPU k to tx-(k mod 3).
# cache: 2 packages (< 3), 64:64 -> 1.5 each: 1 and 1, the one left to
# the first on the tie: 2 and 1. Package 0's 4 L3s (>= 2) in 2 groups of
# 2 (cut at 32 of 64 CPUs): tx-0 L3 0-1 (cores 0-15), tx-1 L3 2-3 (cores
# 16-31); tx-2 package 1. No queue is inside one L3: a note.
# numa: node 1 (64 CPUs) takes all 3; its 4 L3s (>= 3) in 3 groups, cuts
# nearest 64/3 = 21.3 and 42.7 CPUs: after L3 4 (16) and L3 6 (48):
# [4] [5 6] [7]; tx-1 spans two L3s: a note.
test_tool_policy_128cpus_3queues() {
	fake_cpus 128
	fake_netdev eth0 3 mlx5_core 52:54:00:12:34:56 0000:c1:00.0 1
	po_attached eth0 3
	xs auto eth0 --policy one-to-one --dry-run --topology "$TOPO/2s-4l3-8c-smt2.xml"
	expect_rc 0
	expect_eq "one-to-one" "tx-0 0,3,6,9,12,15,18,21,24,27,30,33,36,39,42,45,48,51,54,57,60,63,66,69,72,75,78,81,84,87,90,93,96,99,102,105,108,111,114,117,120,123,126
tx-1 1,4,7,10,13,16,19,22,25,28,31,34,37,40,43,46,49,52,55,58,61,64,67,70,73,76,79,82,85,88,91,94,97,100,103,106,109,112,115,118,121,124,127
tx-2 2,5,8,11,14,17,20,23,26,29,32,35,38,41,44,47,50,53,56,59,62,65,68,71,74,77,80,83,86,89,92,95,98,101,104,107,110,113,116,119,122,125" "$out"
	expect_eq "one-to-one notes" "" "$errtext"
	xs auto eth0 --policy cache --dry-run --topology "$TOPO/2s-4l3-8c-smt2.xml"
	expect_rc 0
	expect_eq "cache" "tx-0 0-15,64-79
tx-1 16-31,80-95
tx-2 32-63,96-127" "$out"
	expect_eq "cache notes" "note: tx-0..tx-2: CPUs with no cache in common share a queue (3 queues for 8 L3 caches)" "$errtext"
	xs auto eth0 --policy numa --topology "$TOPO/2s-4l3-8c-smt2.xml"
	expect_rc 0
	expect_eq "numa" "tx-0 32-39,96-103
tx-1 40-55,104-119
tx-2 56-63,120-127" "$out"
	expect_eq "numa notes" "note: NUMA node 0 (CPUs 0-31,64-95) got no queue: its CPUs keep the stock selection
note: tx-1: CPUs with no cache in common share a queue (3 queues for 8 L3 caches)" "$errtext"
	expect_eq "numa map file" "$out" "$(po_map eth0)"
}

# numa order: 10 queues from eth0's node 2 (CPUs 4,5,12,13), each node
# up to its 4 CPUs. By latency: 2, 3, then 0 and 1 (21 both: by number):
# node 2 tx-0..3, node 3 tx-4..7, node 0 tx-8..9, node 1 none. Inside a
# node with 4 queues: 2 cores (< 4) get 2 each, a core's 2 threads (>= 2)
# one each, in the tree's order (core 4: CPUs 4, 12). Node 0 with 2
# queues: one core each. Without the latency matrix: by node number,
# 2, 0, 1, 3.
test_tool_policy_numa_distance_order() {
	fake_cpus 16
	fake_netdev eth0 10 i40e 52:54:00:12:34:56 0000:81:00.0 2
	xs auto eth0 --policy numa --dry-run --topology "$TOPO/4n-2c-smt2.xml"
	expect_rc 0
	expect_eq "by latency" "tx-0 4
tx-1 12
tx-2 5
tx-3 13
tx-4 6
tx-5 14
tx-6 7
tx-7 15
tx-8 0,8
tx-9 1,9" "$out"
	expect_eq "notes" "note: NUMA node 1 (CPUs 2-3,10-11) got no queue: its CPUs keep the stock selection" "$errtext"
	grep -v -e '<distances2' -e '<indexes' -e '<u64values' -e '</distances2' \
		"$TOPO/4n-2c-smt2.xml" >"$T_DIR/nodist.xml"
	xs auto eth0 --policy numa --dry-run --topology "$T_DIR/nodist.xml"
	expect_rc 0
	expect_eq "by number" "tx-0 4
tx-1 12
tx-2 5
tx-3 13
tx-4 0
tx-5 8
tx-6 1
tx-7 9
tx-8 2,10
tx-9 3,11" "$out"
	expect_eq "notes" "note: NUMA node 3 (CPUs 6-7,14-15) got no queue: its CPUs keep the stock selection" "$errtext"
	# A NIC hwloc does not know: cache (nodes 0..3 in order), with a note.
	sed 's/name="eth0"/name="eth7"/' "$TOPO/4n-2c-smt2.xml" >"$T_DIR/other.xml"
	xs auto eth0 --policy numa --dry-run --topology "$T_DIR/other.xml"
	expect_rc 0
	expect_eq "unknown NIC is cache" "tx-0 0
tx-1 8
tx-2 1,9
tx-3 2
tx-4 10
tx-5 3,11
tx-6 4,12
tx-7 5,13
tx-8 6,14
tx-9 7,15" "$out"
	expect_eq "unknown NIC note" "note: eth0 is not in the topology: NUMA node unknown, the same as policy cache" "$errtext"
}

# Offline CPUs are mapped too. SMT off: CPUs 4-7 offline, in no cache
# hwloc knows. one-to-one: all 8 in order. cache, 2 queues: the L3's 4
# cores in 2 groups (0-1, 2-3); the offline CPUs in number order in equal
# runs: 4-5 to tx-0, 6-7 to tx-1 (each with its online sibling).
# 8 queues: 4 cores (< 8) 2 queues each, CPU 0-3 on tx-0, 2, 4, 6; the
# offline CPU i (of 4) on tx-(8i/4): 4 on tx-0, 5 tx-2, 6 tx-4, 7 tx-6.
test_tool_policy_offline_cpus() {
	fake_cpus 8
	fake_netdev eth0 2 igb 52:54:00:12:34:56 0000:01:00.0 0
	po_attached eth0 2
	xs auto eth0 --policy one-to-one --dry-run --topology "$TOPO/1s-4c-smt-off.xml"
	expect_rc 0
	expect_eq "one-to-one" "tx-0 0,2,4,6
tx-1 1,3,5,7" "$out"
	expect_eq "one-to-one notes" "" "$errtext"
	xs auto eth0 --policy cache --topology "$TOPO/1s-4c-smt-off.xml"
	expect_rc 0
	expect_eq "cache" "tx-0 0-1,4-5
tx-1 2-3,6-7" "$out"
	expect_eq "cache notes" "note: CPUs 4-7 are offline and hwloc does not know their caches: they go to the queues in number order, in equal runs" "$errtext"
	expect_eq "cache map file" "$out" "$(po_map eth0)"
	rm -rf "$(R /sys/class/net/eth0)" "$(R /sys/devices/pci0000:00)" \
		"$(R /sys/kernel)" "$(R /sys/module)"
	fake_netdev eth0 8 igb 52:54:00:12:34:56 0000:01:00.0 0
	xs auto eth0 --policy cache --dry-run --topology "$TOPO/1s-4c-smt-off.xml"
	expect_rc 0
	expect_eq "cache, 8 queues" "tx-0 0,4
tx-1
tx-2 1,5
tx-3
tx-4 2,6
tx-5
tx-6 3,7
tx-7" "$out"
	expect_eq "cache, 8 queues, notes" "note: CPUs 4-7 are offline and hwloc does not know their caches: they go to the queues in number order, in equal runs
note: tx-1, tx-3, tx-5, tx-7: no CPU (8 queues for 8 eligible CPUs)" "$errtext"
}

test_tool_policy_json() {
	fake_cpus 128 0-1,64-65
	fake_netdev eth0 3 mlx5_core 52:54:00:12:34:56 0000:c1:00.0 1
	xs auto eth0 --policy cache --dry-run --json --topology "$TOPO/2s-4l3-8c-smt2.xml"
	expect_rc 0
	expect_eq "stderr" "" "$errtext"
	# Package 0 has 60 eligible CPUs, package 1 64: 3 * 60/124 = 1.45,
	# 3 * 64/124 = 1.55 -> 1 and 1, the one left to package 1 (.55):
	# tx-0 package 0, tx-1 L3 4-5, tx-2 L3 6-7.
	expect_eq "json" 'eth0 cache 0:2-31,66-95 1:32-47,96-111 2:48-63,112-127
tx-0..tx-2: CPUs with no cache in common share a queue (3 queues for 8 L3 caches)
CPUs 0-1,64-65 (isolated or nohz_full) are in no queue: they keep the stock selection' \
		"$(jq -r '"\(.device) \(.policy) " + ([.queues[] | "\(.queue):\(.cpus)"] | join(" ")), .notes[]' "$T_DIR/out")"
}

# Only the queues in use are computed and written: 8 queues, 4 active.
test_tool_policy_active_queues_only() {
	fake_cpus 4
	fake_netdev eth0 4 igb 52:54:00:12:34:56 0000:01:00.0 0
	po_attached eth0 8 4
	printf 'tx-0\ntx-1\ntx-2\ntx-3\ntx-4 0\ntx-5 1\ntx-6 2\ntx-7 3\n' \
		>"$(R /sys/kernel/xps_steer/eth0/map)"
	xs auto eth0 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "table" "tx-0 0
tx-1 1
tx-2 2
tx-3 3" "$out"
	expect_eq "one write, active queues only" "$out" "$(po_map eth0)"
}

# The kernel backend with CPU 3 offline: the kernel would drop it from
# xps_cpus, so auto prints and writes the map without it, and says so.
# The module backend keeps it (the map file gets 2-3).
test_tool_policy_kernel_backend_offline() {
	fake_cpus 4
	echo 0-2 >"$(R /sys/devices/system/cpu/online)"
	fake_netdev eth1 2 bnx2x 52:54:00:aa:bb:02 0000:00:04.0
	fake_module "eth1 refused reason=own-select-queue"
	xs auto eth1 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "table" "tx-0 0-1
tx-1 2" "$out"
	expect_eq "stderr" "note: CPU 3 offline: the kernel's xps_cpus cannot hold it, so it is left out of the map written and compared (write the map again once it is online)
xps-steer: auto: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused the device); driver bnx2x may rewrite it on CPU hotplug or ethtool -L" "$errtext"
	expect_eq "tx-1" "$(hexmask 4 2)" "$(cat "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)")"
	# A CPU beyond the possible ones is not "offline": still refused.
	xs auto eth1 --policy one-to-one --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 1
	expect_eq "impossible CPU" "xps-steer: auto: eth1: tx-0: CPU 62 is not a possible CPU (0-3)" "$(grep 'not a possible' <<<"$errtext")"
	expect_eq "tx-1 untouched" "$(hexmask 4 2)" "$(cat "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)")"
	fake_netdev eth0 2 virtio_net 52:54:00:aa:bb:01 0000:00:03.0
	po_attached eth0 2
	xs auto eth0 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "module table" "tx-0 0-1
tx-1 2-3" "$out"
	expect_eq "module map" "tx-0 0-1
tx-1 2-3" "$(po_map eth0)"
}

# A device the module refused: the kernel's xps_cpus, queue by queue.
test_tool_policy_kernel_backend() {
	fake_cpus 4
	fake_netdev eth1 2 bnx2x 52:54:00:aa:bb:02 0000:00:04.0
	fake_module "eth1 refused reason=own-select-queue"
	xs auto eth1 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "table" "tx-0 0-1
tx-1 2-3" "$out"
	expect_eq "warning" "xps-steer: auto: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused the device); driver bnx2x may rewrite it on CPU hotplug or ethtool -L" "$errtext"
	expect_eq "tx-0" "$(hexmask 4 0-1)" "$(cat "$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)")"
	expect_eq "tx-1" "$(hexmask 4 2-3)" "$(cat "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)")"
}

test_tool_policy_bad_input() {
	fake_cpus 4
	fake_netdev eth0 4 igb 52:54:00:12:34:56 0000:01:00.0 0
	po_attached eth0 4
	xs auto eth0 --policy fastest --topology "$TOPO/1s-4c.xml"
	expect_rc 2
	expect_eq "unknown policy" "xps-steer: auto: policy 'fastest' is not one of one-to-one, cache, numa, irq" "$errtext"
	expect_eq "nothing printed" "" "$out"
	xs auto eth0 --dry-run
	expect_rc 2
	expect_eq "no policy" "xps-steer: auto: --policy is required
usage: xps-steer auto DEV --policy POLICY [--dry-run] [--json] [--topology FILE]" "$(head -n 2 <<<"$errtext")"
	xs auto --policy cache
	expect_rc 2
	xs auto eth0 eth1 --policy cache
	expect_rc 2
	xs auto eth0 --policy cache --bogus
	expect_rc 2
	xs auto eth9 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 3
	expect_eq "unknown device" "xps-steer: auto: eth9: no such device" "$errtext"
	fake_netdev eth2 2 igb 52:54:00:12:34:57 0000:01:00.1 0
	xs auto eth2 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 3
	expect_eq "not listed" "xps-steer: auto: eth2: not in xps_steer's device list: \`xps-steer attach eth2\` first (or --dry-run to see the map)" "$errtext"
	expect_eq "not listed, no table" "" "$out"
	xs auto eth0 --policy cache --topology "$T_DIR/missing.xml"
	expect_rc 1
	expect_eq "bad topology" "xps-steer: auto: $T_DIR/missing.xml: cannot load the topology (No such file or directory)" "$errtext"
	expect_eq "map untouched" "tx-0
tx-1
tx-2
tx-3" "$(po_map eth0)"
}

# The kernel's answer to a write comes back with its errno (here a
# directory for tx-1's xps_cpus: EISDIR); a topology with more CPUs than
# this machine's possible ones is refused before anything is written.
test_tool_policy_write_errors() {
	fake_cpus 4
	fake_netdev eth0 4 igb 52:54:00:12:34:56 0000:01:00.0 0
	fake_netdev eth1 2 bnx2x 52:54:00:aa:bb:02 0000:00:04.0
	fake_module "eth0 attached queues=4 active=4 hook=installed name=eth0" \
		"eth1 refused reason=own-select-queue"
	fake_attached eth0 4
	xs auto eth0 --policy cache --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 1
	expect_eq "impossible CPU" "xps-steer: auto: eth0: tx-0: CPU 39 is not a possible CPU (0-3)" "$errtext"
	expect_eq "map untouched" "tx-0
tx-1
tx-2
tx-3" "$(po_map eth0)"
	xs auto eth0 --policy cache --dry-run --topology "$TOPO/2s-16c-smt2.xml"
	expect_rc 0
	rm "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
	mkdir "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
	xs auto eth1 --policy cache --topology "$TOPO/1s-4c.xml"
	expect_rc 1
	expect_eq "rejected" "xps-steer: auto: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused the device); driver bnx2x may rewrite it on CPU hotplug or ethtool -L
xps-steer: auto: eth1: tx-1: xps_cpus write rejected (Is a directory)
xps-steer: auto: eth1: tx-0: written before tx-1 refused, now back as they were: the device's masks are unchanged" "$errtext"
	expect_eq "tx-0 put back" "$(hexmask 4 "")" "$(cat "$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)")"
}

# Ties go to the earlier choice. CPU 3 isolated, 2 queues: cache cuts
# the L3's 3 eligible cores where 1.5 would be: after core 0 or core 1,
# equally near: after core 0. numa (one node) is cache.
test_tool_policy_ties() {
	fake_cpus 4 3
	fake_netdev eth0 2 igb 52:54:00:12:34:56 0000:01:00.0 0
	xs auto eth0 --policy cache --dry-run --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "cache" "tx-0 0
tx-1 1-2" "$out"
	expect_eq "cache notes" "note: CPUs 3 (isolated or nohz_full) are in no queue: they keep the stock selection" "$errtext"
	xs auto eth0 --policy one-to-one --dry-run --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "one-to-one" "tx-0 0,2
tx-1 1" "$out"
}
