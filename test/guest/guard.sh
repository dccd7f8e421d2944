# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# guard.sh - guard mode on the suite's dummy (asked for with dev=NAME:guard):
# xps_steer's masks written into the kernel's own XPS map, and written again
# after whatever replaced or wiped it (a software mqprio, a write to the
# kernel's files, an offline CPU coming back), found by a netdev event, CPU
# hotplug or the periodic check; what stays after detach; the
# guard_interval_ms parameter; rename and removal of a guarded device.
# Every steering claim per packet, from the tracepoint, as in the suite.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def guard_attach_requested "dev=dum0:guard: mode guard, ops left alone, the masks written into the kernel's own map, every packet on it"
test_def guard_event_restore "with the periodic check off, a kernel map overwritten is restored by the next netdev event (MTU change, down/up), counted as event"
test_def guard_mqprio_restore "a software mqprio added and removed wipes the kernel's map: restored by the periodic check each time, every packet on the map again"
test_def guard_kernel_write_undone "a write to the kernel's own xps_cpus of a guarded device is undone within guard_interval_ms, logged and counted as poll"
test_def guard_offline_cpu_readded "a mask naming an offline CPU: the kernel drops it, xps_steer keeps it and re-adds it when the CPU comes online (hotplug), per packet"
test_def guard_detach_leaves_map "detaching a guarded device under traffic (dev= list, module unload): the senders keep transmitting, and the kernel's map is left as it was (the operator's); no further restores"
test_def guard_interval_param "guard_interval_ms: bad values refused with EINVAL and a log line, nothing changed; 0 stops the periodic check, a period starts it again"
test_def guard_rename_remove "a guarded device renamed keeps its tree and its guard under the new name; removed, its tree goes and its status line says absent, no warning"

GDEV=dumg		# the device of the rename and removal test (10.9.9.1/24)

# kmasks_are DEV M0 M1 ...: the kernel's own xps_cpus files of DEV read
# these masks (silent: a condition for wait_until).
kmasks_are() {
	local d=$1 q=0 m
	shift
	for m in "$@"; do
		[ "$(cat "$(kf "$d" "$q")" 2>/dev/null)" = "$m" ] || return 1
		q=$((q + 1))
	done
}

# kmasks_show DEV N: the kernel's masks of queues 0..N-1, "m0 m1 ...".
kmasks_show() {
	local q out=
	for ((q = 0; q < $2; q++)); do
		out="$out${out:+ }$(cat "$(kf "$1" "$q")" 2>&1)"
	done
	echo "$out"
}

# expect_kmasks WHAT DEV M0 M1 ...: the kernel's files read the masks now.
expect_kmasks() {
	local what=$1 d=$2
	shift 2
	if kmasks_are "$d" "$@"; then
		diag "$what: the kernel's masks of $d read $*"
		return 0
	fi
	fail "$what: the kernel's masks of $d read '$(kmasks_show "$d" $#)', expected '$*'"
	return 1
}

# wait_kmasks WHAT SECS DEV M0 M1 ...: the kernel's files read the masks
# within SECS seconds.
wait_kmasks() {
	local what=$1 secs=$2 d=$3
	shift 3
	if wait_until "$secs" kmasks_are "$d" "$@"; then
		diag "$what: the kernel's masks of $d read $* again"
		return 0
	fi
	fail "$what: the kernel's masks of $d read '$(kmasks_show "$d" $#)' $secs s later, expected '$*' (restored)"
	return 1
}

# gstat DEV NAME: the value of line NAME of DEV's stats file (empty if
# there is no such line).
gstat() {
	awk -v k="$2" '$1 == k { print $2 }' "$XS/$1/stats" 2>/dev/null
}

# expect_gstat_grew DEV NAME BEFORE: stats line NAME is above BEFORE now.
expect_gstat_grew() {
	local now
	now=$(gstat "$1" "$2")
	if [ -n "$now" ] && [ "$now" -gt "$3" ]; then
		diag "$1 stats: $2 $3 -> $now"
		return 0
	fi
	fail "$1 stats: $2 reads '$now', expected more than $3"
	return 1
}

# expect_gstat_same DEV NAME BEFORE: stats line NAME still reads BEFORE.
expect_gstat_same() {
	local now
	now=$(gstat "$1" "$2")
	[ "$now" = "$3" ] && return 0
	fail "$1 stats: $2 reads '$now', expected it unchanged at $3"
	return 1
}

