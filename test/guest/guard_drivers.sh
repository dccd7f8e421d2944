# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# guard_drivers.sh - guard mode on the test-only drivers of test/modules/:
# bnxlike (bnx0: bnx2x's queue selection, 4 regular tx queues and a special
# last one for ethertype 0x88b5, a reload knob that wipes the XPS map as
# bnx2x's unload/load does, a default_map knob that writes the driver's own
# map as mlx4 and gve do) and ops_checker (opsc0: its xmit compares
# dev->netdev_ops with its own table, as the denylisted drivers do).  Every
# steering claim per packet, from the tracepoint, as in the suite; the
# special frames (pktsend -e, on a packet socket that bypasses the
# tracepoint) by the driver's counters.  Sourced by suite.sh (the runner);
# helpers in lib.sh and guard.sh.

test_def guard_bnxlike_taken "a driver with its own ndo_select_queue (bnxlike): dev=bnx0 is taken in guard mode (own-select-queue, no hook), the masks in the kernel's map, every packet on it"
test_def guard_bnxlike_reload "bnxlike's reload (netdev_reset_tc, queue count changed and back, close/open) and default_map writes: the kernel's map restored each time, counted; ordinary packets on the map, the special ethertype on the special queue"
test_def guard_bnxlike_map_on_open "bnxlike writes its default map inside ndo_open (map_on_open, as mlx4 and gve): with the periodic check off, the operator's map is back the moment 'ip link set up' returns, restored by NETDEV_UP, every packet on it"
test_def guard_bnxlike_open_traffic "bnxlike rewrites its map inside ndo_open (map_on_open) while every CPU sends UDP: over 10 down/up cycles not one frame leaves off the operator's map, per packet (the guard's notifier runs before NETDEV_UP brings the routes back)"
test_def guard_bnxlike_offline_reload "a CPU taken offline, bnxlike reloaded meanwhile (its map wiped and restored without that CPU), the CPU online again: back in its queue's mask, per packet"
test_def guard_bnxlike_fight "bnxlike's fight_ms rewrites its default map every 50 ms with no event: counted as fights, the restores back off (a few in 6 s, not one per 200 ms check); stopped, the map is restored and the back-off ends"
test_def guard_opscheck_holds "ops_checker: guard mode leaves dev->netdev_ops the driver's own (no mismatch, a kernel write undone); steer mode's copy makes its comparison fail: the denylist's reason"

BNXP=/sys/module/bnxlike/parameters
OPSCP=/sys/module/ops_checker/parameters
BNX_MASKS=(8 4 2 1 0)	# bnx0: CPU c on queue 3-c, the special queue 4 unmapped
BNX_QUEUES="0:3 1:2 2:1 3:0"

# fx_testmod NAME DEV ADDR: xps_steer unloaded, the test-only module NAME
# freshly loaded, its device DEV up with ADDR/24.
fx_testmod() {
	xps_unload || return 1
	fx_cpus_online
	if grep -q "^$1 " /proc/modules; then
		must rmmod "$1" || return 1
	fi
	modprobe_ok "load $1" "$1" || return 1
	[ -e "/sys/class/net/$2" ] || { fail "modprobe $1: no device $2"; return 1; }
	must ip addr add "$3/24" dev "$2" || return 1
	must ip link set "$2" up
}

testmod_unload() {	# NAME...
	local m
	modprobe -r xps_steer
	for m in "$@"; do
		! grep -q "^$m " /proc/modules || rmmod "$m"
	done
}

# fx_bnx: bnxlike loaded, xps_steer with dev=bnx0,
# the map BNX_MASKS written through xps_steer, the log marked.
fx_bnx() {
	fx_testmod bnxlike bnx0 10.9.5.1 || return 1
	klog_mark
	modprobe_ok load xps_steer dev=bnx0 || return 1
	set_masks bnx0 "${BNX_MASKS[@]}"
}

