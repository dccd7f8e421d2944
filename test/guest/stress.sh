#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stress.sh - in-guest stress suite for xps_steer (KTAP output).
#
# Runs inside the QEMU guest built by test/vm.sh, like suite.sh, but on a
# guest with more possible than online CPUs (vm.sh --smp 4 --maxcpus 8).
# Every count is bounded and printed; every step is checked:
#   1. attach/detach cycles (modprobe / modprobe -r) under TCP+UDP traffic
#      from every CPU;
#   2. random mask writes from concurrent writers (two per file) under
#      traffic, concurrent readers; afterwards every file reads its last
#      write and every packet obeys the masks (tracepoint, per packet);
#   3. delete/re-create cycles of an attached device under traffic, with a
#      writer looping on its files, and rename loops of an attached device;
#   4. CPU offline/online cycles under traffic, masks naming offline and
#      not-present CPUs, per-packet checks while a CPU is offline and after
#      it is back;
#   5. queue-count shrink/grow with ethtool -L under traffic: no packet ever
#      on a queue >= real_num_tx_queues (in-kernel tracepoint filter over
#      every packet) and no "selects TX queue" from the core;
#   6. AF_PACKET senders with PACKET_QDISC_BYPASS (ndo_select_queue called
#      without RCU held) on every CPU during attach/detach cycles.
# Traffic that should arrive is counted: every iperf3 transfer must exit 0
# having sent and received data (iperf3 fails on a reset, stall or timeout;
# its "received" counts only the server's measuring window, so it is
# printed, not compared with "sent"), and the peer namespace's UDP counters
# (InDatagrams + NoPorts) must grow by exactly the number of datagrams the
# senders report sent (udpflood and pktsend).  After each detach the device
# must work normally (ping, stock queue spread).
#
# Counts: NAME=VALUE arguments override the defaults below (for quick
# manual runs); the suite prints what it actually did.  ONLY=NAME,... runs
# just these of tests 2-7 (cycles writes churn hotplug resize bypass), after
# the setup and before the final check: test/check-debug.sh splits the
# suite over two guests that way.
#
# Topology:
#   init netns: veth0 (4 txq, 10.9.2.1/24) -- background traffic, attached
#               dum0  (dummy, 4 txq, 10.9.0.1/24) -- per-packet checks
#   netns peer: veth1 (4 txq, 10.9.2.2/24), iperf3 servers, UDP counters
# Exit status: 0 iff every test passed (skips excepted).

# FLOWS/PKTS are read by lib.sh; "A && B || fail" is meant.
# shellcheck disable=SC2046,SC2086,SC2010,SC2012,SC2034,SC2015
LIB=$(dirname "$0")/lib.sh
[ -r "$LIB" ] || LIB=/test/lib.sh
# shellcheck source=lib.sh
. "$LIB"

CYCLES=200	# 1: attach/detach cycles
WRITES=10000	# 2: mask writes in total
WRITERS=8	# 2: concurrent writers (two per tx queue file)
RECREATE=100	# 3: delete/re-create cycles
RENAMES=50	# 3: rename round trips
HOTPLUG=20	# 4: CPU offline/online cycles
RESIZE=40	# 5: ethtool -L changes
PKTCYCLES=50	# 6: attach/detach cycles under AF_PACKET bypass senders
STRESS_TESTS="cycles writes churn hotplug resize bypass"
ONLY=
for _a in "$@"; do
	case $_a in
	ONLY=*)
		ONLY=${_a#ONLY=}
		for _t in $(echo "$ONLY" | tr ',' ' '); do
			case " $STRESS_TESTS " in
			*" $_t "*) ;;
			*) echo "Bail out! ONLY: unknown test '$_t' (known: $STRESS_TESTS)" && exit 1 ;;
			esac
		done
		;;
	[A-Z]*=[0-9]*) eval "${_a%%=*}=\${_a#*=}" ;;
	*) echo "Bail out! unknown argument '$_a'" && exit 1 ;;
	esac
done

NQ=4
FLOWS=64
PKTS=256
DST0=10.9.0.2
DST2=10.9.2.2
MASKMAX=$(((1 << NR_CPU_IDS) - 1))

# ------------------------------------------------------------ topology --

topo_setup() {
	topo_netns - peer || return 1
	# Backlog drops would be losses the module did not cause.
	sysctl_w - /proc/sys/net/core/netdev_max_backlog 100000
	must ip link add dum0 numtxqueues $NQ numrxqueues $NQ type dummy || return 1
	must ip addr add 10.9.0.1/24 dev dum0
	must ip link set dum0 up
	topo_veth || return 1
	# One persistent iperf3 server per online CPU.
	for _c in $CPUS; do
		(exec ip netns exec peer iperf3 -s -B "$DST2" -p $((5201 + _c)) \
			>"$W/iperf-s.$_c" 2>&1 </dev/null) &
		SERVERS="$SERVERS $!"
	done
	for _c in $CPUS; do
		wait_until 15 listening peer "$(printf '%04X' $((5201 + _c)))" ||
			fail "iperf3 server on port $((5201 + _c)) not listening"
	done
	diag "topology: veth0 (init) <-> veth1 (netns peer), dum0 (init); $NQ tx queues; iperf3 servers on ports 5201+cpu"
	[ "$T_FAIL" = 0 ]
}

