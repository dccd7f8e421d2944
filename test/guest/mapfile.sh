# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# mapfile.sh - the whole-device map file (<dev>/map) and the CPU-list file
# (tx-<n>/xps_cpus_list): their formats, bad input (docs/bad-input.md, rows
# M01-M24 and L01-L09), and per packet that a map write is applied at
# once, where per-queue writes go through intermediate states.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def map_file_rules "map and xps_cpus_list: format, read-back, all-or-nothing writes with errno and log line, privileges (queues out of use: queues_inactive_files)"
test_def map_atomic_flip "map flipping between two configurations under traffic: no packet on a queue of neither, while per-queue writes (ours and the kernel's) show intermediate states"

mapf() { echo "$XS/$1/map"; }				# DEV
lf() { echo "$XS/$1/tx-$2/xps_cpus_list"; }		# DEV Q

# The rejection lines are rate limited (10 per 5 s per call site): at most
# 9 logged writes per 5.5 s keep every one of them in the log.
PACE_N=0
pace() {
	PACE_N=$((PACE_N + 1))
	[ $((PACE_N % 9)) != 0 ] || sleep 5.5
}
pace_reset() { PACE_N=0; }

# map_is DEV WANT: DEV's map reads exactly WANT (xwrite escapes: \n).
map_is() {
	local want
	want=$(printf '%b.' "$2")
	want=${want%.}
	rdn - "$(mapf "$1")"
	[ "$RD" = "$want" ] && return 0
	fail "$1/map reads '$(show "$RD")', expected '$(show "$want")'"
	return 1
}

# map_row ID DEV PRESET INPUT WANT-RESULT WANT-MAP [NS [PRIV...]]: preset
# DEV's map, write INPUT (xwrite escapes) in one write() from NS (default
# the initial namespace) with PRIV (a privilege wrapper) if given; the
# result must be WANT-RESULT and the map must then read WANT-MAP ("=":
# unchanged, the preset); catalogue row ID.
map_row() {
	local id=$1 dev=$2 pre=$3 inp=$4 want=$5 wmap=$6 ns=${7:--} r
	shift 7 2>/dev/null || shift $#
	xw - "$(mapf "$dev")" "$pre"
	[ "$XW" = "ok $(printf '%b' "$pre" | wc -c)" ] || { fail "$id: preset '$pre' gave '$XW'"; return 1; }
	[ "$wmap" != = ] || wmap=$pre
	row_mark
	if (($#)); then
		r=$(in_ns "$ns" "$@" xwrite -- "$(mapf "$dev")" "$inp" 2>&1)
	else
		xw "$ns" "$(mapf "$dev")" "$inp"
		r=$XW
	fi
	if [ "$r" != "$want" ]; then
		fail "$id: writing '$(printf '%.40s' "$inp")' to $dev/map gave '$r', expected '$want'"
		diag "log: $(row_log)"
		return 1
	fi
	map_is "$dev" "$wmap" || return 1
	row "$id" "$r"
	return 0
}

# list_row ID DEV Q PRESET INPUT WANT-RESULT WANT-LIST WANT-HEX: the same
# for tx-Q/xps_cpus_list, which must then read WANT-LIST and xps_cpus
# WANT-HEX (PRESET is a hex mask written to xps_cpus, "-" for none).
list_row() {
	local id=$1 dev=$2 q=$3 pre=$4 inp=$5 want=$6 wl=$7 wh=$8
	if [ "$pre" != - ]; then
		xw - "$(xf "$dev" "$q")" "$pre"
		case $XW in ok*) ;; *) fail "$id: preset $pre gave '$XW'"; return 1 ;; esac
	fi
	row_mark
	xw - "$(lf "$dev" "$q")" "$inp"
	if [ "$XW" != "$want" ]; then
		fail "$id: writing '$inp' to $dev tx-$q/xps_cpus_list gave '$XW', expected '$want'"
		diag "log: $(row_log)"
		return 1
	fi
	rdn - "$(lf "$dev" "$q")"
	[ "$RD" = "$wl$NL" ] || { fail "$id: xps_cpus_list reads '$(show "$RD")', expected '$wl'"; return 1; }
	rdn - "$(xf "$dev" "$q")"
	[ "$RD" = "$wh$NL" ] || { fail "$id: xps_cpus reads '$(show "$RD")', expected '$wh'"; return 1; }
	row "$id" "$XW"
	return 0
}

M11='tx-0 0\ntx-1 1\ntx-2 2\ntx-3 3\n'		# CPU c on queue c
M00='tx-0\ntx-1\ntx-2\ntx-3\n'			# every mask empty