# expect_guarded DEV WHY: DEV's mode file reads guard, its status line
# says hook=none, mode=guard and guard=WHY.
expect_guarded() {
	local line
	[ "$(cat "$XS/$1/mode" 2>&1)" = guard ] ||
		fail "$XS/$1/mode reads '$(cat "$XS/$1/mode" 2>&1)', expected guard"
	line=$(grep "^$1 " /sys/module/xps_steer/status)
	diag "status: $line"
	case " $line " in
	*" hook=none "*" mode=guard guard=$2 "*) ;;
	*) fail "status line '$line': expected hook=none ... mode=guard guard=$2" ;;
	esac
}

# guard_steer_check WHAT: every packet of every CPU on dum0 on its queue of
# the one-to-one map.
guard_steer_check() {
	udp_all - dum0 "$DST0" "0:0 1:1 2:2 3:3"
	steer_check "UDP, $1" dum0 "$NQ" 0 "$SPEC"
}

# fx_guarded PARAMS...: the module loaded with dum0 guarded and PARAMS,
# the one-to-one map written through xps_steer, the log marked.
fx_guarded() {
	fx_loaded dev=dum0:guard "$@" || return 1
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return 1
	klog_mark
}

t_guard_attach_requested() {
	local line
	fx_suite || return
	# Without xps_steer the stock selection spreads each CPU's 64 flows
	# over the queues, so the check below can fail.
	udp_all - dum0 "$DST0" "0:0 1:1 2:2 3:3"
	trace_table dum0 >"$W/tbl.stock"
	check_tbl "$W/tbl.stock" "$NQ" 0 0 "$SPEC" >/dev/null &&
		{ fail "stock selection already follows the one-to-one map: this test could not fail"; return; }
	klog_mark
	xps_load dev=dum0:guard || return
	klog_expect "xps_steer: dum0: attached in guard mode, as dev= asks ($NQ tx queues)"
	expect_guarded dum0 requested
	# No hook, so no per-queue packet counters.
	[ -e "$XS/dum0/tx-0/packets" ] && fail "$XS/dum0/tx-0/packets exists in guard mode"
	# Nothing written yet: the kernel's map is the driver's (empty).
	expect_kmasks "attached, no mask written" dum0 0 0 0 0
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
	expect_masks dum0 "${MAP[@]}"
	expect_kmasks "after writing xps_steer's files" dum0 "${MAP[@]}"
	[ "$(gstat dum0 applied)" -ge "$NQ" ] 2>/dev/null ||
		fail "dum0 stats: applied reads '$(gstat dum0 applied)', expected at least $NQ"
	guard_steer_check "guard mode"
	# Emptied again: the kernel's map empties with it.
	set_masks dum0 0 0 0 0 || return
	expect_kmasks "after emptying xps_steer's files" dum0 0 0 0 0
}

t_guard_event_restore() {
	local ev
	fx_guarded guard_interval_ms=0 || return
	ev=$(gstat dum0 restored_by_event)
	kset_masks - dum0 0 0 0 0 || return
	sleep 1
	expect_kmasks "overwritten, no period" dum0 0 0 0 0 || return
	expect_gstat_same dum0 restored_by_event "$ev" || return
	must ip link set dum0 mtu 1400 || return
	expect_kmasks "after the MTU change" dum0 "${MAP[@]}"
	expect_gstat_grew dum0 restored_by_event "$ev"
	klog_expect "xps_steer: dum0: guard: kernel XPS map restored (event, $NQ queues)"
	ev=$(gstat dum0 restored_by_event)
	kset_masks - dum0 0 0 0 0 || return
	must ip link set dum0 down || return
	must ip link set dum0 up || return
	expect_kmasks "after down and up" dum0 "${MAP[@]}"
	expect_gstat_grew dum0 restored_by_event "$ev"
	guard_steer_check "restored by events"
}

t_guard_event_restore_cleanup() {
	ip link set dum0 mtu 1500
	ip link set dum0 up
	modprobe -r xps_steer
}

t_guard_mqprio_restore() {
	local poll
	fx_guarded guard_interval_ms=200 || return
	poll=$(gstat dum0 restored_by_poll)
	must tc qdisc add dev dum0 root handle 1: mqprio num_tc 1 \
		map 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 queues 4@0 hw 0 || return
	wait_kmasks "mqprio added" 5 dum0 "${MAP[@]}" || return
	expect_gstat_grew dum0 restored_by_poll "$poll"
	klog_expect "xps_steer: dum0: guard: kernel XPS map restored (poll, $NQ queues)"
	guard_steer_check "under mqprio"
	poll=$(gstat dum0 restored_by_poll)
	must tc qdisc del dev dum0 root || return
	wait_kmasks "mqprio removed" 5 dum0 "${MAP[@]}" || return
	expect_gstat_grew dum0 restored_by_poll "$poll"
	guard_steer_check "mqprio removed"
}