# modprobe_ok WHAT ARGS...: modprobe ARGS; on failure the test fails,
# naming WHAT, with modprobe's output.
modprobe_ok() {
	_what=$1
	shift
	modprobe "$@" >"$W/modprobe.out" 2>&1 </dev/null && return 0
	fail "$_what: modprobe $* failed"
	diag_file "$W/modprobe.out"
	return 1
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
#   tcp  iperf3 -t 2 transfers to veth1, one loop per online CPU
#   udp  udpflood bursts to veth1, one loop per online CPU
#   pkt  pktsend (AF_PACKET, qdisc bypass) bursts to veth1, one per CPU
#   pin  pin each loop to its CPU (else unpinned: CPUs may go offline)
# Each loop appends one result line per round to $W/bg/<kind>.<cpu>.

bg_round_tcp() {	# CPU PINARGS...
	_c=$1
	shift
	_o=$W/bg/tcp.$_c.json
	"$@" timeout 600 iperf3 -c "$DST2" -p $((5201 + _c)) -t 2 -b 50M -J \
		--connect-timeout 10000 >"$_o" 2>&1 </dev/null
	_rc=$?
	_s=$(iperf_bytes "$_o")
	_r=$(awk '/"sum_received"/ { f = 1 }
	     f && /"bytes"/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$_o" | grep . || echo 0)
	echo "$_rc $_s $_r" >>"$W/bg/tcp.$_c"
	[ "$_rc" = 0 ] || cp "$_o" "$W/bg/tcp.$_c.failed"
}

bg_round_udp() {	# CPU PINARGS...
	_c=$1
	shift
	"$@" udpflood -d "$DST2" -p 9000 -f 16 -n 100 >"$W/bg/udp.$_c.out" 2>&1 </dev/null
	awk '/^udpflood: sent/ { print $3 }' "$W/bg/udp.$_c.out" | grep . >>"$W/bg/udp.$_c" ||
		echo 0 >>"$W/bg/udp.$_c"
	sleep 0.1
}

bg_round_pkt() {	# CPU PINARGS...
	_c=$1
	shift
	"$@" pktsend -i veth0 -m "$MAC1" -s 10.9.2.1 -d "$DST2" -p 9000 -n 100 -f 16 \
		>"$W/bg/pkt.$_c.out" 2>&1 </dev/null
	awk '/^pktsend: sent/ { print $3 }' "$W/bg/pkt.$_c.out" | grep . >>"$W/bg/pkt.$_c" ||
		echo 0 >>"$W/bg/pkt.$_c"
	sleep 0.1
}

bg_loop() {	# KIND CPU PIN
	_k=$1 _c=$2
	# Rate-limited (iperf3 -b, pauses between bursts) and niced: the
	# point is packets through the hook at every moment, not saturation
	# (on TCG a saturated guest makes each attach/detach take seconds).
	if [ "$3" = 1 ]; then
		set -- nice -n 10 taskset "$(cpumask "$_c")"
	else
		set -- nice -n 10
	fi
	while [ ! -e "$W/bg/stop" ]; do
		"bg_round_$_k" "$_c" "$@"
	done
}

BG_PIDS=
bg_start() {
	rm -rf "$W/bg"
	mkdir -p "$W/bg"
	BG_MODE=$1
	_pin=0
	case " $1 " in *" pin "*) _pin=1 ;; esac
	BG_UDP0=$(udp_in)
	BG_T0=$(date +%s)
	for _k in tcp udp pkt; do
		case " $1 " in *" $_k "*) ;; *) continue ;; esac
		for _c in $CPUS; do
			bg_loop "$_k" "$_c" "$_pin" &
			BG_PIDS="$BG_PIDS $!"
		done
	done
	sleep 1
}

