# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib.sh - the one library of the xps_steer in-guest scripts (bash).
#
# Sourced by the functional suite (suite.sh and its area files), the stress
# suite (stress.sh), demo.sh, bench.sh and install.sh.  Everything printed
# here for humans goes to stdout as KTAP diagnostics ("# ..."), so a
# suite's output stays a valid KTAP stream; command output is captured to
# files and shown only when it explains a failure.  Every helper keeps its
# variables local; results a caller needs are in UPPER-CASE globals (RD,
# XW, SENT, SPEC, MAP, ...), each named where it is set.

XS=/sys/kernel/xps_steer
# The compat probe results (mode 0444); not under $XS, which holds only
# device directories, so a device may be named "features".
FEAT=/sys/module/xps_steer/features
W=${XPS_WORK:-/tmp/xps-suite}
# shellcheck disable=SC2034 # used by the scripts that source lib.sh
NL='
'
# (Not for --list, which the host runs to learn the test names.)
case " $* " in *" --list "*) ;; *) mkdir -p "$W" ;; esac

TR=/sys/kernel/tracing
[ -e "$TR/trace" ] || TR=/sys/kernel/debug/tracing
EV=$TR/events/net/net_dev_start_xmit
TRACE_KB=4096

# Kernel problem reports in the guest's own log (dmesg); the host scans the
# console with its own, wider list (test/lib.sh, console_verdict).
SPLAT_RE='WARNING:|BUG:|Oops|general protection|Call Trace|UBSAN|KASAN|refcount_t'

# CPUs: the tests pin one sender per online CPU.  NR_CPU_IDS is what the
# kernel pads masks to (possible CPUs), which fixes the valid mask range.
cpu_list_expand() {	# "0-3,5" -> "0 1 2 3 5"
	echo "$1" | tr ',' '\n' | awk -F- '
		NF == 1 && $1 != "" { printf "%s ", $1 }
		NF == 2 { for (i = $1; i <= $2; i++) printf "%s ", i }'
}
# cpus_refresh: CPUS (array) = the online CPUs now, NCPU their number.
cpus_refresh() {
	read -ra CPUS <<<"$(cpu_list_expand "$(cat /sys/devices/system/cpu/online 2>/dev/null)")"
	# shellcheck disable=SC2034 # used by the scripts that source lib.sh
	NCPU=${#CPUS[@]}
}
cpus_refresh
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
	local l
	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/# /'
	done
}

diag_file() {	# FILE [MAXLINES]: show a captured output, indented
	[ -s "$1" ] || { diag "  (no output)"; return 0; }
	head -n "${2:-40}" "$1" | sed 's/^/#   /'
}

# say MSG...: a plain line on stdout, after SAY_PREFIX; die MSG...: say
# "FAIL: MSG" and exit 1 (scripts that are no KTAP suite: demo, bench).
SAY_PREFIX=
say() { printf '%s\n' "$SAY_PREFIX$*"; }
die() {
	say "FAIL: $*"
	exit 1
}

# fail MSG...: marks the running test failed; the reason is a diagnostic.
# With FAIL_IS_FATAL set (bench.sh), the script dies instead.
FAIL_IS_FATAL=
fail() {
	[ -z "$FAIL_IS_FATAL" ] || die "$*"
	T_FAIL=1
	diag "FAIL: $*"
}

skip() {	# marks the running test skipped (only if nothing failed)
	T_SKIP="$*"
}

# Tests are addressed by name.  A suite file declares each one with
#   test_def NAME "what it proves"
# and defines t_NAME (and optionally t_NAME_cleanup, run after it whatever
# happened).  Every test sets up its own fixture with the idempotent fx_*
# helpers, so it runs alone or in any order.
declare -A TEST_DESC=()
TEST_ORDER=()
test_def() {	# NAME DESCRIPTION
	TEST_DESC[$1]=$2
	TEST_ORDER+=("$1")
}

