#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stress.sh - the in-guest stress suite of xps_steer (KTAP output): its
# tests, addressed by name, and its runner.
#
# Usage (in the guest): stress.sh [T=name[,name...]] [COUNT=N...]
#   T=  the tests to run, in the order given (default: all, in the order
#       below); stress.sh --list prints them.  An unknown name is a
#       "Bail out!", exit 1.
#   COUNT=N overrides one of the counts below (CYCLES=20 ...), for quick
#       manual rounds; the suite prints what it actually did.
#
# Runs inside the QEMU guest built by test/vm.sh, like suite.sh, but on a
# guest with more possible than online CPUs (vm.sh --smp 4 --maxcpus 8).
# Every count is bounded and printed; every step is checked:
#   stress_attach_cycles: attach/detach cycles (modprobe / modprobe -r)
#      under TCP+UDP traffic from every CPU;
#   stress_mask_writes: random mask writes from concurrent writers (two per
#      file) under traffic, concurrent readers; afterwards every file reads
#      its last write and every packet obeys the masks (per packet);
#   stress_device_churn: delete/re-create cycles of an attached device
#      under traffic, with a writer looping on its files, and rename loops
#      of an attached device;
#   stress_cpu_hotplug: CPU offline/online cycles under traffic, masks
#      naming offline and not-present CPUs, per-packet checks while a CPU
#      is offline and after it is back;
#   stress_queue_resize: queue-count shrink/grow with ethtool -L under
#      traffic: no packet ever on a queue >= real_num_tx_queues (in-kernel
#      tracepoint filter over every packet), no "selects TX queue";
#   stress_packet_bypass: AF_PACKET senders with PACKET_QDISC_BYPASS
#      (ndo_select_queue called without RCU held) on every CPU during
#      attach/detach cycles;
#   stress_dev_list: the runtime device list (dev=) changed over and over
#      under traffic through both devices; after each write exactly the
#      listed devices have a tree; per packet after the last;
#   stress_map_writes: whole-device map writes by concurrent writers under
#      traffic, concurrent readers that must only ever see complete maps;
#      afterwards the map reads the last write and every packet obeys it;
#   stress_guard_churn: guard mode under traffic: the kernel's map of a
#      guarded dummy wiped and rewritten over and over (software mqprio,
#      writes to the kernel's files, CPU hotplug, dev= flipping the device
#      to steer mode and back) while writers loop on the files of a guarded
#      veth and its kernel files; every rewrite restored, per packet
#      checks; the module unloaded under traffic;
#   stress_guard_drivers: the test-only drivers guarded under traffic,
#      beside a steered veth: bnxlike's reloads (its map wiped), bnxlike
#      and ops_checker unloaded and loaded again (their devices
#      re-registered, attached afresh, their masks written again as a
#      udev rule would), ops_checker's device renamed and back; after each
#      the kernel's map is the operator's, ops_checker never sees a
#      foreign netdev_ops; per packet on all three at the end;
#   stress_final: no shell errors, the module unloads, no kernel warnings.
# Each test starts from its own fixture (fx_stress: idempotent), so any
# subset runs alone or in any order.
# Traffic that should arrive is counted: every iperf3 transfer must exit 0
# having sent and received data (iperf3 fails on a reset, stall or timeout;
# its "received" counts only the server's measuring window, so it is
# printed, not compared with "sent"), and the peer namespace's UDP counters
# (InDatagrams + NoPorts) must grow by exactly the number of datagrams the
# senders report sent (udpflood and pktsend).  After each detach the device
# must work normally (ping, stock queue spread).
#
# Topology (fx_stress):
#   init netns: veth0 (4 txq, 10.9.2.1/24) -- background traffic
#               dum0  (dummy, 4 txq, 10.9.0.1/24) -- per-packet checks
#   netns peer: veth1 (4 txq, 10.9.2.2/24), iperf3 servers, UDP counters
# Exit status: 0 iff every selected test passed (skips excepted).

STRESS_TESTS=(
	stress_attach_cycles
	stress_mask_writes
	stress_device_churn
	stress_cpu_hotplug
	stress_queue_resize
	stress_packet_bypass
	stress_dev_list
	stress_map_writes
	stress_guard_churn
	stress_guard_drivers
	stress_final
)

HERE=$(dirname "$0")
[ -r "$HERE/lib.sh" ] || HERE=/test
# shellcheck source=lib.sh
. "$HERE/lib.sh"

CYCLES=200	# stress_attach_cycles: attach/detach cycles
WRITES=10000	# stress_mask_writes: mask writes in total
WRITERS=8	# stress_mask_writes: concurrent writers (two per file)
RECREATE=100	# stress_device_churn: delete/re-create cycles
RENAMES=50	# stress_device_churn: rename round trips
HOTPLUG=20	# stress_cpu_hotplug: CPU offline/online cycles
RESIZE=40	# stress_queue_resize: ethtool -L changes
PKTCYCLES=50	# stress_packet_bypass: attach/detach cycles under bypass senders
LISTS=1000	# stress_dev_list: dev= writes
MAPWRITES=10000	# stress_map_writes: map writes in total
MAPWRITERS=4	# stress_map_writes: concurrent writers
GUARDROUNDS=40	# stress_guard_churn: rewrites of the guarded map
GDRIVERS=30	# stress_guard_drivers: reloads, re-registrations and renames
COUNTS=(CYCLES WRITES WRITERS RECREATE RENAMES HOTPLUG RESIZE PKTCYCLES LISTS MAPWRITES MAPWRITERS GUARDROUNDS GDRIVERS)

NQ=4
FLOWS=64
PKTS=256
DST0=10.9.0.2
DST2=10.9.2.2
MASKMAX=$(((1 << NR_CPU_IDS) - 1))

# ------------------------------------------------------------ topology --

# expect_cycles DEV DONE WANTED: DONE >= WANTED cycles ran, and the log
# since the mark has exactly DONE "DEV: attached" and "DEV: detached" lines.
expect_cycles() {
	local dev=$1 done=$2 wanted=$3 a d
	a=$(klog_since | grep -c "xps_steer: $dev: attached")
	d=$(klog_since | grep -c "xps_steer: $dev: detached")
	diag "log: $a attached, $d detached ($dev)"
	[ "$done" -ge "$wanted" ] || fail "only $done of $wanted cycles done"
	{ [ "$a" = "$done" ] && [ "$d" = "$done" ]; } ||
		fail "expected $done 'attached' and 'detached' lines for $dev, log has $a and $d"
}

# fx_stress: the topology, created or repaired (idempotent), every CPU
# online, the module not loaded, one persistent iperf3 server per online
# CPU listening in netns peer.
SERVERS=()
fx_stress() {
	local c port
	xps_unload || return 1
	fx_cpus_online
	fx_netns - peer || return 1
	# Backlog drops would be losses the module did not cause.
	sysctl_w - /proc/sys/net/core/netdev_max_backlog 100000
	fx_dummy dum0 - 10.9.0.1 || return 1
	fx_veth || return 1
	for c in "${CPUS[@]}"; do
		port=$((5201 + c))
		listening peer "$(printf '%04X' "$port")" && continue
		(exec ip netns exec peer iperf3 -s -B "$DST2" -p "$port" \
			>"$W/iperf-s.$c" 2>&1 </dev/null) &
		SERVERS+=($!)
		wait_until 15 listening peer "$(printf '%04X' "$port")" ||
			fail "iperf3 server on port $port not listening"
	done
	[ "$T_FAIL" = 0 ]
}