# bg_stop: stop the loops, then check and print what they did.
bg_stop() {
	touch "$W/bg/stop"
	for _p in $BG_PIDS; do
		wait_pid "$_p" 660 || fail "background traffic loop $_p did not stop in 660 s"
	done
	BG_PIDS=
	sleep 0.5	# backlog drained on the peer
	_secs=$(($(date +%s) - BG_T0))
	_udp=0 _pkt=0 _tcpn=0 _tcpb=0 _tcpr=0 _bad=0
	for _f in "$W"/bg/udp.[0-9]*; do
		[ -e "$_f" ] || continue
		case $_f in *.out) continue ;; esac
		_udp=$((_udp + $(awk '{ s += $1 } END { print s + 0 }' "$_f")))
	done
	for _f in "$W"/bg/pkt.[0-9]*; do
		[ -e "$_f" ] || continue
		case $_f in *.out) continue ;; esac
		_pkt=$((_pkt + $(awk '{ s += $1 } END { print s + 0 }' "$_f")))
	done
	for _f in "$W"/bg/tcp.[0-9]*; do
		[ -e "$_f" ] || continue
		case $_f in *.json | *.failed) continue ;; esac
		_tcpn=$((_tcpn + $(wc -l <"$_f")))
		_tcpb=$((_tcpb + $(awk '{ s += $2 } END { print s + 0 }' "$_f")))
		_tcpr=$((_tcpr + $(awk '{ s += $3 } END { print s + 0 }' "$_f")))
		_b=$(awk '$1 != 0 || $2 == 0 || $3 == 0' "$_f" | wc -l)
		if [ "$_b" != 0 ]; then
			_bad=$((_bad + _b))
			fail "TCP ${_f##*.}: $_b of $(wc -l <"$_f") iperf3 transfers failed (rc sent received):"
			awk '$1 != 0 || $2 == 0 || $3 == 0' "$_f" | head -n 5 | sed 's/^/#   /'
			[ -e "$_f.failed" ] && diag_file "$_f.failed" 15
		fi
	done
	_in=$(($(udp_in) - BG_UDP0))
	_want=$((_udp + _pkt))
	diag "traffic ($BG_MODE, $_secs s): TCP $_tcpn transfers, $_tcpb bytes sent, $_tcpr received in iperf3's window, $_bad failed;" \
		"UDP sent $_udp (udpflood) + $_pkt (pktsend), received by veth1's netns $_in"
	case " $BG_MODE " in
	*" tcp "*) [ "$_tcpn" -gt 0 ] || fail "no TCP transfer completed" ;;
	esac
	case " $BG_MODE " in
	*" udp "* | *" pkt "*) [ "$_want" -gt 0 ] || fail "no UDP datagram sent" ;;
	esac
	[ "$_in" = "$_want" ] ||
		fail "UDP: $_want datagrams sent, $_in arrived ($((_want - _in)) lost)"
}

# ---------------------------------------------------------------- helpers --

# pkt_check LABEL DEV NQ ALL: steer_check on the last udp_all, which must
# have produced a trace and a spec for every online CPU.
pkt_check() {
	if [ ! -s "$W/trace.txt" ] || [ "$(printf '%s\n' "$SPEC" | wc -w)" != "$(echo $CPUS | wc -w)" ]; then
		fail "$1 on $2: no trace or no packets from every CPU (spec '$SPEC')"
		return 1
	fi
	steer_check "$1" "$2" "$3" "$4" "$SPEC"
}

# alive: veth0 works normally: ping answered, flows from CPU 0 spread over
# all queues (stock selection: the hook is gone or maps nothing).
alive_stock() {
	if ping_ok - "$DST2"; then
		diag "$1: veth0 -> veth1 ping ok"
	else
		fail "$1: veth0 -> veth1 ping fails"
		diag_file "$W/ping.out"
	fi
	_spec=
	for _c in $CPUS; do _spec="$_spec${_spec:+ }$_c:*"; done
	udp_all - veth0 "$DST2" "$_spec"
	pkt_check "$1, stock" veth0 $NQ 1
}

# allowed_spec "M0 M1 M2 M3": "cpu:queues ..." per online CPU: the queues
# whose mask names the CPU, "*" (stock) for a CPU in no mask.
allowed_spec() {
	_out=
	for _c in $CPUS; do
		_q=0 _l=
		for _m in $1; do
			[ $(((0x$_m >> _c) & 1)) = 1 ] && _l="$_l${_l:+,}$_q"
			_q=$((_q + 1))
		done
		_out="$_out${_out:+ }$_c:${_l:-*}"
	done
	echo "$_out"
}

# progress I N T0 WHAT: a diagnostic every 50 rounds, so a slow run shows life.
progress() {
	[ $(($1 % 50)) = 0 ] && [ "$1" != 0 ] &&
		diag "  ... $1 of $2 $4 ($(($(date +%s) - $3)) s)"
	return 0
}

hexeq() { [ $((0x$1)) = $((0x$2)) ]; }	# masks equal as numbers

