# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# install-lib.sh - what the two guest scripts of `make check-install`
# share (install.sh, PID 1 of the last boot; persist.sh, run by
# xps-steer-test.service in the systemd boots): the NIC, traffic from every
# CPU and the per-packet check. Sourced after lib.sh.
#
# The NIC: eth0, virtio-net with 4 queue pairs on a host multiqueue tap.
# Per-packet oracle: the net/net_dev_start_xmit tracepoint records every
# frame handed to virtio-net with its queue_mapping. eth0 has a qdisc, so a
# frame may be handed over by another CPU than its sender (qdisc run from a
# softirq); the sender is therefore identified by the frame's length: the
# sender pinned to CPU c sends UDP payloads of BASE+c bytes.

DEV=eth0
NQ=4
PKTS=200		# per CPU and run
BASE=200		# UDP payload of CPU c: BASE + c bytes
FRAME=$((BASE + 42))	# Ethernet + IPv4 + UDP headers
DST=10.9.0.2
# rev_spec: the map both scripts check, CPU c -> queue NQ-1-c (masks 8 4 2
# 1: the reverse of virtio-net's own XPS diagonal, so stock selection
# differs), at least the packets sent, for the online CPUs.
rev_spec() {
	local c
	for c in "${CPUS[@]}"; do
		printf '%s:%s:%s ' "$c" $((NQ - 1 - c)) "$PKTS"
	done
}

# nic_up: eth0 addressed and up, the tracepoint ready; after every
# (re-)registration of the device.
nic_up() {
	must ip addr replace 10.9.0.1/24 dev "$DEV" || return
	must ip link set "$DEV" up || return
	# No ARP needed: the frames leave through the tap whoever answers.
	must ip neigh replace "$DST" lladdr 02:00:00:00:00:02 dev "$DEV" nud permanent || return
	trace_setup || { fail "no tracing"; return 1; }
}

# send_all: every online CPU sends PKTS datagrams (16 flows) with its
# sender pinned to it; trace saved; $W/tbl holds "sender-cpu queue count"
# from the frame lengths.
send_all() {
	local c
	trace_start "$DEV"
	for c in "${CPUS[@]}"; do
		flood - "$c" "$DST" 16 "$PKTS" -s $((BASE + c)) || return 1
	done
	trace_stop
	sender_table "$DEV" "$FRAME" >"$W/tbl"
	diag "sender CPU x queue, frames of $FRAME+cpu bytes ($MOVED handed to the driver by another CPU than the sender):"
	tbl_matrix "$W/tbl" "$(txq_count "$DEV")"
	return 0
}

# check SPEC LABEL: every frame of CPU c on a queue SPEC allows.
check() {
	local rc
	check_tbl "$W/tbl" "$(txq_count "$DEV")" 0 0 "$1" >"$W/chk.out"
	rc=$?
	awk -v p="# $2: " '{ print p $0 }' "$W/chk.out"
	[ "$rc" = 0 ] || fail "$2: per-packet check failed (spec: $1)"
	return "$rc"
}

# not_rev LABEL: traffic now must not follow the map (stock selection
# after an unload): the per-packet checks around it can fail.
not_rev() {
	send_all || return
	if check_tbl "$W/tbl" "$NQ" 0 0 "$(rev_spec)" >"$W/chk.out"; then
		fail "$1: every packet already follows CPU c -> queue $((NQ - 1))-c: the steering check could not fail"
		return 1
	fi
	diag "$1: stock selection, not the map (as it must)"
}

# channels_cycle: ethtool -L combined 2, then back to NQ, the map checked
# per packet each time; no queue >= real_num_tx_queues chosen.
channels_cycle() {
	klog_mark
	must ethtool -L "$DEV" combined 2 || return
	diag "ethtool -L $DEV combined 2: $(txq_count "$DEV") tx queues"
	send_all || return
	# CPUs 2 and 3 keep their queues 1 and 0; CPUs 0 and 1 (mapped to the
	# gone queues 3 and 2) fall back to stock selection below 2.
	check "0:0,1:$PKTS 1:0,1:$PKTS 2:1:$PKTS 3:0:$PKTS" "2 queues"
	if klog_has "selects TX queue"; then
		fail "the kernel capped an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
	fi
	must ethtool -L "$DEV" combined "$NQ" || return
	diag "ethtool -L $DEV combined $NQ: $(txq_count "$DEV") tx queues, masks $(read_masks "$DEV" "$NQ")"
	send_all || return
	check "$(rev_spec)" "back to $NQ queues"
	klog_has "selects TX queue" && fail "the kernel capped an out-of-range queue"
	return 0
}