# udp_in: datagrams the peer namespace's UDP layer received (InDatagrams +
# NoPorts: nothing listens on the flood ports).
udp_in() {
	in_ns peer cat /proc/net/snmp |
		awk '/^Udp:/ { if (h) { print $2 + $3; exit } h = 1 }'
}

# ------------------------------------------------------- background load --
#
# bg_start MODE: traffic loops until bg_stop.  MODE is a word list:
#   tcp  iperf3 -t 5 transfers to veth1, one loop per online CPU
#   udp  udpflood bursts to veth1 (one process for the run), one loop per online CPU
#   pkt  pktsend (AF_PACKET, qdisc bypass) bursts to veth1, one per CPU
#   pin  pin each loop to its CPU (else unpinned: CPUs may go offline)
# Each loop appends one result line per round to $W/bg/<kind>.<cpu>.

bg_round_tcp() {	# CPU
	local c o rc s r
	c=$1
	o=$W/bg/tcp.$c.json
	timeout 600 iperf3 -c "$DST2" -p $((5201 + c)) -t 5 -b 50M -J \
		--connect-timeout 10000 >"$o" 2>&1 </dev/null
	rc=$?
	s=$(iperf_bytes "$o")
	r=$(awk '/"sum_received"/ { f = 1 }
	     f && /"bytes"/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$o" | grep . || echo 0)
	echo "$rc $s $r" >>"$W/bg/tcp.$c"
	[ "$rc" = 0 ] || cp "$o" "$W/bg/tcp.$c.failed"
}

# sent_in FILE TOOL: the count of FILE's "TOOL: sent N ..." line (0 without
# one) in SENT_N; read by the shell itself, see bg_loop.
sent_in() {
	local a b n rest
	SENT_N=0
	while read -r a b n rest; do
		[ "$a $b" = "$2: sent" ] && SENT_N=$n
	done <"$1"
	return 0
}

# One udpflood for the whole run: bursts of 100 datagrams 0.1 s apart
# until bg_stop (a new one only if it fails).
bg_round_udp() {	# CPU
	udpflood -d "$DST2" -p 9000 -f 16 -n 100 -S "$W/bg/stop" -g 100 \
		>"$W/bg/udp.$1.out" 2>&1 </dev/null || sleep 0.1
	sent_in "$W/bg/udp.$1.out" udpflood
	echo "$SENT_N" >>"$W/bg/udp.$1"
}

bg_round_pkt() {	# CPU
	pktsend -i veth0 -m "$MAC1" -s 10.9.2.1 -d "$DST2" -p 9000 -n 100 -f 16 \
		>"$W/bg/pkt.$1.out" 2>&1 </dev/null
	sent_in "$W/bg/pkt.$1.out" pktsend
	echo "$SENT_N" >>"$W/bg/pkt.$1"
	sleep 0.1
}

bg_loop() {	# KIND CPU PIN
	local k c
	k=$1 c=$2
	# Rate-limited (iperf3 -b, pauses between bursts) and niced: the
	# point is packets through the hook at every moment, not saturation
	# (on TCG a saturated guest makes each attach/detach take seconds).
	# Niced and pinned once, here, for the rounds' tools to inherit: on
	# the debug kernel each process start (nice, taskset, awk) costs
	# ~0.1 s, and four loops of them starved the tests they ran under.
	renice -n 10 -p "$BASHPID" >/dev/null
	if [ "$3" = 1 ]; then
		taskset -p "$(cpumask "$c")" "$BASHPID" >/dev/null
	fi
	while [ ! -e "$W/bg/stop" ]; do
		"bg_round_$k" "$c"
	done
}

BG_PIDS=()
bg_start() {
	local pin k c
	rm -rf "$W/bg"
	mkdir -p "$W/bg"
	BG_MODE=$1
	pin=0
	case " $1 " in *" pin "*) pin=1 ;; esac
	BG_UDP0=$(udp_in)
	BG_T0=$(date +%s)
	for k in tcp udp pkt; do
		case " $1 " in *" $k "*) ;; *) continue ;; esac
		for c in "${CPUS[@]}"; do
			bg_loop "$k" "$c" "$pin" &
			BG_PIDS+=($!)
		done
	done
	sleep 1
}

# bg_stop: stop the loops, then check and print what they did.
bg_stop() {
	local p secs udp pkt tcpn tcpb tcpr bad f b inp want
	touch "$W/bg/stop"
	for p in "${BG_PIDS[@]}"; do
		wait_pid "$p" 660 || fail "background traffic loop $p did not stop in 660 s"
	done
	BG_PIDS=()
	sleep 0.5	# backlog drained on the peer
	secs=$(($(date +%s) - BG_T0))
	udp=0 pkt=0 tcpn=0 tcpb=0 tcpr=0 bad=0
	for f in "$W"/bg/udp.[0-9]*; do
		[ -e "$f" ] || continue
		case $f in *.out) continue ;; esac
		udp=$((udp + $(awk '{ s += $1 } END { print s + 0 }' "$f")))
	done
	for f in "$W"/bg/pkt.[0-9]*; do
		[ -e "$f" ] || continue
		case $f in *.out) continue ;; esac
		pkt=$((pkt + $(awk '{ s += $1 } END { print s + 0 }' "$f")))
	done
	for f in "$W"/bg/tcp.[0-9]*; do
		[ -e "$f" ] || continue
		case $f in *.json | *.failed) continue ;; esac
		tcpn=$((tcpn + $(wc -l <"$f")))
		tcpb=$((tcpb + $(awk '{ s += $2 } END { print s + 0 }' "$f")))
		tcpr=$((tcpr + $(awk '{ s += $3 } END { print s + 0 }' "$f")))
		b=$(awk '$1 != 0 || $2 == 0 || $3 == 0' "$f" | wc -l)
		if [ "$b" != 0 ]; then
			bad=$((bad + b))
			fail "TCP ${f##*.}: $b of $(wc -l <"$f") iperf3 transfers failed (rc sent received):"
			awk '$1 != 0 || $2 == 0 || $3 == 0' "$f" | head -n 5 | sed 's/^/#   /'
			[ -e "$f.failed" ] && diag_file "$f.failed" 15
		fi
	done
	inp=$(($(udp_in) - BG_UDP0))
	want=$((udp + pkt))
	diag "traffic ($BG_MODE, $secs s): TCP $tcpn transfers, $tcpb bytes sent, $tcpr received in iperf3's window, $bad failed;" \
		"UDP sent $udp (udpflood) + $pkt (pktsend), received by veth1's netns $inp"
	case " $BG_MODE " in
	*" tcp "*) [ "$tcpn" -gt 0 ] || fail "no TCP transfer completed" ;;
	esac
	case " $BG_MODE " in
	*" udp "* | *" pkt "*) [ "$want" -gt 0 ] || fail "no UDP datagram sent" ;;
	esac
	[ "$inp" = "$want" ] ||
		fail "UDP: $want datagrams sent, $inp arrived ($((want - inp)) lost)"
}

# ---------------------------------------------------------------- helpers --

# pkt_check LABEL DEV NQ ALL: steer_check on the last udp_all, which must
# have produced a trace and a spec for every online CPU.
pkt_check() {
	if [ ! -s "$W/trace.txt" ] || [ "$(printf '%s\n' "$SPEC" | wc -w)" != "$NCPU" ]; then
		fail "$1 on $2: no trace or no packets from every CPU (spec '$SPEC')"
		return 1
	fi
	steer_check "$1" "$2" "$3" "$4" "$SPEC"
}