# expect_masks_num DEV M0 M1 ...: read-back equals the masks as numbers
# (with more than 4 possible CPUs the files read "01", not "1").
expect_masks_num() {
	_d=$1
	shift
	_got=$(read_masks "$_d" $#)
	_q=0
	for _w in "$@"; do
		_g=$(echo "$_got" | cut -d' ' -f$((_q + 1)))
		if ! hexeq "$_g" "$_w" 2>/dev/null; then
			fail "$_d masks read '$_got', expected '$*'"
			return 1
		fi
		_q=$((_q + 1))
	done
	diag "$_d masks: $_got"
	return 0
}

cpu_online() {	# CPU 0|1
	echo "$2" >"/sys/devices/system/cpu/cpu$1/online" 2>"$W/hp.err"
}

# ---------------------------------------------------------------- tests --

t_setup() {
	topo_setup
}

t_cycles() {
	xps_unload || return
	klog_mark
	bg_start "tcp udp pin"
	_t0=$(date +%s)
	_i=0
	while [ $_i -lt "$CYCLES" ]; do
		modprobe_ok "cycle $_i" xps_steer dev=veth0,dum0 || break
		# A different map every cycle, so the hook steers while detaching.
		_q=0
		for _m in $(map11 $NQ); do
			[ $((_i % 2)) = 1 ] && _m=$(printf '%x' $(((0x$_m << 1 | 0x$_m) & MASKMAX)))
			echo "$_m" >"$(xf veth0 $_q)" || fail "cycle $_i: write $_m to veth0 tx-$_q failed"
			_q=$((_q + 1))
		done
		modprobe_ok "cycle $_i" -r xps_steer || break
		if [ -e "$XS" ]; then
			fail "cycle $_i: $XS survives modprobe -r"
			break
		fi
		_i=$((_i + 1))
		progress $_i "$CYCLES" $_t0 "attach/detach cycles"
	done
	_t1=$(date +%s)
	bg_stop
	_a=$(klog_since | grep -c 'xps_steer: veth0: attached')
	_d=$(klog_since | grep -c 'xps_steer: veth0: detached')
	diag "$_i attach/detach cycles in $((_t1 - _t0)) s; log: $_a attached, $_d detached (veth0)"
	[ "$_i" -ge "$CYCLES" ] || fail "only $_i of $CYCLES cycles done"
	[ "$_a" = "$_i" ] && [ "$_d" = "$_i" ] ||
		fail "expected $_i 'attached' and 'detached' lines, log has $_a and $_d"
	alive_stock "after $_i cycles"
}

t_cycles_cleanup() { [ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop; }

# writer FILE LIST: write every mask of LIST (one per line) to FILE; prints
# "writes errors".
writer() {
	_n=0 _e=0
	while read -r _m; do
		echo "$_m" >"$1" 2>/dev/null || _e=$((_e + 1))
		_n=$((_n + 1))
	done <"$2"
	echo "$_n $_e"
}

# reader FILE...: read the files until $W/wr.stop; every read must be a hex
# mask within MASKMAX; prints "reads bad".
reader() {
	_n=0 _b=0
	while [ ! -e "$W/wr.stop" ]; do
		for _f in "$@"; do
			read -r _v <"$_f" || _v=ERR
			_n=$((_n + 1))
			case $_v in
			"" | *[!0-9a-f,]*) _b=$((_b + 1)); echo "bad read of $_f: '$_v'" >>"$W/reader.bad" ;;
			*)	case $_v in *,*) _v=$(echo "$_v" | tr -d ,) ;; esac
				[ $((0x$_v)) -le $MASKMAX ] ||
				{ _b=$((_b + 1)); echo "out of range: $_f: '$_v'" >>"$W/reader.bad"; } ;;
			esac
		done
	done
	echo "$_n $_b"
}

t_writes() {
	xps_load dev=veth0,dum0 || return
	_per=$(((WRITES + WRITERS - 1) / WRITERS))
	# Lists: writers w and w+NQ share tx-(w % NQ) and end with the same
	# mask, so "the last write" is well defined for every file.
	_w=0
	while [ $_w -lt "$WRITERS" ]; do
		_q=$((_w % NQ))
		awk -v n="$_per" -v seed=$((_w + 1)) -v fin=$((_q + 101)) -v max=$MASKMAX 'BEGIN {
			srand(seed)
			for (i = 1; i < n; i++) printf "%x\n", int(rand() * (max + 1))
			srand(fin); printf "%x\n", int(rand() * (max + 1)) }' >"$W/wr.list.$_w"
		_w=$((_w + 1))
	done
	rm -f "$W/wr.stop" "$W/reader.bad"
	bg_start "tcp udp pin"
	_t0=$(date +%s)
	# Writers and readers are niced like the traffic: at nice 0 these ten
	# shell loops starved it on the debug kernel (iperf3 transfers hit
	# their timeout), and traffic must run during the writes.
	_wp=
	_w=0
	while [ $_w -lt "$WRITERS" ]; do
		writer "$(xf veth0 $((_w % NQ)))" "$W/wr.list.$_w" >"$W/wr.res.$_w" &
		_wp="$_wp $!"
		renice -n 10 -p $! >/dev/null
		_w=$((_w + 1))
	done
	_rp=
	for _r in 1 2; do
		reader $(for _q in $(seq_tx $NQ); do echo "$XS/veth0/$_q/xps_cpus"; done) >"$W/rd.res.$_r" &
		_rp="$_rp $!"
		renice -n 10 -p $! >/dev/null
	done
	for _p in $_wp; do
		wait_pid "$_p" 1800 || fail "mask writer $_p did not finish in 1800 s"
	done
	touch "$W/wr.stop"
	for _p in $_rp; do wait_pid "$_p" 60 || fail "reader $_p did not stop"; done
	_t1=$(date +%s)
	bg_stop
	_n=$(cat "$W"/wr.res.* | awk '{ n += $1; e += $2 } END { print n + 0, e + 0 }')
	_r=$(cat "$W"/rd.res.* | awk '{ n += $1; b += $2 } END { print n + 0, b + 0 }')
	diag "$WRITERS writers: ${_n% *} writes (${_n#* } failed) in $((_t1 - _t0)) s; 2 readers: ${_r% *} reads (${_r#* } malformed)"
	[ "${_n% *}" -ge "$WRITES" ] || fail "only ${_n% *} of $WRITES writes done"
	[ "${_n#* }" = 0 ] || fail "${_n#* } valid mask writes failed"
	if [ "${_r#* }" != 0 ]; then
		fail "concurrent reads returned malformed masks:"
		diag_file "$W/reader.bad" 10
	fi
	# Every file reads its last write.
	_final=
	_q=0
	while [ $_q -lt $NQ ]; do
		_want=$(tail -n 1 "$W/wr.list.$_q")
		_got=$(cat "$(xf veth0 $_q)")
		if hexeq "$_got" "$_want"; then
			diag "veth0 tx-$_q reads '$_got' = last write '$_want'"
		else
			fail "veth0 tx-$_q reads '$_got', last write was '$_want'"
		fi
		_final="$_final${_final:+ }$_want"
		_q=$((_q + 1))
	done
	# Every packet obeys the final masks.
	_spec=$(allowed_spec "$_final")
	diag "final masks $_final -> allowed queues per CPU: $_spec"
	udp_all - veth0 "$DST2" "$_spec"
	pkt_check "after $WRITES writes" veth0 $NQ 1
}

