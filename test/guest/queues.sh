# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# queues.sh - queue-count changes (ethtool -L on veth0) and the window
# before the tree refresh.  held_start/held_io come from lifecycle.sh.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def queues_ethtool_shrink "queue count change with ethtool -L: never a queue beyond real_num_tx_queues"
test_def queues_shrink_window "shrink window: before the tree refresh, no queue >= real_num_tx_queues"

t_queues_ethtool_shrink() {
	local pw ow r m
	fx_loaded dev=veth0 || return
	klog_mark
	expect_tree veth0 "$NQ" || return
	ethtool -l veth0 >"$W/ethtool.out" 2>&1
	diag "ethtool -l veth0:"
	diag_file "$W/ethtool.out" 12
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	row_mark
	held_start "$XS/veth0/tx-3" "$(xf veth0 3)"
	pw=$HELD_PID ow=$HELD_OUT
	if ! ethtool -L veth0 tx 2 >"$W/ethtool.out" 2>&1; then
		if grep -qi 'not supported' "$W/ethtool.out"; then
			skip "ethtool -L unsupported on veth: $(head -n 1 "$W/ethtool.out")"
		else
			fail "ethtool -L veth0 tx 2 failed"
			diag_file "$W/ethtool.out"
		fi
		return
	fi
	diag "ethtool -L veth0 tx 2: veth0 now has $(txq_count veth0) tx queues"
	# Masks still name tx-2/tx-3 (CPUs 2, 3): those packets must fall back
	# below real_num_tx_queues, before any tree refresh.
	klog_mark
	udp_all - veth0 "$DST2" "0:0 1:1 2:0,1 3:0,1"
	steer_check "UDP with 2 queues" veth0 "$NQ" 0 "$SPEC"
	if klog_has "selects TX queue"; then
		fail "the kernel capped an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
	fi
	must ip link set veth0 down
	must ip link set veth0 up
	expect_tree veth0 2 && diag "after down/up: masks $(read_masks veth0 2)"
	held_io S10 "$pw" "$ow"
	row_mark
	xw - "$(xf veth0 3)" 8
	r=$(xwrite -R -- "$(xf veth0 3)" - 2>&1)
	if [ "$XW" = "err ENOENT" ] && [ "$r" = "err ENOENT" ]; then
		row S09 "$XW" xps_cpus
	else
		fail "tx-3 after the shrink: write '$XW', read '$r', expected 'err ENOENT' for both"
	fi
	must ethtool -L veth0 tx "$NQ" || return
	must ip link set veth0 down
	must ip link set veth0 up
	veth_neigh
	expect_tree veth0 "$NQ" || return
	m=$(read_masks veth0 "$NQ")
	case $m in
	*" 0 0") diag "regrown: masks $m" ;;
	*) fail "regrown tx-2, tx-3 should read 0: masks $m" ;;
	esac
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	udp_all - veth0 "$DST2" "0:0 1:1 2:2 3:3"
	steer_check "UDP after regrow" veth0 "$NQ" 0 "$SPEC"
}

t_queues_ethtool_shrink_cleanup() {
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = "$NQ" ] || ethtool -L veth0 tx "$NQ"
	ip link set veth0 up
}

# The shrink window: after ethtool -L has lowered real_num_tx_queues and
# before the NETDEV_CHANGE that makes xps_steer drop the vanished queues
# from its map, the map still names tx-2/tx-3 for CPUs 2/3.  The hook must
# then not answer >= real_num_tx_queues (the core would log "selects TX
# queue" and use queue 0).  The window is short and its timing is up to
# linkwatch, so it is measured, not assumed: kprobes mark when
# netif_set_real_num_tx_queues(veth0, 2) stored the new count (its
# synchronize_net(), which follows the store, as synchronize_rcu_expedited)
# or returned, and when
# netdev_state_change(veth0) ran; packets in between are the window's.
# The synchronize_net() wait is what puts packets in it: under
# single-threaded TCG the vCPUs take turns, so other CPUs' senders run
# while the shrinking task sleeps there, rarely in the few microseconds
# after it returns.  Each CPU's first frame in a window is left out (it
# may have chosen its queue before the store).
KP_GROUP=xps_suite
WIN_PIDS=()
kprobes_del() {	# remove this test's kprobe events, if there are any
	local k
	[ ! -e "$TR/events/$KP_GROUP/enable" ] || echo 0 >"$TR/events/$KP_GROUP/enable"
	for k in setq sync setq_ret change; do
		grep -q "^[pr]:$KP_GROUP/$k " "$TR/kprobe_events" &&
			echo "-:$KP_GROUP/$k" >>"$TR/kprobe_events"
	done
}