t_map_file_rules() {
	local m big r
	fx_loaded dev=dum0,veth0 || return
	choose_priv || return

	# Reading: a line per queue of num_tx_queues, the kernel's %*pbl list,
	# "tx-<n>" alone when empty; the same masks as xps_cpus.
	map_is dum0 "$M00" || return
	set_masks dum0 3 0 c 8 || return
	map_is dum0 'tx-0 0-1\ntx-1\ntx-2 2-3\ntx-3 3\n' || return
	rdn - "$(lf dum0 0)"
	[ "$RD" = "0-1$NL" ] || fail "tx-0/xps_cpus_list reads '$(show "$RD")', expected '0-1\n'"
	rdn - "$(lf dum0 1)"
	[ "$RD" = "$NL" ] || fail "tx-1/xps_cpus_list reads '$(show "$RD")', expected '\n'"
	m=$(stat -c %a "$(mapf dum0)" "$(lf dum0 0)" | tr '\n' ' ')
	[ "$m" = "644 644 " ] || fail "map and xps_cpus_list modes are '$m', expected 644 644"

	pace_reset
	map_row M01 dum0 "$M11" 'tx-0 0-1\ntx-2 2-3\n' "ok 18" 'tx-0 0-1\ntx-1\ntx-2 2-3\ntx-3\n' || return
	map_row M02 dum0 "$M11" '\n' "ok 1" "$M00" || return
	map_row M03 dum0 "$M11" 'tx-3 0\ntx-0 3' "ok 13" 'tx-0 3\ntx-1\ntx-2\ntx-3 0\n' || return
	map_row M04 dum0 "$M11" '\x20tx-1\t1-2\x20\n\n\ttx-2\x20\x200,3\n' "ok 23" 'tx-0\ntx-1 1-2\ntx-2 0,3\ntx-3\n' || return
	map_row M05 dum0 "$M11" 'tx-1' "ok 4" "$M00" || return
	map_row M06 dum0 "$M11" "$M11" "ok 28" = || return
	pace; map_row M07 dum0 "$M11" 'tx-0 1\ntx-0 2\n' "err EINVAL" = || return
	pace; map_row M08 dum0 "$M11" 'tx-0 1\ntx-4 0\n' "err EINVAL" = || return
	pace; map_row M09 dum0 "$M11" 'tx-01 0' "err EINVAL" = || return
	pace; map_row M10 dum0 "$M11" 'tx-0 0\nrx-1 1' "err EINVAL" = || return
	pace; map_row M11 dum0 "$M11" 'tx-0 1\ntx-1 4\n' "err ERANGE" = || return
	pace; map_row M12 dum0 "$M11" 'tx-0 1\ntx-1 1-x\n' "err EINVAL" = || return
	pace; map_row M13 dum0 "$M11" 'tx-2 3-1' "err EINVAL" = || return
	pace; map_row M14 dum0 "$M11" 'tx-2 99999999999' "err EOVERFLOW" = || return
	pace; map_row M15 dum0 "$M11" 'tx-0 1\x00' "err EINVAL" = || return
	pace; map_row M16 dum0 "$M11" 'tx-0,1' "err EINVAL" = || return
	# The longest map sysfs passes whole is PAGE_SIZE - 2 bytes.
	big=$(printf 'tx-0 1%4088s' '')
	map_row M17 dum0 "$M11" "$big" "ok 4094" 'tx-0 1\ntx-1\ntx-2\ntx-3\n' || return
	pace; map_row M18 dum0 "$M11" "$big " "err E2BIG" = || return
	big=$(printf 'tx-0 1%4994s' '')
	pace; map_row M19 dum0 "$M11" "$big" "err E2BIG" = || return
	map_row M20 dum0 "$M11" 'tx-0 1' "err EPERM" = - "${PRIV_NOCAP[@]}" || return
	r=$("${PRIV_USER[@]}" xwrite -- "$(mapf dum0)" 'tx-0 1' 2>&1)
	[ "$r" = "err EACCES" ] || fail "uid 65534 writing the map gave '$r', expected 'err EACCES'"
	pace; map_row M21 dum0 "$M11" 'tx-0 1' "err EPERM" = ref || return

	# The per-packet effect of a map write: CPU c on queue 3 - c.
	xw - "$(mapf dum0)" 'tx-0 3\ntx-1 2\ntx-2 1\ntx-3 0\n'
	[ "$XW" = "ok 28" ] || { fail "map write for the traffic check gave '$XW'"; return 1; }
	udp_all - dum0 "$DST0" "0:3 1:2 2:1 3:0"
	steer_check "UDP after a map write" dum0 "$NQ" 0 "$SPEC"

	# xps_cpus_list on dum0 tx-1, preset 5 (CPUs 0 and 2).
	list_row L01 dum0 1 5 '1-3\n' "ok 4" 1-3 e || return
	list_row L02 dum0 1 5 '\n' "ok 1" "" 0 || return
	list_row L03 dum0 1 5 '3,0' "ok 3" 0,3 9 || return
	pace; list_row L04 dum0 1 5 '4' "err ERANGE" 0,2 5 || return
	pace; list_row L05 dum0 1 5 '0-' "err EINVAL" 0,2 5 || return
	pace; list_row L06 dum0 1 5 'f' "err EINVAL" 0,2 5 || return
	big=$(awk 'BEGIN { while (i++ < 2500) printf "0," }')
	pace; list_row L09 dum0 1 5 "$big" "err E2BIG" 0,2 5 || return
}

