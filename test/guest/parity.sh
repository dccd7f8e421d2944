# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# parity.sh - what the kernel's XPS does beyond CPU masks, and xps_steer
# must do too: receive-queue maps (tx-<n>/xps_rxqs), tried before the CPU
# map for a socket that recorded its receive queue, and traffic classes
# (mqprio), inside which a packet is steered. Each per packet, and against
# the kernel's own XPS under the same conditions; bad input in
# docs/bad-input.md, rows Q01-Q11 and C01-C06.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def rxqs_file_rules "xps_rxqs: the kernel's format, checks and errnos (differential), privileges, other namespaces (queues out of use: queues_inactive_files)"
test_def rxqs_steering "xps_rxqs per packet: a TCP socket's receive queue picks its queue before the CPU map, as with the kernel's xps_rxqs; counted as steered_by_rxqs"
test_def rxqs_guarded "xps_rxqs in guard mode: written into the kernel's own rxqs map, and restored after the kernel's file is overwritten (or refused, with the reason, on kernels whose rxqs map guard mode does not keep)"
test_def traffic_classes "mqprio per packet: each priority steered inside its class, a CPU without a queue in the class left to the stock selection and counted; queues in no class refused like the kernel's; masks kept across qdisc changes"

rqf() { echo "$XS/$1/tx-$2/xps_rxqs"; }			# DEV Q
krqf() { echo "/sys/class/net/$1/queues/tx-$2/xps_rxqs"; }	# DEV Q

# ID and input (xwrite escapes) written to tx-1/xps_rxqs of dum0 and of
# dum1 (the kernel's), both with 4 receive queues; @empty is no byte.
RXQS_INPUTS='Q01 3
Q02 f
Q03 \n
Q04 10
Q05 1f
Q06 g
Q07 0,1
Q08 @empty'

t_rxqs_file_rules() {
	local id inp n=0 ra rb a b
	fx_loaded dev=dum0,veth0 || return
	if ! features_has sk_rx_queue_get; then
		# The file is there, refuses writes and says why.
		row_mark
		xw - "$(rqf dum0 1)" 3
		[ "$XW" = "err EOPNOTSUPP" ] ||
			fail "xps_rxqs write on a kernel whose sockets record no receive queue gave '$XW', expected 'err EOPNOTSUPP'"
		diag "log: $(row_log)"
		skip "this kernel's sockets do not record their receive queue (no sk_rx_queue_get): xps_rxqs refuses writes"
		return
	fi
	diag "inputs written to tx-1/xps_rxqs of both, each after presetting both to 5:"
	while read -r id inp; do
		[ "$inp" != @empty ] || inp=
		pace
		row_mark
		CMP_FILE=xps_rxqs cmp_write "$inp" 1 5 && row "$id" "$CMP_RES" 'tx-1: xps_rxqs'
		n=$((n + 1))
	done <<EOF
$RXQS_INPUTS
EOF
	diag "$n inputs written identically to both files"

	# Not logged without privilege, like xps_cpus (S01).
	if choose_priv; then
		xw - "$(rqf dum0 1)" 5
		xw ref "$(krqf dum1 1)" 5
		row_mark
		ra=$(in_ns - "${PRIV_NOCAP[@]}" xwrite -- "$(rqf dum0 1)" 3 2>&1)
		rb=$(in_ns ref "${PRIV_NOCAP[@]}" xwrite -- "$(krqf dum1 1)" 3 2>&1)
		rdn - "$(rqf dum0 1)"; a=$RD
		rdn ref "$(krqf dum1 1)"; b=$RD
		if [ "$ra" != "err EPERM" ] || [ "$rb" != "$ra" ]; then
			fail "write without CAP_NET_ADMIN: xps_steer '$ra', kernel '$rb', expected 'err EPERM' from both"
		elif [ "$a" != "5$NL" ] || [ "$b" != "5$NL" ]; then
			fail "write without CAP_NET_ADMIN changed a mask: xps_steer '$(show "$a")', kernel '$(show "$b")'"
		else
			row Q09 "$ra" xps_rxqs
		fi
	fi

	# A root writer in another network namespace.
	pace
	row_mark
	xw ref "$(rqf dum0 1)" 3
	rdn - "$(rqf dum0 1)"
	if [ "$XW" != "err EPERM" ] || [ "$RD" != "5$NL" ]; then
		fail "xps_rxqs written from netns ref gave '$XW' (expected 'err EPERM'), dum0 tx-1 reads '$(show "$RD")' (expected 5)"
	else
		row Q11 "$XW" xps_rxqs
	fi
}

