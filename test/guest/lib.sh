# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# lib.sh - helpers for the xps_steer in-guest tests (busybox sh, POSIX).
#
# Sourced by suite.sh and demo.sh.  Everything printed here for humans goes
# to stdout as KTAP diagnostics ("# ..."), so the suite's output stays a
# valid KTAP stream; command output is captured to files and shown only when
# it explains a failure.

# Variables here are used by the scripts that source this file.
# shellcheck disable=SC2034,SC2010,SC2012,SC2086
XS=/sys/kernel/xps_steer
W=${XPS_WORK:-/tmp/xps-suite}
NL='
'
mkdir -p "$W"

TR=/sys/kernel/tracing
[ -e "$TR/trace" ] || TR=/sys/kernel/debug/tracing
EV=$TR/events/net/net_dev_start_xmit

# CPUs: the tests pin one sender per online CPU.  NR_CPU_IDS is what the
# kernel pads masks to (possible CPUs), which fixes the valid mask range.
cpu_list_expand() {	# "0-3,5" -> "0 1 2 3 5"
	echo "$1" | tr ',' '\n' | awk -F- '
		NF == 1 && $1 != "" { printf "%s ", $1 }
		NF == 2 { for (i = $1; i <= $2; i++) printf "%s ", i }'
}
CPUS=$(cpu_list_expand "$(cat /sys/devices/system/cpu/online 2>/dev/null)")
NCPU=$(echo $CPUS | wc -w)
NR_CPU_IDS=$(cpu_list_expand "$(cat /sys/devices/system/cpu/possible 2>/dev/null)" |
	awk '{ print $NF + 1 }')

# ---------------------------------------------------------------- KTAP --

TESTNUM=0
N_FAIL=0
N_PASS=0
N_SKIP=0
T_FAIL=0
T_SKIP=

diag() {	# each argument, and each line of it, as a "# " line
	for _l in "$@"; do
		printf '%s\n' "$_l" | sed 's/^/# /'
	done
}

diag_file() {	# FILE [MAXLINES]: show a captured output, indented
	[ -s "$1" ] || { diag "  (no output)"; return 0; }
	head -n "${2:-40}" "$1" | sed 's/^/#   /'
}

fail() {	# marks the running test failed; the reason is a diagnostic
	T_FAIL=1
	diag "FAIL: $*"
}

skip() {	# marks the running test skipped (only if nothing failed)
	T_SKIP="$*"
}

# run_test DESC FUNC: runs FUNC in this shell, then FUNC_cleanup if defined,
# and prints the KTAP result line.  A skip is reported as "# SKIP reason" and
# never counted as a pass.
run_test() {
	TESTNUM=$((TESTNUM + 1))
	T_FAIL=0
	T_SKIP=
	# Its own start time: tests use _t0/_t1 for their own timings.
	TEST_T0=$(date +%s)
	diag "----- test $TESTNUM: $1"
	"$2"
	if command -v "$2_cleanup" >/dev/null 2>&1; then
		"$2_cleanup" >"$W/cleanup.out" 2>&1
	fi
	diag "(test $TESTNUM took $(($(date +%s) - TEST_T0)) s)"
	if [ "$T_FAIL" != 0 ]; then
		N_FAIL=$((N_FAIL + 1))
		echo "not ok $TESTNUM - $1"
	elif [ -n "$T_SKIP" ]; then
		N_SKIP=$((N_SKIP + 1))
		echo "ok $TESTNUM - $1 # SKIP $T_SKIP"
	else
		N_PASS=$((N_PASS + 1))
		echo "ok $TESTNUM - $1"
	fi
}

# ------------------------------------------------------------ commands --

# q CMD...: run quietly, output kept in $W/q.out, returns CMD's status.
q() {
	"$@" >"$W/q.out" 2>&1 </dev/null
}

# must CMD...: like q, but a non-zero status fails the test and shows why.
must() {
	"$@" >"$W/q.out" 2>&1 </dev/null
	_rc=$?
	if [ "$_rc" != 0 ]; then
		fail "command failed (rc=$_rc): $*"
		diag_file "$W/q.out"
	fi
	return "$_rc"
}

in_ns() {	# NS CMD...: run CMD inside network namespace NS ("-" = here)
	_ns=$1
	shift
	if [ "$_ns" = - ]; then
		"$@" </dev/null
	else
		ip netns exec "$_ns" "$@" </dev/null
	fi
}

