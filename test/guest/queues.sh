# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# queues.sh - queue-count changes (ethtool -L on veth0): a tx-<n> for
# every one of num_tx_queues from attach on, queues that are not in use
# refuse writes (ENXIO) and are never used per packet, masks kept across
# a shrink and a regrow, added queues configurable at once (docs/bad-input.md
# rows S09, S10, S15), and the same through the map, xps_cpus_list,
# xps_rxqs, status and stats files (rows M22-M24, L07, L08, Q10).
# held_start/held_io come from lifecycle.sh, map_row/list_row/pace/M11
# from mapfile.sh, ctr_* from counters.sh, rqf/features_has from parity.sh.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def queues_ethtool_shrink "ethtool -L shrink: every tx-<n> stays, a removed queue keeps and shows its mask, refuses writes (ENXIO), and no packet uses a queue >= real_num_tx_queues"
test_def queues_added_writable_at_once "queues that ethtool -L adds take a mask at once, with no link event, and steer per packet"
test_def queues_masks_survive_regrow "masks survive ethtool -L 4 -> 2 -> 4 and steer again right after the regrow, no link bounce"
test_def queues_inactive_files "queues out of use (ethtool -L 4 -> 2) through the map, xps_cpus_list, xps_rxqs, status and stats files: writes refused (ENXIO), masks kept, active queues shown, their CPUs' packets counted as queue_inactive"

# ethtool_L DEV N: ethtool -L DEV tx N; a veth without channel support
# (older kernels) makes the test skip, any other failure fails it.
ethtool_L() {
	if ethtool -L "$1" tx "$2" >"$W/ethtool.out" 2>&1; then
		diag "ethtool -L $1 tx $2: $1 now has $(txq_count "$1") tx queues"
		return 0
	fi
	if grep -qi 'not supported' "$W/ethtool.out"; then
		skip "ethtool -L unsupported on $1: $(head -n 1 "$W/ethtool.out")"
	else
		fail "ethtool -L $1 tx $2 failed"
		diag_file "$W/ethtool.out"
	fi
	return 1
}

# link_settled DEV: DEV has its carrier (veth's ethtool -L drops and
# restores it), then 1 s more, so that linkwatch has handled the change
# (NETDEV_CHANGE: an earlier module refreshed its tree there, so
# what is checked afterwards does not depend on who ran first).
link_settled() {
	wait_until 5 carrier_on "$1" || { fail "$1 has no carrier 5 s after ethtool -L"; return 1; }
	sleep 1
}

# no_capped_queue: the core never had to cap a queue the hook chose (it
# logs "<dev> selects TX queue N, but real number of TX queues is M").
no_capped_queue() {
	if klog_has "selects TX queue"; then
		fail "the kernel capped an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
		return 1
	fi
	return 0
}

# enxio_logged Q: the log since the row mark has veth0's "not in use"
# rejection of tx-Q.
enxio_logged() {
	local l
	l=$(row_log "veth0: tx-$1: xps_cpus write rejected")
	case $l in
	*"veth0: tx-$1: xps_cpus write rejected"*"not in use"*) diag "log: $l" ;;
	*) fail "no 'veth0: tx-$1: xps_cpus write rejected ... not in use' log line (log: $l)" ;;
	esac
}

