#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh - the in-guest half of `make bench` (host side: test/bench.sh).
#
#   bench.sh cost ROUNDS SECS   per-packet cost (boot with -smp 1 -icount)
#   bench.sh wall ROUNDS SECS   request/response, bulk, locality (4 vCPUs)
#   bench.sh ctl                control path: mask write time, memory;
#                               guard mode's periodic check
#   bench.sh guard EVENTS       guard mode's restore windows (4 vCPUs, a
#                               multiqueue virtio-net NIC, bnxlike)
#
# Configurations, all in the same boot, each on its own device:
#   A  stock selection (no XPS)           device in netns nA
#   B  the kernel's own XPS (xps_cpus)    device in netns nB
#   C  xps_steer, same masks as B         device in the initial netns
#                                         (xps_steer only names those)
#   D  tc skbedit queue_mapping hash-type cpuid, if tc and the kernel
#      accept it (checked; otherwise reported as unavailable)
# The devices of A, B, C (and D) have the same addresses, so udpflood with
# fixed source ports sends the very same flows through each of them.
#
# cost measures every path three times: with dumC the only attached
# device, the same with the module built to count nothing (devs=1nc: what
# the counters cost), and with 32 attached devices (31 extra dummies
# xd1..xd31, then dumC, attached last: the worst case of a lookup that
# walks the attached devices in attach order). Each run starts with path nomask: dumC freshly attached,
# no mask ever written, so every packet must go to the stock selection.
#
# Every result is one line "BENCH <kind> key=value ..." on stdout, parsed
# by test/bench.sh. Anything that makes a number meaningless (a sender not
# pinned, send errors, a steering check failing) is "bench: FAIL: ..." and
# a non-zero exit.
set -euo pipefail

LIB=$(dirname "$0")/lib.sh
[ -r "$LIB" ] || LIB=/test/lib.sh
# lib.sh is POSIX sh written for `set +eu`; load it that way.
set +eu
# shellcheck source=lib.sh
. "$LIB"
set -eu

NQ=4
FLOWS=64
DST=10.9.0.2
DSTV=10.9.2.2
MEMDEVS=3
XNAMES=dumC,vC0,dq64$(for i in $(seq 0 $((MEMDEVS - 1))); do printf ',mem%d' "$i"; done)
NEXTRA=31	# with dumC: 32 attached devices, xps_steer's limit
XNAMES32=$(for i in $(seq 1 $NEXTRA); do printf 'xd%d,' "$i"; done)dumC

# shellcheck source=bench-guard.sh
. "$(dirname "$LIB")/bench-guard.sh"

SAY_PREFIX='bench: '
# lib.sh's helpers report through fail(); here that is the end.
FAIL_IS_FATAL=1

# run CMD...: run it; on failure show its output and die.
run() {
	if ! "$@" >"$W/run.out" 2>&1 </dev/null; then
		cat "$W/run.out"
		die "command failed: $*"
	fi
}

waitall() {	# PID...: wait for these background jobs (their status is checked from their output)
	local p
	for p in "$@"; do
		wait "$p" || true
	done
}


netns_of() {	# CFG -> netns argument for in_ns ("-" = initial)
	case $1 in C) echo - ;; *) echo "n$1" ;; esac
}
ipn() {	# CFG ip-args...: ip in CFG's netns
	local c
	c=$1
	shift
	if [ "$c" = C ]; then ip "$@"; else ip -n "n$c" "$@"; fi
}

load_module() {	# [NAMES]
	local list=${1:-$XNAMES}
	modprobe xps_steer dev="$list" >"$W/modprobe.out" 2>&1 ||
		{ cat "$W/modprobe.out"; die "modprobe xps_steer failed"; }
	say "loaded xps_steer dev=$list"
}

attached() {	# DEV: xps_steer has a tree for it
	[ -d "$XS/$1" ] || die "xps_steer did not attach $1: $(dmesg | grep xps_steer | tail -n 3 | tr '\n' ' ')"
}

# ---------------------------------------------------------------- cost --