# features_has NAME: the module's compile probe NAME found its interface.
features_has() {
	grep -qx "$1 yes" /sys/module/xps_steer/features
}

# rx_run LABEL K: tcprr between a server on CPU 0 in the initial
# namespace and 8 client connections in netns peer, whose veth1 sends on
# its queue K from every CPU (the kernel's XPS on veth1). veth hands the
# frame over with queue_mapping K, which the receiving stack reads as a
# recorded receive queue K - 1 (veth does not record one itself): every
# socket of the server has receive queue K - 1. Leaves the trace of
# veth0 in $W/rx.LABEL.tbl ("cpu queue count") and the server's
# counter deltas in $W/rx.LABEL.delta.
rx_run() {
	local label=$1 k=$2 q m spid rc
	for ((q = 0; q < NQ; q++)); do
		m=0
		[ "$q" != "$k" ] || m=f
		xw peer "$(kf veth1 "$q")" "$m"
		[ "$XW" = "ok 1" ] || { fail "veth1 tx-$q xps_cpus: '$XW'"; return 1; }
	done
	(exec taskset 1 tcprr -s -p 9100 >"$W/rrs.out" 2>&1 </dev/null) &
	spid=$!
	wait_until 15 listening - 238C || { fail "tcprr server not listening"; kill "$spid"; return 1; }
	[ ! -d "$XS/veth0" ] || ctr_snap veth0 "$W/c0" || return 1
	trace_start veth0
	in_ns peer taskset 8 tcprr -c 10.9.2.1 -p 9100 -f 8 -t 2 >"$W/rrc.out" 2>&1
	rc=$?
	sleep 0.5	# the server's FINs
	trace_stop
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	if [ "$rc" != 0 ]; then
		fail "$label: tcprr client failed (rc=$rc)"
		diag_file "$W/rrc.out"
		return 1
	fi
	trace_table veth0 >"$W/rx.$label.tbl"
	if [ -d "$XS/veth0" ]; then
		ctr_snap veth0 "$W/c1" || return 1
		ctr_delta "$W/c0" "$W/c1" >"$W/rx.$label.delta"
	fi
	diag "$label: veth1 sends on tx-$k, so the server's sockets have receive queue $((k - 1)); $(tbl_total "$W/rx.$label.tbl") packets on veth0:"
	tbl_matrix "$W/rx.$label.tbl" "$NQ"
}

# rx_same LABEL CPU: CPU used the same queues in the kernel's run and ours.
rx_same() {
	local a b
	a=$(tbl_queues "$W/rx.kernel-$1.tbl" "$2")
	b=$(tbl_queues "$W/rx.ours-$1.tbl" "$2")
	if [ "$a" != "$b" ]; then
		fail "$1 cpu$2: the kernel's xps_rxqs used queues {$a}, xps_steer {$b}"
		return 1
	fi
	diag "$1 cpu$2: queues {$b} with both"
}