t_guard_mqprio_restore_cleanup() {
	tc qdisc del dev dum0 root
	modprobe -r xps_steer
}

t_guard_kernel_write_undone() {
	local poll
	fx_guarded guard_interval_ms=200 || return
	poll=$(gstat dum0 restored_by_poll)
	xw - "$(kf dum0 1)" f
	[ "${XW%% *}" = ok ] || { fail "writing f to the kernel's tx-1/xps_cpus gave '$XW'"; return; }
	wait_kmasks "the kernel's tx-1 overwritten with f" 5 dum0 "${MAP[@]}" || return
	expect_gstat_grew dum0 restored_by_poll "$poll"
	klog_expect "xps_steer: dum0: guard: kernel XPS map restored (poll, "
	expect_masks dum0 "${MAP[@]}"
	guard_steer_check "after the kernel's file was overwritten"
}

t_guard_offline_cpu_readded() {
	local on hot
	on=/sys/devices/system/cpu/cpu$OFF_CPU/online
	[ -w "$on" ] || { fail "$on missing: CPU $OFF_CPU cannot be taken offline"; return; }
	fx_loaded dev=dum0:guard guard_interval_ms=0 || return
	must sh -c "echo 0 >$on" || return
	cpus_refresh
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
	expect_masks dum0 "${MAP[@]}"
	# The kernel keeps no offline CPU: tx-3 (CPU 3 only) stays empty.
	expect_kmasks "CPU $OFF_CPU offline" dum0 1 2 4 0
	hot=$(gstat dum0 restored_by_hotplug)
	must sh -c "echo 1 >$on" || return
	cpus_refresh
	[ "$NCPU" = 4 ] || { fail "CPU $OFF_CPU did not come back online"; return; }
	wait_kmasks "CPU $OFF_CPU online again" 5 dum0 "${MAP[@]}" || return
	expect_gstat_grew dum0 restored_by_hotplug "$hot"
	klog_expect "xps_steer: dum0: guard: kernel XPS map restored (hotplug, 1 queues)"
	guard_steer_check "CPU $OFF_CPU re-added"
}

t_guard_offline_cpu_readded_cleanup() {
	echo 1 >"/sys/devices/system/cpu/cpu$OFF_CPU/online"
	cpus_refresh
	modprobe -r xps_steer
}

# bg_floods_start SECS: a pinned, time-bounded udpflood per online CPU
# through dum0, in the background (BG_PIDS).
bg_floods_start() {
	local c
	BG_PIDS=()
	for c in "${CPUS[@]}"; do
		taskset "$(cpumask "$c")" udpflood -d "$DST0" -p 9000 -f 4 -t "$1" >"$W/bg.$c" 2>&1 &
		BG_PIDS+=($!)
	done
}

# bg_floods_wait WHAT: every background flood exited 0, having sent.
bg_floods_wait() {
	local i=0 p c n
	for p in "${BG_PIDS[@]}"; do
		c=${CPUS[i]}
		i=$((i + 1))
		if ! wait "$p"; then
			fail "$1: udpflood on cpu $c failed"
			diag_file "$W/bg.$c"
			continue
		fi
		n=$(awk '/^udpflood: sent/ { print $3 }' "$W/bg.$c")
		[ "${n:-0}" -gt 0 ] || fail "$1: udpflood on cpu $c sent nothing"
	done
	diag "$1: $i senders kept transmitting through it"
	BG_PIDS=()
}

t_guard_detach_leaves_map() {
	fx_guarded guard_interval_ms=200 || return
	# Detached by the dev= list, under traffic: the kernel's map stays,
	# and is no longer guarded (an overwrite stays).
	bg_floods_start 3
	sleep 1
	xw - /sys/module/xps_steer/parameters/dev "$NL"
	[ "${XW%% *}" = ok ] || { fail "emptying dev= gave '$XW'"; return; }
	bg_floods_wait "detached by dev="
	[ -e "$XS/dum0" ] && { fail "$XS/dum0 still exists after dev= was emptied"; return; }
	expect_kmasks "detached by dev=" dum0 "${MAP[@]}" || return
	guard_steer_check "detached"
	kset_masks - dum0 0 0 0 0 || return
	sleep 1
	expect_kmasks "detached, overwritten" dum0 0 0 0 0 || return
	# Detached by unloading the module.
	xw - /sys/module/xps_steer/parameters/dev dum0:guard
	[ "${XW%% *}" = ok ] || { fail "writing dev=dum0:guard gave '$XW'"; return; }
	set_masks dum0 "${MAP[@]}" || return
	bg_floods_start 3
	sleep 1
	must modprobe -r xps_steer || return
	bg_floods_wait "modprobe -r"
	expect_kmasks "after modprobe -r" dum0 "${MAP[@]}" || return
	guard_steer_check "module unloaded"
}