t_map_file_rules_cleanup() { modprobe -r xps_steer; }

# ---------------------------------------------------------- the flip --

# Two configurations of dumf (16 queues, namespace ref: dumg, the kernel's
# XPS): A puts every CPU on queue 0, B every CPU on queue 15. A packet may
# be on queue 0 or 15, never on another: that would be a state that is
# neither A nor B. Per queue, A -> B empties tx-0 before it fills tx-15:
# in between no CPU is in any mask, and its packets go where the stock
# hash puts them, over all 16 queues. A map write that built and
# published its masks one queue at a time would spend 14 of its 16
# publishes in that state.
FLIP_Q=16
FLIP_A='tx-0 0-3\n'
FLIP_B='tx-15 0-3\n'
FLIP_SPEC='0:0,15 1:0,15 2:0,15 3:0,15'
FLIP_DST=10.9.5.2
FLIP_SECS=2
# Time-bounded floods on a fast kernel (sid: 55,000 packets from one CPU
# in FLIP_SECS) overrun the usual trace buffer: 4 times as much here.
FLIP_TRACE_KB=$((4 * TRACE_KB))

# map_flipper FILE A B: writes A and B in turn, one write() each, until
# $W/flip.on is removed; prints "writes failures".
map_flipper() {
	local n=0 bad=0
	while [ -e "$W/flip.on" ]; do
		mwrite "$1" 100 "$2" "$3" >/dev/null 2>&1 || bad=$((bad + 1))
		n=$((n + 100))
	done
	echo "$n $bad"
}

# queue_flipper FLAG F0 F15: the per-queue way, as an operator's script
# would do it: B (tx-0 emptied, then tx-15 filled), then A (tx-0 filled,
# then tx-15 emptied), until FLAG is removed; prints "writes failures".
# Self-contained: also run inside netns ref.
queue_flipper() {
	local n=0 bad=0
	while [ -e "$1" ]; do
		echo 0 >"$2" || bad=$((bad + 1))
		echo f >"$3" || bad=$((bad + 1))
		echo f >"$2" || bad=$((bad + 1))
		echo 0 >"$3" || bad=$((bad + 1))
		n=$((n + 4))
	done
	echo "$n $bad"
}