# bnx_steer_check WHAT: every UDP packet of every CPU on bnx0 on its queue.
bnx_steer_check() {
	udp_all - bnx0 10.9.5.2 "$BNX_QUEUES"
	steer_check "UDP, $1" bnx0 5 0 "$SPEC"
}

# bnx_count Q: frames bnxlike transmitted on queue Q.
bnx_count() {
	awk -v q="$1" '{ print $(q + 1) }' "$BNXP/tx_counts"
}

# bnx_special_check WHAT: pinned pktsend frames of ethertype 0x88b5 from
# each CPU all counted on the special queue; ordinary IPv4 frames from
# each CPU on its mapped queue, none on the special queue.
bnx_special_check() {
	local c sp n q mac before now
	mac=02:00:00:00:05:02
	for c in "${CPUS[@]}"; do
		sp=$(cat "$BNXP/special_tx")
		pin "$c" pktsend -i bnx0 -m "$mac" -s 10.9.5.1 -d 10.9.5.2 -n 100 -e 88b5 >"$W/pkt.out" 2>&1 ||
			{ fail "$1: pktsend -e 88b5 on cpu $c failed"; diag_file "$W/pkt.out"; return 1; }
		n=$(awk '/^pktsend: sent/ { print $3 }' "$W/pkt.out")
		now=$(cat "$BNXP/special_tx")
		[ "$((now - sp))" = "$n" ] ||
			{ fail "$1: cpu $c sent $n frames of ethertype 0x88b5, special_tx $sp -> $now"; return 1; }
		q=$((3 - c))
		before=$(bnx_count "$q")
		sp=$now
		pin "$c" pktsend -i bnx0 -m "$mac" -s 10.9.5.1 -d 10.9.5.2 -n 100 >"$W/pkt.out" 2>&1 ||
			{ fail "$1: pktsend on cpu $c failed"; diag_file "$W/pkt.out"; return 1; }
		n=$(awk '/^pktsend: sent/ { print $3 }' "$W/pkt.out")
		now=$(bnx_count "$q")
		[ "$((now - before))" -ge "$n" ] ||
			{ fail "$1: cpu $c sent $n IPv4 frames, queue $q counted $before -> $now"; return 1; }
		[ "$(cat "$BNXP/special_tx")" = "$sp" ] ||
			{ fail "$1: IPv4 frames of cpu $c counted on the special queue"; return 1; }
	done
	diag "$1: ethertype 0x88b5 on the special queue, IPv4 on the map (tx_counts $(cat "$BNXP/tx_counts"))"
}

# bnx_backoff_is MS: bnx0's stats read backoff_ms MS (silent).
bnx_backoff_is() {
	[ "$(gstat bnx0 backoff_ms)" = "$1" ]
}

# bnx_restores: restored_by_event + restored_by_poll of bnx0.
bnx_restores() {
	echo $(($(gstat bnx0 restored_by_event) + $(gstat bnx0 restored_by_poll)))
}

t_guard_bnxlike_taken() {
	fx_testmod bnxlike bnx0 10.9.5.1 || return
	klog_mark
	xps_load dev=bnx0 || return
	klog_expect "xps_steer: bnx0: attached in guard mode: its driver has its own ndo_select_queue (5 tx queues)"
	expect_guarded bnx0 own-select-queue
	set_masks bnx0 "${BNX_MASKS[@]}" || return
	expect_masks bnx0 "${BNX_MASKS[@]}"
	expect_kmasks "after writing xps_steer's files" bnx0 "${BNX_MASKS[@]}" || return
	bnx_steer_check "guard mode on bnxlike"
	bnx_special_check "guard mode on bnxlike"
}

t_guard_bnxlike_taken_cleanup() {
	testmod_unload bnxlike
}