t_writes_cleanup() {
	touch "$W/wr.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
}

# loop_writer DEV: rewrite DEV's masks until $W/lw.stop (errors expected:
# the device comes and goes).
loop_writer() {
	_v=1
	while [ ! -e "$W/lw.stop" ]; do
		for _q in 0 1 2 3; do printf '%x\n' "$_v" >"$(xf "$1" $_q)"; done 2>/dev/null
		_v=$(((_v * 5 + 3) & MASKMAX))
		[ -e "$XS/$1" ] || sleep 0.05
	done
}

# loop_sender DST: udpflood bursts to DST until $W/lw.stop (errors expected).
loop_sender() {
	while [ ! -e "$W/lw.stop" ]; do
		nice -n 10 udpflood -d "$1" -p 9000 -f 8 -n 200 >/dev/null 2>&1 </dev/null || sleep 0.05
		sleep 0.05
	done
}

t_recreate() {
	xps_load dev=veth0,dum0,dumr,duma,dumb || return
	set_masks veth0 $(map11 $NQ) || return
	rm -f "$W/lw.stop"
	klog_mark
	bg_start "tcp udp pin"
	loop_writer dumr &
	_lw=$!
	loop_sender 10.9.5.2 &
	_ls=$!
	_t0=$(date +%s)
	_i=0 _sent=0
	while [ $_i -lt "$RECREATE" ] && [ "$T_FAIL" = 0 ]; do
		must ip link add dumr numtxqueues $NQ type dummy || break
		must ip addr add 10.9.5.1/24 dev dumr
		must ip link set dumr up
		if ! wait_until 5 test -e "$(xf dumr $((NQ - 1)))"; then
			fail "round $_i: re-created dumr was not attached"
			break
		fi
		_c=$(echo $CPUS | cut -d' ' -f$((_i % NCPU + 1)))
		flood - "$_c" 10.9.5.2 8 50 || break
		_sent=$((_sent + SENT))
		must ip link del dumr || break
		if ! wait_until 5 path_absent "$XS/dumr"; then
			fail "round $_i: $XS/dumr survives the delete"
			break
		fi
		_i=$((_i + 1))
		progress $_i "$RECREATE" $_t0 "delete/re-create cycles"
	done
	_t1=$(date +%s)
	touch "$W/lw.stop"
	wait_pid "$_lw" 30 || fail "mask writer on dumr did not stop"
	wait_pid "$_ls" 60 || fail "sender to dumr did not stop"
	_a=$(klog_since | grep -c 'xps_steer: dumr: attached')
	_d=$(klog_since | grep -c 'xps_steer: dumr: detached')
	diag "$_i delete/re-create cycles of dumr in $((_t1 - _t0)) s ($_sent pinned datagrams through it); log: $_a attached, $_d detached"
	[ "$_i" -ge "$RECREATE" ] || fail "only $_i of $RECREATE cycles done"
	[ "$_a" = "$_i" ] && [ "$_d" = "$_i" ] ||
		fail "expected $_i 'attached' and 'detached' lines for dumr, log has $_a and $_d"

	# Rename round trips duma -> dumx (unlisted) -> dumb (listed) -> duma.
	rm -f "$W/lw.stop"
	must ip link add duma numtxqueues $NQ type dummy || { bg_stop; return; }
	must ip addr add 10.9.6.1/24 dev duma
	must ip link set duma up
	wait_until 5 test -d "$XS/duma" || fail "duma was not attached"
	set_masks duma 1 2 4 8
	loop_sender 10.9.6.2 &
	_ls=$!
	_t0=$(date +%s)
	_i=0
	while [ $_i -lt "$RENAMES" ] && [ "$T_FAIL" = 0 ]; do
		for _pair in duma:dumx dumx:dumb dumb:duma; do
			_from=${_pair%:*} _to=${_pair#*:}
			must ip link set "$_from" down || break
			must ip link set "$_from" name "$_to" || break
			must ip link set "$_to" up || break
			if [ -e "$XS/$_from" ]; then
				fail "round $_i: $XS/$_from survives the rename to $_to"
				break
			fi
			if ! [ -d "$XS/$_to" ]; then
				fail "round $_i: no $XS/$_to after the rename from $_from"
				break
			fi
		done
		_i=$((_i + 1))
	done
	_t1=$(date +%s)
	touch "$W/lw.stop"
	wait_pid "$_ls" 60 || fail "sender to duma did not stop"
	bg_stop
	diag "$_i rename round trips (duma -> dumx -> dumb -> duma) in $((_t1 - _t0)) s"
	[ "$_i" -ge "$RENAMES" ] || fail "only $_i of $RENAMES rename rounds done"
	expect_masks_num duma 1 2 4 8
	_spec=
	for _c in $CPUS; do
		[ "$_c" -lt $NQ ] && _spec="$_spec${_spec:+ }$_c:$_c"
	done
	udp_all - duma 10.9.6.2 "$_spec"
	pkt_check "after renames" duma $NQ 0
	must ip link del duma
	xps_unload
	alive_stock "after re-create/rename"
}

t_recreate_cleanup() {
	touch "$W/lw.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	for _d in dumr duma dumx dumb; do ip link del "$_d"; done
	modprobe -r xps_steer
}

t_hotplug() {
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
	HP_MASKS=
	_q=0
	while [ $_q -lt $NQ ]; do
		HP_MASKS="$HP_MASKS${HP_MASKS:+ }$(printf '%x' $(((1 << _q | 1 << ((NCPU + _q) % NR_CPU_IDS)) & MASKMAX)))"
		_q=$((_q + 1))
	done
	set_masks dum0 $HP_MASKS || return
	set_masks veth0 $HP_MASKS || return
	expect_masks_num dum0 $HP_MASKS || return
	rm -f "$W/lw.stop"
	bg_start "tcp udp"
	loop_writer veth0 &
	_lw=$!
	_t0=$(date +%s)
	_i=0 _checks=0
	_all=$CPUS
	while [ $_i -lt "$HOTPLUG" ] && [ "$T_FAIL" = 0 ]; do
		_hc=$((1 + _i % (NCPU - 1)))
		if ! cpu_online $_hc 0; then
			fail "round $_i: offlining cpu$_hc failed: $(cat "$W/hp.err")"
			break
		fi
		CPUS=$(cpu_list_expand "$(cat /sys/devices/system/cpu/online)")
		# A mask naming the offline CPU (and a not-present one).
		_m2=$(printf '%x' $(((1 << _hc | 1 << (NR_CPU_IDS - 1)) & MASKMAX)))
		xw - "$(xf dum0 $_hc)" "$_m2"
		case $XW in ok*) ;; *) fail "round $_i: writing $_m2 (offline cpu$_hc) gave '$XW'" ;; esac
		rd "$(xf dum0 $_hc)"
		hexeq "${RD%"$NL"}" "$_m2" || fail "round $_i: tx-$_hc reads '${RD%"$NL"}' after writing $_m2"
		if [ $((_i % 4)) = 0 ]; then
			udp_all - dum0 "$DST0" "$(allowed_spec "$(read_masks dum0 $NQ)")"
			pkt_check "cpu$_hc offline" dum0 $NQ 0
			_checks=$((_checks + 1))
		fi
		if ! cpu_online $_hc 1; then
			fail "round $_i: onlining cpu$_hc failed: $(cat "$W/hp.err")"
			break
		fi
		CPUS=$_all
		if [ $((_i % 4)) = 0 ]; then
			udp_all - dum0 "$DST0" "$(allowed_spec "$(read_masks dum0 $NQ)")"
			pkt_check "cpu$_hc back online" dum0 $NQ 0
			_checks=$((_checks + 1))
		fi
		_i=$((_i + 1))
	done
	_t1=$(date +%s)
	touch "$W/lw.stop"
	wait_pid "$_lw" 30 || fail "mask writer on veth0 did not stop"
	bg_stop
	for _c in $_all; do
		[ -w "/sys/devices/system/cpu/cpu$_c/online" ] || continue
		[ "$(cat "/sys/devices/system/cpu/cpu$_c/online")" = 1 ] || fail "cpu$_c is still offline"
	done
	diag "$_i CPU offline/online cycles (cpus 1-$((NCPU - 1)), $NCPU of $NR_CPU_IDS possible online) in $((_t1 - _t0)) s; $_checks per-packet checks"
	[ "$_i" -ge "$HOTPLUG" ] || fail "only $_i of $HOTPLUG hotplug cycles done"
	xps_unload
	alive_stock "after hotplug"
}