# alive: veth0 works normally: ping answered, flows from CPU 0 spread over
# all queues (stock selection: the hook is gone or maps nothing).
alive_stock() {
	local spec c
	if ping_ok - "$DST2"; then
		diag "$1: veth0 -> veth1 ping ok"
	else
		fail "$1: veth0 -> veth1 ping fails"
		diag_file "$W/ping.out"
	fi
	spec=
	for c in "${CPUS[@]}"; do spec="$spec${spec:+ }$c:*"; done
	udp_all - veth0 "$DST2" "$spec"
	pkt_check "$1, stock" veth0 $NQ 1
}

# allowed_spec M0 M1 ...: "cpu:queues ..." per online CPU: the queues
# whose mask names the CPU, "*" (stock) for a CPU in no mask.
allowed_spec() {
	local out c q l m
	out=
	for c in "${CPUS[@]}"; do
		q=0 l=
		for m in "$@"; do
			[ $(((0x$m >> c) & 1)) = 1 ] && l="$l${l:+,}$q"
			q=$((q + 1))
		done
		out="$out${out:+ }$c:${l:-*}"
	done
	echo "$out"
}

# progress I N T0 WHAT: a diagnostic every 50 rounds, so a slow run shows life.
progress() {
	[ $(($1 % 50)) = 0 ] && [ "$1" != 0 ] &&
		diag "  ... $1 of $2 $4 ($(($(date +%s) - $3)) s)"
	return 0
}

hexeq() { [ $((0x$1)) = $((0x$2)) ]; }	# masks equal as numbers

# niced OUT CMD...: CMD (a shell function too) in the background at nice
# 10, like the traffic, its output in OUT; its pid in NICED. At nice 0
# such shell loops starved the traffic on the debug kernel.
niced() {
	local out=$1
	shift
	"$@" >"$out" &
	NICED=$!
	renice -n 10 -p "$NICED" >/dev/null
}

# writes_report WHAT WANT WRITERS WPREFIX RPREFIX BAD BADFILE SECS: the
# writers' "writes errors" lines (files WPREFIX*) and the readers' "reads
# bad" lines (RPREFIX*) summed: at least WANT writes, none failed, no bad
# read (BAD says what one is; BADFILE shows them).
writes_report() {
	local what=$1 want=$2 nw=$3 n r f k
	n=$(cat "$4"* | awk '{ n += $1; e += $2 } END { print n + 0, e + 0 }')
	r=$(cat "$5"* | awk '{ n += $1; b += $2 } END { print n + 0, b + 0 }')
	diag "$nw writers: ${n% *} $what (${n#* } failed) in $8 s; 2 readers: ${r% *} reads (${r#* } $6)"
	[ "${n% *}" -ge "$want" ] || fail "only ${n% *} of $want $what done"
	[ "${n#* }" = 0 ] || fail "${n#* } valid $what failed"
	if [ "${r#* }" != 0 ]; then
		fail "concurrent reads returned $6:"
		diag_file "$7" 10
	fi
	# A reader that never got a read in checked nothing.
	for f in "$5"*; do
		read -r k _ <"$f"
		[ "${k:-0}" -gt 0 ] || fail "reader ${f##*.} read nothing while the writers ran"
	done
}

# wait_all SECONDS WHAT PID...: each must end within SECONDS.
wait_all() {
	local secs=$1 what=$2 p
	shift 2
	for p in "$@"; do
		wait_pid "$p" "$secs" || fail "$what $p did not finish in $secs s"
	done
}

# expect_masks_num DEV M0 M1 ...: read-back equals the masks as numbers
# (with more than 4 possible CPUs the files read "01", not "1").
expect_masks_num() {
	local d got q w g
	d=$1
	shift
	got=$(read_masks "$d" $#)
	q=0
	for w in "$@"; do
		g=$(echo "$got" | cut -d' ' -f$((q + 1)))
		if ! hexeq "$g" "$w" 2>/dev/null; then
			fail "$d masks read '$got', expected '$*'"
			return 1
		fi
		q=$((q + 1))
	done
	diag "$d masks: $got"
	return 0
}

cpu_online() {	# CPU 0|1
	echo "$2" >"/sys/devices/system/cpu/cpu$1/online" 2>"$W/hp.err"
}

# ---------------------------------------------------------------- tests --


t_stress_attach_cycles() {
	local t0 i q m t1 a d
	fx_stress || return
	klog_mark
	map11 "$NQ"
	bg_start "tcp udp pin"
	t0=$(date +%s)
	i=0
	while [ $i -lt "$CYCLES" ]; do
		modprobe_ok "cycle $i" xps_steer dev=veth0,dum0 || break
		# A different map every cycle, so the hook steers while detaching.
		q=0
		for m in "${MAP[@]}"; do
			[ $((i % 2)) = 1 ] && printf -v m '%x' $(((0x$m << 1 | 0x$m) & MASKMAX))
			echo "$m" >"$XS/veth0/tx-$q/xps_cpus" || fail "cycle $i: write $m to veth0 tx-$q failed"
			q=$((q + 1))
		done
		modprobe_ok "cycle $i" -r xps_steer || break
		if [ -e "$XS" ]; then
			fail "cycle $i: $XS survives modprobe -r"
			break
		fi
		i=$((i + 1))
		progress $i "$CYCLES" "$t0" "attach/detach cycles"
	done
	t1=$(date +%s)
	bg_stop
	diag "$i attach/detach cycles in $((t1 - t0)) s"
	expect_cycles veth0 "$i" "$CYCLES"
	alive_stock "after $i cycles"
}

t_stress_attach_cycles_cleanup() { [ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop; }

# writer FILE LIST: write every mask of LIST (one per line) to FILE; prints
# "writes errors".
writer() {
	local n e m
	n=0 e=0
	while read -r m; do
		echo "$m" >"$1" 2>/dev/null || e=$((e + 1))
		n=$((n + 1))
	done <"$2"
	echo "$n $e"
}

# reader FILE...: read the files until $W/wr.stop; every read must be a hex
# mask within MASKMAX; prints "reads bad".
reader() {
	local n b f v
	n=0 b=0
	while [ ! -e "$W/wr.stop" ]; do
		for f in "$@"; do
			read -r v <"$f" || v=ERR
			n=$((n + 1))
			case $v in
			"" | *[!0-9a-f,]*) b=$((b + 1)); echo "bad read of $f: '$v'" >>"$W/reader.bad" ;;
			*)	case $v in *,*) v=$(echo "$v" | tr -d ,) ;; esac
				[ $((0x$v)) -le $MASKMAX ] ||
				{ b=$((b + 1)); echo "out of range: $f: '$v'" >>"$W/reader.bad"; } ;;
			esac
		done
	done
	echo "$n $b"
}