t_rxqs_steering() {
	local c moved
	# veth0 not attached yet: first the kernel's own maps as the reference.
	fx_loaded dev=dum0 || return
	if ! features_has sk_rx_queue_get; then
		skip "this kernel's sockets do not record their receive queue (no sk_rx_queue_get)"
		return
	fi
	# CPU map: CPUs 0 and 3 -> tx-3 (the server's and the client's CPU:
	# ACKs sent in softirq on CPU 3 must not cache another queue in the
	# socket). Receive-queue map: receive queue 1 -> tx-1.
	kset_masks - veth0 0 0 0 9 || return
	must xwrite -- "$(krqf veth0 1)" 2 || return
	rx_run kernel-rxq1 2 || return
	rx_run kernel-rxq2 3 || return
	kset_masks - veth0 0 0 0 0 || return
	must xwrite -- "$(krqf veth0 1)" 0 || return

	# The same maps in xps_steer, attached at runtime.
	xw - "$DEVP" dum0,veth0
	[ "$XW" = "ok 10" ] || { fail "attaching veth0 through dev= gave '$XW'"; return; }
	set_masks veth0 0 0 0 9 || return
	xw - "$(rqf veth0 1)" 2
	[ "$XW" = "ok 1" ] || { fail "veth0 tx-1/xps_rxqs: '$XW'"; return; }
	rx_run ours-rxq1 2 || return
	rx_run ours-rxq2 3 || return

	# Receive queue 1 is mapped: every packet of the server's sockets,
	# from whichever CPU, goes to tx-1 and not to CPU 0's tx-3.
	check_tbl "$W/rx.ours-rxq1.tbl" "$NQ" 0 0 "0:1:20 1:1 2:1 3:1" >"$W/chk.out" ||
		fail "receive queue 1: packets off tx-1"
	diag_file "$W/chk.out"
	moved=$(awk '$1 == "steered_by_rxqs" { print $2 }' "$W/rx.ours-rxq1.delta")
	[ "${moved:-0}" -gt 0 ] || fail "receive queue 1: steered_by_rxqs did not move"
	diag "receive queue 1: steered_by_rxqs +$moved"
	for c in "${CPUS[@]}"; do
		rx_same rxq1 "$c"
	done

	# Receive queue 2 is in no mask: the CPU map decides (CPUs 0 and 3
	# -> tx-3).
	check_tbl "$W/rx.ours-rxq2.tbl" "$NQ" 0 0 "0:3:20 3:3" >"$W/chk.out" ||
		fail "receive queue 2 (no mask): packets of CPUs 0 and 3 off tx-3"
	diag_file "$W/chk.out"
	moved=$(awk '$1 == "steered_by_rxqs" { print $2 }' "$W/rx.ours-rxq2.delta")
	[ "${moved:-0}" = 0 ] || fail "receive queue 2 (no mask): steered_by_rxqs moved by $moved"
	rx_same rxq2 0
	rx_same rxq2 3
}

# veth1 back to the kernel's default (no XPS map), veth0's maps cleared.
t_rxqs_steering_cleanup() {
	local q
	for ((q = 0; q < NQ; q++)); do
		in_ns peer sh -c "echo 0 > $(kf veth1 "$q")"
		echo 0 >"$(kf veth0 "$q")"
		echo 0 >"$(krqf veth0 "$q")"
	done
	return 0
}

# A CPU's queues per class, with dum0's masks 3 c 5 2 (tx-0: CPUs 0-1,
# tx-1: 2-3, tx-2: 0 and 2, tx-3: 1) and classes tx-0..1 (priorities
# 0-3) and tx-2..3 (4-15): CPU 3 has no queue in class 1, so its
# priority-4 packets go to the stock selection, which hashes inside the
# class.
TC_QDISC=(mqprio num_tc 2 map 0 0 0 0 1 1 1 1 1 1 1 1 1 1 1 1 queues 2@0 2@2 hw 0)
TC_SPEC_PRIO0='0:0 1:0 2:1 3:1'
TC_SPEC_PRIO4='0:2 1:3 2:2 3:2,3'

