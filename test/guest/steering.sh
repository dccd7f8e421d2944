# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# steering.sh - per-packet steering tests: maps on dummy and veth, the
# kernel XPS differential, socket-cached queues, offline CPUs, concurrent
# writers.
# Sourced by suite.sh (the runner); helpers in lib.sh.  Each test starts
# from its own fixture (fx_suite / fx_loaded in suite.sh).

test_def steer_one_to_one "1:1 map on dummy: every ICMP/UDP packet from CPU i on queue i"
test_def steer_shared_map "shared map on dummy: packets stay in their CPU's queue set, every queue of it used"
test_def steer_unmapped_cpus "unmapped CPUs use stock hashing over all queues, mapped CPU0 stays on queue 0"
test_def steer_veth_netns "veth across netns: ICMP and pinned TCP, every packet from CPU i on queue i"
test_def steer_vs_kernel_xps "differential vs kernel XPS: same queue sets per CPU, same read-back"
test_def steer_socket_cache "socket-cached queue: connected sockets keep it across a CPU move, like kernel XPS"
test_def offline_cpu_mask "offline CPU in a mask: kept and read back, steers once the CPU is online"
test_def concurrent_writers "concurrent writers: every write succeeds, last writes win, steering follows"

# ping_all DEV DST: pinned echo requests from every CPU into a trace of
# DEV; SPEC expects CPU c on queue c ("c:c:sent ...").
ping_all() {
	local c
	SPEC=
	trace_start "$1"
	for c in "${CPUS[@]}"; do
		pingc - "$c" "$2" "$PINGS" || break
		SPEC="$SPEC $c:$c:$SENT"
	done
	trace_stop
}

t_steer_one_to_one() {
	fx_loaded dev=dum0,veth0 || return
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
	expect_masks dum0 "${MAP[@]}"
	ping_all dum0 "$DST0"
	steer_check ICMP dum0 "$NQ" 0 "$SPEC"
	udp_all - dum0 "$DST0" "0:0 1:1 2:2 3:3"
	steer_check UDP dum0 "$NQ" 0 "$SPEC"
}

t_steer_shared_map() {
	fx_loaded dev=dum0,veth0 || return
	set_masks dum0 3 3 c c || return
	expect_masks dum0 3 3 c c
	udp_all - dum0 "$DST0" "0:0,1 1:0,1 2:2,3 3:2,3"
	steer_check "UDP/$FLOWS flows" dum0 "$NQ" 1 "$SPEC"
}

t_steer_unmapped_cpus() {
	fx_loaded dev=dum0,veth0 || return
	set_masks dum0 1 0 0 0 || return
	expect_masks dum0 1 0 0 0
	# CPUs 1-3 are in no mask: stock hashing over all 4 queues; with 64
	# flows every queue gets some (a CPU stuck on one queue would fail).
	udp_all - dum0 "$DST0" "0:0 1:* 2:* 3:*"
	steer_check "UDP/$FLOWS flows" dum0 "$NQ" 1 "$SPEC"
}

t_steer_veth_netns() {
	local c port rc src bytes spec o
	fx_loaded dev=dum0,veth0 || return
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	ping_all veth0 "$DST2"
	steer_check ICMP veth0 "$NQ" 0 "$SPEC"

	# TCP: server (netns peer) and client pinned to the same CPU, so data,
	# ACK-clocked sends and the control connection all leave from CPU c.
	# Other CPUs may only show up through timers; their packets must then
	# be on their own queue or on c's (the socket's cached queue).
	for c in "${CPUS[@]}"; do
		port=$((5201 + c))
		trace_start veth0
		if ! iperf_server peer "$c" "$DST2" "$port" "$W/srv.$c"; then
			trace_stop
			continue
		fi
		iperf_client "$c" "$DST2" "$port" 2 "$W/cli.$c"
		rc=$?
		wait_pid "$IPERF_SPID" 10
		src=$?
		trace_stop
		bytes=$(iperf_bytes "$W/cli.$c")
		if [ "$rc" != 0 ] || [ "$src" != 0 ] || ! [ "$bytes" -gt 0 ] 2>/dev/null; then
			fail "iperf3 on cpu $c: client rc=$rc server rc=$src bytes=$bytes"
			diag_file "$W/cli.$c" 20
			diag_file "$W/srv.$c" 10
		fi
		spec="$c:$c:20"
		for o in "${CPUS[@]}"; do
			[ "$o" = "$c" ] || spec="$spec $o:$o,$c:0"
		done
		steer_check "TCP(cpu$c, $bytes bytes)" veth0 "$NQ" 0 "$spec"
	done
}