cost_dev() {	# CFG: dummy dum<CFG>, 4 tx queues, 10.9.0.1/24, up
	run ipn "$1" link add "dum$1" numtxqueues $NQ numrxqueues $NQ type dummy
	run ipn "$1" addr add 10.9.0.1/24 dev "dum$1"
	run ipn "$1" link set "dum$1" up
}

# dummy devices dumA dumB dumC (dumD) with 4 tx queues, 10.9.0.1/24.
cost_topo() {
	for c in A B D; do
		run ip netns add "n$c"
		run ip -n "n$c" link set lo up
	done
	for c in A B C D; do
		cost_dev "$c"
	done
	attached dumC
	# D: tc's hash-type cpuid (proposed upstream in 2022). Try it for
	# real; if tc or the kernel refuse it, say so and leave D out.
	D_OK=0
	run tc -n nD qdisc add dev dumD clsact
	if tc -n nD filter add dev dumD egress matchall \
		action skbedit queue_mapping hash-type cpuid 0 $((NQ - 1)) >"$W/tcd.out" 2>&1; then
		D_OK=1
		say "D: tc skbedit queue_mapping hash-type cpuid 0 $((NQ - 1)) accepted"
	else
		reason=$(tr '\n' ' ' <"$W/tcd.out" | cut -c1-200)
		kh=no
		# The kernel side: 6.1's act_skbedit knows SKBEDIT_F_TXQ_SKBHASH
		# (flow hash) only; there is no CPU-id hash type to ask for.
		say "D: unavailable: 'tc filter add dev dumD egress matchall action skbedit queue_mapping hash-type cpuid 0 $((NQ - 1))' failed: $reason"
		echo "BENCH d_unavailable tc=\"$(tc -V)\" kernel=$(uname -r) cpuid_in_kernel=$kh error=\"$reason\""
	fi
}

# masks for the paths, as hex per queue (4 possible CPUs: boot maxcpus=4)
# rotate R ITEM...: ROTATED = the items, starting at item R (1-based,
# cyclic): the order of the configurations changes round by round.
rotate() {
	local r=$1 i
	shift
	ROTATED=()
	for ((i = 0; i < $#; i++)); do
		ROTATED+=("${@:((i + r - 1) % $# + 1):1}")
	done
}

path_masks() {	# PATH: MASKS=(the path's masks)
	case $1 in
	one) MASKS=(1 2 4 8) ;;		# CPU n -> queue n: CPU 0 has one queue
	hash) MASKS=(f f f f) ;;	# every CPU on every queue: flow hash among 4
	unmapped) MASKS=(2 4 8 0) ;;	# CPU 0 in no mask: fallback to stock
	nomask) MASKS=() ;;		# xps_steer: no mask ever written
	esac
}

# one measured flood on CFG: sets RATE, PKTS
flood_rate() {
	local out
	out=$W/flood.$1
	in_ns "$(netns_of "$1")" taskset 1 udpflood -d $DST -p 9000 -f $FLOWS -P 20000 \
		-s 18 -t "$2" >"$out" 2>&1 || { cat "$out"; die "udpflood on dum$1 failed"; }
	grep -q 'cpu 0->0, errors 0$' "$out" || { cat "$out"; die "udpflood on dum$1: not pinned to cpu 0 or send errors"; }
	read -r PKTS SECS RATE <<<"$(awk '/ packets in / { print $2, $5, $7 }' "$out")"
}