# tc_flood PRIO QSPEC: one pinned udpflood per CPU at priority PRIO on
# dum0 and on dum1 (same flows); per packet against QSPEC on both, and the same
# queue set per CPU on both.
tc_flood() {
	local prio=$1 qspec=$2 c s0='' s1='' allowed u0 u1
	trace_start dum0 dum1
	for c in "${CPUS[@]}"; do
		allowed=$(echo "$qspec" | tr ' ' '\n' | awk -F: -v c="$c" '$1 == c { print $2 }')
		flood - "$c" "$DST0" "$FLOWS" "$PKTS" -P 20000 -q "$prio" || break
		s0="$s0 $c:$allowed:$SENT"
		flood ref "$c" "$DST0" "$FLOWS" "$PKTS" -P 20000 -q "$prio" || break
		s1="$s1 $c:$allowed:$SENT"
	done
	trace_stop
	steer_check "priority $prio xps_steer" dum0 "$NQ" 1 "$s0"
	steer_check "priority $prio kernel-XPS" dum1 "$NQ" 1 "$s1"
	for c in "${CPUS[@]}"; do
		u0=$(tbl_queues "$W/tbl.dum0" "$c")
		u1=$(tbl_queues "$W/tbl.dum1" "$c")
		[ "$u0" = "$u1" ] ||
			fail "priority $prio cpu$c: xps_steer used queues {$u0}, kernel XPS {$u1}"
	done
}

# class_row ID FILE INPUT WANT-RESULT: write INPUT to dum0's FILE (a path
# under $XS/dum0); catalogue row ID.
class_row() {
	pace
	row_mark
	xw - "$XS/dum0/$2" "$3"
	if [ "$XW" != "$4" ]; then
		fail "$1: writing '$(show "$3")' to dum0/$2 gave '$XW', expected '$4'"
		diag "log: $(row_log)"
		return 1
	fi
	row "$1" "$XW"
}

# rxqs_is DEV Q HEX: the kernel's xps_rxqs of queue Q reads HEX.
rxqs_is() { [ "$(cat "$(krqf "$1" "$2")" 2>/dev/null)" = "$3" ]; }

t_rxqs_guarded() {
	local st
	fx_loaded dev=dum0:guard guard_interval_ms=200 || return
	if ! features_has sk_rx_queue_get || ! features_has xps_maps_typed; then
		row_mark
		xw - "$(rqf dum0 1)" 3
		[ "$XW" = "err EOPNOTSUPP" ] ||
			fail "xps_rxqs write in guard mode on a kernel without the typed XPS maps gave '$XW', expected 'err EOPNOTSUPP'"
		diag "log: $(row_log)"
		skip "this kernel's rxqs map is not guarded (no sk_rx_queue_get or no xps_maps_typed): xps_rxqs refuses writes in guard mode"
		return
	fi
	xw - "$(rqf dum0 1)" 3
	[ "${XW%% *}" = ok ] || { fail "xps_rxqs write in guard mode gave '$XW'"; return; }
	rxqs_is dum0 1 3 ||
		{ fail "after writing xps_steer's tx-1/xps_rxqs = 3 the kernel's reads '$(cat "$(krqf dum0 1)")', expected 3"; return; }
	rxqs_is dum0 0 0 || fail "the kernel's tx-0/xps_rxqs reads '$(cat "$(krqf dum0 0)")', expected 0"
	klog_mark
	echo 0 >"$(krqf dum0 1)" || { fail "cannot write the kernel's tx-1/xps_rxqs"; return; }
	if wait_until 5 rxqs_is dum0 1 3; then
		diag "the kernel's tx-1/xps_rxqs, overwritten with 0, reads 3 again"
	else
		fail "the kernel's tx-1/xps_rxqs, overwritten with 0, reads '$(cat "$(krqf dum0 1)")' 5 s later, expected 3 (restored)"
	fi
	klog_expect "xps_steer: dum0: guard: kernel XPS map restored (poll, 1 queues)"
	st=$(grep '^restored_by_poll ' "$XS/dum0/stats")
	[ "${st#restored_by_poll }" -ge 1 ] 2>/dev/null || fail "stats: '$st', expected restored_by_poll >= 1"
	# Emptied by its own file: the kernel's empty too, and left alone.
	xw - "$(rqf dum0 1)" 0
	rxqs_is dum0 1 0 || fail "after emptying xps_steer's tx-1/xps_rxqs the kernel's reads '$(cat "$(krqf dum0 1)")', expected 0"
}