# diff_config NAME "cpu:queues ..." M0 M1 M2 M3: the same masks on dum0
# (xps_steer) and dum1 (kernel XPS), the same pinned flows on both.
diff_config() {
	local name=$1 qspec=$2 q a b s0 s1 c allowed u0 u1
	shift 2
	set_masks dum0 "$@" || return
	kset_masks ref dum1 "$@" || return
	for ((q = 0; q < $#; q++)); do
		rdn - "$(xf dum0 "$q")"; a=$RD
		rdn ref "$(kf dum1 "$q")"; b=$RD
		[ "$a" = "$b" ] ||
			fail "config $name tx-$q: xps_steer reads '$(show "$a")', kernel '$(show "$b")'"
	done
	# Fixed source ports (-P): identical flows, hence identical flow hashes.
	trace_start dum0 dum1
	s0='' s1=''
	for c in "${CPUS[@]}"; do
		allowed=$(echo "$qspec" | tr ' ' '\n' | awk -F: -v c="$c" '$1 == c { print $2 }')
		flood - "$c" "$DST0" "$FLOWS" "$PKTS" -P 20000 || break
		s0="$s0 $c:$allowed:$SENT"
		flood ref "$c" "$DST0" "$FLOWS" "$PKTS" -P 20000 || break
		s1="$s1 $c:$allowed:$SENT"
	done
	trace_stop
	cp "$W/trace.txt" "$W/trace.diff.$name"
	steer_check "config $name xps_steer" dum0 "$NQ" 1 "$s0"
	steer_check "config $name kernel-XPS" dum1 "$NQ" 1 "$s1"
	for c in "${CPUS[@]}"; do
		u0=$(tbl_queues "$W/tbl.dum0" "$c")
		u1=$(tbl_queues "$W/tbl.dum1" "$c")
		if [ "$u0" != "$u1" ]; then
			fail "config $name cpu$c: xps_steer used queues {$u0}, kernel XPS {$u1}"
			continue
		fi
		allowed=$(echo "$qspec" | tr ' ' '\n' | awk -F: -v c="$c" '$1 == c { print $2 }')
		if [ "$(trace_seq dum0 "$c")" = "$(trace_seq dum1 "$c")" ]; then
			diag "config $name cpu$c: same queue set {$u0}; identical queue for every one of the packets"
		elif [ "$allowed" = "*" ]; then
			# Unmapped CPU: the contract is stock selection, and stock
			# selection of the same flow is the same queue.
			fail "config $name cpu$c (in no mask): queue sequence differs from the kernel's stock selection"
			diag "  xps_steer: $(trace_seq dum0 "$c" | cut -c1-120)"
			diag "  kernel   : $(trace_seq dum1 "$c" | cut -c1-120)"
		else
			diag "config $name cpu$c: same queue set {$u0}; per-flow choice within it differs from the kernel (allowed)"
		fi
	done
}

t_steer_vs_kernel_xps() {
	local nok inp
	fx_loaded dev=dum0,veth0 || return
	# A: CPU1 -> {1,2}, CPU3 -> {0,3}; B: CPU0 -> {0,1}, CPU2 in no mask.
	diff_config A "0:0 1:1,2 2:2 3:0,3" 9 2 6 8
	diff_config B "0:0,1 1:1 2:* 3:3" 1 3 0 8
	diag "valid inputs, written to tx-2 of both (result and read-back must match):"
	nok=0
	for inp in 0 1 f F 8 00000003 '3\n' '5\n' 0000000c 00000000 'a\n' 0; do
		cmp_write "$inp" 2 && case $CMP_RES in ok*) nok=$((nok + 1)) ;; esac
	done
	[ "$nok" -gt 0 ] || fail "no valid input was accepted by either file"
	diag "$nok valid writes accepted identically"
}

# sock_flood NS ARGS...: udpflood pinned to CPU 0, moving to CPU 1 halfway.
sock_flood() {
	local ns
	ns=$1
	shift
	in_ns "$ns" taskset 1 udpflood -d "$DST0" -p 9000 -f 8 -n 200 -m 1 "$@" \
		>"$W/sock.out" 2>&1
	if ! grep -q 'sent 200 of 200' "$W/sock.out" ||
	    ! grep -q 'moved to cpu 1 ' "$W/sock.out"; then
		fail "udpflood $* (netns $ns) did not send 100 packets on cpu 0, then 100 on cpu 1"
		diag_file "$W/sock.out"
		return 1
	fi
}

t_steer_socket_cache() {
	local cq mode q1
	local -a a
	fx_loaded dev=dum0 || return
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
	kset_masks ref dum1 "${MAP[@]}" || return
	# Connected sockets cache their queue (UDP never sets ooo_okay): the
	# half sent after moving to CPU 1 must stay on queue 0, as with the
	# kernel's XPS.  Unconnected sockets are steered per packet: CPU 1's
	# half goes to queue 1.  dum1 (kernel XPS) checks the premise.
	# Kernels whose sk_tx_queue_get() is out of line (7.x) let a cached
	# queue go stale (sk_tx_queue_mapping_jiffies) and pick again, so
	# there CPU 1's half may be on queue 0 or 1, for both.
	cq=0
	if grep -q ' sk_tx_queue_get$' /proc/kallsyms; then
		cq=0,1
		diag "this kernel re-picks stale cached queues (sk_tx_queue_get): cpu1 may use queue 0 or 1"
	fi
	for mode in connected unconnected; do
		if [ $mode = connected ]; then a=(-c) q1=$cq; else a=() q1=1; fi
		trace_start dum0 dum1
		sock_flood - "${a[@]}" -P 21000 && sock_flood ref "${a[@]}" -P 21000
		trace_stop
		steer_check "$mode, cpu0 then cpu1, xps_steer" dum0 "$NQ" 0 "0:0:100 1:$q1:100"
		steer_check "$mode, cpu0 then cpu1, kernel-XPS" dum1 "$NQ" 0 "0:0:100 1:$q1:100"
	done
}

t_steer_socket_cache_cleanup() { modprobe -r xps_steer; }

# A mask may name a possible CPU that is offline: xps_steer keeps it (and
# reads it back), so the CPU steers as soon as it comes online. The
# kernel's file drops offline CPUs: a documented difference.
OFF_CPU=3
t_offline_cpu_mask() {
	local on online ra rb a b spec=
	fx_suite || return
	on=/sys/devices/system/cpu/cpu$OFF_CPU/online
	if [ ! -w "$on" ]; then
		fail "$on missing: CPU $OFF_CPU cannot be taken offline"
		return
	fi
	fx_loaded dev=dum0 || return
	set_masks dum0 0 0 0 0 || return
	kset_masks ref dum1 0 0 0 0 || return
	must sh -c "echo 0 >$on" || return
	online=$(cat /sys/devices/system/cpu/online)
	diag "CPU $OFF_CPU offline: online CPUs $online"
	row_mark
	xw - "$(xf dum0 3)" 8; ra=$XW
	xw ref "$(kf dum1 3)" 8; rb=$XW
	rdn - "$(xf dum0 3)"; a=$RD
	rdn ref "$(kf dum1 3)"; b=$RD
	diag "mask 8 (CPU $OFF_CPU only) written to tx-3: xps_steer '$ra', reads '$(show "$a")'; kernel '$rb', reads '$(show "$b")'"
	if [ "$ra" != "ok 1" ] || [ "$a" != "8$NL" ]; then
		fail "a mask naming offline CPU $OFF_CPU: '$ra', reads '$(show "$a")', expected 'ok 1' and '8\\n'"
	fi
	# The kernel's own file drops the offline CPU: the README's case for
	# xps_steer. If a kernel ever keeps it, that paragraph must change.
	if [ "$rb" = "ok 1" ] && [ "$b" = "8$NL" ]; then
		fail "the kernel's xps_cpus kept offline CPU $OFF_CPU on $(uname -r): the README's offline-CPU case no longer holds"
	fi
	must sh -c "echo 1 >$on"
	wait_until 5 sh -c "[ \"\$(cat /sys/devices/system/cpu/online)\" = 0-3 ]" ||
		fail "CPU $OFF_CPU did not come back online"
	rdn - "$(xf dum0 3)"
	[ "$RD" = "8$NL" ] || fail "after CPU $OFF_CPU came online tx-3 reads '$(show "$RD")', expected '8\\n'"
	# It steers at once, without a new write.
	trace_start dum0
	flood - $OFF_CPU "$DST0" "$FLOWS" "$PKTS" && spec="$OFF_CPU:3:$SENT"
	trace_stop
	steer_check "UDP from CPU $OFF_CPU after it came online" dum0 "$NQ" 0 "${spec:-$OFF_CPU:3:1}" &&
		[ "$T_FAIL" = 0 ] && row S11 "$ra" xps_cpus
}

t_offline_cpu_mask_cleanup() {
	echo 1 >/sys/devices/system/cpu/cpu$OFF_CPU/online
	modprobe -r xps_steer
}

# conc_writer FILE N V1 V2...: N rounds of writing V1, V2, ... in turn
# (shell redirection: a fresh open and one write each); prints the number
# of failed writes.
conc_writer() {
	local f r bad v
	f=$1 r=$2 bad=0
	shift 2
	while [ "$r" -gt 0 ]; do
		for v in "$@"; do
			printf '%s\n' "$v" 2>/dev/null >"$f" || bad=$((bad + 1))
		done
		r=$((r - 1))
	done
	echo "$bad"
}

# Concurrent writers: four on tx-0 (each its own CPU), one on each other
# queue. Every write succeeds, tx-0 ends as one writer's last mask, the
# others as their writer's, and the map then steers by exactly those.
t_concurrent_writers() {
	local c q p bad m tx0 spec in0
	local -a pids=()
	fx_loaded dev=dum0 || return
	row_mark
	rm -f "$W"/conc.*
	# Writers pinned to their own CPU (the subshell pins itself: bash's
	# BASHPID; unpinned where there is none).
	for c in 0 1 2 3; do
		(	[ -z "${BASHPID:-}" ] || taskset -p "$(cpumask $c)" "$BASHPID" >/dev/null
			conc_writer "$(xf dum0 0)" 50 f "$(cpumask $c)") >"$W/conc.$c" 2>&1 &
		pids+=($!)
	done
	for q in 1 2 3; do
		(conc_writer "$(xf dum0 $q)" 50 f 0 "$(cpumask $q)") >"$W/conc.q$q" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait_pid "$p" 180 || fail "writer $p: exit $WAIT_RC"
	done
	bad=$(cat "$W"/conc.* | awk '{ t += $1 } END { print t + 0 }')
	[ "$bad" = 0 ] || fail "$bad of 850 concurrent writes failed: $(cat "$W"/conc.* | tr '\n' ' ')"
	m=$(read_masks dum0 "$NQ")
	diag "after 4 x 100 writes to tx-0 and 3 x 150 to tx-1..tx-3, all at once: masks $m"
	case $m in
	"1 2 4 8"|"2 2 4 8"|"4 2 4 8"|"8 2 4 8") ;;
	*) fail "masks after concurrent writes read '$m': tx-0 must hold one writer's last mask (1, 2, 4 or 8), tx-N mask 1<<N" ;;
	esac
	# Steering follows what reads back (tx-0's CPU also names tx-N).
	tx0=$(cat "$(xf dum0 0)")
	spec=
	for c in "${CPUS[@]}"; do
		in0=$((0x$tx0 >> c & 1))
		if [ "$c" = 0 ]; then
			if [ "$in0" = 1 ]; then q=0; else q='*'; fi
		elif [ "$in0" = 1 ]; then
			q="0,$c"
		else
			q=$c
		fi
		spec="$spec${spec:+ }$c:$q"
	done
	udp_all - dum0 "$DST0" "$spec"
	steer_check "UDP after concurrent writes" dum0 "$NQ" 0 "$SPEC"
	[ "$T_FAIL" = 0 ] && row S12 ok xps_cpus
}

t_concurrent_writers_cleanup() { modprobe -r xps_steer; }