t_hotplug_cleanup() {
	touch "$W/lw.stop"
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	for _f in /sys/devices/system/cpu/cpu*/online; do echo 1 >"$_f"; done
	CPUS=$(cpu_list_expand "$(cat /sys/devices/system/cpu/online)")
	modprobe -r xps_steer
}

# ev_filter LIMIT: record only veth0 packets on queues >= LIMIT.
ev_filter() {
	echo "name == \"veth0\" && queue_mapping >= $1" >"$EV/filter"
}

txq_count() { ls /sys/class/net/veth0/queues | grep -c '^tx-'; }

t_resize() {
	xps_load dev=veth0 || return
	set_masks veth0 $(map11 $NQ) || return
	klog_mark
	echo 0 >"$TR/tracing_on"
	: >"$TR/trace"
	ev_filter $NQ || { fail "tracepoint filter on queue_mapping rejected"; return; }
	echo 1 >"$EV/enable"
	echo 1 >"$TR/tracing_on"
	_tx0=$(cat /sys/class/net/veth0/statistics/tx_packets)
	bg_start "tcp udp pin"
	_t0=$(date +%s)
	_cur=$NQ _i=0 _seq=
	while [ $_i -lt "$RESIZE" ] && [ "$T_FAIL" = 0 ]; do
		_n=$((1 + (_i * 3 + _i / NQ) % NQ))
		[ $_n = "$_cur" ] && _n=$((_n % NQ + 1))
		# While the change is in flight either count is legal; after it
		# (and a moment for packets already past the pick), only the new.
		ev_filter $((_n > _cur ? _n : _cur))
		if ! ethtool -L veth0 tx $_n >"$W/ethtool.out" 2>&1; then
			fail "round $_i: ethtool -L veth0 tx $_n failed"
			diag_file "$W/ethtool.out"
			break
		fi
		[ "$(txq_count)" = $_n ] || fail "round $_i: veth0 has $(txq_count) tx queues after ethtool -L tx $_n"
		sleep 0.1
		ev_filter $_n
		_seq="$_seq $_n"
		_cur=$_n
		sleep 0.3
		_i=$((_i + 1))
	done
	_t1=$(date +%s)
	bg_stop
	echo 0 >"$TR/tracing_on"
	echo 0 >"$EV/enable"
	echo 0 >"$EV/filter"
	_tx=$(($(cat /sys/class/net/veth0/statistics/tx_packets) - _tx0))
	_bad=$(grep -v '^#' "$TR/trace" | grep -c 'net_dev_start_xmit')
	diag "$_i queue-count changes (tx:$_seq) in $((_t1 - _t0)) s; veth0 sent $_tx packets, each checked in-kernel: $_bad on a queue >= the count"
	[ "$_i" -ge "$RESIZE" ] || fail "only $_i of $RESIZE changes done"
	[ "$_tx" -gt 0 ] || fail "no packets sent during the queue-count changes"
	if [ "$_bad" != 0 ]; then
		fail "$_bad packets left on a queue >= real_num_tx_queues:"
		grep -v '^#' "$TR/trace" | head -n 5 | sed 's/^/#   /'
	fi
	if klog_has "selects TX queue"; then
		fail "the core capped an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
	fi
	[ "$(txq_count)" = $NQ ] || must ethtool -L veth0 tx $NQ
	xps_unload
	alive_stock "after queue-count changes"
}

