# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# bench-guard.sh - guard mode's part of the in-guest benchmark, sourced by
# bench.sh (its helpers and variables):
#
#   cost_guard ROUNDS SECS  the per-packet paths with dumC guarded
#                           (dev=dumC:guard): the kernel's XPS with the
#                           module's masks, DEVS=1g (cost guest)
#   guard_check_cost        the periodic check's guest time per check with
#                           1 and 8 guarded devices of 4 and 64 queues
#                           (cost and ctl64 guests)
#   guard_windows EVENTS    the window from a rewrite of the kernel's map
#                           to its restore, per trigger, under traffic
#                           (guard guest: 4 vCPUs, a 4-queue virtio-net
#                           NIC eth0, the test driver bnxlike)
#
# Results are "BENCH gcheck ..." and "BENCH gwin ..." lines (test/bench.sh
# reads them).

# ------------------------------------------------------ cost: guarded --

# The paths again with dumC guarded: the module writes the kernel's own map
# and selects nothing, so C is the kernel's XPS with B's masks.
cost_guard() {	# ROUNDS SECS
	run modprobe -r xps_steer
	load_module dumC:guard
	attached dumC
	[ "$(cat "$XS/dumC/mode")" = guard ] || die "dumC: mode '$(cat "$XS/dumC/mode")', expected guard"
	# shellcheck disable=SC2034 # read by cost_paths
	DEVS=1g
	cost_paths "$1" "$2"
}

# ------------------------------------------------ the periodic check --

# The guest time of each periodic check (check_all, the work item that
# looks at every guarded device) over a few seconds, from the
# function_graph tracer limited to that one function; under -icount guest
# time counts executed instructions.
GC_INTERVAL_MS=100
GC_SECS=3
gc_durations() {	# [SECS] -> one duration (us) per line
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	echo 'check_all:mod:xps_steer' >"$TR/set_ftrace_filter" ||
		die "ftrace cannot filter on xps_steer's check_all"
	echo function_graph >"$TR/current_tracer"
	: >"$TR/trace"
	echo 1 >"$TR/tracing_on"
	sleep "${1:-$GC_SECS}"
	echo 0 >"$TR/tracing_on"
	cat "$TR/trace" >"$W/gc.trace"
	echo nop >"$TR/current_tracer"
	: >"$TR/set_ftrace_filter"
	awk 'match($0, /[0-9]+\.[0-9]+ us +\| +check_all/) { split(substr($0, RSTART), a, " "); print a[1] }' "$W/gc.trace"
}