t_stress_mask_writes() {
	local per w q t0 r p t1 n want got spec
	local -a wp rp final files
	fx_stress || return
	xps_load dev=veth0,dum0 || return
	per=$(((WRITES + WRITERS - 1) / WRITERS))
	# Lists: writers w and w+NQ share tx-(w % NQ) and end with the same
	# mask, so "the last write" is well defined for every file.
	w=0
	while [ $w -lt "$WRITERS" ]; do
		q=$((w % NQ))
		awk -v n="$per" -v seed=$((w + 1)) -v fin=$((q + 101)) -v max=$MASKMAX 'BEGIN {
			srand(seed)
			for (i = 1; i < n; i++) printf "%x\n", int(rand() * (max + 1))
			srand(fin); printf "%x\n", int(rand() * (max + 1)) }' >"$W/wr.list.$w"
		w=$((w + 1))
	done
	rm -f "$W/wr.stop" "$W/reader.bad"
	bg_start "tcp udp pin"
	t0=$(date +%s)
	wp=()
	for ((w = 0; w < WRITERS; w++)); do
		niced "$W/wr.res.$w" writer "$(xf veth0 $((w % NQ)))" "$W/wr.list.$w"
		wp+=("$NICED")
	done
	rp=() files=()
	for ((q = 0; q < NQ; q++)); do files+=("$(xf veth0 "$q")"); done
	for r in 1 2; do
		niced "$W/rd.res.$r" reader "${files[@]}"
		rp+=("$NICED")
	done
	wait_all 1800 "mask writer" "${wp[@]}"
	touch "$W/wr.stop"
	wait_all 60 reader "${rp[@]}"
	t1=$(date +%s)
	bg_stop
	writes_report "mask writes" "$WRITES" "$WRITERS" "$W/wr.res." "$W/rd.res." \
		"malformed masks" "$W/reader.bad" $((t1 - t0))
	# Every file reads its last write.
	final=()
	q=0
	while [ $q -lt $NQ ]; do
		want=$(tail -n 1 "$W/wr.list.$q")
		got=$(cat "$(xf veth0 $q)")
		if hexeq "$got" "$want"; then
			diag "veth0 tx-$q reads '$got' = last write '$want'"
		else
			fail "veth0 tx-$q reads '$got', last write was '$want'"
		fi
		final+=("$want")
		q=$((q + 1))
	done
	# Every packet obeys the final masks.
	spec=$(allowed_spec "${final[@]}")
	diag "final masks ${final[*]} -> allowed queues per CPU: $spec"
	udp_all - veth0 "$DST2" "$spec"
	pkt_check "after $WRITES writes" veth0 $NQ 1
}

t_stress_mask_writes_cleanup() {
	touch "$W/wr.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
}

# loop_writer DEV: rewrite DEV's masks until $W/lw.stop (errors expected:
# the device comes and goes).
loop_writer() {
	local v q
	v=1
	while [ ! -e "$W/lw.stop" ]; do
		for q in 0 1 2 3; do printf '%x\n' "$v" >"$XS/$1/tx-$q/xps_cpus"; done 2>/dev/null
		v=$(((v * 5 + 3) & MASKMAX))
		[ -e "$XS/$1" ] || sleep 0.05
	done
}

# loop_sender DST: udpflood bursts to DST until $W/lw.stop (errors expected).
loop_sender() {
	renice -n 10 -p "$BASHPID" >/dev/null	# once, see bg_loop
	while [ ! -e "$W/lw.stop" ]; do
		udpflood -d "$1" -p 9000 -f 8 -n 200 >/dev/null 2>&1 </dev/null || sleep 0.05
		sleep 0.05
	done
}

t_stress_device_churn() {
	local lw ls t0 i sent c t1 a d pair from to spec
	fx_stress || return
	for d in dumr duma dumx dumb; do ip link del "$d" 2>/dev/null; done
	xps_load dev=veth0,dum0,dumr,duma,dumb || return
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	rm -f "$W/lw.stop"
	klog_mark
	bg_start "tcp udp pin"
	loop_writer dumr &
	lw=$!
	loop_sender 10.9.5.2 &
	ls=$!
	t0=$(date +%s)
	i=0 sent=0
	while [ $i -lt "$RECREATE" ] && [ "$T_FAIL" = 0 ]; do
		must ip link add dumr numtxqueues $NQ type dummy || break
		must ip addr add 10.9.5.1/24 dev dumr
		must ip link set dumr up
		if ! wait_until 5 test -e "$(xf dumr $((NQ - 1)))"; then
			fail "round $i: re-created dumr was not attached"
			break
		fi
		c=${CPUS[i % NCPU]}
		flood - "$c" 10.9.5.2 8 50 || break
		sent=$((sent + SENT))
		must ip link del dumr || break
		if ! wait_until 5 path_absent "$XS/dumr"; then
			fail "round $i: $XS/dumr survives the delete"
			break
		fi
		i=$((i + 1))
		progress $i "$RECREATE" "$t0" "delete/re-create cycles"
	done
	t1=$(date +%s)
	touch "$W/lw.stop"
	wait_pid "$lw" 30 || fail "mask writer on dumr did not stop"
	wait_pid "$ls" 60 || fail "sender to dumr did not stop"
	diag "$i delete/re-create cycles of dumr in $((t1 - t0)) s ($sent pinned datagrams through it)"
	expect_cycles dumr "$i" "$RECREATE"

	# Rename round trips duma -> dumx (unlisted) -> dumb (listed) -> duma.
	rm -f "$W/lw.stop"
	must ip link add duma numtxqueues $NQ type dummy || { bg_stop; return; }
	must ip addr add 10.9.6.1/24 dev duma
	must ip link set duma up
	wait_until 5 test -d "$XS/duma" || fail "duma was not attached"
	set_masks duma 1 2 4 8
	loop_sender 10.9.6.2 &
	ls=$!
	t0=$(date +%s)
	i=0
	while [ $i -lt "$RENAMES" ] && [ "$T_FAIL" = 0 ]; do
		for pair in duma:dumx dumx:dumb dumb:duma; do
			from=${pair%:*} to=${pair#*:}
			must ip link set "$from" down || break
			must ip link set "$from" name "$to" || break
			must ip link set "$to" up || break
			if [ -e "$XS/$from" ]; then
				fail "round $i: $XS/$from survives the rename to $to"
				break
			fi
			if ! [ -d "$XS/$to" ]; then
				fail "round $i: no $XS/$to after the rename from $from"
				break
			fi
		done
		i=$((i + 1))
	done
	t1=$(date +%s)
	touch "$W/lw.stop"
	wait_pid "$ls" 60 || fail "sender to duma did not stop"
	bg_stop
	diag "$i rename round trips (duma -> dumx -> dumb -> duma) in $((t1 - t0)) s"
	[ "$i" -ge "$RENAMES" ] || fail "only $i of $RENAMES rename rounds done"
	expect_masks_num duma 1 2 4 8
	spec=
	for c in "${CPUS[@]}"; do
		[ "$c" -lt $NQ ] && spec="$spec${spec:+ }$c:$c"
	done
	udp_all - duma 10.9.6.2 "$spec"
	pkt_check "after renames" duma $NQ 0
	must ip link del duma
	xps_unload
	alive_stock "after re-create/rename"
}

t_stress_device_churn_cleanup() {
	local d
	touch "$W/lw.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	for d in dumr duma dumx dumb; do ip link del "$d"; done
	modprobe -r xps_steer
}

t_stress_cpu_hotplug() {
	local q lw t0 i checks hc m2 t1 c
	local -a all masks
	fx_stress || return
	if [ "$NR_CPU_IDS" -le "$NCPU" ]; then
		skip "needs more possible than online CPUs (vm.sh --maxcpus > --smp); have $NCPU of $NR_CPU_IDS"
		return
	fi
	if [ "$NCPU" -lt 2 ] || [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
		skip "no hot-pluggable CPU (cpu1/online not writable)"
		return
	fi
	xps_load dev=veth0,dum0 || return
	# Masks also name CPUs that are possible but not present (>= NCPU).
	masks=()
	for ((q = 0; q < NQ; q++)); do
		masks+=("$(printf '%x' $(((1 << q | 1 << ((NCPU + q) % NR_CPU_IDS)) & MASKMAX)))")
	done
	set_masks dum0 "${masks[@]}" || return
	set_masks veth0 "${masks[@]}" || return
	expect_masks_num dum0 "${masks[@]}" || return
	rm -f "$W/lw.stop"
	bg_start "tcp udp"
	loop_writer veth0 &
	lw=$!
	t0=$(date +%s)
	i=0 checks=0
	all=("${CPUS[@]}")
	while [ $i -lt "$HOTPLUG" ] && [ "$T_FAIL" = 0 ]; do
		hc=$((1 + i % (NCPU - 1)))
		if ! cpu_online $hc 0; then
			fail "round $i: offlining cpu$hc failed: $(cat "$W/hp.err")"
			break
		fi
		cpus_refresh
		# A mask naming the offline CPU (and a not-present one).
		m2=$(printf '%x' $(((1 << hc | 1 << (NR_CPU_IDS - 1)) & MASKMAX)))
		xw - "$(xf dum0 $hc)" "$m2"
		case $XW in ok*) ;; *) fail "round $i: writing $m2 (offline cpu$hc) gave '$XW'" ;; esac
		rd "$(xf dum0 $hc)"
		hexeq "${RD%"$NL"}" "$m2" || fail "round $i: tx-$hc reads '${RD%"$NL"}' after writing $m2"
		if [ $((i % 4)) = 0 ]; then
			read -ra masks <<<"$(read_masks dum0 "$NQ")"
			udp_all - dum0 "$DST0" "$(allowed_spec "${masks[@]}")"
			pkt_check "cpu$hc offline" dum0 $NQ 0
			checks=$((checks + 1))
		fi
		if ! cpu_online $hc 1; then
			fail "round $i: onlining cpu$hc failed: $(cat "$W/hp.err")"
			break
		fi
		cpus_refresh
		if [ $((i % 4)) = 0 ]; then
			read -ra masks <<<"$(read_masks dum0 "$NQ")"
			udp_all - dum0 "$DST0" "$(allowed_spec "${masks[@]}")"
			pkt_check "cpu$hc back online" dum0 $NQ 0
			checks=$((checks + 1))
		fi
		i=$((i + 1))
	done
	t1=$(date +%s)
	touch "$W/lw.stop"
	wait_pid "$lw" 30 || fail "mask writer on veth0 did not stop"
	bg_stop
	for c in "${all[@]}"; do
		[ -w "/sys/devices/system/cpu/cpu$c/online" ] || continue
		[ "$(cat "/sys/devices/system/cpu/cpu$c/online")" = 1 ] || fail "cpu$c is still offline"
	done
	diag "$i CPU offline/online cycles (cpus 1-$((NCPU - 1)), $NCPU of $NR_CPU_IDS possible online) in $((t1 - t0)) s; $checks per-packet checks"
	[ "$i" -ge "$HOTPLUG" ] || fail "only $i of $HOTPLUG hotplug cycles done"
	xps_unload
	alive_stock "after hotplug"
}