t_resize_cleanup() {
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	echo 0 >"$EV/enable"
	echo 0 >"$EV/filter"
	[ "$(txq_count)" = $NQ ] || ethtool -L veth0 tx $NQ
	modprobe -r xps_steer
}

t_bypass() {
	xps_unload || return
	klog_mark
	bg_start "pkt udp pin"
	_t0=$(date +%s)
	_i=0
	while [ $_i -lt "$PKTCYCLES" ]; do
		modprobe_ok "cycle $_i" xps_steer dev=veth0 || break
		for _q in $(seq_tx $NQ); do
			printf "%s\n" "$(cpumask "${_q#tx-}")" >"$XS/veth0/$_q/xps_cpus" ||
				fail "cycle $_i: mask write to veth0 $_q failed"
		done
		sleep 0.2
		modprobe_ok "cycle $_i" -r xps_steer || break
		_i=$((_i + 1))
		progress $_i "$PKTCYCLES" $_t0 "attach/detach cycles"
	done
	_t1=$(date +%s)
	bg_stop
	diag "$_i attach/detach cycles under AF_PACKET qdisc-bypass senders on every CPU in $((_t1 - _t0)) s"
	[ "$_i" -ge "$PKTCYCLES" ] || fail "only $_i of $PKTCYCLES cycles done"
	_d=$(klog_since | grep -c 'xps_steer: veth0: detached')
	[ "$_d" = "$_i" ] || fail "expected $_i 'detached' lines, log has $_d"
	# Bypass path after the last detach: frames still go out and arrive.
	_u0=$(udp_in)
	pktsend -i veth0 -m "$MAC1" -s 10.9.2.1 -d "$DST2" -p 9000 -n 1000 >"$W/pkt.out" 2>&1
	_s=$(awk '/^pktsend: sent/ { print $3 }' "$W/pkt.out")
	sleep 0.2
	_in=$(($(udp_in) - _u0))
	if [ "${_s:-0}" = 1000 ] && [ "$_in" = 1000 ]; then
		diag "after detach: pktsend sent 1000, 1000 arrived"
	else
		fail "after detach: pktsend sent '${_s:-0}' of 1000, $_in arrived"
		diag_file "$W/pkt.out"
	fi
	alive_stock "after bypass cycles"
}

t_bypass_cleanup() {
	[ ! -e "$W/bg" ] || [ -e "$W/bg/stop" ] || bg_stop
	modprobe -r xps_steer
}

t_final() {
	# Shell-level mistakes (a missing helper, a file never written) in
	# any test or background loop fail the run.
	if grep -E 'command not found|syntax error|bad substitution|unbound variable|No such file or directory' \
		"$W/stderr.log" >"$W/shell-errors.txt"; then
		fail "shell errors during the run:"
		diag_file "$W/shell-errors.txt" 20
	fi
	xps_unload
	[ -e "$XS" ] && fail "$XS exists with the module unloaded"
	for _p in $SERVERS; do kill "$_p" 2>/dev/null; done
	dmesg >"$W/dmesg.txt"
	if grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|UBSAN|KASAN|refcount_t|selects TX queue' \
		"$W/dmesg.txt" >"$W/bad.txt"; then
		fail "kernel log has warnings:"
		diag_file "$W/bad.txt" 30
	fi
	diag "kernel log: $(grep -c 'xps_steer: .*: attached' "$W/dmesg.txt") attach, $(grep -c 'xps_steer: .*: detached' "$W/dmesg.txt") detach lines; no WARNING/BUG"
}

# ----------------------------------------------------------------- main --

selected() {	# NAME: test NAME is to run (no ONLY=, or ONLY= names it)
	[ -z "$ONLY" ] || case ",$ONLY," in *",$1,"*) ;; *) return 1 ;; esac
}