t_queues_shrink_window() {
	local c cycles wins p inwin
	if [ ! -w "$TR/kprobe_events" ]; then
		skip "no kprobe_events in tracefs: cannot locate the window"
		return
	fi
	fx_loaded dev=veth0 || return
	klog_mark
	expect_tree veth0 "$NQ" || return
	if ! ethtool -l veth0 >"$W/ethtool.out" 2>&1 && grep -qi 'not supported' "$W/ethtool.out"; then
		skip "ethtool -L unsupported on veth: $(head -n 1 "$W/ethtool.out")"	# as queues_ethtool_shrink
		return
	fi
	kprobes_del	# left over by an earlier run of this test
	# The device is known by its pointer: since 6.8 (net_device cacheline
	# groups) its name is no longer at offset 0.  Only veth0 shrinks to 2.
	if ! { echo "p:$KP_GROUP/setq netif_set_real_num_tx_queues dev=%di:x64 txq=%si:u32" &&
	       echo "r:$KP_GROUP/setq_ret netif_set_real_num_tx_queues ret=\$retval:s32" &&
	       echo "p:$KP_GROUP/change netdev_state_change dev=%di:x64"; } \
	    >>"$TR/kprobe_events" 2>"$W/kprobe.err"; then
		skip "cannot add kprobes: $(head -n 1 "$W/kprobe.err")"
		return
	fi
	# synchronize_net() is inlined into its caller; under the RTNL it is
	# synchronize_rcu_expedited(). Without this probe (a kernel that
	# cannot probe it) the windows start at setq_ret only.
	echo "p:$KP_GROUP/sync synchronize_rcu_expedited" >>"$TR/kprobe_events" 2>"$W/kprobe.err" ||
		diag "no kprobe on synchronize_rcu_expedited ($(head -n 1 "$W/kprobe.err")): windows start when the shrink returns"
	# Packets of veth0 between sync or setq_ret (after setq veth0 txq=2,
	# same task) and the next change for veth0: "cpu queue count" lines, plus the
	# number of windows on stderr.  One trace per cycle: the floods fill
	# the buffer fast.
	echo 16384 >"$TR/buffer_size_kb"
	echo 1 >"$TR/events/$KP_GROUP/enable"
	WIN_PIDS=()
	map11 "$NQ"
	for c in 2 3; do
		taskset "$(cpumask $c)" udpflood -d "$DST2" -f "$FLOWS" -n 100000000 \
			>"$W/wflood.$c" 2>&1 &
		WIN_PIDS+=($!)
	done
	: >"$W/tbl.win.all"
	cycles=0
	wins=0
	while [ $cycles -lt 6 ]; do
		set_masks veth0 "${MAP[@]}" || break
		trace_start veth0
		must ethtool -L veth0 tx 2 || break
		sleep 0.1
		trace_stop
		must ethtool -L veth0 tx "$NQ" || break
		wait_until 3 test -e "$(xf veth0 3)" ||
			{ fail "tx-3 did not come back after growing to $NQ queues"; break; }
		awk '
			/^#/ { next }
			{ task = $1; sub(/.*-/, "", task) }
			/ setq: / && / txq=2/ { match($0, /dev=0x[0-9a-f]+/); pending[task] = substr($0, RSTART, RLENGTH); next }
			/ sync: / && pending[task] != "" { if (!inwin) { wins++; split("", seen) } wdev = pending[task]; inwin = 1; next }
			/ setq_ret: / && pending[task] != "" { if (!inwin) { wins++; split("", seen) } wdev = pending[task]; pending[task] = ""; inwin = 1; next }
			/ change: / { match($0, /dev=0x[0-9a-f]+/); if (substr($0, RSTART, RLENGTH) == wdev) inwin = 0; next }
			inwin && / dev=veth0 / {
				match($0, /\[[0-9]+\] /); cpu = substr($0, RSTART + 1, RLENGTH - 3) + 0
				# A CPU descheduled between choosing a queue and
				# handing the frame over may finish that frame after
				# the store: its first frame in a window is not
				# counted. The frames after it chose later (a
				# sender CPU transmits one frame at a time).
				if (!seen[cpu]++) next
				match($0, /queue_mapping=[0-9]+/); q = substr($0, RSTART + 14, RLENGTH - 14) + 0
				n[cpu " " q]++
			}
			END {
				for (k in n) print k, n[k]
				print wins + 0 >"/dev/stderr"
			}' "$W/trace.txt" 2>"$W/win.count" >>"$W/tbl.win.all"
		wins=$((wins + $(cat "$W/win.count")))
		cycles=$((cycles + 1))
	done
	for p in "${WIN_PIDS[@]}"; do kill "$p"; wait "$p"; done
	WIN_PIDS=()
	echo 0 >"$TR/events/$KP_GROUP/enable"
	echo 4096 >"$TR/buffer_size_kb"
	awk '{ n[$1 " " $2] += $3 } END { for (k in n) print k, n[k] }' "$W/tbl.win.all" |
		sort -n >"$W/tbl.win"
	inwin=$(awk '$1 >= 2 { t += $3 } END { print t + 0 }' "$W/tbl.win")
	diag "$cycles shrink cycles, $wins windows seen, $inwin packets from CPUs 2-3 inside them"
	[ "$wins" -gt 0 ] || fail "the kprobes saw no shrink of veth0 to 2 queues"
	if klog_has "selects TX queue"; then
		fail "the core had to cap an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
	fi
	if [ "$inwin" -gt 0 ]; then
		check_tbl "$W/tbl.win" "$NQ" 0 0 "2:0,1 3:0,1" | awk '{ print "# window: " $0 }'
		check_tbl "$W/tbl.win" "$NQ" 0 0 "2:0,1 3:0,1" >/dev/null ||
			fail "packets in the window used a queue >= real_num_tx_queues"
	elif [ "$T_FAIL" = 0 ]; then
		skip "no packet from CPUs 2-3 fell inside the $wins windows (linkwatch was faster)"
	fi
}

t_queues_shrink_window_cleanup() {
	local p
	for p in "${WIN_PIDS[@]}"; do kill "$p"; done
	echo 0 >"$TR/events/$KP_GROUP/enable"
	echo 4096 >"$TR/buffer_size_kb"
	kprobes_del
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = "$NQ" ] || ethtool -L veth0 tx "$NQ"
}