# run_test NAME: runs t_NAME in this shell, then t_NAME_cleanup if defined,
# and prints the KTAP result line "ok N - NAME" (or "not ok N - NAME", or
# "ok N - NAME # SKIP reason": a skip is never counted as a pass).
run_test() {
	local name=$1 t0
	TESTNUM=$((TESTNUM + 1))
	T_FAIL=0
	T_SKIP=
	t0=$SECONDS
	diag "----- $name: ${TEST_DESC[$name]}"
	"t_$name"
	if declare -F "t_${name}_cleanup" >/dev/null; then
		"t_${name}_cleanup" >"$W/cleanup.out" 2>&1
	fi
	diag "($name took $((SECONDS - t0)) s)"
	if [ "$T_FAIL" != 0 ]; then
		N_FAIL=$((N_FAIL + 1))
		echo "not ok $TESTNUM - $name"
	elif [ -n "$T_SKIP" ]; then
		N_SKIP=$((N_SKIP + 1))
		echo "ok $TESTNUM - $name # SKIP $T_SKIP"
	else
		N_PASS=$((N_PASS + 1))
		echo "ok $TESTNUM - $name"
	fi
}

# suite_args ARG...: a suite runner's arguments.  T=name[,name...]
# selects tests (select_tests); NAME=N sets one of the counts listed in
# COUNTS (stress.sh); --list prints TEST_ORDER.  Status 0: run SELECTED;
# 2: --list was done; 1: a bad argument ("Bail out!" printed).
COUNTS=()
suite_args() {
	local arg spec=
	if [ "${1:-}" = --list ]; then
		printf '%s\n' "${TEST_ORDER[@]}"
		return 2
	fi
	for arg in "$@"; do
		case $arg in
		T=*) spec=${arg#T=} ;;
		*=*[!0-9]* | *=) echo "Bail out! $arg: expected T=name[,name...] or COUNT=number"; return 1 ;;
		*=*)
			case " ${COUNTS[*]} " in
			*" ${arg%%=*} "*) declare -g "$arg" ;;
			*) echo "Bail out! unknown argument '$arg' (counts: ${COUNTS[*]:-none})"; return 1 ;;
			esac ;;
		*) echo "Bail out! unknown argument '$arg' (expected T=name[,name...])"; return 1 ;;
		esac
	done
	select_tests "$spec"
}

# select_tests SPEC: SELECTED = the tests SPEC names ("all" or empty: every
# test in TEST_ORDER; else a comma list, run in the order given).  An
# unknown name is a "Bail out!" and status 1.
select_tests() {
	local spec=$1 name
	local -a names
	SELECTED=()
	if [ -z "$spec" ] || [ "$spec" = all ]; then
		SELECTED=("${TEST_ORDER[@]}")
		return 0
	fi
	IFS=, read -ra names <<<"$spec"
	for name in "${names[@]}"; do
		if [ -z "${TEST_DESC[$name]+set}" ]; then
			echo "Bail out! unknown test '$name' (known: ${TEST_ORDER[*]})"
			return 1
		fi
		SELECTED+=("$name")
	done
}

# run_selected LABEL: the KTAP header, plan and every test of SELECTED, then
# a summary diagnostic; status 0 iff nothing failed.
run_selected() {
	local name t0=$SECONDS
	echo "TAP version 13"
	echo "1..${#SELECTED[@]}"
	diag "$1: kernel $(uname -r), CPUs online: ${CPUS[*]} (nr_cpu_ids $NR_CPU_IDS); tests: ${SELECTED[*]}"
	for name in "${SELECTED[@]}"; do
		run_test "$name"
	done
	diag "$1: $N_PASS passed, $N_FAIL failed, $N_SKIP skipped in $((SECONDS - t0)) s"
	[ "$N_FAIL" = 0 ]
}

# ------------------------------------------------------------ commands --

# q CMD...: run quietly, output kept in $W/q.out, returns CMD's status.
q() {
	"$@" >"$W/q.out" 2>&1 </dev/null
}