t_stress_cpu_hotplug_cleanup() {
	touch "$W/lw.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	fx_cpus_online
	modprobe -r xps_steer
}

# ev_filter LIMIT: record only veth0 packets on queues >= LIMIT.
ev_filter() {
	echo "name == \"veth0\" && queue_mapping >= $1" >"$EV/filter"
}

t_stress_queue_resize() {
	local tx0 t0 cur i seq n t1 tx bad
	fx_stress || return
	xps_load dev=veth0 || return
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	klog_mark
	echo 0 >"$TR/tracing_on"
	: >"$TR/trace"
	ev_filter $NQ || { fail "tracepoint filter on queue_mapping rejected"; return; }
	echo 1 >"$EV/enable"
	echo 1 >"$TR/tracing_on"
	tx0=$(cat /sys/class/net/veth0/statistics/tx_packets)
	bg_start "tcp udp pin"
	t0=$(date +%s)
	cur=$NQ i=0 seq=
	while [ $i -lt "$RESIZE" ] && [ "$T_FAIL" = 0 ]; do
		n=$((1 + (i * 3 + i / NQ) % NQ))
		[ $n = "$cur" ] && n=$((n % NQ + 1))
		# While the change is in flight either count is legal; after it
		# (and a moment for packets already past the pick), only the new.
		ev_filter $((n > cur ? n : cur))
		if ! ethtool -L veth0 tx $n >"$W/ethtool.out" 2>&1; then
			fail "round $i: ethtool -L veth0 tx $n failed"
			diag_file "$W/ethtool.out"
			break
		fi
		[ "$(txq_count veth0)" = $n ] || fail "round $i: veth0 has $(txq_count veth0) tx queues after ethtool -L tx $n"
		sleep 0.1
		ev_filter $n
		seq="$seq $n"
		cur=$n
		sleep 0.3
		i=$((i + 1))
	done
	t1=$(date +%s)
	bg_stop
	echo 0 >"$TR/tracing_on"
	echo 0 >"$EV/enable"
	echo 0 >"$EV/filter"
	tx=$(($(cat /sys/class/net/veth0/statistics/tx_packets) - tx0))
	bad=$(grep -v '^#' "$TR/trace" | grep -c 'net_dev_start_xmit')
	diag "$i queue-count changes (tx:$seq) in $((t1 - t0)) s; veth0 sent $tx packets, each checked in-kernel: $bad on a queue >= the count"
	[ "$i" -ge "$RESIZE" ] || fail "only $i of $RESIZE changes done"
	[ "$tx" -gt 0 ] || fail "no packets sent during the queue-count changes"
	if [ "$bad" != 0 ]; then
		fail "$bad packets left on a queue >= real_num_tx_queues:"
		grep -v '^#' "$TR/trace" | head -n 5 | sed 's/^/#   /'
	fi
	if klog_has "selects TX queue"; then
		fail "the core capped an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
	fi
	[ "$(txq_count veth0)" = $NQ ] || must ethtool -L veth0 tx $NQ
	xps_unload
	alive_stock "after queue-count changes"
}

t_stress_queue_resize_cleanup() {
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	echo 0 >"$EV/enable"
	echo 0 >"$EV/filter"
	[ "$(txq_count veth0)" = $NQ ] || ethtool -L veth0 tx $NQ
	modprobe -r xps_steer
}