T_START=$(date +%s)
# stderr of the tests and their background loops is kept for t_final.
exec 2>"$W/stderr.log"
echo "TAP version 13"
_plan=2
for _t in $STRESS_TESTS; do selected "$_t" && _plan=$((_plan + 1)); done
echo "1..$_plan"
diag "stress: kernel $(uname -r), CPUs online: $CPUS(nr_cpu_ids $NR_CPU_IDS)"
diag "counts: CYCLES=$CYCLES WRITES=$WRITES WRITERS=$WRITERS RECREATE=$RECREATE RENAMES=$RENAMES HOTPLUG=$HOTPLUG RESIZE=$RESIZE PKTCYCLES=$PKTCYCLES${ONLY:+ ONLY=$ONLY}"
for _t in udpflood pktsend xwrite iperf3 ip ethtool taskset modprobe; do
	command -v "$_t" >/dev/null || echo "Bail out! $_t not found in PATH"
done
trace_setup || diag "WARNING: no tracing: every steering check will fail"
if ! [ "$NCPU" -le $NQ ] 2>/dev/null; then
	echo "Bail out! the per-packet checks assume at most $NQ online CPUs"
	exit 1
fi

run_test "setup: veth0 <-> veth1 (netns peer), dum0, iperf3 servers" t_setup
selected cycles &&
	run_test "attach/detach: $CYCLES modprobe/modprobe -r cycles under TCP+UDP from every CPU" t_cycles
selected writes &&
	run_test "mask writes: $WRITES random writes by $WRITERS writers under traffic; last write read back and obeyed" t_writes
selected churn &&
	run_test "device churn: $RECREATE delete/re-create cycles and $RENAMES rename round trips under traffic" t_recreate
selected hotplug &&
	run_test "CPU hotplug: $HOTPLUG offline/online cycles under traffic, masks naming offline CPUs" t_hotplug
selected resize &&
	run_test "queue count: $RESIZE ethtool -L changes under traffic, never a queue >= real_num_tx_queues" t_resize
selected bypass &&
	run_test "AF_PACKET qdisc bypass: $PKTCYCLES attach/detach cycles under bypass senders" t_bypass
run_test "final: module unloads, no kernel warnings" t_final

T_END=$(date +%s)
diag "stress: $N_PASS passed, $N_FAIL failed, $N_SKIP skipped in $((T_END - T_START)) s"
[ "$N_FAIL" = 0 ]