# must CMD...: like q, but a non-zero status fails the test and shows why.
must() {
	local rc
	"$@" >"$W/q.out" 2>&1 </dev/null
	rc=$?
	if [ "$rc" != 0 ]; then
		fail "command failed (rc=$rc): $*"
		diag_file "$W/q.out"
	fi
	return "$rc"
}

in_ns() {	# NS CMD...: run CMD inside network namespace NS ("-" = here)
	local ns=$1
	shift
	if [ "$ns" = - ]; then
		"$@" </dev/null
	else
		ip netns exec "$ns" "$@" </dev/null
	fi
}

# now_ms: the wall clock in milliseconds (bash's EPOCHREALTIME).
now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds or
# SECONDS of wall-clock time have passed (however long each CMD takes),
# then once more; status: CMD's last.
wait_until() {
	local t=${EPOCHREALTIME/./} end
	end=$((t / 1000 + $1 * 1000))
	shift
	# The clock read in the shell, not by $(now_ms): a subshell is a
	# fork, ~0.1 s on the debug kernel.
	while t=${EPOCHREALTIME/./}; [ $((t / 1000)) -lt "$end" ]; do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

path_absent() { [ ! -e "$1" ]; }

carrier_on() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }	# DEV

# show STRING: printable form of an exact string (newline -> \n).
show() {
	printf '%s' "$1" | od -An -c | tr -d ' \n'
}

# rd FILE: exact content of FILE (trailing newlines kept) in $RD; status of cat.
rd() {
	local r
	RD=$(cat "$1" 2>"$W/rd.err"; r=$?; echo .; exit $r)
	r=$?
	RD=${RD%.}
	return $r
}

# ------------------------------------------------------------ kernel log --
#
# A numbered marker written to /dev/kmsg lets each test look only at the
# messages logged since it started ("klog_since").

# kmsg_mark KIND: a new numbered marker line in the kernel log, in MARK.
MARK_N=0
kmsg_mark() {
	MARK_N=$((MARK_N + 1))
	MARK="xps-suite-$1-$$-$MARK_N"
	echo "<6>$MARK" >/dev/kmsg
}

# log_after MARKER: the kernel log lines after MARKER.
log_after() {
	dmesg | awk -v m="$1" 'f { print } index($0, m) { f = 1 }'
}

KMARK=
klog_mark() {
	kmsg_mark mark
	KMARK=$MARK
}