# bnx_knob_rounds KNOB N: 1 written to bnxlike's KNOB N times; each time
# the kernel's map reads BNX_MASKS again within 5 s, a restore counted,
# 5 tx queues, every packet on the map.
bnx_knob_rounds() {
	local i r
	for i in $(seq "$2"); do
		r=$(bnx_restores)
		xw - "$BNXP/$1" 1
		[ "${XW%% *}" = ok ] || { fail "$1 $i: writing 1 gave '$XW'"; return 1; }
		wait_kmasks "$1 $i" 5 bnx0 "${BNX_MASKS[@]}" || return 1
		[ "$(bnx_restores)" -gt "$r" ] ||
			{ fail "$1 $i: restores (event + poll) still $r"; return 1; }
		[ "$(txq_count bnx0)" = 5 ] || { fail "$1 $i: bnx0 has $(txq_count bnx0) tx queues"; return 1; }
		bnx_steer_check "after $1 $i" || return 1
	done
}

t_guard_bnxlike_reload() {
	fx_bnx || return
	expect_kmasks "attached" bnx0 "${BNX_MASKS[@]}" || return
	bnx_knob_rounds reload 5 || return
	klog_expect "bnxlike: bnx0: reloaded (0)"
	bnx_knob_rounds default_map 3 || return
	klog_expect "bnxlike: bnx0: default XPS map written (0)"
	diag "bnx0 stats: event $(gstat bnx0 restored_by_event), poll $(gstat bnx0 restored_by_poll)"
	bnx_special_check "after the reloads"
}

t_guard_bnxlike_reload_cleanup() {
	testmod_unload bnxlike
}

t_guard_bnxlike_map_on_open() {
	local i e
	fx_testmod bnxlike bnx0 10.9.5.1 || return
	klog_mark
	modprobe_ok load xps_steer dev=bnx0 guard_interval_ms=0 || return
	set_masks bnx0 "${BNX_MASKS[@]}" || return
	echo 1 >"$BNXP/map_on_open" || { fail "cannot write $BNXP/map_on_open"; return; }
	for i in 1 2 3; do
		e=$(gstat bnx0 restored_by_event)
		must ip link set bnx0 down || return
		must ip link set bnx0 up || return
		# No wait: the notifier ran before ip returned.
		expect_kmasks "down/up $i, at once" bnx0 "${BNX_MASKS[@]}" || return
		expect_gstat_grew bnx0 restored_by_event "$e" || return
		bnx_steer_check "after down/up $i" || return
	done
	klog_expect "bnxlike: bnx0: default XPS map written (0)"
	[ "$(gstat bnx0 restored_by_poll)" = 0 ] ||
		fail "restored_by_poll reads '$(gstat bnx0 restored_by_poll)' with the periodic check off"
	bnx_special_check "after the down/ups"
}

t_guard_bnxlike_map_on_open_cleanup() {
	echo 0 >"$BNXP/map_on_open"
	testmod_unload bnxlike
}

t_guard_bnxlike_open_traffic() {
	local i c e off total base=200
	fx_testmod bnxlike bnx0 10.9.5.1 || return
	# No neighbour to resolve: frames flow the moment a route is back.
	must ip link set bnx0 arp off || return
	modprobe_ok load xps_steer dev=bnx0 guard_interval_ms=0 || return
	set_masks bnx0 "${BNX_MASKS[@]}" || return
	echo 1 >"$BNXP/map_on_open" || { fail "cannot write $BNXP/map_on_open"; return; }
	e=$(gstat bnx0 restored_by_event)
	trace_start bnx0
	sized_senders_start 10.9.5.2 $base "${CPUS[@]}"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		if ! must ip link set bnx0 down || ! sleep 0.2 || ! must ip link set bnx0 up; then
			break
		fi
		sleep 0.3
	done
	sized_senders_stop
	trace_stop
	((i == 10)) || return
	sender_table bnx0 $((base + 42)) >"$W/open.tbl"
	total=$(tbl_total "$W/open.tbl")
	for c in "${CPUS[@]}"; do
		[ -n "$(tbl_queues "$W/open.tbl" "$c")" ] ||
			{ fail "no frame of CPU $c's sender in the trace: $(cat "$W/sender.$c")"; return; }
	done
	off=$(awk '$2 != 3 - $1 { t += $3 } END { print t + 0 }' "$W/open.tbl")
	diag "10 down/up cycles: $total frames, sender CPU x queue:"
	tbl_matrix "$W/open.tbl" 5
	[ "$off" = 0 ] || { fail "$off of $total frames left on a queue not their CPU's in the map"; return; }
	# Each open rewrote the map; each NETDEV_UP restored it.
	[ "$(gstat bnx0 restored_by_event)" -ge $((e + 10)) ] ||
		fail "restored_by_event $e -> $(gstat bnx0 restored_by_event) over 10 opens that rewrote the map"
}

