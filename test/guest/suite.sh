#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite.sh - the in-guest functional suite of xps_steer (KTAP output): the
# runner.  The tests live in one file per area (load.sh, steering.sh,
# badinput.sh, lifecycle.sh, queues.sh, params.sh, devlist.sh, foreign.sh,
# counters.sh, mapfile.sh, status.sh, events.sh, parity.sh, guard.sh, guard_drivers.sh), each
# declared by name
# with test_def; the helpers in lib.sh.
#
# Usage (in the guest): suite.sh [T=name[,name...]]   (default: all tests,
# in the order below); suite.sh --list prints the names in that order.
# Each test sets up its own fixture (fx_* helpers: idempotent), so any
# subset runs in any order.  An unknown name is a "Bail out!", exit 1.
#
# Runs inside the QEMU guest built by test/vm.sh (bash, kmod, iproute2,
# iperf3, ethtool, test/tools/* in /usr/local/bin, this directory as
# /test).  Every steering claim is checked per packet with the
# net/net_dev_start_xmit tracepoint: "[00N]" is the CPU that transmitted,
# queue_mapping the TX queue.  A check that sees fewer packets than were
# sent fails.
#
# Topology (fx_suite):
#   init netns: dum0 (dummy, 4 txq, 10.9.0.1/24)
#               veth0 (4 txq, 10.9.2.1/24)
#   netns ref:  dum1 (dummy, 4 txq, 10.9.0.1/24; kernel XPS = reference).
#               Same addresses as dum0, so udpflood with fixed source ports
#               sends the very same flows (same flow hashes) on both.
#   netns peer: veth1 (4 txq, 10.9.2.2/24), iperf3 servers.
# Exit status: 0 iff every selected test passed (skips excepted).

# The documented order (docs/testing.md), and the default selection.
SUITE_TESTS=(
	load_attach
	steer_one_to_one
	steer_shared_map
	steer_unmapped_cpus
	steer_veth_netns
	steer_vs_kernel_xps
	badinput_masks_privileges
	netns_writer_refused
	rmmod_under_tcp
	delete_attached_device
	store_race_unregister
	late_attach
	rename_follows_device
	name_collision_features
	refused_devices
	queues_ethtool_shrink
	queues_added_writable_at_once
	queues_masks_survive_regrow
	queues_inactive_files
	params_dev_validation
	unload_refused_while_attached
	dev_list_runtime
	dev_list_burst
	dev_list_bad_input
	steer_socket_cache
	offline_cpu_mask
	concurrent_writers
	counters_reconcile
	map_file_rules
	map_atomic_flip
	ops_copied_after_attach
	ops_copied_before_attach
	status_file
	status_hook
	uevents_attach
	rxqs_file_rules
	rxqs_steering
	rxqs_guarded
	traffic_classes
	guard_attach_requested
	guard_event_restore
	guard_mqprio_restore
	guard_kernel_write_undone
	guard_offline_cpu_readded
	guard_detach_leaves_map
	guard_interval_param
	guard_rename_remove
	guard_bnxlike_taken
	guard_bnxlike_reload
	guard_bnxlike_map_on_open
	guard_bnxlike_open_traffic
	guard_bnxlike_offline_reload
	guard_bnxlike_fight
	guard_opscheck_holds
	final_no_warnings
)

HERE=$(dirname "$0")
[ -r "$HERE/lib.sh" ] || HERE=/test
# shellcheck source=lib.sh
. "$HERE/lib.sh"
# shellcheck source=load.sh
. "$HERE/load.sh"
# shellcheck source=steering.sh
. "$HERE/steering.sh"
# shellcheck source=badinput.sh
. "$HERE/badinput.sh"
# shellcheck source=lifecycle.sh
. "$HERE/lifecycle.sh"
# shellcheck source=queues.sh
. "$HERE/queues.sh"
# shellcheck source=params.sh
. "$HERE/params.sh"
# shellcheck source=devlist.sh
. "$HERE/devlist.sh"
# shellcheck source=foreign.sh
. "$HERE/foreign.sh"
# shellcheck source=counters.sh
. "$HERE/counters.sh"
# shellcheck source=mapfile.sh
. "$HERE/mapfile.sh"
# shellcheck source=status.sh
. "$HERE/status.sh"
# shellcheck source=events.sh
. "$HERE/events.sh"
# shellcheck source=parity.sh
. "$HERE/parity.sh"
# shellcheck source=guard.sh
. "$HERE/guard.sh"
# shellcheck source=guard_drivers.sh
. "$HERE/guard_drivers.sh"

NQ=4		# tx queues of the multiqueue test devices
FLOWS=64	# flows per sender: P(some of 4 queues unused) ~ 4*(3/4)^64
PKTS=256	# UDP packets per CPU per check
PINGS=40	# ICMP echo requests per CPU per check
DST0=10.9.0.2	# via dum0 (and via dum1 inside netns ref)
DST2=10.9.2.2	# veth1 in netns peer

# fx_suite: the suite's topology, created or repaired (idempotent), every
# CPU online, the module not loaded.  Every test starts with it.
fx_suite() {
	xps_unload || return 1
	fx_cpus_online
	fx_netns - peer ref || return 1
	fx_dummy dum0 - 10.9.0.1 || return 1
	fx_dummy dum1 ref 10.9.0.1 || return 1
	fx_veth || return 1
	[ "$T_FAIL" = 0 ]
}

# fx_loaded PARAMS...: fx_suite, then the module freshly loaded with PARAMS.
fx_loaded() {
	fx_suite || return 1
	xps_load "$@"
}

# SUITE_TESTS lists exactly the tests the area files define.
if [ "$(printf '%s\n' "${SUITE_TESTS[@]}" | sort)" != "$(printf '%s\n' "${TEST_ORDER[@]}" | sort)" ]; then
	echo "Bail out! SUITE_TESTS (${SUITE_TESTS[*]}) differs from the tests defined (${TEST_ORDER[*]})"
	exit 1
fi
TEST_ORDER=("${SUITE_TESTS[@]}")
suite_args "$@"
case $? in 0) ;; 2) exit 0 ;; *) exit 1 ;; esac
if [ "$NR_CPU_IDS" != 4 ] || [ "$NCPU" != 4 ]; then
	echo "Bail out! the suite's masks assume 4 possible and online CPUs"
	exit 1
fi
for tool in xwrite udpflood iperf3 ip ethtool taskset modprobe; do
	command -v "$tool" >/dev/null || diag "WARNING: $tool not found in PATH"
done
trace_setup || diag "WARNING: no tracing: every steering check will fail"
run_selected suite