guard_check_cost() {
	local q d i t allm n
	local -a durs
	allm=$(all_cpus_mask)
	! xps_loaded || run modprobe -r xps_steer
	echo "BENCH gcparams interval_ms=$GC_INTERVAL_MS secs=$GC_SECS"
	for q in 4 64; do
		for i in 0 1 2 3 4 5 6 7; do
			run ip link add "gk$i" numtxqueues $q numrxqueues 1 type dummy
		done
		for d in 1 8; do
			load_module "$(for ((i = 0; i < d; i++)); do printf 'gk%d:guard,' "$i"; done | sed 's/,$//')"
			echo "$GC_INTERVAL_MS" >/sys/module/xps_steer/parameters/guard_interval_ms
			# Every queue's mask names every possible CPU: the kernel's
			# map at its largest, every comparison done in full.
			for ((i = 0; i < d; i++)); do
				attached "gk$i"
				for ((t = 0; t < q; t++)); do
					echo "$allm" >"$XS/gk$i/tx-$t/xps_cpus"
				done
			done
			gc_durations >"$W/gc.durs"
			mapfile -t durs <"$W/gc.durs"
			n=${#durs[@]}
			[ "$n" -ge $((GC_SECS * 1000 / GC_INTERVAL_MS / 2)) ] ||
				die "$n periodic checks traced in $GC_SECS s at guard_interval_ms=$GC_INTERVAL_MS"
			[ "$(awk '$1 == "restored_by_poll" { print $2 }' "$XS/gk0/stats")" = 0 ] ||
				die "gk0: a periodic check restored something; the measurement is of checks that find the map intact"
			echo "BENCH gcheck cpus=$NR_CPU_IDS online=$(nproc) queues=$q devs=$d checks=$n" \
				"us_median=$(median "${durs[@]}") us_min=$(printf '%s\n' "${durs[@]}" | sort -g | head -n 1)" \
				"us_max=$(printf '%s\n' "${durs[@]}" | sort -g | tail -n 1)"
			run modprobe -r xps_steer
		done
		for i in 0 1 2 3 4 5 6 7; do
			run ip link del "gk$i"
		done
	done
}

# -------------------------------------------------- restore windows --

GW_BASE=200		# UDP payload of CPU c's sender: GW_BASE + c bytes
GW_FRAME=$((GW_BASE + 42))
GW_GAP_S=0.7		# after a restore: beyond a fight's reach (500 ms + the period)
KP=$TR/kprobe_events

# Every write into the kernel's map, with its caller: netif_set_xps_queue()
# (xps_steer, the xps_cpus file, most drivers) and __netif_set_xps_queue()
# (virtio-net). A write of xps_steer's has a caller in [xps_steer].
gw_probes() {
	# shellcheck disable=SC2016 # $stack0 is the kprobe's, not the shell's
	echo 'p:xbg/xps netif_set_xps_queue dev=+0(%di):string queue=%dx:u32 by=$stack0:symbol' >>"$KP" ||
		die "cannot add a kprobe on netif_set_xps_queue"
	# shellcheck disable=SC2016 # $stack0 is the kprobe's, not the shell's
	echo 'p:xbg/xps2 __netif_set_xps_queue dev=+0(%di):string queue=%dx:u32 by=$stack0:symbol' >>"$KP" ||
		die "cannot add a kprobe on __netif_set_xps_queue"
	echo mono >"$TR/trace_clock"
	echo 1 >"$TR/events/xbg/enable"
}

gw_probes_off() {
	echo 0 >"$TR/events/xbg/enable"
	echo '-:xbg/xps' >>"$KP"
	echo '-:xbg/xps2' >>"$KP"
	echo local >"$TR/trace_clock"
}

# gw_map_ok DEV M0 M1 ...: the kernel's xps_cpus of DEV read these masks
# (hex), on the CPUs online (the kernel keeps no offline CPU in its map).
# No process started: wait_until calls it in a loop.
gw_map_ok() {
	local dev=$1 q=0 m k c on=1 state
	shift
	for ((c = 1; c < NR_CPU_IDS; c++)); do
		read -r state <"/sys/devices/system/cpu/cpu$c/online" && [ "$state" = 1 ] && on=$((on | 1 << c))
	done
	for m in "$@"; do
		read -r k <"/sys/class/net/$dev/queues/tx-$q/xps_cpus" || return 1
		k=${k//,/}
		(((16#$k) == ((16#$m) & on))) || return 1
		q=$((q + 1))
	done
}

# gw_event TRIGGER DEV QUEUES MASKS CMD...: one event, traced: CMD (the
# rewrite), then until the kernel's map reads MASKS again (10 s at most),
# then 200 ms more for frames queued before the restore. QUEUES is
# "cpu:queue ..." of the map. One line BENCH gwin: the window from the
# first write of another's to xps_steer's last write, frames sent in the
# trace, and those off the map after the rewrite began (off) and before
# it (early).
gw_event() {
	local trig=$1 dev=$2 queues=$3 masks=$4 res
	shift 4
	: >"$TR/trace"
	echo 1 >"$TR/tracing_on"
	"$@" >"$W/gw.cmd" 2>&1 || { cat "$W/gw.cmd"; die "$trig: '$*' failed"; }
	# shellcheck disable=SC2086 # the masks, a word each
	wait_until 10 gw_map_ok "$dev" $masks ||
		die "$trig: the kernel's map of $dev not restored 10 s after '$*'"
	sleep 0.2
	echo 0 >"$TR/tracing_on"
	cat "$TR/trace" >"$W/gw.trace"
	grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' "$W/gw.trace" ||
		die "$trig: the trace overflowed ($(grep entries-in-buffer "$W/gw.trace"))"
	res=$(awk -v dev="$dev" -v f="$GW_FRAME" -v queues="$queues" '
		BEGIN { n = split(queues, a, " "); for (i = 1; i <= n; i++) { split(a[i], b, ":"); want[b[1]] = b[2] } }
		/^#/ || !match($0, / [0-9]+\.[0-9]+: /) { next }
		{ t = substr($0, RSTART + 1, RLENGTH - 3) }
		/ xps2?: / && index($0, "dev=\"" dev "\"") {
			if (!match($0, / by=[^ ]+/)) next
			by = substr($0, RSTART + 4, RLENGTH - 4)
			if (by ~ /^netif_set_xps_queue\+/) next	# xps2 under xps: counted once
			if (index($0, "[xps_steer]")) { ours++; last = t }
			else { theirs++; if (first == "") first = t }
			next
		}
		/ net_dev_start_xmit: / && index($0, " dev=" dev " ") {
			if (!match($0, /len=[0-9]+/)) next
			c = substr($0, RSTART + 4, RLENGTH - 4) - f
			if (!(c in want) || !match($0, /queue_mapping=[0-9]+/)) next
			frames++
			if (substr($0, RSTART + 14, RLENGTH - 14) + 0 == want[c]) next
			if (first == "") early++; else off++
		}
		END {
			w = (first != "" && last != "" && last >= first) ? sprintf("%.0f", (last - first) * 1e6) : -1
			printf "window_us=%s theirs=%d ours=%d frames=%d off=%d early=%d\n", w, theirs, ours, frames, off, early
		}' "$W/gw.trace")
	case $res in
	window_us=-1*) die "$trig on $dev: no rewrite followed by a restore of xps_steer's in the trace ($res; '$*')" ;;
	esac
	echo "BENCH gwin trigger=$trig dev=$dev $res"
}

# gw_phase DEV: note DEV's fights and restores; gw_phase_end TRIGGER DEV:
# one line BENCH gwstat with what they grew by since.
gw_phase() { GW_F0=$(stat_sum "$1" fights_by_) GW_R0=$(stat_sum "$1" restored_by_); }
gw_phase_end() {
	echo "BENCH gwstat trigger=$1 fights=$(($(stat_sum "$2" fights_by_) - GW_F0)) restores=$(($(stat_sum "$2" restored_by_) - GW_R0))"
}

# The notifier: bnxlike writes its default map (queue q: CPU q) inside
# ndo_open (map_on_open, as mlx4 and gve); NETDEV_UP restores it, before
# `ip link set up` returns. The periodic check is off.
gw_notifier() {	# EVENTS
	local i
	run modprobe bnxlike
	run ip addr add 10.9.5.1/24 dev bnx0
	# No neighbour to resolve: frames flow the moment a route is back.
	run ip link set bnx0 arp off
	run ip link set bnx0 up
	load_module bnx0:guard
	echo 0 >/sys/module/xps_steer/parameters/guard_interval_ms
	set_masks bnx0 8 4 2 1 0
	echo 1 >/sys/module/bnxlike/parameters/map_on_open
	sized_senders_start 10.9.5.2 $GW_BASE 0 1 2 3
	sleep "$GW_GAP_S"	# the masks' own write: a rewrite now would be a fight
	gw_phase bnx0
	for ((i = 1; i <= $1; i++)); do
		run ip link set bnx0 down
		gw_event notifier bnx0 "0:3 1:2 2:1 3:0" "8 4 2 1" ip link set bnx0 up
		sleep "$GW_GAP_S"
	done
	sized_senders_stop
	gw_phase_end notifier bnx0
	gw_fight
	run modprobe -r xps_steer
	run rmmod bnxlike
}

# A driver that fights: bnxlike rewrites its default map every 20 ms with
# no event (fight_ms, a reset loop), for 20 s, the check every 200 ms. The
# restores back off to one every 4 s: their number and the checks' guest
# time in all show the guard never turns into a busy loop.
GF_SECS=20
GF_REWRITE_MS=20
gw_fight() {
	local r0 f0 n total
	local -a durs
	echo $GW_PERIOD_MS >/sys/module/xps_steer/parameters/guard_interval_ms
	r0=$(stat_sum bnx0 restored_by_) f0=$(stat_sum bnx0 fights_by_)
	echo $GF_REWRITE_MS >/sys/module/bnxlike/parameters/fight_ms
	gc_durations $GF_SECS >"$W/gc.durs"
	mapfile -t durs <"$W/gc.durs"
	echo 0 >/sys/module/bnxlike/parameters/fight_ms
	n=${#durs[@]}
	total=$(printf '%s\n' "${durs[@]}" | awk '{ t += $1 } END { printf "%.0f", t }')
	echo "BENCH gfight secs=$GF_SECS rewrite_ms=$GF_REWRITE_MS period_ms=$GW_PERIOD_MS checks=$n" \
		"restores=$(($(stat_sum bnx0 restored_by_) - r0)) fights=$(($(stat_sum bnx0 fights_by_) - f0)) check_us_total=$total"
}

# CPU hotplug: virtio-net rewrites its map when a CPU goes offline and
# when it comes online (its own hotplug callbacks, without rtnl); the
# hotplug state queues the check. CPU 3 goes; the senders are on 0-2.
gw_hotplug() {	# EVENTS
	local i
	load_module eth0:guard
	echo 0 >/sys/module/xps_steer/parameters/guard_interval_ms
	set_masks eth0 8 4 2 1
	sized_senders_start 10.9.0.2 $GW_BASE 0 1 2
	sleep "$GW_GAP_S"
	gw_phase eth0
	for ((i = 1; i <= $1; i++)); do
		gw_event cpu_offline eth0 "0:3 1:2 2:1" "8 4 2 1" put /sys/devices/system/cpu/cpu3/online 0
		sleep "$GW_GAP_S"
		gw_event cpu_online eth0 "0:3 1:2 2:1" "8 4 2 1" put /sys/devices/system/cpu/cpu3/online 1
		sleep "$GW_GAP_S"
	done
	sized_senders_stop
	gw_phase_end hotplug eth0
}

# The periodic check (guard_interval_ms=200): a write with no event, here
# the kernel's own xps_cpus file giving queue 0 every CPU, found by the
# next check.
GW_PERIOD_MS=200
gw_periodic() {	# EVENTS
	local i
	echo $GW_PERIOD_MS >/sys/module/xps_steer/parameters/guard_interval_ms
	sized_senders_start 10.9.0.2 $GW_BASE 0 1 2 3
	gw_phase eth0
	for ((i = 1; i <= $1; i++)); do
		gw_event periodic eth0 "0:3 1:2 2:1 3:0" "8 4 2 1" put /sys/class/net/eth0/queues/tx-0/xps_cpus f
		sleep "$GW_GAP_S"
	done
	sized_senders_stop
	gw_phase_end periodic eth0
	run modprobe -r xps_steer
}

# eth0 (virtio-net, 4 queue pairs): 10.9.0.1/24 towards the host's tap,
# which answers nothing: a permanent neighbour, frames end there.
gw_nic() {
	local dev=/sys/class/net/eth0
	run modprobe -a virtio_pci virtio_net
	wait_until 30 test -e $dev/queues/tx-0 || die "no eth0 (the guard guest needs a multiqueue virtio-net NIC)"
	[ -e $dev/queues/tx-3 ] || die "eth0 has fewer than 4 tx queues"
	echo 1 >/proc/sys/net/ipv6/conf/eth0/disable_ipv6
	run ip addr replace 10.9.0.1/24 dev eth0
	run ip link set eth0 up
	run ip neigh replace 10.9.0.2 lladdr 02:00:00:00:00:02 dev eth0 nud permanent
	wait_until 30 grep -qx 1 $dev/carrier || die "eth0: no carrier"
}

guard_windows() {	# EVENTS
	[ "$NCPU" = 4 ] || die "guard_windows needs a 4-vCPU guest, this one has $NCPU"
	trace_setup || die "no tracing"
	echo 'name == "eth0" || name == "bnx0"' >"$EV/filter"
	echo 1 >"$EV/enable"
	gw_probes
	gw_nic
	echo "BENCH gwparams period_ms=$GW_PERIOD_MS gap_s=$GW_GAP_S"
	gw_notifier "$1"
	gw_hotplug "$1"
	gw_periodic "$1"
	gw_probes_off
	echo 0 >"$EV/enable"
}