t_guard_bnxlike_open_traffic_cleanup() {
	echo 0 >"$BNXP/map_on_open"
	testmod_unload bnxlike
}

t_guard_bnxlike_offline_reload() {
	local on hot off
	on=/sys/devices/system/cpu/cpu$OFF_CPU/online
	[ -w "$on" ] || { fail "$on missing: CPU $OFF_CPU cannot be taken offline"; return; }
	fx_bnx || return
	expect_kmasks "attached" bnx0 "${BNX_MASKS[@]}" || return
	must sh -c "echo 0 >$on" || return
	cpus_refresh
	# CPU c is queue 3-c's: offline, its queue's mask is empty.
	off=("${BNX_MASKS[@]}")
	off[3 - OFF_CPU]=0
	xw - "$BNXP/reload" 1
	[ "${XW%% *}" = ok ] || { fail "reload: writing 1 gave '$XW'"; return; }
	wait_kmasks "reloaded with CPU $OFF_CPU offline" 5 bnx0 "${off[@]}" || return
	expect_masks bnx0 "${BNX_MASKS[@]}"
	hot=$(gstat bnx0 restored_by_hotplug)
	must sh -c "echo 1 >$on" || return
	cpus_refresh
	[ "$NCPU" = 4 ] || { fail "CPU $OFF_CPU did not come back online"; return; }
	wait_kmasks "CPU $OFF_CPU online again" 5 bnx0 "${BNX_MASKS[@]}" || return
	expect_gstat_grew bnx0 restored_by_hotplug "$hot"
	bnx_steer_check "CPU $OFF_CPU back in its queue's mask"
}

t_guard_bnxlike_offline_reload_cleanup() {
	echo 1 >"/sys/devices/system/cpu/cpu$OFF_CPU/online"
	cpus_refresh
	testmod_unload bnxlike
}

t_guard_bnxlike_fight() {
	local r f n
	fx_testmod bnxlike bnx0 10.9.5.1 || return
	klog_mark
	modprobe_ok load xps_steer dev=bnx0 guard_interval_ms=200 || return
	set_masks bnx0 "${BNX_MASKS[@]}" || return
	expect_kmasks "attached" bnx0 "${BNX_MASKS[@]}" || return
	r=$(stat_sum bnx0 restored_by_)
	f=$(stat_sum bnx0 fights_by_)
	xw - "$BNXP/fight_ms" 50
	[ "${XW%% *}" = ok ] || { fail "writing 50 to fight_ms gave '$XW'"; return; }
	sleep 6
	xw - "$BNXP/fight_ms" 0
	[ "${XW%% *}" = ok ] || { fail "writing 0 to fight_ms gave '$XW'"; return; }
	diag "bnx0 stats after 6 s of fighting: $(tr '\n' ' ' <"$XS/bnx0/stats")"
	# A restore at each 200 ms check would be 30; backed off (0.25, 0.5,
	# 1, 2, then 4 s apart) about 5.
	n=$(($(stat_sum bnx0 restored_by_) - r))
	if [ "$n" -lt 2 ] || [ "$n" -gt 12 ]; then
		fail "6 s of fighting: $n restores, expected 2 to 12 (backed off)"
	fi
	[ "$(stat_sum bnx0 fights_by_)" -gt "$f" ] ||
		fail "6 s of fighting: no fight counted ($f)"
	[ "$(gstat bnx0 backoff_ms)" -ge 1000 ] 2>/dev/null ||
		fail "6 s of fighting: backoff_ms reads '$(gstat bnx0 backoff_ms)', expected 1000 or more"
	klog_expect "xps_steer: bnx0: guard: kernel XPS map rewritten "
	# The restore waiting out its back-off (4 s at most) puts it back.
	wait_kmasks "the fight over" 6 bnx0 "${BNX_MASKS[@]}" || return
	wait_until 3 bnx_backoff_is 0 ||
		fail "backoff_ms reads '$(gstat bnx0 backoff_ms)' 3 s after the map was restored, expected 0"
	bnx_steer_check "after the fight"
}