t_stress_packet_bypass() {
	local t0 i q t1 d u0 s inp
	fx_stress || return
	klog_mark
	bg_start "pkt udp pin"
	t0=$(date +%s)
	i=0
	while [ $i -lt "$PKTCYCLES" ]; do
		modprobe_ok "cycle $i" xps_steer dev=veth0 || break
		for q in $(seq_tx $NQ); do
			printf "%s\n" "$(cpumask "${q#tx-}")" >"$XS/veth0/$q/xps_cpus" ||
				fail "cycle $i: mask write to veth0 $q failed"
		done
		sleep 0.2
		modprobe_ok "cycle $i" -r xps_steer || break
		i=$((i + 1))
		progress $i "$PKTCYCLES" "$t0" "attach/detach cycles"
	done
	t1=$(date +%s)
	bg_stop
	diag "$i attach/detach cycles under AF_PACKET qdisc-bypass senders on every CPU in $((t1 - t0)) s"
	[ "$i" -ge "$PKTCYCLES" ] || fail "only $i of $PKTCYCLES cycles done"
	d=$(klog_since | grep -c 'xps_steer: veth0: detached')
	[ "$d" = "$i" ] || fail "expected $i 'detached' lines, log has $d"
	# Bypass path after the last detach: frames still go out and arrive.
	u0=$(udp_in)
	pktsend -i veth0 -m "$MAC1" -s 10.9.2.1 -d "$DST2" -p 9000 -n 1000 >"$W/pkt.out" 2>&1
	s=$(awk '/^pktsend: sent/ { print $3 }' "$W/pkt.out")
	sleep 0.2
	inp=$(($(udp_in) - u0))
	if [ "${s:-0}" = 1000 ] && [ "$inp" = 1000 ]; then
		diag "after detach: pktsend sent 1000, 1000 arrived"
	else
		fail "after detach: pktsend sent '${s:-0}' of 1000, $inp arrived"
		diag_file "$W/pkt.out"
	fi
	alive_stock "after bypass cycles"
}

t_stress_packet_bypass_cleanup() {
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	modprobe -r xps_steer
}

# The lists stress_dev_list cycles through: every transition attaches,
# detaches or keeps each device.
DEV_LISTS=('veth0,dum0' dum0 veth0 '' 'dum0,veth0' veth0)

t_stress_dev_list() {
	local t0 i k list want got t1 spec
	local -a wants
	fx_stress || return
	# What $XS must hold after each list: its names, sorted.
	for list in "${DEV_LISTS[@]}"; do
		wants+=("$(echo "$list" | tr ',' '\n' | grep . | sort | paste -sd' ')")
	done
	xps_load dev=veth0,dum0 || return
	bg_start "tcp udp pin"
	t0=$(date +%s)
	i=0
	# No process start in the loop: on the debug kernel each costs ~0.1 s
	# (0.5 s under this traffic). A list has no newline, so the shell's
	# printf writes it in one write().
	while [ $i -lt "$LISTS" ]; do
		k=$((i % ${#DEV_LISTS[@]}))
		list=${DEV_LISTS[k]}
		# The empty list is a newline: sysfs passes no empty write on.
		if ! printf '%s' "${list:-$NL}" 2>"$W/dl.err" >"$DEVP"; then
			fail "write $i: dev=$list failed: $(cat "$W/dl.err")"
			break
		fi
		# A listed device is attached when the write returns.
		names_in "$XS"
		want=${wants[k]} got=$DIR_NAMES
		if [ "$got" != "$want" ]; then
			fail "write $i: dev=$list, but $XS has '$got'"
			break
		fi
		# Masks on what was just attached, so that the hook steers.
		case ,$list, in *,veth0,*) echo 3 >"$XS/veth0/tx-1/xps_cpus" || fail "write $i: veth0 tx-1" ;; esac
		i=$((i + 1))
		progress $i "$LISTS" "$t0" "dev= writes"
	done
	t1=$(date +%s)
	bg_stop
	diag "$i dev= writes in $((t1 - t0)) s"
	[ "$i" -ge "$LISTS" ] || fail "only $i of $LISTS dev= writes done"
	# The last list stays: per packet, both devices as listed.
	xw - "$DEVP" veth0,dum0
	[ "$XW" = "ok 10" ] || fail "final dev= write gave '$XW'"
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	spec=
	for c in "${CPUS[@]}"; do spec="$spec${spec:+ }$c:$c"; done
	udp_all - veth0 "$DST2" "$spec"
	pkt_check "after $i dev= writes" veth0 $NQ 0
}

t_stress_dev_list_cleanup() {
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	modprobe -r xps_steer
}

# map_writer FILE LIST: write each line of LIST (a map, with \n escapes)
# to FILE in one write() (xwrite -L: one process for all of them, as a
# process start costs ~0.1 s on the debug kernel); prints "writes errors".
map_writer() {
	# A pipe, not <(...): the guest has no /dev/fd.
	xwrite -L -- "$1" "$2" | {
		n=0 e=0
		while read -r r; do
			[ "${r%% *}" = ok ] || e=$((e + 1))
			n=$((n + 1))
		done
		echo "$n $e"
	}
}

# map_line_ok LINE Q: LINE is "tx-Q", or "tx-Q LIST" with LIST a CPU list
# ("0-2,5") of CPUs below NR_CPU_IDS. In the shell itself: the readers
# run it on every read.
map_line_ok() {
	local x IFS=,-
	[[ $1 =~ ^tx-$2( ([0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*))?$ ]] || return 1
	for x in ${BASH_REMATCH[2]}; do
		[ $((10#$x)) -lt "$NR_CPU_IDS" ] || return 1
	done
}

# map_reader FILE: read the map until $W/mw.stop; each read must be a
# complete map of NQ queues (tx-0 .. tx-3 in order, each with a valid CPU
# list or none); prints "reads bad". One open per read: sysfs makes its
# content in one show() call, so a read sees one map.
map_reader() {
	local n b q ok
	local -a lines
	n=0 b=0
	while [ ! -e "$W/mw.stop" ]; do
		ok=0
		lines=()
		if mapfile -t lines <"$1" 2>/dev/null && [ "${#lines[@]}" = "$NQ" ]; then
			ok=1
			for ((q = 0; q < NQ; q++)); do
				map_line_ok "${lines[q]}" "$q" || { ok=0; break; }
			done
		fi
		if [ "$ok" = 0 ]; then
			b=$((b + 1))
			printf 'read %s:\n' "$n" >>"$W/mapread.bad"
			printf '%s\n' "${lines[@]}" >>"$W/mapread.bad"
		fi
		n=$((n + 1))
	done
	echo "$n $b"
}

t_stress_map_writes() {
	local per w t0 p r t1 n want got spec m q
	local -a wp rp final
	fx_stress || return
	xps_load dev=veth0,dum0 || return
	per=$(((MAPWRITES + MAPWRITERS - 1) / MAPWRITERS))
	# Random maps, one per line; every writer ends with the same one, so
	# "the last write" is well defined.
	for ((w = 0; w < MAPWRITERS; w++)); do
		awk -v n="$per" -v seed=$((w + 1)) -v nq="$NQ" -v ncpu="$NR_CPU_IDS" '
			# A random CPU list as the map file prints it ("0-2,5").
			function list(   c, l, on, start) {
				l = ""
				start = -1
				for (c = 0; c <= ncpu; c++) {
					on = c < ncpu && rand() < 0.4
					if (on && start < 0) start = c
					if (!on && start >= 0) {
						l = l (l == "" ? "" : ",") start (c - 1 > start ? "-" (c - 1) : "")
						start = -1
					}
				}
				return l
			}
			function one(   q, s, l) {
				s = ""
				for (q = 0; q < nq; q++) {
					l = list()
					s = s "tx-" q (l == "" ? "" : " " l) "\\n"
				}
				return s
			}
			BEGIN { srand(seed); for (i = 1; i < n; i++) print one(); srand(4242); print one() }' \
			>"$W/mw.list.$w"
	done
	rm -f "$W/mw.stop" "$W/mapread.bad"
	bg_start "tcp udp pin"
	t0=$(date +%s)
	wp=()
	for ((w = 0; w < MAPWRITERS; w++)); do
		niced "$W/mw.res.$w" map_writer "$XS/veth0/map" "$W/mw.list.$w"
		wp+=("$NICED")
	done
	rp=()
	for r in 1 2; do
		niced "$W/mr.res.$r" map_reader "$XS/veth0/map"
		rp+=("$NICED")
	done
	wait_all 1800 "map writer" "${wp[@]}"
	touch "$W/mw.stop"
	wait_all 60 "map reader" "${rp[@]}"
	t1=$(date +%s)
	bg_stop
	writes_report "map writes" "$MAPWRITES" "$MAPWRITERS" "$W/mw.res." "$W/mr.res." \
		"incomplete maps" "$W/mapread.bad" $((t1 - t0))
	# The map reads the last write, and every packet obeys it.
	want=$(printf '%b' "$(tail -n 1 "$W/mw.list.0")")
	got=$(cat "$XS/veth0/map")
	[ "$got" = "$want" ] || fail "veth0/map reads '$(show "$got")', last write was '$(show "$want")'"
	final=()
	for ((q = 0; q < NQ; q++)); do
		m=$(cat "$(xf veth0 "$q")")
		final+=("$m")
	done
	spec=$(allowed_spec "${final[@]}")
	diag "final map: $(echo "$got" | paste -sd';') -> allowed queues per CPU: $spec"
	udp_all - veth0 "$DST2" "$spec"
	pkt_check "after $MAPWRITES map writes" veth0 $NQ 1
}

t_stress_map_writes_cleanup() {
	touch "$W/mw.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
}

# kmasks_num DEV M0 M1 ...: the kernel's own files of DEV read the masks,
# compared as numbers (silent: a condition for wait_until).
kmasks_num() {
	local d=$1 q=0 m k
	shift
	for m in "$@"; do
		k=$(cat "$(kf "$d" "$q")" 2>/dev/null) || return 1
		hexeq "${k:-0}" "$m" 2>/dev/null || return 1
		q=$((q + 1))
	done
}

# kernel_writer DEV: writes to the kernel's own xps_cpus of DEV, which
# guards it, until $W/lw.stop (the guard undoes each).
kernel_writer() {
	local v q
	v=3
	while [ ! -e "$W/lw.stop" ]; do
		for q in 0 1 2 3; do printf '%x\n' "$v" >"$(kf "$1" "$q")"; done 2>/dev/null
		v=$(((v * 7 + 1) & ((1 << NCPU) - 1)))
		sleep 0.05
	done
}

# guard_restores DEV: the restores DEV's stats count, by every trigger.
guard_restores() {
	awk '$1 ~ /^restored_by_/ { n += $2 } END { print n + 0 }' "$XS/$1/stats"
}

# guard_rewrite ROUND: one way of replacing dum0's kernel map, by round.
guard_rewrite() {
	local hc
	case $(($1 % 4)) in
	0)
		tc qdisc add dev dum0 root handle 1: mqprio num_tc 1 \
			map 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 queues 4@0 hw 0 &&
			tc qdisc del dev dum0 root
		;;
	1)
		for q in 0 1 2 3; do echo 0 >"$(kf dum0 "$q")"; done
		;;
	2)
		hc=$((1 + $1 % (NCPU - 1)))
		[ -w "/sys/devices/system/cpu/cpu$hc/online" ] || return 0
		cpu_online "$hc" 0 && cpus_refresh && cpu_online "$hc" 1 && cpus_refresh
		;;
	3)
		# Steer mode and back: each attaches afresh with empty masks.
		xw - "$DEVP" veth0:guard,dum0
		[ "${XW%% *}" = ok ] || { echo "dev=veth0:guard,dum0: $XW" >&2; return 1; }
		xw - "$DEVP" veth0:guard,dum0:guard
		[ "${XW%% *}" = ok ] || { echo "dev=veth0:guard,dum0:guard: $XW" >&2; return 1; }
		set_masks dum0 "${MAP[@]}"
		;;
	esac
}

t_stress_guard_churn() {
	local i t0 t1 lw kw checks n
	fx_stress || return
	xps_load dev=veth0:guard,dum0:guard guard_interval_ms=100 || return
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
	set_masks veth0 "${MAP[@]}" || return
	wait_until 5 kmasks_num dum0 "${MAP[@]}" ||
		{ fail "dum0: the kernel's masks do not read ${MAP[*]} after the write"; return; }
	rm -f "$W/lw.stop"
	bg_start "tcp udp"
	loop_writer veth0 &
	lw=$!
	kernel_writer veth0 &
	kw=$!
	t0=$(date +%s)
	i=0 checks=0
	n=0
	while [ $i -lt "$GUARDROUNDS" ] && [ "$T_FAIL" = 0 ]; do
		# A dev= mode flip attaches afresh: its counters start at 0.
		[ $((i % 4)) != 3 ] || n=$((n + $(guard_restores dum0)))
		if ! guard_rewrite $i 2>"$W/gr.err"; then
			fail "round $i: rewrite $((i % 4)) failed: $(head -c 300 "$W/gr.err")"
			break
		fi
		if ! wait_until 5 kmasks_num dum0 "${MAP[@]}"; then
			fail "round $i (rewrite $((i % 4))): the kernel's masks of dum0 read '$(for q in 0 1 2 3; do cat "$(kf dum0 $q)"; done | paste -sd' ')' 5 s later, expected ${MAP[*]}"
			break
		fi
		if [ $((i % 8)) = 7 ]; then
			udp_all - dum0 "$DST0" "$(allowed_spec "${MAP[@]}")"
			pkt_check "round $i, restored" dum0 $NQ 0
			checks=$((checks + 1))
		fi
		progress $i "$GUARDROUNDS" "$t0" "rewrites"
		i=$((i + 1))
	done
	t1=$(date +%s)
	touch "$W/lw.stop"
	wait_all 30 "writer" "$lw" "$kw"
	n=$((n + $(guard_restores dum0)))
	diag "$i rewrites of dum0's kernel map in $((t1 - t0)) s, $checks per-packet checks, $n restores counted; dum0 stats now: $(paste -sd' ' "$XS/dum0/stats"); veth0 stats: $(paste -sd' ' "$XS/veth0/stats")"
	[ "$i" -ge "$GUARDROUNDS" ] || fail "only $i of $GUARDROUNDS rewrites done"
	# Each mqprio round and each kernel write is at least one restore (a
	# hotplug round may leave the kernel's map as it was; a mode flip is
	# undone by the write that follows it).
	[ "$n" -ge $((i / 2)) ] || fail "dum0: $n restores counted for $i rewrites"
	[ "$(awk '$1 == "restore_failed" { print $2 }' "$XS/dum0/stats")" = 0 ] || fail "dum0: restores failed"
	# Unloaded under the same traffic. Detaching leaves the kernel's maps
	# as they are: emptied here, so that the stock selection is seen.
	xps_unload
	bg_stop
	kset_masks - veth0 0 0 0 0
	kset_masks - dum0 0 0 0 0
	alive_stock "after guard churn"
}

t_stress_guard_churn_cleanup() {
	touch "$W/lw.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	tc qdisc del dev dum0 root 2>/dev/null
	fx_cpus_online
	modprobe -r xps_steer
}

# drv_up MODULE DEV ADDR: the test-only MODULE loaded, its device DEV up
# with ADDR/24.
drv_up() {
	modprobe "$1" || return 1
	wait_until 5 test -e "/sys/class/net/$2" || return 1
	ip addr add "$3/24" dev "$2" && ip link set "$2" up
}

# drv_reattached DEV NQ MASK...: DEV attached afresh after its driver's
# reload (its last queue's file exists), its masks written again.
drv_reattached() {
	local d=$1 n=$2
	shift 2
	wait_until 5 test -e "$(xf "$d" $((n - 1)))" || { echo "$d not attached again" >&2; return 1; }
	set_masks "$d" "$@"
}

# gdrivers_step ROUND: one lifecycle event of a guarded test driver.
gdrivers_step() {
	case $(($1 % 4)) in
	0) echo 1 >/sys/module/bnxlike/parameters/reload ;;
	1) rmmod bnxlike && drv_up bnxlike bnx0 10.9.7.1 && drv_reattached bnx0 5 "${MAP[@]}" 0 ;;
	2) rmmod ops_checker && drv_up ops_checker opsc0 10.9.8.1 && drv_reattached opsc0 4 "${MAP[@]}" ;;
	3) ip link set opsc0 down && ip link set opsc0 name opsr && ip link set opsr up &&
		ip link set opsr down && ip link set opsr name opsc0 && ip link set opsc0 up ;;
	esac
}