klog_since() {
	log_after "$KMARK"
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

# klog_splats FILE: the kernel log (all of it) with the lines matching
# SPLAT_RE (plus any extra ERE given as $2) in FILE; status 0 iff any.
klog_splats() {
	dmesg >"$W/dmesg.txt"
	grep -E "$SPLAT_RE${2:+|$2}" "$W/dmesg.txt" >"$1"
}

# ------------------------------------------------- bad-input catalogue --
#
# Each case of docs/bad-input.md prints one line
#   # catalogue: ID | RESULT | LOG
# once its checks have run: RESULT is what the case observed (xwrite's
# "ok N"/"err ERRNO", or a word such as EINVAL or loaded), LOG the
# xps_steer kernel log lines since row_mark (timestamps cut, load/unload
# banners dropped, " / "-joined, "none" if there were none).
# test/catalogue.sh then requires, for every row of the doc, such a line
# inside a passing test of the name the doc gives, with the same RESULT
# and LOG, and no line for an ID the doc lacks.

ROW_MARK=
row_mark() {
	kmsg_mark row
	ROW_MARK=$MARK
}

# row_log [ERE]: the xps_steer log lines since row_mark (matching ERE).
row_log() {
	log_after "$ROW_MARK" |
		sed 's/^\[[^]]*\] //' | grep '^xps_steer: ' |
		grep -v -e '^xps_steer: version .* loaded$' -e '^xps_steer: unloaded$' \
			-e 'taints kernel' -e 'module verification failed' |
		grep -E -- "${1:-.}" |
		awk '{ printf "%s%s", (NR > 1 ? " / " : ""), $0 } END { if (!NR) printf "none" }'
}

row() {		# ID RESULT [ERE]: the catalogue line for row ID
	echo "# catalogue: $1 | $2 | $(row_log "$3")"
}

# ---------------------------------------------------------------- module --

xps_loaded() { grep -q '^xps_steer ' /proc/modules; }

# modprobe_ok WHAT ARGS...: modprobe ARGS (output in $W/modprobe.out); on
# failure the test fails, naming WHAT, with modprobe's output.
modprobe_ok() {
	local what=$1 rc
	shift
	modprobe "$@" >"$W/modprobe.out" 2>&1 </dev/null
	rc=$?
	[ "$rc" = 0 ] && return 0
	fail "$what: modprobe $* failed (rc=$rc)"
	diag_file "$W/modprobe.out"
	return 1
}

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

# The device list, writable at runtime (devlist.sh, foreign.sh).
DEVP=/sys/module/xps_steer/parameters/dev

# dev_is WANT: dev= reads back WANT.
dev_is() {
	rdn - "$DEVP"
	[ "$RD" = "$1$NL" ] && return 0
	fail "dev= reads '$(show "$RD")', expected '$1'"
	return 1
}

# dev_write ID VALUE WANT [ERE]: write VALUE to dev=; the result must be
# WANT; catalogue row ID with the log lines (matching ERE).
dev_write() {
	row_mark
	xw - "$DEVP" "$2"
	if [ "$XW" != "$3" ]; then
		fail "$1: writing '$(show "$2")' to dev= gave '$XW', expected '$3'"
		diag "log: $(row_log)"
		return 1
	fi
	row "$1" "$XW" "${4:-.}"
}

# xps_load PARAMS...: fresh load (unloads first).
xps_load() {
	xps_unload || return 1
	modprobe_ok load xps_steer "$@"
}

# xps_load_row ID PARAMS...: a fresh load that must succeed; catalogue row
# ID with the log of the load.  The module stays loaded.
xps_load_row() {
	local id=$1
	shift
	xps_unload || return 1
	row_mark
	modprobe_ok "$id" xps_steer "$@" || return 1
	row "$id" loaded
}

# need_module: precondition of a test that follows one that loaded the
# module (install.sh's tests run in sequence, as an installation does).
need_module() {
	xps_loaded && return 0
	fail "xps_steer is not loaded (an earlier step failed); nothing to test"
	return 1
}

# ----------------------------------------------------------------- masks --

xf() { echo "$XS/$1/tx-$2/xps_cpus"; }				# xps_steer file
kf() { echo "/sys/class/net/$1/queues/tx-$2/xps_cpus"; }	# kernel's file

# txq_count DEV [NS]: the TX queues the kernel shows for DEV (in NS).
txq_count() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	in_ns "${2:--}" sh -c 'set -- "/sys/class/net/$0/queues"/tx-*; [ -e "$1" ] && echo $# || echo 0' "$1"
}

# dir_names DIR [PREFIX]: the names in DIR (starting with PREFIX), one line
# each, sorted.
dir_names() {
	local f
	for f in "$1/${2:-}"*; do
		[ -e "$f" ] && echo "${f##*/}"
	done | sort
}

# tree_list DEV: the tx-N entries of DEV's tree, numerically sorted.
tree_list() {
	dir_names "$XS/$1" tx- | sort -t- -k2,2n | tr '\n' ' ' | sed 's/ $//'
}

seq_tx() {	# N -> "tx-0 ... tx-(N-1)"
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%stx-%d", i ? " " : "", i }'
}

# expect_tree DEV N: DEV's tree holds exactly tx-0..tx-(N-1), each with an
# xps_cpus file of mode 0644.
expect_tree() {
	local want got t m
	if [ ! -d "$XS/$1" ]; then
		fail "$XS/$1 does not exist"
		diag "$XS holds: $(dir_names "$XS" | tr '\n' ' ')"
		return 1
	fi
	want=$(seq_tx "$2")
	got=$(tree_list "$1")
	if [ "$got" != "$want" ]; then
		fail "$XS/$1 holds '$got', expected '$want'"
		return 1
	fi
	for t in $got; do
		m=$(stat -c %a "$XS/$1/$t/xps_cpus" 2>&1)
		if [ "$m" != 644 ]; then
			fail "$XS/$1/$t/xps_cpus mode is '$m', expected 644"
			return 1
		fi
	done
	diag "$XS/$1: $got"
	return 0
}