# wait_until SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_until() {
	_n=$(($1 * 10))
	shift
	while [ "$_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	"$@"
}

path_absent() { [ ! -e "$1" ]; }

# show STRING: printable form of an exact string (newline -> \n).
show() {
	printf '%s' "$1" | od -An -c | tr -d ' \n'
}

# rd FILE: exact content of FILE (trailing newlines kept) in $RD; status of cat.
rd() {
	RD=$(cat "$1" 2>"$W/rd.err"; _r=$?; echo .; exit $_r)
	_r=$?
	RD=${RD%.}
	return $_r
}

# ------------------------------------------------------------ kernel log --
#
# A numbered marker written to /dev/kmsg lets each test look only at the
# messages logged since it started ("klog_since").

KMARK_N=0
KMARK=
klog_mark() {
	KMARK_N=$((KMARK_N + 1))
	KMARK="xps-suite-mark-$$-$KMARK_N"
	echo "<6>$KMARK" >/dev/kmsg
}

klog_since() {
	dmesg | awk -v m="$KMARK" 'f { print } index($0, m) { f = 1 }'
}

klog_has() {	# STRING: the log since the mark contains STRING
	klog_since | grep -F -q -- "$1"
}

# klog_expect STRING: fail unless the log since the mark contains STRING.
klog_expect() {
	if klog_has "$1"; then
		diag "log has: $1"
		return 0
	fi
	fail "kernel log lacks: $1"
	diag "xps_steer lines logged since the test started:"
	klog_since | grep -F xps_steer | tail -n 20 | sed 's/^/#   /'
	return 1
}

# ---------------------------------------------------------------- module --

xps_loaded() { grep -q '^xps_steer ' /proc/modules; }

# xps_unload: modprobe -r if loaded; fails the test if that fails or if
# /sys/kernel/xps_steer survives it.
xps_unload() {
	xps_loaded || return 0
	must modprobe -r xps_steer || return 1
	if [ -e "$XS" ]; then
		fail "$XS still exists after modprobe -r"
		return 1
	fi
	return 0
}

# xps_load PARAMS...: fresh load (unloads first).  Output in $W/modprobe.out.
xps_load() {
	xps_unload || return 1
	modprobe xps_steer "$@" >"$W/modprobe.out" 2>&1 </dev/null
	_rc=$?
	if [ "$_rc" != 0 ]; then
		fail "modprobe xps_steer $* failed (rc=$_rc)"
		diag_file "$W/modprobe.out"
		return 1
	fi
	return 0
}

# need_module: precondition for tests that expect the module loaded.
need_module() {
	xps_loaded && return 0
	fail "xps_steer is not loaded (an earlier step failed); nothing to test"
	return 1
}

# ----------------------------------------------------------------- masks --

xf() { echo "$XS/$1/tx-$2/xps_cpus"; }				# xps_steer file
kf() { echo "/sys/class/net/$1/queues/tx-$2/xps_cpus"; }	# kernel's file

# tree_list DEV: the tx-N entries of DEV's tree, numerically sorted.
tree_list() {
	ls "$XS/$1" 2>/dev/null | grep '^tx-' | sort -t- -k2,2n | tr '\n' ' ' |
		sed 's/ $//'
}

seq_tx() {	# N -> "tx-0 ... tx-(N-1)"
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%stx-%d", i ? " " : "", i }'
}

# expect_tree DEV N: DEV's tree holds exactly tx-0..tx-(N-1), each with an
# xps_cpus file of mode 0644.
expect_tree() {
	if [ ! -d "$XS/$1" ]; then
		fail "$XS/$1 does not exist"
		diag "$XS holds: $(ls "$XS" 2>&1 | tr '\n' ' ')"
		return 1
	fi
	_want=$(seq_tx "$2")
	_got=$(tree_list "$1")
	if [ "$_got" != "$_want" ]; then
		fail "$XS/$1 holds '$_got', expected '$_want'"
		return 1
	fi
	for _t in $_got; do
		_m=$(stat -c %a "$XS/$1/$_t/xps_cpus" 2>&1)
		if [ "$_m" != 644 ]; then
			fail "$XS/$1/$_t/xps_cpus mode is '$_m', expected 644"
			return 1
		fi
	done
	diag "$XS/$1: $_got"
	return 0
}