t_stress_guard_drivers() {
	local m i t0 t1 ls1 ls2 mis
	fx_stress || return
	for m in bnxlike ops_checker; do
		! grep -q "^$m " /proc/modules || must rmmod "$m" || return
	done
	drv_up bnxlike bnx0 10.9.7.1 || { fail "bnxlike: bnx0 did not come up"; return; }
	drv_up ops_checker opsc0 10.9.8.1 || { fail "ops_checker: opsc0 did not come up"; return; }
	xps_load dev=bnx0,opsc0:guard,veth0 guard_interval_ms=200 || return
	map11 "$NQ"
	set_masks bnx0 "${MAP[@]}" 0 || return
	set_masks opsc0 "${MAP[@]}" || return
	set_masks veth0 "${MAP[@]}" || return
	rm -f "$W/lw.stop"
	bg_start "tcp udp"
	loop_sender 10.9.7.2 &
	ls1=$!
	loop_sender 10.9.8.2 &
	ls2=$!
	t0=$(date +%s)
	i=0 mis=0
	while [ $i -lt "$GDRIVERS" ] && [ "$T_FAIL" = 0 ]; do
		if ! gdrivers_step $i 2>"$W/gd.err"; then
			fail "round $i: step $((i % 4)) failed: $(head -c 300 "$W/gd.err")"
			break
		fi
		if ! wait_until 5 kmasks_num bnx0 "${MAP[@]}" 0 ||
			! wait_until 5 kmasks_num opsc0 "${MAP[@]}"; then
			fail "round $i (step $((i % 4))): the kernel's maps are not the operator's 5 s later: bnx0 '$(for q in 0 1 2 3 4; do cat "$(kf bnx0 $q)"; done | paste -sd' ')', opsc0 '$(for q in 0 1 2 3; do cat "$(kf opsc0 $q)"; done | paste -sd' ')'"
			break
		fi
		mis=$(cat /sys/module/ops_checker/parameters/ops_mismatch)
		[ "$mis" = 0 ] || { fail "round $i: ops_checker counted $mis frames under a foreign netdev_ops"; break; }
		progress $i "$GDRIVERS" "$t0" "driver events"
		i=$((i + 1))
	done
	t1=$(date +%s)
	touch "$W/lw.stop"
	wait_all 60 "sender" "$ls1" "$ls2"
	diag "$i driver events in $((t1 - t0)) s; bnx0: $(paste -sd' ' "$XS/bnx0/stats"); opsc0 tx_packets $(cat /sys/module/ops_checker/parameters/tx_packets), ops_mismatch $mis"
	[ "$i" -ge "$GDRIVERS" ] || fail "only $i of $GDRIVERS driver events done"
	[ "$(cat "$XS/veth0/mode")" = steer ] || fail "veth0 is not in steer mode beside the guarded devices"
	# The per-packet checks' datagrams to the peer after the background
	# traffic's count.
	bg_stop
	udp_all - bnx0 10.9.7.2 "$(allowed_spec "${MAP[@]}")"
	pkt_check "bnx0 after the driver events" bnx0 5 0
	udp_all - opsc0 10.9.8.2 "$(allowed_spec "${MAP[@]}")"
	pkt_check "opsc0 after the driver events" opsc0 $NQ 0
	udp_all - veth0 "$DST2" "$(allowed_spec "${MAP[@]}")"
	pkt_check "veth0 (steered) after the driver events" veth0 $NQ 0
	xps_unload
	must rmmod bnxlike ops_checker
	alive_stock "after the guarded drivers' events"
}