# per-packet check that the configuration does what its name says
cost_verify() {	# PATH
	trace_start dumA dumB dumC dumD
	for c in "${CFGS[@]}"; do
		in_ns "$(netns_of "$c")" taskset 1 udpflood -d $DST -p 9000 -f $FLOWS -P 20000 \
			-s 18 -n 256 >"$W/v.out" 2>&1 || die "udpflood (verify) on dum$c failed"
	done
	trace_stop
	for c in "${CFGS[@]}"; do
		trace_table "dum$c" >"$W/v.$c"
		echo "BENCH costq path=$1 devs=$DEVS cfg=$c queues=$(tbl_queues "$W/v.$c" 0) pkts=$(tbl_total "$W/v.$c")"
		SEQ[$c]=$(trace_seq "dum$c" 0)
	done
	[ "$(tbl_total "$W/v.C")" = 256 ] || die "$1: dumC sent $(tbl_total "$W/v.C") packets of 256 in the trace"
	# C must pick exactly B's queue for every packet (same flows, same order).
	[ "${SEQ[C]}" = "${SEQ[B]}" ] || die "$1: xps_steer's per-packet queues differ from the kernel XPS's (B: $(tbl_queues "$W/v.B" 0), C: $(tbl_queues "$W/v.C" 0))"
	case $1 in
	one) [ "$(tbl_queues "$W/v.C" 0)" = 0 ] || die "one: CPU 0 used queues $(tbl_queues "$W/v.C" 0), expected 0" ;;
	hash) [ "$(tbl_queues "$W/v.C" 0)" = 0,1,2,3 ] || die "hash: CPU 0 used queues $(tbl_queues "$W/v.C" 0), expected 0,1,2,3" ;;
	unmapped | nomask) [ "${SEQ[C]}" = "${SEQ[A]}" ] || die "$1: xps_steer's fallback differs from stock selection" ;;
	esac
	say "$1 ($DEVS attached): per-packet queues of C identical to B's ($(tbl_queues "$W/v.C" 0))"
}