expect_no_tree() {	# DEV
	if [ -e "$XS/$1" ]; then
		fail "$XS/$1 exists but should not: $(ls "$XS/$1" | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# xw NS FILE STRING: xwrite in namespace NS ("-" = here), result in $XW.
xw() {
	XW=$(in_ns "$1" xwrite -- "$2" "$3" 2>&1)
}

# write_masks NS PATHFN DEV M0 M1 ...: write tx-0=M0, tx-1=M1, ... (hex
# masks) to the files PATHFN names (xf: ours, kf: the kernel's) in NS.
write_masks() {
	_ns=$1
	_pf=$2
	_d=$3
	shift 3
	_q=0
	for _m in "$@"; do
		_f=$($_pf "$_d" "$_q")
		xw "$_ns" "$_f" "$_m"
		case $XW in
		ok*) ;;
		*)	fail "writing '$_m' to $_f (netns $_ns) gave '$XW'"
			return 1 ;;
		esac
		_q=$((_q + 1))
	done
	return 0
}

# set_masks DEV M0 M1 ...: our tree, in the initial namespace.
set_masks() {
	write_masks - xf "$@"
}

# kset_masks NS DEV M0 M1 ...: the kernel's own XPS files of DEV in NS.
# Cleared first and then written in ascending queue order, because the
# kernel keeps a CPU's queues in insertion order.
kset_masks() {
	_ns=$1
	_d=$2
	shift 2
	_q=0
	for _m in "$@"; do
		xw "$_ns" "$(kf "$_d" "$_q")" 0
		_q=$((_q + 1))
	done
	write_masks "$_ns" kf "$_d" "$@"
}

# read_masks DEV N: "m0 m1 ..." as read back from DEV's tree.
read_masks() {
	_q=0
	_out=
	while [ "$_q" -lt "$2" ]; do
		_out="$_out${_out:+ }$(cat "$(xf "$1" "$_q")" 2>&1)"
		_q=$((_q + 1))
	done
	echo "$_out"
}