t_stress_guard_drivers_cleanup() {
	touch "$W/lw.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	ip link set opsr name opsc0 2>/dev/null
	modprobe -r xps_steer
	rmmod bnxlike ops_checker 2>/dev/null
}

t_stress_final() {
	local p
	# Shell-level mistakes (a missing helper, a file never written) in
	# any test or background loop fail the run.
	if grep -E 'command not found|syntax error|bad substitution|unbound variable|No such file or directory' \
		"$W/stderr.log" >"$W/shell-errors.txt"; then
		fail "shell errors during the run:"
		diag_file "$W/shell-errors.txt" 20
	fi
	xps_unload
	[ -e "$XS" ] && fail "$XS exists with the module unloaded"
	for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done
	SERVERS=()
	if klog_splats "$W/bad.txt" 'selects TX queue'; then
		fail "kernel log has warnings:"
		diag_file "$W/bad.txt" 30
	fi
	diag "kernel log: $(grep -c 'xps_steer: .*: attached' "$W/dmesg.txt") attach, $(grep -c 'xps_steer: .*: detached' "$W/dmesg.txt") detach lines; no WARNING/BUG"
}

# ----------------------------------------------------------------- main --

test_def stress_attach_cycles "attach/detach: $CYCLES modprobe/modprobe -r cycles under TCP+UDP from every CPU"
test_def stress_mask_writes "mask writes: $WRITES random writes by $WRITERS writers under traffic; last write read back and obeyed"
test_def stress_device_churn "device churn: $RECREATE delete/re-create cycles and $RENAMES rename round trips under traffic"
test_def stress_cpu_hotplug "CPU hotplug: $HOTPLUG offline/online cycles under traffic, masks naming offline CPUs"
test_def stress_queue_resize "queue count: $RESIZE ethtool -L changes under traffic, never a queue >= real_num_tx_queues"
test_def stress_packet_bypass "AF_PACKET qdisc bypass: $PKTCYCLES attach/detach cycles under bypass senders"
test_def stress_dev_list "runtime device list: $LISTS dev= writes under traffic; the trees follow each one; per packet after the last"
test_def stress_map_writes "map writes: $MAPWRITES whole-device map writes by $MAPWRITERS writers under traffic; readers see only complete maps; last write read back and obeyed"
test_def stress_guard_churn "guard mode: $GUARDROUNDS rewrites of a guarded map (mqprio, kernel writes, hotplug, dev= mode flips) under traffic and writers; each restored, per packet; unload under traffic"
test_def stress_guard_drivers "guard mode on the test-only drivers: $GDRIVERS reloads, unload/loads and renames under traffic beside a steered veth; the kernel's map restored after each, ops_checker's comparison holds; per packet at the end"
test_def stress_final "final: no shell errors, module unloads, no kernel warnings"
TEST_ORDER=("${STRESS_TESTS[@]}")
suite_args "$@"
case $? in 0) ;; 2) exit 0 ;; *) exit 1 ;; esac

# stderr of the tests and their background loops is kept for stress_final.
exec 2>"$W/stderr.log"
diag "counts: $(for c in "${COUNTS[@]}"; do printf '%s=%s ' "$c" "${!c}"; done)"
for tool in udpflood pktsend xwrite iperf3 ip ethtool taskset modprobe; do
	command -v "$tool" >/dev/null || { echo "Bail out! $tool not found in PATH"; exit 1; }
done
trace_setup || diag "WARNING: no tracing: every steering check will fail"
if ! [ "$NCPU" -le $NQ ] 2>/dev/null; then
	echo "Bail out! the per-packet checks assume at most $NQ online CPUs"
	exit 1
fi
run_selected stress