expect_no_tree() {	# DEV
	if [ -e "$XS/$1" ]; then
		fail "$XS/$1 exists but should not: $(dir_names "$XS/$1" | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# xps_names: the names in $XS, one line ("a b"), sorted.
# names_in DIR: the names in DIR, sorted, space-separated, in DIR_NAMES.
# Without a process: the stress loops check it after every write, and a
# process start costs ~0.1 s on the debug kernel.
names_in() {
	local f
	DIR_NAMES=
	for f in "$1"/*; do
		[ -e "$f" ] && DIR_NAMES+="${DIR_NAMES:+ }${f##*/}"
	done
	return 0
}

xps_names() { names_in "$XS"; echo "$DIR_NAMES"; }

# expect_xps_names NAMES: $XS holds exactly NAMES (no stale directory,
# no control file).
expect_xps_names() {
	local got
	got=$(xps_names)
	if [ "$got" = "$1" ]; then
		diag "$XS holds: $got"
		return 0
	fi
	fail "$XS holds '$got', expected '$1'"
	return 1
}

# features_ok: the compat probe results are still at $FEAT, readable and
# well-formed ("probe yes|no" lines).
features_ok() {
	rd "$FEAT" || { fail "cannot read $FEAT: $(cat "$W/rd.err")"; return 1; }
	if [ -z "$RD" ] || printf '%s' "$RD" | grep -qvE '^[a-z0-9_]+ (yes|no)$'; then
		fail "$FEAT: malformed: '$(show "$RD")'"
		return 1
	fi
	return 0
}

# xw NS FILE STRING: xwrite in namespace NS ("-" = here), result in $XW.
xw() {
	XW=$(in_ns "$1" xwrite -- "$2" "$3" 2>&1)
}

# rdn NS FILE: exact content in $RD (FILE read inside NS).
rdn() {
	RD=$(in_ns "$1" cat "$2" 2>&1; echo .)
	RD=${RD%.}
}