# expect_masks DEV M0 M1 ...: read-back must equal the given masks.
expect_masks() {
	_d=$1
	shift
	_got=$(read_masks "$_d" $#)
	if [ "$_got" != "$*" ]; then
		fail "$_d masks read '$_got', expected '$*'"
		return 1
	fi
	diag "$_d masks: $_got"
	return 0
}

# map11 N: "1 2 4 8 ..." - queue i carries CPU i only (CPU i < NR_CPU_IDS).
map11() {
	_i=0
	_out=
	while [ "$_i" -lt "$1" ]; do
		_out="$_out${_out:+ }$(printf '%x' $((1 << _i)))"
		_i=$((_i + 1))
	done
	echo "$_out"
}

# ------------------------------------------------------------ topology --
#
# The suites' shared network: veth0 (init, 10.9.2.1) <-> veth1 (netns peer,
# $DST2), NQ tx queues each; the caller sets NQ and DST2 and adds its own
# dummies.

sysctl_w() {	# NS PATH VALUE (missing files are fine: older kernels)
	in_ns "$1" sh -c "[ ! -e '$2' ] || echo '$3' > '$2'"
}

# topo_netns NS...: create these namespaces ("-", the initial one, exists)
# with lo up.  IPv6 off in all of them: no router solicitations or MLD
# reports from kworkers in the traces.  Timers stay on the CPU that armed
# them (TCP retransmits).
topo_netns() {
	for _ns in "$@"; do
		if [ "$_ns" != - ]; then
			must ip netns add "$_ns" || return 1
			must ip -n "$_ns" link set lo up
		fi
		sysctl_w "$_ns" /proc/sys/net/ipv6/conf/all/disable_ipv6 1
		sysctl_w "$_ns" /proc/sys/net/ipv6/conf/default/disable_ipv6 1
	done
	sysctl_w - /proc/sys/kernel/timer_migration 0
}

# veth_neigh: permanent neighbours both ways, so no ARP timers in the
# traces; sets MAC0/MAC1 (veth0's and veth1's addresses).
veth_neigh() {
	MAC0=$(cat /sys/class/net/veth0/address)
	MAC1=$(in_ns peer cat /sys/class/net/veth1/address)
	must ip neigh replace "$DST2" lladdr "$MAC1" nud permanent dev veth0 &&
		must ip -n peer neigh replace 10.9.2.1 lladdr "$MAC0" nud permanent dev veth1
}

# topo_veth: the veth pair, addressed and up; the test fails unless veth1
# answers ping.
topo_veth() {
	must ip link add veth0 numtxqueues $NQ numrxqueues $NQ type veth \
		peer name veth1 numtxqueues $NQ numrxqueues $NQ || return 1
	must ip link set veth1 netns peer
	must ip addr add 10.9.2.1/24 dev veth0
	must ip -n peer addr add "$DST2"/24 dev veth1
	must ip link set veth0 up
	must ip -n peer link set veth1 up
	veth_neigh
	if ! wait_until 5 ping_ok - "$DST2"; then
		fail "veth0 -> veth1 does not answer ping"
		diag_file "$W/ping.out"
	fi
}

# udp_all NS DEV DST QUEUESPEC [FLOOD-ARGS]: one pinned udpflood per online
# CPU into a trace of DEV; SPEC becomes "cpu:queues:sent ..." for
# steer_check, the queues taken from QUEUESPEC "cpu:queues ...".
udp_all() {
	_ns=$1 _dev=$2 _dst=$3 _qs=$4
	shift 4
	SPEC=
	rm -f "$W/trace.txt"
	trace_start "$_dev"
	for _uc in $CPUS; do
		flood "$_ns" "$_uc" "$_dst" $FLOWS $PKTS "$@" || break
		_allowed=$(echo "$_qs" | tr ' ' '\n' | awk -F: -v c="$_uc" '$1 != "" && $1 == c { print $2 }')
		SPEC="$SPEC${SPEC:+ }$_uc:$_allowed:$SENT"
	done
	trace_stop
}

# ------------------------------------------------------------- tracing --
#
# Oracle: the net/net_dev_start_xmit tracepoint fires for every packet handed
# to a driver, on the CPU that transmits it, and records queue_mapping.  The
# test devices are noqueue (dummy, veth), so that CPU is the sender's.

trace_setup() {
	if [ ! -d "$EV" ]; then
		diag "tracepoint $EV missing (tracefs not mounted?)"
		return 1
	fi
	echo 0 >"$TR/tracing_on"
	# Per-CPU buffer: ~40k events each, far above what one check sends.
	echo 4096 >"$TR/buffer_size_kb"
	return 0
}

# trace_start DEV...: record net_dev_start_xmit for these devices only.  The
# filter keeps the buffer small; the parser filters by name again anyway.
trace_start() {
	echo 0 >"$TR/tracing_on"
	echo 0 >"$EV/enable"
	_f=
	for _d in "$@"; do
		_f="$_f${_f:+ || }name == \"$_d\""
	done
	if ! echo "$_f" >"$EV/filter" 2>/dev/null; then
		diag "tracepoint filter '$_f' rejected; recording all devices"
		echo 0 >"$EV/filter" 2>/dev/null
	fi
	: >"$TR/trace"
	echo 1 >"$EV/enable"
	echo 1 >"$TR/tracing_on"
}

# trace_stop: stop and save the trace to $W/trace.txt; reports lost events.
trace_stop() {
	echo 0 >"$TR/tracing_on"
	echo 0 >"$EV/enable"
	cat "$TR/trace" >"$W/trace.txt"
	_lost=$(awk '/entries-in-buffer\/entries-written:/ {
		split($3, a, "/"); if (a[1] != a[2]) print a[2] - a[1]; exit }' "$W/trace.txt")
	if [ -n "$_lost" ]; then
		diag "note: the trace buffer overflowed, $_lost events lost; counts are lower bounds"
	fi
}

# trace_table DEV [FILE]: "cpu queue count" lines for DEV's transmits.
trace_table() {
	awk -v dev="$1" '
		/^#/ { next }
		index($0, " dev=" dev " ") == 0 { next }
		{
			if (!match($0, /\[[0-9]+\] /)) next
			cpu = substr($0, RSTART + 1, RLENGTH - 3) + 0
			if (!match($0, /queue_mapping=[0-9]+/)) next
			q = substr($0, RSTART + 14, RLENGTH - 14) + 0
			n[cpu " " q]++
		}
		END { for (k in n) print k, n[k] }' "${2:-$W/trace.txt}" | sort -n -k1,1 -k2,2
}

# trace_seq DEV CPU [FILE]: DEV's queue numbers for CPU, in transmit order.
trace_seq() {
	awk -v dev="$1" -v want="$2" '
		/^#/ { next }
		index($0, " dev=" dev " ") == 0 { next }
		{
			if (!match($0, /\[[0-9]+\] /)) next
			if (substr($0, RSTART + 1, RLENGTH - 3) + 0 != want) next
			if (!match($0, /queue_mapping=[0-9]+/)) next
			printf "%s%d", sep, substr($0, RSTART + 14, RLENGTH - 14); sep = " "
		}
		END { print "" }' "${3:-$W/trace.txt}"
}

# tbl_total TBL: packets in a table.
tbl_total() { awk '{ t += $3 } END { print t + 0 }' "$1"; }

# tbl_queues TBL CPU: the set of queues CPU used, "0,2,3".
tbl_queues() {
	awk -v c="$2" '$1 == c && $3 > 0 { printf "%s%s", s, $2; s = "," } END { print "" }' "$1"
}

# tbl_matrix TBL NQ: CPU x queue packet counts, as diagnostics.
tbl_matrix() {
	awk -v nq="$2" -v ncpu="$NR_CPU_IDS" '
		{ n[$1, $2] = $3; if ($2 + 1 > nq) nq = $2 + 1; if ($1 + 1 > ncpu) ncpu = $1 + 1 }
		END {
			printf "#   %-8s", "cpu\\txq"
			for (q = 0; q < nq; q++) printf "%8s", "tx-" q
			print ""
			for (c = 0; c < ncpu; c++) {
				printf "#   %-8s", "cpu" c
				for (q = 0; q < nq; q++) printf "%8d", n[c, q]
				print ""
			}
		}' "$1"
}

# check_tbl TBL NQ MIN ALL SPEC
#   SPEC: space-separated CPU:QUEUES[:MIN]; QUEUES is a comma list, or "*" for
#   every queue below NQ.  For each CPU in SPEC: at least MIN packets were
#   seen (so a check that saw nothing fails), every one of them on a queue in
#   QUEUES, and with ALL=1 every queue in QUEUES carried at least one.
#   Prints one "ok"/"FAIL" line per CPU; status 1 if any FAIL.
check_tbl() {
	awk -v nq="$2" -v dmin="$3" -v all="$4" -v spec="$5" '
	BEGIN {
		n = split(spec, items, " ")
		for (i = 1; i <= n; i++) {
			k = split(items[i], f, ":")
			c = f[1]; cpu[i] = c
			mn[c] = (k >= 3) ? f[3] + 0 : dmin + 0
			if (f[2] == "*") {
				for (q = 0; q < nq; q++) ok[c, q] = 1
				allow[c] = "any"
			} else {
				m = split(f[2], ql, ",")
				for (j = 1; j <= m; j++) ok[c, ql[j] + 0] = 1
				allow[c] = "{" f[2] "}"
			}
		}
		maxq = nq - 1
	}
	{ cnt[$1 + 0, $2 + 0] += $3; tot[$1 + 0] += $3; if ($2 + 0 > maxq) maxq = $2 + 0 }
	END {
		bad = 0
		for (i = 1; i <= n; i++) {
			c = cpu[i] + 0; t = tot[c] + 0; out = 0; used = ""; unused = ""
			for (q = 0; q <= maxq; q++) {
				v = cnt[c, q] + 0
				if (v) used = used (used == "" ? "" : ",") q "=" v
				if (v && !((c, q) in ok)) out += v
				if (!v && ((c, q) in ok)) unused = unused (unused == "" ? "" : ",") q
			}
			msg = "cpu" c ": " t " pkts, per queue {" used "}, allowed " allow[c]
			if (t < mn[c]) {
				print "FAIL " msg ": expected at least " mn[c] " packets"; bad = 1
			} else if (out) {
				print "FAIL " msg ": " out " packets on queues outside the allowed set"; bad = 1
			} else if (all == 1 && unused != "") {
				print "FAIL " msg ": allowed queues {" unused "} never used"; bad = 1
			} else {
				print "ok   " msg
			}
		}
		exit bad
	}' "$1"
}

# steer_check LABEL DEV NQ ALL SPEC [TRACEFILE]: check_tbl on DEV's table
# from the last trace; per-CPU lines as diagnostics, the matrix on failure.
steer_check() {
	trace_table "$2" "${6:-$W/trace.txt}" >"$W/tbl.$2"
	check_tbl "$W/tbl.$2" "$3" 0 "$4" "$5" >"$W/chk.out"
	_rc=$?
	awk -v p="# $1 $2: " '{ print p $0 }' "$W/chk.out"
	[ "$_rc" = 0 ] && return 0
	fail "$1 on $2: per-packet steering check failed (spec: $5)"
	diag "cpu x queue packet counts on $2:"
	tbl_matrix "$W/tbl.$2" "$3"
	return 1
}

# ------------------------------------------------------------- traffic --

cpumask() { printf '%x' $((1 << $1)); }

pin() {		# CPU CMD...: run CMD on CPU only
	_c=$1
	shift
	taskset "$(cpumask "$_c")" "$@"
}

# flood NS CPU DST NFLOWS COUNT [udpflood args]: pinned udpflood; $SENT holds
# the packets sent.  Fails the test if nothing was sent or pinning broke.
flood() {
	_ns=$1 _c=$2 _dst=$3 _f=$4 _n=$5
	shift 5
	SENT=0
	in_ns "$_ns" taskset "$(cpumask "$_c")" \
		udpflood -d "$_dst" -p 9000 -f "$_f" -n "$_n" "$@" >"$W/flood.out" 2>&1
	_rc=$?
	SENT=$(awk '/^udpflood: sent/ { print $3 }' "$W/flood.out")
	SENT=${SENT:-0}
	if [ "$_rc" != 0 ] || [ "$SENT" = 0 ]; then
		fail "udpflood on cpu $_c to $_dst failed (rc=$_rc)"
		diag_file "$W/flood.out"
		return 1
	fi
	if ! grep -q "cpu $_c->$_c," "$W/flood.out"; then
		fail "udpflood was not pinned to cpu $_c"
		diag_file "$W/flood.out"
		return 1
	fi
	return 0
}

# pingc NS CPU DST COUNT: pinned busybox/iputils ping; $SENT = transmitted.
# Replies are not needed (a dummy device drops everything): -W 1 bounds the
# wait for them.
pingc() {
	SENT=0
	in_ns "$1" taskset "$(cpumask "$2")" \
		ping -q -c "$4" -i 0.01 -W 1 "$3" >"$W/ping.out" 2>&1
	SENT=$(awk '/packets transmitted/ { print $1 }' "$W/ping.out")
	SENT=${SENT:-0}
	if [ "$SENT" = 0 ]; then
		fail "ping on cpu $2 to $3 transmitted nothing"
		diag_file "$W/ping.out"
		return 1
	fi
	return 0
}

# ping_ok NS DST: a few pings must be answered.
ping_ok() {
	in_ns "$1" ping -q -c 3 -i 0.2 -W 2 "$2" >"$W/ping.out" 2>&1
}

# wait_pid PID SECONDS: wait for a background job, but kill it after
# SECONDS (a hung helper must not hang the suite).  Status in $WAIT_RC,
# 124 if it had to be killed.
wait_pid() {
	_n=$(($2 * 10))
	while kill -0 "$1" 2>/dev/null && [ "$_n" -gt 0 ]; do
		sleep 0.1
		_n=$((_n - 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		WAIT_RC=124
	else
		wait "$1"
		WAIT_RC=$?
	fi
	return "$WAIT_RC"
}

# iperf3: server in NS pinned to CPU, one-shot; waits until it listens.
# Sets $IPERF_SPID, the server's own pid (exec all the way down: ip netns
# exec and taskset exec their command), so it can be killed if it hangs.
iperf_server() {	# NS CPU ADDR PORT OUT
	(exec ip netns exec "$1" taskset "$(cpumask "$2")" \
		iperf3 -s -1 -B "$3" -p "$4" >"$5" 2>&1 </dev/null) &
	IPERF_SPID=$!
	_hex=$(printf '%04X' "$4")
	if ! wait_until 15 listening "$1" "$_hex"; then
		fail "iperf3 server on port $4 (netns $1) not listening after 15 s"
		diag_file "$5"
		return 1
	fi
	return 0
}

listening() {	# NS PORTHEX: a TCP socket listens on that port in NS
	in_ns "$1" cat /proc/net/tcp | grep -q ":$2 00000000:0000 0A"
}

# iperf_client CPU ADDR PORT SECS OUT: pinned client, JSON output in OUT.
iperf_client() {
	taskset "$(cpumask "$1")" timeout $(($4 + 30)) \
		iperf3 -c "$2" -p "$3" -t "$4" -J --connect-timeout 10000 >"$5" 2>&1 </dev/null
}

# iperf_bytes OUT: bytes the client sent (end.sum_sent.bytes), 0 if none.
iperf_bytes() {
	awk '/"sum_sent"/ { f = 1 }
	     f && /"bytes"/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$1" |
		grep . || echo 0
}