t_guard_detach_leaves_map_cleanup() {
	local p
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	BG_PIDS=()
	modprobe -r xps_steer
	kset_masks - dum0 0 0 0 0
}

GIP=/sys/module/xps_steer/parameters/guard_interval_ms

t_guard_interval_param() {
	local v checks n=0
	fx_suite || return
	# The kernel's own line that follows ours quotes with backticks.
	modprobe_bad guard_interval_ms=abc "guard_interval_ms: 'abc'" || return
	row G01 EINVAL "is not 0 to"
	fx_guarded || return
	[ "$(cat "$GIP")" = 1000 ] || fail "guard_interval_ms reads '$(cat "$GIP")', expected the default 1000"
	for v in -1 60001 abc 1.5; do
		row_mark
		xw - "$GIP" "$v"
		row "G0$((++n + 1))" "$XW"
		[ "$XW" = "err EINVAL" ] || fail "guard_interval_ms='$v' gave '$XW', expected 'err EINVAL'"
		klog_has "xps_steer: guard_interval_ms: '$v' is not 0 to 60000 milliseconds (-22)" ||
			fail "no log line for guard_interval_ms='$v'"
		[ "$(cat "$GIP")" = 1000 ] || fail "after '$v' guard_interval_ms reads '$(cat "$GIP")', expected 1000"
	done
	row_mark
	xw - "$GIP" 0
	row G06 "$XW"
	[ "$XW" = "ok 1" ] || { fail "guard_interval_ms=0 gave '$XW'"; return; }
	sleep 1.5
	checks=$(gstat dum0 checks)
	kset_masks - dum0 0 0 0 0 || return
	sleep 2
	expect_kmasks "period 0, overwritten" dum0 0 0 0 0 || return
	expect_gstat_same dum0 checks "$checks" || return
	xw - "$GIP" 100
	[ "$XW" = "ok 3" ] || { fail "guard_interval_ms=100 gave '$XW'"; return; }
	wait_kmasks "period 100 ms again" 3 dum0 "${MAP[@]}"
	expect_gstat_grew dum0 checks "$checks"
}

t_guard_rename_remove() {
	local line
	fx_suite || return
	ip link del "$GDEV" 2>/dev/null
	fx_dummy "$GDEV" - 10.9.9.1 || return
	xps_load dev="$GDEV:guard" guard_interval_ms=200 || return
	set_masks "$GDEV" 1 2 4 8 || return
	expect_kmasks "attached" "$GDEV" 1 2 4 8 || return
	must ip link set "$GDEV" down || return
	must ip link set "$GDEV" name dumh || return
	must ip link set dumh up || return
	[ -d "$XS/dumh" ] || { fail "$XS/dumh missing after the rename"; return; }
	[ -e "$XS/$GDEV" ] && fail "$XS/$GDEV still exists after the rename"
	[ "$(cat "$XS/dumh/mode" 2>&1)" = guard ] || fail "$XS/dumh/mode reads '$(cat "$XS/dumh/mode" 2>&1)'"
	expect_masks dumh 1 2 4 8
	xw - "$(kf dumh 2)" 0
	wait_kmasks "renamed, the kernel's tx-2 overwritten" 5 dumh 1 2 4 8
	klog_mark
	must ip link del dumh || return
	[ -e "$XS/dumh" ] && fail "$XS/dumh still exists after the device was deleted"
	line=$(grep "^$GDEV \|^dumh " /sys/module/xps_steer/status)
	diag "status after delete: ${line:-(no line)}"
	case $line in
	"$GDEV absent"*) ;;
	*) fail "status after delete: '$line', expected '$GDEV absent'" ;;
	esac
	sleep 0.5
	klog_since | grep -E "$SPLAT_RE" && fail "the kernel log has a warning after the delete"
	must modprobe -r xps_steer
}

t_guard_rename_remove_cleanup() {
	ip link del dumh 2>/dev/null
	ip link del "$GDEV" 2>/dev/null
	modprobe -r xps_steer
}