t_queues_ethtool_shrink() {
	local pw ow r
	fx_loaded dev=veth0 || return
	klog_mark
	expect_tree veth0 "$NQ" || return
	ethtool -l veth0 >"$W/ethtool.out" 2>&1
	diag "ethtool -l veth0:"
	diag_file "$W/ethtool.out" 12
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	# A descriptor opened on tx-3 now, written ("3") after the shrink,
	# when the flag file is removed.
	: >"$W/shrink.flag"
	held_start "$W/shrink.flag" "$(xf veth0 3)"
	pw=$HELD_PID ow=$HELD_OUT
	SHRINK_HELD=$pw
	ethtool_L veth0 2 || return
	link_settled veth0 || return
	# S10: a write through the descriptor opened before the shrink is
	# refused (the file was never removed).
	row_mark
	rm -f "$W/shrink.flag"
	held_io S10 "$pw" "$ow" "err ENXIO"
	[ "$(cat "$ow")" != "err ENXIO" ] || enxio_logged 3
	# Masks still name tx-2/tx-3 (CPUs 2, 3): those packets must fall back
	# to the stock selection, below real_num_tx_queues.
	udp_all - veth0 "$DST2" "0:0 1:1 2:0,1 3:0,1"
	steer_check "UDP with 2 of 4 queues in use" veth0 "$NQ" 0 "$SPEC"
	no_capped_queue
	# Every tx-<n> stays while the device is attached.
	expect_tree veth0 "$NQ"
	# S09: a queue out of use still shows its mask.
	row_mark
	r=$(xwrite -R -- "$(xf veth0 3)" - 2>&1)
	rd "$(xf veth0 3)"
	if [ "$r" = "ok 2" ] && [ "$RD" = "8$NL" ]; then
		row S09 "$r" xps_cpus
	else
		fail "reading tx-3 after the shrink: '$r', content '$(show "$RD")' (expected 'ok 2', '8\\n': the mask kept)"
	fi
	# S15: a write to it is refused, logged, and changes nothing.
	row_mark
	xw - "$(xf veth0 3)" 1
	rd "$(xf veth0 3)"
	if [ "$XW" = "err ENXIO" ] && [ "$RD" = "8$NL" ]; then
		enxio_logged 3
		row S15 "$XW" xps_cpus
	else
		fail "writing 1 to tx-3 after the shrink: '$XW', then reads '$(show "$RD")' (expected 'err ENXIO', '8\\n')"
	fi
	xw - "$(xf veth0 2)" 1
	[ "$XW" = "err ENXIO" ] || fail "writing 1 to tx-2 after the shrink: '$XW', expected 'err ENXIO'"
	expect_masks veth0 "${MAP[@]}"
}

SHRINK_HELD=
t_queues_ethtool_shrink_cleanup() {
	[ -z "$SHRINK_HELD" ] || kill "$SHRINK_HELD" 2>/dev/null
	SHRINK_HELD=
	rm -f "$W/shrink.flag"
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = "$NQ" ] || ethtool -L veth0 tx "$NQ"
	ip link set veth0 up
}

# Added queues without any event: veth0 attached with 2 of its 4 queues
# in use, then grown while it is down, so that no notifier runs at all
# (as with a NIC whose ethtool -L sends none; a running veth drops and
# restores its carrier, and the old module refreshed its tree on that).
t_queues_added_writable_at_once() {
	local n
	fx_suite || return
	ethtool_L veth0 2 || return
	link_settled veth0 || return
	klog_mark
	xps_load dev=veth0 || return
	# A tx-<n> for each of num_tx_queues from attach on; the ones not in
	# use show their (empty) mask and refuse writes.
	expect_tree veth0 "$NQ"
	expect_masks veth0 0 0 0 0
	row_mark
	xw - "$(xf veth0 2)" 4
	if [ "$XW" = "err ENXIO" ]; then
		enxio_logged 2
	else
		fail "writing 4 to tx-2 with 2 queues in use gave '$XW', expected 'err ENXIO'"
	fi
	must ip link set veth0 down || return
	must ethtool -L veth0 tx "$NQ" || return
	n=$(txq_count veth0)
	[ "$n" = "$NQ" ] || { fail "veth0 has $n tx queues after ethtool -L veth0 tx $NQ"; return; }
	# At once: no link event came, the new queues take their masks.
	map11 "$NQ"
	write_masks - xf veth0 "${MAP[@]}"
	expect_masks veth0 "${MAP[@]}"
	must ip link set veth0 up || return
	veth_neigh
	wait_until 5 ping_ok - "$DST2" || { fail "veth0 -> veth1 does not answer ping after up"; return; }
	# Each CPU on its queue, tx-2 and tx-3 included.
	udp_all - veth0 "$DST2" "0:0 1:1 2:2 3:3"
	steer_check "UDP, masks written to added queues" veth0 "$NQ" 0 "$SPEC"
	no_capped_queue
}

t_queues_added_writable_at_once_cleanup() {
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = "$NQ" ] || ethtool -L veth0 tx "$NQ"
	ip link set veth0 up
}