# write_masks NS PATHFN DEV M0 M1 ...: write tx-0=M0, tx-1=M1, ... (hex
# masks) to the files PATHFN names (xf: ours, kf: the kernel's) in NS.
write_masks() {
	local ns=$1 pf=$2 d=$3 q=0 m f
	shift 3
	for m in "$@"; do
		f=$("$pf" "$d" "$q")
		xw "$ns" "$f" "$m"
		case $XW in
		ok*) ;;
		*)	fail "writing '$m' to $f (netns $ns) gave '$XW'"
			return 1 ;;
		esac
		q=$((q + 1))
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
	local ns=$1 d=$2 q
	shift 2
	for ((q = 0; q < $#; q++)); do
		xw "$ns" "$(kf "$d" "$q")" 0
	done
	write_masks "$ns" kf "$d" "$@"
}

# read_masks DEV N: "m0 m1 ..." as read back from DEV's tree.
read_masks() {
	local q out=
	for ((q = 0; q < $2; q++)); do
		out="$out${out:+ }$(cat "$(xf "$1" "$q")" 2>&1)"
	done
	echo "$out"
}

# expect_masks DEV M0 M1 ...: read-back must equal the given masks.
expect_masks() {
	local d=$1 got
	shift
	got=$(read_masks "$d" $#)
	if [ "$got" != "$*" ]; then
		fail "$d masks read '$got', expected '$*'"
		return 1
	fi
	diag "$d masks: $got"
	return 0
}

# map11 N: MAP=(1 2 4 8 ...) - queue i carries CPU i only.
map11() {
	local i
	MAP=()
	for ((i = 0; i < $1; i++)); do
		MAP+=("$(printf '%x' $((1 << i)))")
	done
}

# ------------------------------------------------------------ topology --
#
# The suites' network, built by idempotent fixtures (fx_*): each creates
# what is missing and puts back what an earlier test may have changed, so
# every test can start with the ones it needs, in any order.
#   init netns: veth0 (NQ txq, 10.9.2.1/24) <-> veth1 (netns peer, $DST2)
#   dummies: fx_dummy NAME NS ADDR (NQ txq each)
# The caller sets NQ and DST2.

sysctl_w() {	# NS PATH VALUE (missing files are fine: older kernels)
	in_ns "$1" sh -c "[ ! -e '$2' ] || echo '$3' > '$2'"
}

# fx_netns NS...: these namespaces ("-", the initial one, exists) with lo
# up.  IPv6 off in all of them: no router solicitations or MLD reports from
# kworkers in the traces.  Timers stay on the CPU that armed them (TCP
# retransmits).
fx_netns() {
	local ns
	for ns in "$@"; do
		if [ "$ns" != - ] && [ ! -e "/run/netns/$ns" ]; then
			must ip netns add "$ns" || return 1
			must ip -n "$ns" link set lo up
		fi
		sysctl_w "$ns" /proc/sys/net/ipv6/conf/all/disable_ipv6 1
		sysctl_w "$ns" /proc/sys/net/ipv6/conf/default/disable_ipv6 1
	done
	sysctl_w - /proc/sys/kernel/timer_migration 0
}

# fx_cpus_online: every possible CPU that can be is online (a test may
# have taken one offline); CPUS refreshed.
fx_cpus_online() {
	local f
	for f in /sys/devices/system/cpu/cpu*/online; do
		[ "$(cat "$f")" = 1 ] || echo 1 >"$f" || fail "cannot online ${f%/online}"
	done
	cpus_refresh
}

# ip_ns NS ARGS...: ip in NS ("-": the initial namespace).
ip_ns() {
	local ns=$1
	shift
	if [ "$ns" = - ]; then ip "$@"; else ip -n "$ns" "$@"; fi
}

# fx_dummy NAME NS ADDR: dummy NAME in NS with NQ tx queues, ADDR/24, up.
fx_dummy() {
	local n=$1 ns=$2 addr=$3
	if ! in_ns "$ns" test -e "/sys/class/net/$n"; then
		must ip_ns "$ns" link add "$n" numtxqueues "$NQ" numrxqueues "$NQ" type dummy || return 1
	fi
	ip_ns "$ns" addr show dev "$n" | grep -qF " $addr/24 " ||
		must ip_ns "$ns" addr add "$addr/24" dev "$n"
	must ip_ns "$ns" link set "$n" up || return 1
	[ "$(txq_count "$n" "$ns")" = "$NQ" ] ||
		{ fail "$n has $(txq_count "$n" "$ns") tx queues, expected $NQ"; return 1; }
	# The kernel's own XPS map empty: guard mode leaves its map behind.
	in_ns "$ns" sh -c "for f in /sys/class/net/$n/queues/tx-*/xps_cpus; do
		grep -qx '0*' \"\$f\" || echo 0 >\"\$f\"; done"
}

# veth_neigh: permanent neighbours both ways, so no ARP timers in the
# traces; sets MAC0/MAC1 (veth0's and veth1's addresses).
veth_neigh() {
	MAC0=$(cat /sys/class/net/veth0/address)
	MAC1=$(in_ns peer cat /sys/class/net/veth1/address)
	must ip neigh replace "$DST2" lladdr "$MAC1" nud permanent dev veth0 &&
		must ip -n peer neigh replace 10.9.2.1 lladdr "$MAC0" nud permanent dev veth1
}

# fx_veth: the veth pair (veth1 in netns peer), NQ queues, addressed and
# up; the test fails unless veth1 answers ping.
fx_veth() {
	fx_netns - peer || return 1
	if [ ! -e /sys/class/net/veth0 ]; then
		ip -n peer link del veth1 2>/dev/null
		must ip link add veth0 numtxqueues "$NQ" numrxqueues "$NQ" type veth \
			peer name veth1 numtxqueues "$NQ" numrxqueues "$NQ" || return 1
		must ip link set veth1 netns peer
		must ip addr add 10.9.2.1/24 dev veth0
		must ip -n peer addr add "$DST2"/24 dev veth1
	fi
	if [ "$(txq_count veth0)" != "$NQ" ]; then
		must ethtool -L veth0 tx "$NQ" || return 1
		must ip link set veth0 down
	fi
	must ip link set veth0 up
	must ip -n peer link set veth1 up
	veth_neigh
	if ! wait_until 5 ping_ok - "$DST2"; then
		fail "veth0 -> veth1 does not answer ping"
		diag_file "$W/ping.out"
		return 1
	fi
}

# udp_all NS DEV DST QUEUESPEC [FLOOD-ARGS]: one pinned udpflood per online
# CPU into a trace of DEV; SPEC becomes "cpu:queues:sent ..." for
# steer_check, the queues taken from QUEUESPEC "cpu:queues ...".
udp_all() {
	local ns=$1 dev=$2 dst=$3 qs=$4 uc allowed
	shift 4
	SPEC=
	rm -f "$W/trace.txt"
	trace_start "$dev"
	for uc in "${CPUS[@]}"; do
		flood "$ns" "$uc" "$dst" "$FLOWS" "$PKTS" "$@" || break
		allowed=$(echo "$qs" | tr ' ' '\n' | awk -F: -v c="$uc" '$1 != "" && $1 == c { print $2 }')
		SPEC="$SPEC${SPEC:+ }$uc:$allowed:$SENT"
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
	echo "$TRACE_KB" >"$TR/buffer_size_kb"
	return 0
}

# trace_start DEV...: record net_dev_start_xmit for these devices only.  The
# filter keeps the buffer small; the parser filters by name again anyway.
trace_start() {
	local f d
	echo 0 >"$TR/tracing_on"
	echo 0 >"$EV/enable"
	f=
	for d in "$@"; do
		f="$f${f:+ || }name == \"$d\""
	done
	if ! echo "$f" >"$EV/filter" 2>/dev/null; then
		diag "tracepoint filter '$f' rejected; recording all devices"
		echo 0 >"$EV/filter" 2>/dev/null
	fi
	: >"$TR/trace"
	echo 1 >"$EV/enable"
	echo 1 >"$TR/tracing_on"
}

# trace_stop: stop and save the trace to $W/trace.txt; reports lost events.
trace_stop() {
	local lost
	echo 0 >"$TR/tracing_on"
	echo 0 >"$EV/enable"
	cat "$TR/trace" >"$W/trace.txt"
	lost=$(awk '/entries-in-buffer\/entries-written:/ {
		split($3, a, "/"); if (a[1] != a[2]) print a[2] - a[1]; exit }' "$W/trace.txt")
	if [ -n "$lost" ]; then
		diag "note: the trace buffer overflowed, $lost events lost; counts are lower bounds"
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

# sender_table DEV FRAME [FILE [MARK]]: "sender queue count" lines for DEV's
# transmits in the trace (default $W/trace.txt), the sender told by the
# frame length (the sender pinned to CPU c sends FRAME+c byte frames): a
# device with a qdisc (a real NIC) may hand a frame to the driver on
# another CPU than its sender's.  With MARK, only frames after the
# trace_marker line MARK.  MOVED: how many frames the CPU column puts on
# another CPU than the sender.
sender_table() {
	awk -v dev="$1" -v f="$2" -v n="$NR_CPU_IDS" -v mark="${4:-}" -v out="$W/moved" '
		BEGIN { on = (mark == "") }
		!on && index($0, mark) { on = 1; next }
		!on || /^#/ { next }
		index($0, " dev=" dev " ") == 0 { next }
		{
			if (!match($0, /len=[0-9]+/)) next
			c = substr($0, RSTART + 4, RLENGTH - 4) - f
			if (c < 0 || c >= n) next
			if (!match($0, /queue_mapping=[0-9]+/)) next
			q = substr($0, RSTART + 14, RLENGTH - 14) + 0
			cnt[c " " q]++
			if (match($0, /\[[0-9]+\] /) && substr($0, RSTART + 1, RLENGTH - 3) + 0 != c)
				moved++
		}
		END {
			for (k in cnt) print k, cnt[k]
			print moved + 0 >out
		}' "${3:-$W/trace.txt}" | sort -n -k1,1 -k2,2
	# shellcheck disable=SC2034 # for the caller
	MOVED=$(cat "$W/moved")
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
	local rc
	trace_table "$2" "${6:-$W/trace.txt}" >"$W/tbl.$2"
	check_tbl "$W/tbl.$2" "$3" 0 "$4" "$5" >"$W/chk.out"
	rc=$?
	awk -v p="# $1 $2: " '{ print p $0 }' "$W/chk.out"
	[ "$rc" = 0 ] && return 0
	fail "$1 on $2: per-packet steering check failed (spec: $5)"
	diag "cpu x queue packet counts on $2:"
	tbl_matrix "$W/tbl.$2" "$3"
	return 1
}

# ------------------------------------------------------------- traffic --

cpumask() { printf '%x' $((1 << $1)); }

# stat_sum DEV PREFIX: the sum of xps_steer's stats lines of DEV whose
# names start with PREFIX (restored_by_: every restore, by any trigger).
stat_sum() {
	awk -v p="$2" 'index($1, p) == 1 { t += $2 } END { print t + 0 }' "$XS/$1/stats"
}

# sized_senders_start DST BASE CPU...: a UDP sender per CPU, pinned, 20
# datagrams every 10 ms over 64 flows, until sized_senders_stop. CPU c's
# datagrams are BASE + c bytes, so each frame names its sender
# (sender_table). Output in $W/sender.<cpu>.
sized_senders_start() {
	local dst=$1 base=$2 c
	shift 2
	rm -f "$W/senders.stop"
	SENDER_PIDS=()
	for c in "$@"; do
		taskset "$(cpumask "$c")" udpflood -d "$dst" -p 9000 -f 64 -n 20 -g 10 \
			-s $((base + c)) -S "$W/senders.stop" >"$W/sender.$c" 2>&1 </dev/null &
		SENDER_PIDS+=($!)
	done
}

sized_senders_stop() {
	touch "$W/senders.stop"
	wait "${SENDER_PIDS[@]}" || true
}

pin() {		# CPU CMD...: run CMD on CPU only
	local c
	c=$1
	shift
	taskset "$(cpumask "$c")" "$@"
}

# flood NS CPU DST NFLOWS COUNT [udpflood args]: pinned udpflood; $SENT holds
# the packets sent.  Fails the test if nothing was sent or pinning broke.
flood() {
	local ns c dst f n rc
	ns=$1 c=$2 dst=$3 f=$4 n=$5
	shift 5
	SENT=0
	in_ns "$ns" taskset "$(cpumask "$c")" \
		udpflood -d "$dst" -p 9000 -f "$f" -n "$n" "$@" >"$W/flood.out" 2>&1
	rc=$?
	SENT=$(awk '/^udpflood: sent/ { print $3 }' "$W/flood.out")
	SENT=${SENT:-0}
	if [ "$rc" != 0 ] || [ "$SENT" = 0 ]; then
		fail "udpflood on cpu $c to $dst failed (rc=$rc)"
		diag_file "$W/flood.out"
		return 1
	fi
	if ! grep -q "cpu $c->$c," "$W/flood.out"; then
		fail "udpflood was not pinned to cpu $c"
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
	local end=$(($(now_ms) + $2 * 1000))
	while kill -0 "$1" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
		sleep 0.1
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
	local hex
	(exec ip netns exec "$1" taskset "$(cpumask "$2")" \
		iperf3 -s -1 -B "$3" -p "$4" >"$5" 2>&1 </dev/null) &
	# shellcheck disable=SC2034 # for the caller
	IPERF_SPID=$!
	hex=$(printf '%04X' "$4")
	if ! wait_until 15 listening "$1" "$hex"; then
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