# flip_traffic NS DEV LABEL CMD...: CMD (a flipper) in the background while
# every CPU sends 64 flows from NS through DEV for FLIP_SECS, all at once,
# traced; then the flipper is stopped. Sets OUTSIDE (packets on a queue
# of neither configuration), FLIPS (the flipper's writes) and
# FLIP_CHECK_SPEC (steer_check's spec).
flip_traffic() {
	local ns=$1 dev=$2 label=$3 pid c r npk allowed
	local -a pids=()
	shift 3
	: >"$W/flip.on"
	"$@" >"$W/flipper.out" 2>&1 &
	pid=$!
	sleep 0.5
	trace_start "$dev"
	for c in "${CPUS[@]}"; do
		in_ns "$ns" taskset "$(cpumask "$c")" udpflood -d "$FLIP_DST" -p 9000 \
			-f "$FLOWS" -t "$FLIP_SECS" >"$W/flood.$c" 2>&1 &
		pids+=($!)
	done
	for c in "${CPUS[@]}"; do
		wait_pid "${pids[c]}" $((FLIP_SECS + 60)) || fail "$label: udpflood on cpu $c: exit $WAIT_RC"
	done
	trace_stop
	rm -f "$W/flip.on"
	wait_pid "$pid" 60 || fail "$label: the flipper did not stop (exit $WAIT_RC)"
	read -r FLIPS r <"$W/flipper.out" || true
	[ "${r:-x}" = 0 ] || fail "$label: the flipper's writes failed: $(cat "$W/flipper.out")"
	FLIP_CHECK_SPEC=
	for c in "${CPUS[@]}"; do
		npk=$(awk '/^udpflood: sent/ { print $3 }' "$W/flood.$c")
		grep -q "cpu $c->$c," "$W/flood.$c" || { fail "$label: udpflood not pinned to cpu $c"; diag_file "$W/flood.$c"; }
		allowed=$(echo "$FLIP_SPEC" | tr ' ' '\n' | awk -F: -v c="$c" '$1 == c { print $2 }')
		FLIP_CHECK_SPEC="$FLIP_CHECK_SPEC${FLIP_CHECK_SPEC:+ }$c:$allowed:${npk:-1}"
	done
	trace_table "$dev" >"$W/tbl.flip"
	OUTSIDE=$(awk -v spec="$FLIP_SPEC" '
		BEGIN {
			n = split(spec, s, " ")
			for (i = 1; i <= n; i++) {
				split(s[i], f, ":"); m = split(f[2], q, ",")
				for (j = 1; j <= m; j++) ok[f[1], q[j]] = 1
			}
		}
		!(($1, $2) in ok) { out += $3 }
		END { print out + 0 }' "$W/tbl.flip")
	diag "$label: $FLIPS writes during $(tbl_total "$W/tbl.flip") traced packets, $OUTSIDE on a queue of neither configuration:"
	tbl_matrix "$W/tbl.flip" "$FLIP_Q"
}

# half_applied NS DEV LABEL: after A, only the first per-queue write of B
# (tx-0 emptied) was done: no CPU is in a mask, so CPU 0's packets go where
# the stock hash puts them, on queues neither A nor B gives it.
half_applied() {
	trace_start "$2"
	flood "$1" 0 "$FLIP_DST" "$FLOWS" "$PKTS" || { trace_stop; return 1; }
	trace_stop
	trace_table "$2" >"$W/tbl.half"
	HALF=$(awk '$1 == 0 && $2 != 0 && $2 != 15 { out += $3 } END { print out + 0 }' "$W/tbl.half")
	diag "$3: tx-0 of B written, tx-15 not yet: $HALF of CPU 0's $SENT packets on a queue other than 0 and 15 (neither A nor B)"
	[ "$HALF" -gt 0 ] || fail "$3: a half-applied per-queue configuration put no packet of CPU 0 outside queues 0 and 15"
}

t_map_atomic_flip() {
	local f
	fx_suite || return
	NQ=$FLIP_Q fx_dummy dumf - 10.9.5.1 || return
	NQ=$FLIP_Q fx_dummy dumg ref 10.9.5.1 || return
	xps_load dev=dumf || return
	must sh -c "echo $FLIP_TRACE_KB >$TR/buffer_size_kb" || return

	# 1. The intermediate state exists: one per-queue write into A -> B.
	xw - "$(xf dumf 0)" f
	xw - "$(xf dumf 0)" 0
	half_applied - dumf "xps_steer per-queue files"
	xw ref "$(kf dumg 0)" f
	xw ref "$(kf dumg 0)" 0
	half_applied ref dumg "the kernel's per-queue files"

	# 2. Per-queue flipping under traffic passes through it: this is also
	#    the control that the traffic overlaps the flips enough to catch
	#    a half-applied configuration.
	xw - "$(xf dumf 0)" f
	flip_traffic - dumf "xps_steer per-queue flips" \
		queue_flipper "$W/flip.on" "$(xf dumf 0)" "$(xf dumf 15)"
	[ "$OUTSIDE" -gt 0 ] || fail "per-queue flips on dumf showed no intermediate state: the traffic did not overlap the flips enough for the map check to mean anything"
	xw ref "$(kf dumg 0)" f
	f=$(declare -f queue_flipper)
	flip_traffic ref dumg "kernel per-queue flips" \
		ip netns exec ref bash -c "$f; queue_flipper \"\$@\"" - "$W/flip.on" \
		"$(kf dumg 0)" "$(kf dumg 15)"
	diag "(the kernel's per-queue flips are shown, not required to show an intermediate state)"
	xw ref "$(kf dumg 0)" 0
	xw ref "$(kf dumg 15)" 0

	# 3. The map file: every packet is A's or B's, and both were seen.
	xw - "$(mapf dumf)" "$FLIP_A"
	flip_traffic - dumf "map flips" map_flipper "$(mapf dumf)" "$(printf '%b' "$FLIP_A")" "$(printf '%b' "$FLIP_B")"
	[ "$OUTSIDE" = 0 ] || fail "map flips: $OUTSIDE packets on a queue that is neither A's nor B's: a half-applied map was seen"
	steer_check "map flips, every packet in A or B" dumf "$FLIP_Q" 0 "$FLIP_CHECK_SPEC" "$W/trace.txt"
	# The control that the flips overlapped the traffic: both
	# configurations carried packets. Not per CPU: a sender that shares
	# its CPU with the flipper may run through one configuration only.
	awk '$2 == 0 { a += $3 } $2 == 15 { b += $3 } END { exit !(a > 0 && b > 0) }' "$W/tbl.flip" ||
		fail "map flips: not both configurations carried packets (tx-0 for A, tx-15 for B): the flips did not overlap the traffic"
}

t_map_atomic_flip_cleanup() {
	rm -f "$W/flip.on"
	echo "$TRACE_KB" >"$TR/buffer_size_kb"
	modprobe -r xps_steer
	ip link del dumf
	ip -n ref link del dumg
}