# A mask written while the queue is in use is kept while ethtool -L has
# taken the queue away (no packet uses it then) and is used again as soon
# as the queue is back: no new write, no link bounce.
t_queues_masks_survive_regrow() {
	fx_loaded dev=veth0 || return
	klog_mark
	expect_tree veth0 "$NQ" || return
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	udp_all - veth0 "$DST2" "0:0 1:1 2:2 3:3"
	steer_check "UDP, 4 queues" veth0 "$NQ" 0 "$SPEC" || return
	ethtool_L veth0 2 || return
	link_settled veth0 || return
	udp_all - veth0 "$DST2" "0:0 1:1 2:0,1 3:0,1"
	steer_check "UDP, 2 of 4 queues in use" veth0 "$NQ" 0 "$SPEC"
	expect_masks veth0 "${MAP[@]}"
	ethtool_L veth0 "$NQ" || return
	wait_until 5 carrier_on veth0 || { fail "veth0 has no carrier after ethtool -L veth0 tx $NQ"; return; }
	# Right after the regrow: CPUs 2 and 3 are back on tx-2 and tx-3.
	udp_all - veth0 "$DST2" "0:0 1:1 2:2 3:3"
	steer_check "UDP right after the regrow to $NQ queues" veth0 "$NQ" 0 "$SPEC"
	expect_masks veth0 "${MAP[@]}"
	no_capped_queue
}

t_queues_masks_survive_regrow_cleanup() {
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = "$NQ" ] || ethtool -L veth0 tx "$NQ"
	ip link set veth0 up
}

# The files beside xps_cpus on queues out of use (docs/bad-input.md rows
# M22-M24, L07, L08, Q10): kept apart from those files' own tests because
# veth has no ethtool -L before 5.11, where this test is skipped.
t_queues_inactive_files() {
	local st
	fx_loaded dev=dum0,veth0 || return

	# tx-2 and tx-3 keep what they had before the shrink: empty here.
	ethtool_L veth0 2 || return
	set_masks veth0 1 2 || return
	map_is veth0 'tx-0 0\ntx-1 1\ntx-2\ntx-3\n' || return
	ethtool_L veth0 "$NQ" || return
	set_masks veth0 1 2 4 8 || return
	ethtool_L veth0 2 || return
	link_settled veth0 || return
	map_is veth0 "$M11" || return

	st=$(grep '^veth0 ' /sys/module/xps_steer/status)
	if [ "$st" != "veth0 attached queues=$NQ active=2 hook=installed name=veth0 mode=steer" ]; then
		fail "status of veth0 with 2 of $NQ queues active: '$st'"
		return
	fi
	diag "status: $st"

	# CPUs 2 and 3 map to queues out of use: the stock selection, counted.
	ctr_around veth0 udp_all - veth0 "$DST2" "0:0 1:1 2:0,1 3:0,1" || return
	steer_check "UDP, 2 of $NQ queues" veth0 "$NQ" 0 "$SPEC" || return
	ctr_expect "queues 2-3 out of use" "$W/delta" \
		"steered=$(($(tbl_count cpu=0) + $(tbl_count cpu=1))) tx-0=$(tbl_count cpu=0 queue=0) tx-1=$(tbl_count cpu=1 queue=1) queue_inactive=$(($(tbl_count cpu=2) + $(tbl_count cpu=3)))" || return

	pace_reset
	map_row M22 veth0 "$M11" 'tx-0 1\ntx-1 0\ntx-2 2\ntx-3 3\n' "ok 28" 'tx-0 1\ntx-1 0\ntx-2 2\ntx-3 3\n' || return
	map_row M23 veth0 "$M11" 'tx-0 1' "ok 6" 'tx-0 1\ntx-1\ntx-2 2\ntx-3 3\n' || return
	pace; map_row M24 veth0 "$M11" 'tx-0 1\ntx-3 0-3\n' "err ENXIO" = || return
	pace; list_row L07 veth0 3 - '0' "err ENXIO" 3 8 || return
	list_row L08 veth0 1 2 '0' "ok 1" 0 1 || return

	if features_has sk_rx_queue_get; then
		pace
		row_mark
		xw - "$(rqf veth0 3)" 1
		rdn - "$(rqf veth0 3)"
		if [ "$XW" != "err ENXIO" ] || [ "$RD" != "0$NL" ]; then
			fail "xps_rxqs of veth0 tx-3 out of use: write gave '$XW' (expected 'err ENXIO'), reads '$(show "$RD")' (expected 0)"
			return
		fi
		row Q10 "$XW" xps_rxqs
	else
		diag "xps_rxqs: refuses every write on this kernel (rxqs_file_rules), so row Q10 does not apply"
	fi
	ethtool_L veth0 "$NQ"
}

t_queues_inactive_files_cleanup() {
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = "$NQ" ] || ethtool -L veth0 tx "$NQ"
	ip link set veth0 up
}