# the attached devices' directories under $XS
n_attached() {
	local d n=0
	for d in "$XS"/*/tx-0; do
		[ -d "$d" ] && n=$((n + 1))
	done
	echo $n
}

# The paths with the DEVS attached devices; nomask must come first (dumC
# freshly attached, no mask written yet).
cost_paths() {	# ROUNDS SECS
	local rounds=$1 secs=$2 path r c
	for path in nomask one hash unmapped; do
		path_masks "$path"
		if [ "$path" = nomask ]; then
			# the kernel's XPS without masks: stock selection
			kset_masks nB dumB 0 0 0 0
			[ "$(cat "$XS/dumC/tx-0/xps_cpus" "$XS/dumC/tx-$((NQ - 1))/xps_cpus" | tr -d '0,\n')" = "" ] ||
				die "nomask: dumC has masks before any was written"
			say "path nomask ($DEVS attached): no mask on dumB (kernel XPS) nor dumC (xps_steer)"
		else
			kset_masks nB dumB "${MASKS[@]}"
			set_masks dumC "${MASKS[@]}"
			say "path $path ($DEVS attached): masks ${MASKS[*]} on dumB (kernel XPS) and dumC (xps_steer)"
		fi
		cost_verify "$path"
		for r in $(seq 1 "$rounds"); do
			# rotate the order round by round
			rotate "$r" "${CFGS[@]}"
			for c in "${ROTATED[@]}"; do
				flood_rate "$c" "$secs"
				echo "BENCH cost path=$path devs=$DEVS round=$r cfg=$c pkts=$PKTS secs=$SECS rate=$RATE"
			done
		done
	done
}

# 32 attached devices: unload, 31 extra dummies xd1..xd31 (no masks, down),
# load with their names and dumC's, then recreate dumC: attached last.
cost_attach32() {
	local i last
	run modprobe -r xps_steer
	run ip link del dumC
	for i in $(seq 1 $NEXTRA); do
		run ip link add "xd$i" numtxqueues $NQ numrxqueues $NQ type dummy
	done
	load_module "$XNAMES32"
	for i in $(seq 1 $NEXTRA); do
		attached "xd$i"
	done
	cost_dev C
	attached dumC
	[ "$(n_attached)" = 32 ] || die "32 attached devices expected, xps_steer has $(n_attached)"
	last=$(dmesg | grep -o 'xps_steer: [^ ]*: attached' | tail -n 1)
	[ "$last" = "xps_steer: dumC: attached" ] || die "dumC is not the last device attached (last: '$last')"
	say "32 attached devices (xd1..xd$NEXTRA, then dumC last)"
}

# The paths again with the module built to count nothing (make bench
# installs it as xps_steer_nocounters.ko; the module inside is still
# called xps_steer): DEVS=1nc. Leaves that module loaded.
cost_nocounters() {	# ROUNDS SECS
	local ko
	ko=$(find /lib/modules -name 'xps_steer_nocounters.ko*' | head -n 1)
	[ -n "$ko" ] || die "no xps_steer_nocounters.ko in the guest: the cost of the counters cannot be measured"
	run modprobe -r xps_steer
	run insmod "$ko" dev="$XNAMES"
	attached dumC
	say "loaded $ko (no counters) dev=$XNAMES"
	DEVS=1nc
	cost_paths "$1" "$2"
}

# back to the 1-device state of the module for ctl: unloaded, extras gone
cost_detach32() {
	local i
	run modprobe -r xps_steer
	for i in $(seq 1 $NEXTRA); do
		run ip link del "xd$i"
	done
}

declare -A SEQ=()
cost() {
	local rounds=$1 secs=$2
	[ "$NCPU" = 1 ] || die "cost needs a 1-vCPU guest (-smp 1 -icount), this one has $NCPU"
	trace_setup || die "no tracing"
	load_module
	cost_topo
	CFGS=(A B C)
	[ "$D_OK" = 1 ] && CFGS=(A B C D)
	[ "$(n_attached)" = 1 ] || die "1 attached device expected, xps_steer has $(n_attached)"
	DEVS=1
	cost_paths "$rounds" "$secs"
	cost_nocounters "$rounds" "$secs"
	cost_guard "$rounds" "$secs"
	cost_attach32
	DEVS=32
	cost_paths "$rounds" "$secs"
	cost_detach32
	ctl
}

# ---------------------------------------------------------------- ctl --

meminfo_kb() {	# Slab + VmallocUsed, kB
	awk '/^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 } END { print s + v }' /proc/meminfo
}

settle() {	# let RCU-deferred frees run, then read memory
	sleep 1
	echo 2 >/proc/sys/vm/drop_caches
	sleep 1
	meminfo_kb
}

# all-CPU mask for every queue in hex ("f" for 4 CPUs, "ffffffff,ffffffff" for 64)
all_cpus_mask() {
	local n s
	n=$NR_CPU_IDS s=
	while [ "$n" -gt 32 ]; do
		s=",ffffffff$s"
		n=$((n - 32))
	done
	printf '%x%s\n' $(((1 << n) - 1)) "$s"
}

ctl() {
	local allm q i base att t full
	local -a vals fvals
	xps_loaded || load_module
	trace_setup || die "no tracing"
	allm=$(all_cpus_mask)
	# Control path: one mask write on a 64-queue device, ours and the kernel's.
	run ip link add dq64 numtxqueues 64 numrxqueues 1 type dummy
	run ip link add dk64 numtxqueues 64 numrxqueues 1 type dummy
	attached dq64
	n=2000
	out=$(mwrite "$XS/dq64/tx-63/xps_cpus" $n 1 3) || die "mwrite on dq64: $out"
	us=$(echo "$out" | awk '{ print $(NF - 3) }')
	echo "BENCH ctl who=xps_steer queues=64 cpus=$NR_CPU_IDS writes=$n us_per_write=$us"
	out=$(mwrite "/sys/class/net/dk64/queues/tx-63/xps_cpus" $n 1 3) || die "mwrite on dk64: $out"
	us=$(echo "$out" | awk '{ print $(NF - 3) }')
	echo "BENCH ctl who=kernel queues=64 cpus=$NR_CPU_IDS writes=$n us_per_write=$us"
	run ip link del dq64
	run ip link del dk64

	# Memory per attached device, measured with the kmem tracepoints:
	# bytes_alloc of every slab/kmalloc object allocated and not freed
	# while a dummy is renamed to a name xps_steer attaches (memN), minus
	# the same for a rename to a name it does not (natN). Pages taken
	# directly from the page allocator (none here) would be missed.
	for q in 4 16 64; do
		vals=() fvals=()
		for i in $(seq 0 $((MEMDEVS - 1))); do
			run ip link add "tmp$i" numtxqueues $q numrxqueues 1 type dummy
			mem_window ip link set dev "tmp$i" name "nat$i"
			base=$MW_NET
			mem_window ip link set dev "nat$i" name "mem$i"
			attached "mem$i"
			att=$((MW_NET - base))
			for t in $(seq 0 $((q - 2))); do
				echo "$allm" >"$XS/mem$i/tx-$t/xps_cpus"
			done
			# a shell function: no fork, so no task_struct in the window
			mem_window put "$XS/mem$i/tx-$((q - 1))/xps_cpus" "$allm"
			[ "$MW_MAX" -gt 0 ] || die "no map allocation seen in a mask write on mem$i"
			full=$((att + MW_MAX))
			vals+=("$att") fvals+=("$full")
			run ip link del "mem$i"
		done
		echo "BENCH mem cpus=$NR_CPU_IDS queues=$q devs=$MEMDEVS full_map_b=$MW_MAX" \
			"per_dev_b=$(median "${vals[@]}") per_dev_full_b=$(median "${fvals[@]}") samples=$(IFS=,; echo "${vals[*]}")"
	done
	guard_check_cost
}

put() { echo "$2" >"$1"; }

median() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# mem_window CMD...: run CMD with kmem allocation/free events traced. Sets
# MW_NET (bytes_alloc of objects allocated and not freed in the window) and
# MW_MAX (bytes_alloc of the largest such object allocated from xps_steer's
# own code, or by kvmalloc/kmalloc_large for it (a map above 8 KiB): in a
# mask-write window that is the new map; the old one is freed after an RCU
# grace period).
mem_window() {
	local evs e
	evs=
	for e in kmalloc kmalloc_node kmem_cache_alloc kmem_cache_alloc_node kfree kmem_cache_free; do
		[ -d "$TR/events/kmem/$e" ] && evs="$evs $e"
	done
	echo 0 >"$TR/tracing_on"
	# real addresses, so allocations and frees can be matched
	[ ! -e "$TR/options/hash-ptr" ] || echo 0 >"$TR/options/hash-ptr"
	: >"$TR/trace"
	for e in $evs; do echo 1 >"$TR/events/kmem/$e/enable"; done
	echo 1 >"$TR/tracing_on"
	"$@" >"$W/mw.out" 2>&1 </dev/null || { cat "$W/mw.out"; die "failed: $*"; }
	echo 0 >"$TR/tracing_on"
	for e in $evs; do echo 0 >"$TR/events/kmem/$e/enable"; done
	cat "$TR/trace" >"$W/mw.trace"
	grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' "$W/mw.trace" ||
		die "kmem trace overflowed: $(grep entries-in-buffer "$W/mw.trace")"
	read -r MW_NET MW_MAX <<<"$(awk '
		/^#/ { next }
		{
			p = ""; b = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^ptr=/) p = substr($i, 5)
				if ($i ~ /^bytes_alloc=/) b = substr($i, 13) + 0
			}
			if (p == "" || p ~ /^0+$/ || p == "(null)") next
			if (b) { live[p] = b; mod[p] = (index($0, "[xps_steer]") > 0 || $0 ~ /call_site=_*(kvmalloc|kmalloc_large|kmalloc_order)/) }
			else if (p in live) delete live[p]
		}
		END { for (p in live) { n += live[p]; if (mod[p] && live[p] > map) map = live[p] }; print n + 0, map + 0 }' "$W/mw.trace")"
}

# ---------------------------------------------------------------- wall --

# veth pairs vA0/vB0/vC0 (10.9.2.1) <-> vA1/vB1/vC1 (10.9.2.2, netns pA/pB/pC)
wall_topo() {
	for c in A B C; do
		[ $c = C ] || { run ip netns add "n$c" && run ip -n "n$c" link set lo up; }
		run ip netns add "p$c"
		run ip -n "p$c" link set lo up
		run ipn $c link add "v${c}0" numtxqueues $NQ numrxqueues $NQ type veth \
			peer name "v${c}1" numtxqueues $NQ numrxqueues $NQ
		run ipn $c link set "v${c}1" netns "p$c"
		run ipn $c addr add 10.9.2.1/24 dev "v${c}0"
		run ip -n "p$c" addr add $DSTV/24 dev "v${c}1"
		run ipn $c link set "v${c}0" up
		run ip -n "p$c" link set "v${c}1" up
		m0=$(in_ns "$(netns_of $c)" cat "/sys/class/net/v${c}0/address")
		m1=$(in_ns "p$c" cat "/sys/class/net/v${c}1/address")
		run ipn $c neigh replace $DSTV lladdr "$m1" nud permanent dev "v${c}0"
		run ip -n "p$c" neigh replace 10.9.2.1 lladdr "$m0" nud permanent dev "v${c}1"
		for ns in "$(netns_of $c)" "p$c"; do
			in_ns "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6' || true
		done
		# servers: tcprr (4 workers) and one iperf3 per sender CPU
		(exec ip netns exec "p$c" tcprr -s -p 9100 -w 4 >"$W/rrs.$c" 2>&1 </dev/null) &
		for i in 0 1 2 3; do
			(exec ip netns exec "p$c" iperf3 -s -B $DSTV -p $((5201 + i)) >"$W/ips.$c.$i" 2>&1 </dev/null) &
		done
	done
	attached vC0
	kset_masks nB vB0 1 2 4 8
	set_masks vC0 1 2 4 8
	for c in A B C; do
		wait_until 15 listening "p$c" 238C || die "tcprr server in p$c not listening"
		for i in 0 1 2 3; do
			wait_until 15 listening "p$c" "$(printf '%04X' $((5201 + i)))" ||
				die "iperf3 server $((5201 + i)) in p$c not listening"
		done
	done
	say "veth pairs v{A,B,C}0 <-> v{A,B,C}1, 4 queues; masks 1 2 4 8 on vB0 (kernel XPS) and vC0 (xps_steer)"
}

rr_once() {	# CFG SECS: 4 pinned clients x 16 flows; sets TPS
	local -a pids=()
	for i in 0 1 2 3; do
		in_ns "$(netns_of "$1")" taskset "$(cpumask $i)" tcprr -c $DSTV -p 9100 -f 16 -t "$2" \
			>"$W/rr.$1.$i" 2>&1 &
		pids+=($!)
	done
	waitall "${pids[@]}"
	TPS=0
	for i in 0 1 2 3; do
		grep -q "cpu $i->$i, flows without a transaction 0" "$W/rr.$1.$i" ||
			{ cat "$W/rr.$1.$i"; die "tcprr client $i on v${1}0 failed"; }
		t=$(awk '/transactions in/ { print $2 / $5 }' "$W/rr.$1.$i")
		TPS=$(awk -v a="$TPS" -v b="$t" 'BEGIN { printf "%.1f", a + b }')
	done
}

ip_once() {	# CFG SECS: 4 iperf3 clients pinned to CPUs 0-3; sets MBPS
	local -a pids=()
	for i in 0 1 2 3; do
		in_ns "$(netns_of "$1")" taskset "$(cpumask $i)" timeout $(($2 + 30)) \
			iperf3 -c $DSTV -p $((5201 + i)) -t "$2" -J >"$W/ip.$1.$i" 2>&1 &
		pids+=($!)
	done
	waitall "${pids[@]}"
	MBPS=0
	for i in 0 1 2 3; do
		b=$(awk '/"sum_sent"/ { f = 1 } f && /"bits_per_second"/ { gsub(/[^0-9.e+]/, "", $2); print $2; exit }' "$W/ip.$1.$i")
		[ -n "$b" ] || { head -n 20 "$W/ip.$1.$i"; die "iperf3 client $i on v${1}0 failed"; }
		MBPS=$(awk -v a="$MBPS" -v b="$b" 'BEGIN { printf "%.1f", a + b / 1e6 }')
	done
}

# locality from a trace: per queue the distinct CPUs, and the share of
# packets sent on a queue that another CPU also used in the same 1 ms
# (shared) or 10 ms (shared10). TCG runs the vCPUs as host threads in host
# time slices, so true simultaneity is rarer than on hardware.
loc_stats() {	# DEV FILE
	awk -v dev="$1" '
		/^#/ || index($0, " dev=" dev " ") == 0 { next }
		{
			if (!match($0, /\[[0-9]+\] /)) next
			cpu = substr($0, RSTART + 1, RLENGTH - 3) + 0
			if (!match($0, /queue_mapping=[0-9]+/)) next
			q = substr($0, RSTART + 14, RLENGTH - 14) + 0
			if (!match($0, / [0-9]+\.[0-9]+: /)) next
			t = substr($0, RSTART + 1, RLENGTH - 3)
			b = int(t * 1000); b10 = int(t * 100)
			n++; seen[q, cpu] = 1; qs[q] = 1
			if (!((b, q, cpu) in one)) { one[b, q, cpu] = 1; nc[b, q]++ }
			if (!((b10, q, cpu) in ten)) { ten[b10, q, cpu] = 1; nc10[b10, q]++ }
			pk[n] = b SUBSEP q; pk10[n] = b10 SUBSEP q
		}
		END {
			sh = sh10 = 0
			for (i = 1; i <= n; i++) { if (nc[pk[i]] > 1) sh++; if (nc10[pk10[i]] > 1) sh10++ }
			out = ""
			for (q = 0; q < 64; q++) {
				if (!(q in qs)) continue
				c = 0; l = ""
				for (k = 0; k < 1024; k++) if ((q, k) in seen) { c++; l = l (l == "" ? "" : "+") k }
				out = out sprintf(" q%d=%d:%s", q, c, l)
			}
			printf "pkts=%d shared=%.4f shared10=%.4f%s\n", n, n ? sh / n : 0, n ? sh10 / n : 0, out
		}' "$2"
}

wall() {
	local rounds=$1 secs=$2 wl c i r
	local -a pids
	[ "$NCPU" = 4 ] || die "wall needs a 4-vCPU guest, this one has $NCPU"
	trace_setup || die "no tracing"
	load_module
	wall_topo
	# Locality: 4 pinned unconnected-UDP senders at once, then the TCP
	# request/response load, each traced on the configuration's device.
	for wl in udp rr; do
		for c in A B C; do
			trace_start "v${c}0"
			if [ $wl = udp ]; then
				pids=()
				for i in 0 1 2 3; do
					in_ns "$(netns_of $c)" taskset "$(cpumask $i)" udpflood -d $DSTV -p 9000 \
						-f $FLOWS -P $((20000 + 100 * i)) -s 18 -n 2000 >"$W/lu.$i" 2>&1 &
					pids+=($!)
				done
				waitall "${pids[@]}"
				for i in 0 1 2 3; do
					grep -q "cpu $i->$i" "$W/lu.$i" || { cat "$W/lu.$i"; die "udpflood $i on v${c}0 not pinned"; }
				done
			else
				rr_once $c 2
			fi
			trace_stop
			echo "BENCH loc wl=$wl cfg=$c $(loc_stats "v${c}0" "$W/trace.txt")"
		done
	done
	for r in $(seq 1 "$rounds"); do
		rotate "$r" A B C
		for c in "${ROTATED[@]}"; do
			rr_once "$c" "$secs"
			echo "BENCH rr round=$r cfg=$c tps=$TPS"
		done
		for c in "${ROTATED[@]}"; do
			ip_once "$c" "$secs"
			echo "BENCH bulk round=$r cfg=$c mbps=$MBPS"
		done
	done
}

mode=${1:-}
case $mode in
cost) cost "${2:-5}" "${3:-2}" ;;
wall) wall "${2:-5}" "${3:-4}" ;;
ctl) ctl ;;
guard) guard_windows "${2:-100}" ;;
*) die "usage: bench.sh cost|wall ROUNDS SECS | ctl | guard EVENTS" ;;
esac
say "$mode done"