t_traffic_classes() {
	local t3 want q
	fx_loaded dev=dum0,veth0 || return
	set_masks dum0 3 c 5 2 || return
	must tc qdisc add dev dum0 root handle 1: "${TC_QDISC[@]}" || return
	must ip netns exec ref tc qdisc add dev dum1 root handle 1: "${TC_QDISC[@]}" || return
	# The kernel drops its XPS maps when classes are set: write them after.
	kset_masks ref dum1 3 c 5 2 || return
	expect_masks dum0 3 c 5 2 || return

	tc_flood 0 "$TC_SPEC_PRIO0"
	ctr_snap dum0 "$W/c0" || return
	tc_flood 4 "$TC_SPEC_PRIO4"
	ctr_snap dum0 "$W/c1" || return
	# Counters: CPU 3's priority-4 packets under traffic_class, the rest
	# steered to their queue.
	ctr_delta "$W/c0" "$W/c1" >"$W/delta"
	trace_table dum0 >"$W/tbl"
	t3=$(tbl_count cpu=3)
	want="traffic_class=$t3 steered=$(($(tbl_count) - t3))"
	for q in 0 1 2 3; do
		want="$want tx-$q=$(awk -v q="$q" '$1 != 3 && $2 == q { t += $3 } END { print t + 0 }' "$W/tbl")"
	done
	ctr_expect "priority 4 under mqprio" "$W/delta" "$want"

	# Classes gone: the masks are as written (the kernel's were reset on
	# the first change) and steer over all queues again.
	must tc qdisc del dev dum0 root
	must ip netns exec ref tc qdisc del dev dum1 root
	expect_masks dum0 3 c 5 2 || return
	diag "kernel's dum1 masks after its qdisc went: $(for q in 0 1 2 3; do in_ns ref cat "$(kf dum1 "$q")"; done | tr '\n' ' ')"
	udp_all - dum0 "$DST0" "0:0,2 1:0,3 2:1,2 3:1" -q 4
	steer_check "no classes, priority 4" dum0 "$NQ" 1 "$SPEC"

	# Queues in no class (tx-2 and tx-3 here) take no mask, as with the
	# kernel's files; a map may name them only with an empty list.
	must tc qdisc add dev dum0 root handle 1: mqprio num_tc 2 map 0 1 queues 1@0 1@1 hw 0 || return
	must ip netns exec ref tc qdisc add dev dum1 root handle 1: mqprio num_tc 2 map 0 1 queues 1@0 1@1 hw 0 || return
	CMP_FILE=xps_cpus cmp_write 1 2 || return
	[ "$CMP_RES" = "err EINVAL" ] || fail "tx-2 in no class: xps_cpus write gave '$CMP_RES' on both, expected 'err EINVAL'"
	class_row C01 tx-2/xps_cpus 1 "err EINVAL"
	class_row C02 tx-2/xps_cpus_list 0 "err EINVAL"
	if features_has sk_rx_queue_get; then
		CMP_FILE=xps_rxqs cmp_write 1 2 || return
		[ "$CMP_RES" = "err EINVAL" ] || fail "tx-2 in no class: xps_rxqs write gave '$CMP_RES' on both, expected 'err EINVAL'"
		class_row C03 tx-2/xps_rxqs 1 "err EINVAL"
	fi
	class_row C04 map 'tx-0 0\ntx-2 1\n' "err EINVAL" && map_is dum0 'tx-0 0-1\ntx-1 2-3\ntx-2 0,2\ntx-3 1\n'
	class_row C05 map 'tx-0 0\ntx-1 1\ntx-2\n' "ok 19" && map_is dum0 'tx-0 0\ntx-1 1\ntx-2\ntx-3\n'
	class_row C06 tx-1/xps_cpus 4 "ok 1"
	must tc qdisc del dev dum0 root
	must ip netns exec ref tc qdisc del dev dum1 root
}

t_traffic_classes_cleanup() {
	tc qdisc del dev dum0 root 2>/dev/null
	ip netns exec ref tc qdisc del dev dum1 root 2>/dev/null
	return 0
}