t_guard_bnxlike_fight_cleanup() {
	echo 0 >"$BNXP/fight_ms"
	testmod_unload bnxlike
}

# opsc_steer_check WHAT: every UDP packet of every CPU on opsc0 on its
# queue of the one-to-one map.
opsc_steer_check() {
	udp_all - opsc0 10.9.6.2 "0:0 1:1 2:2 3:3"
	steer_check "UDP, $1" opsc0 "$NQ" 0 "$SPEC"
}

t_guard_opscheck_holds() {
	local n
	fx_testmod ops_checker opsc0 10.9.6.1 || return
	klog_mark
	xps_load dev=opsc0:guard guard_interval_ms=200 || return
	map11 "$NQ"
	set_masks opsc0 "${MAP[@]}" || return
	expect_kmasks "guard mode" opsc0 "${MAP[@]}" || return
	opsc_steer_check "guard mode on ops_checker" || return
	xw - "$(kf opsc0 1)" f
	wait_kmasks "the kernel's tx-1 overwritten with f" 5 opsc0 "${MAP[@]}" || return
	opsc_steer_check "guard mode, restored" || return
	n=$(cat "$OPSCP/ops_mismatch")
	[ "$n" = 0 ] || { fail "guard mode: ops_mismatch reads $n, expected 0"; return; }
	diag "guard mode: $(cat "$OPSCP/tx_packets") frames, ops_mismatch 0"
	# Steer mode (opsc0 is not on the denylist): the ops copy.
	xw - "$DEVP" "$NL"
	[ "${XW%% *}" = ok ] || { fail "emptying dev= gave '$XW'"; return; }
	xw - "$DEVP" opsc0
	[ "${XW%% *}" = ok ] || { fail "writing dev=opsc0 gave '$XW'"; return; }
	[ "$(cat "$XS/opsc0/mode" 2>&1)" = steer ] ||
		{ fail "$XS/opsc0/mode reads '$(cat "$XS/opsc0/mode" 2>&1)', expected steer"; return; }
	set_masks opsc0 "${MAP[@]}" || return
	opsc_steer_check "steer mode on ops_checker"
	n=$(cat "$OPSCP/ops_mismatch")
	[ "$n" -gt 0 ] || { fail "steer mode: ops_mismatch reads $n, expected more than 0"; return; }
	diag "steer mode: ops_mismatch $n: the driver's comparison fails under the copy"
	klog_expect "ops_checker: opsc0: dev->netdev_ops is not this driver's table"
	xw - "$DEVP" "$NL"
	[ "${XW%% *}" = ok ] || { fail "emptying dev= gave '$XW'"; return; }
	must modprobe -r xps_steer || return
	must rmmod ops_checker || return
	sleep 0.5
	klog_since | grep -E "$SPLAT_RE" && fail "the kernel log has a warning after the unload"
}

t_guard_opscheck_holds_cleanup() {
	testmod_unload ops_checker
}
