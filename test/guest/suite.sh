#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# suite.sh - in-guest functional tests for xps_steer (KTAP output).
#
# Runs inside the QEMU guest built by test/vm.sh (busybox userland, kmod,
# iproute2, iperf3, ethtool, test/tools/* in /usr/local/bin, this directory
# as /test).  Every steering claim is checked per packet with the
# net/net_dev_start_xmit tracepoint: "[00N]" is the CPU that transmitted,
# queue_mapping the TX queue.  A check that sees no packets fails.
#
# Topology (created by test 1; dum0, dum1 and veth0 are reused by later tests):
#   init netns: dum0 (dummy, 4 txq, 10.9.0.1/24; xps_steer attached)
#               veth0 (4 txq, 10.9.2.1/24; xps_steer attached)
#   netns ref:  dum1 (dummy, 4 txq, 10.9.0.1/24; kernel XPS = reference).
#               Same addresses as dum0, so udpflood with fixed source ports
#               sends the very same flows (same flow hashes) on both.
#   netns peer: veth1 (4 txq, 10.9.2.2/24), iperf3 servers.
# Exit status: 0 iff every test passed (skips excepted).

# Mask lists ("1 2 4 8") are split into words on purpose.
# shellcheck disable=SC2046,SC2086,SC2010,SC2012
LIB=$(dirname "$0")/lib.sh
[ -r "$LIB" ] || LIB=/test/lib.sh
# shellcheck source=lib.sh
. "$LIB"

NQ=4		# tx queues of the multiqueue test devices
FLOWS=64	# flows per sender: P(some of 4 queues unused) ~ 4*(3/4)^64
PKTS=256	# UDP packets per CPU per check
PINGS=40	# ICMP echo requests per CPU per check
DST0=10.9.0.2	# via dum0 (and via dum1 inside netns ref)
DST2=10.9.2.2	# veth1 in netns peer

# ------------------------------------------------------------ topology --

topo_setup() {
	topo_netns - peer ref || return 1
	must ip link add dum0 numtxqueues $NQ numrxqueues $NQ type dummy || return 1
	must ip addr add 10.9.0.1/24 dev dum0
	must ip link set dum0 up
	must ip -n ref link add dum1 numtxqueues $NQ numrxqueues $NQ type dummy || return 1
	must ip -n ref addr add 10.9.0.1/24 dev dum1
	must ip -n ref link set dum1 up
	topo_veth || return 1
	_n=$(ls /sys/class/net/dum0/queues | grep -c '^tx-')
	[ "$_n" = $NQ ] || fail "dum0 has $_n tx queues, expected $NQ"
	diag "topology: dum0 (init), dum1 (netns ref), veth0 (init) <-> veth1 (netns peer), $NQ tx queues each"
	[ "$T_FAIL" = 0 ]
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
# inside a passing test of the number the doc names, with the same RESULT
# and LOG, and no line for an ID the doc lacks.

ROW_N=0
ROW_MARK=
row_mark() {
	ROW_N=$((ROW_N + 1))
	ROW_MARK="xps-suite-row-$$-$ROW_N"
	echo "<6>$ROW_MARK" >/dev/kmsg
}

# row_log [ERE]: the xps_steer log lines since row_mark (matching ERE).
row_log() {
	dmesg | awk -v m="$ROW_MARK" 'f { print } index($0, m) { f = 1 }' |
		sed 's/^\[[^]]*\] //' | grep '^xps_steer: ' |
		grep -v -e '^xps_steer: version .* loaded$' -e '^xps_steer: unloaded$' \
			-e 'taints kernel' -e 'module verification failed' |
		grep -E -- "${1:-.}" |
		awk '{ printf "%s%s", (NR > 1 ? " / " : ""), $0 } END { if (!NR) printf "none" }'
}

row() {		# ID RESULT [ERE]: the catalogue line for row ID
	echo "# catalogue: $1 | $2 | $(row_log "$3")"
}

# ---------------------------------------------------------------- tests --

t_load() {
	topo_setup || return
	klog_mark
	xps_load dev=dum0,veth0 || return
	klog_expect "xps_steer: dum0: attached ($NQ tx queues)"
	klog_expect "xps_steer: veth0: attached ($NQ tx queues)"
	for _d in dum0 veth0; do
		expect_tree "$_d" $NQ || continue
		for _q in $(seq_tx $NQ); do
			rd "$XS/$_d/$_q/xps_cpus"
			[ "$RD" = "0$NL" ] ||
				fail "$_d $_q: default mask reads '$(show "$RD")', expected '0\\n'"
		done
	done
	diag "default masks read '0\\n'; $XS holds: $(ls "$XS" | tr '\n' ' ')"
	# The compat probe results: "<probe> yes|no" lines, exactly one
	# ndo_select_queue prototype.
	rd "$XS/features"
	_bad=$(printf '%s' "$RD" | grep -cvE '^[a-z0-9_]+ (yes|no)$')
	_proto=$(printf '%s' "$RD" | grep -cE '^select_queue_[a-z_]+ yes$')
	[ "$_bad" = 0 ] && [ "$_proto" = 1 ] && [ "${RD: -1}" = "$NL" ] ||
		fail "features: malformed or not exactly one select_queue variant: '$(show "$RD")'"
	diag "features: $(printf '%s' "$RD" | awk '$2 == "yes" { printf "%s ", $1 }')"
}

# ping_all DEV DST: pinned echo requests from every CPU into a trace of
# DEV; SPEC expects CPU c on queue c ("c:c:sent ...").
ping_all() {
	SPEC=
	trace_start "$1"
	for _c in $CPUS; do
		pingc - "$_c" "$2" $PINGS || break
		SPEC="$SPEC $_c:$_c:$SENT"
	done
	trace_stop
}

t_map11() {
	need_module || return
	set_masks dum0 $(map11 $NQ) || return
	expect_masks dum0 $(map11 $NQ)
	ping_all dum0 "$DST0"
	steer_check ICMP dum0 $NQ 0 "$SPEC"
	udp_all - dum0 "$DST0" "0:0 1:1 2:2 3:3"
	steer_check UDP dum0 $NQ 0 "$SPEC"
}

t_shared() {
	need_module || return
	set_masks dum0 3 3 c c || return
	expect_masks dum0 3 3 c c
	udp_all - dum0 "$DST0" "0:0,1 1:0,1 2:2,3 3:2,3"
	steer_check "UDP/$FLOWS flows" dum0 $NQ 1 "$SPEC"
}

t_unmapped() {
	need_module || return
	set_masks dum0 1 0 0 0 || return
	expect_masks dum0 1 0 0 0
	# CPUs 1-3 are in no mask: stock hashing over all 4 queues; with 64
	# flows every queue gets some (a CPU stuck on one queue would fail).
	udp_all - dum0 "$DST0" "0:0 1:* 2:* 3:*"
	steer_check "UDP/$FLOWS flows" dum0 $NQ 1 "$SPEC"
}

t_veth() {
	need_module || return
	set_masks veth0 $(map11 $NQ) || return
	ping_all veth0 "$DST2"
	steer_check ICMP veth0 $NQ 0 "$SPEC"

	# TCP: server (netns peer) and client pinned to the same CPU, so data,
	# ACK-clocked sends and the control connection all leave from CPU c.
	# Other CPUs may only show up through timers; their packets must then
	# be on their own queue or on c's (the socket's cached queue).
	for _c in $CPUS; do
		_port=$((5201 + _c))
		trace_start veth0
		if ! iperf_server peer "$_c" "$DST2" "$_port" "$W/srv.$_c"; then
			trace_stop
			continue
		fi
		iperf_client "$_c" "$DST2" "$_port" 2 "$W/cli.$_c"
		_rc=$?
		wait_pid "$IPERF_SPID" 10
		_src=$?
		trace_stop
		_bytes=$(iperf_bytes "$W/cli.$_c")
		if [ "$_rc" != 0 ] || [ "$_src" != 0 ] || ! [ "$_bytes" -gt 0 ] 2>/dev/null; then
			fail "iperf3 on cpu $_c: client rc=$_rc server rc=$_src bytes=$_bytes"
			diag_file "$W/cli.$_c" 20
			diag_file "$W/srv.$_c" 10
		fi
		_spec="$_c:$_c:20"
		for _o in $CPUS; do
			[ "$_o" = "$_c" ] || _spec="$_spec $_o:$_o,$_c:0"
		done
		steer_check "TCP(cpu$_c, $_bytes bytes)" veth0 $NQ 0 "$_spec"
	done
}

# rdn NS FILE: exact content in $RD (FILE read inside NS).
rdn() {
	RD=$(in_ns "$1" cat "$2" 2>&1; echo .)
	RD=${RD%.}
}

# cmp_write INPUT Q [PRESET]: one identical write to dum0's xps_steer file
# and to dum1's kernel file (netns ref); results and read-backs must match,
# a rejected write must leave each mask as it was.  Sets CMP_RES.
cmp_write() {
	_fa=$(xf dum0 "$2")
	_fb=$(kf dum1 "$2")
	if [ -n "$3" ]; then
		xw - "$_fa" "$3"
		xw ref "$_fb" "$3"
	fi
	rdn - "$_fa"; _a0=$RD
	rdn ref "$_fb"; _b0=$RD
	xw - "$_fa" "$1"; _ra=$XW
	xw ref "$_fb" "$1"; _rb=$XW
	rdn - "$_fa"; _a1=$RD
	rdn ref "$_fb"; _b1=$RD
	CMP_RES=$_ra
	_in=$(printf '%.24s' "$1")
	case $_ra in
	ok\ *|err\ *) ;;
	*)	fail "write '$_in': xwrite did not run: '$_ra'"
		return 1 ;;
	esac
	if [ "$_ra" != "$_rb" ]; then
		fail "write '$_in': xps_steer '$_ra' but kernel '$_rb'"
		return 1
	fi
	case $_ra in
	ok*)	if [ "$_a1" != "$_b1" ]; then
			fail "write '$_in' ($_ra): xps_steer reads '$(show "$_a1")', kernel '$(show "$_b1")'"
			return 1
		fi ;;
	*)	if [ "$_a1" != "$_a0" ] || [ "$_b1" != "$_b0" ]; then
			fail "rejected write '$_in' ($_ra) changed a mask: xps_steer '$(show "$_a0")'->'$(show "$_a1")', kernel '$(show "$_b0")'->'$(show "$_b1")'"
			return 1
		fi ;;
	esac
	diag "  '$_in' -> $_ra on both; both read '$(show "$_a1")'"
	return 0
}

# diff_config NAME "M0 M1 M2 M3" "cpu:queues ...": the same masks on dum0
# (xps_steer) and dum1 (kernel XPS), the same pinned flows on both.
diff_config() {
	set_masks dum0 $2 || return
	kset_masks ref dum1 $2 || return
	_q=0
	for _m in $2; do
		rdn - "$(xf dum0 $_q)"; _a=$RD
		rdn ref "$(kf dum1 $_q)"; _b=$RD
		[ "$_a" = "$_b" ] ||
			fail "config $1 tx-$_q: xps_steer reads '$(show "$_a")', kernel '$(show "$_b")'"
		_q=$((_q + 1))
	done
	# Fixed source ports (-P): identical flows, hence identical flow hashes.
	trace_start dum0 dum1
	_s0='' _s1=''
	for _c in $CPUS; do
		_allowed=$(echo "$3" | tr ' ' '\n' | awk -F: -v c="$_c" '$1 == c { print $2 }')
		flood - "$_c" "$DST0" $FLOWS $PKTS -P 20000 || break
		_s0="$_s0 $_c:$_allowed:$SENT"
		flood ref "$_c" "$DST0" $FLOWS $PKTS -P 20000 || break
		_s1="$_s1 $_c:$_allowed:$SENT"
	done
	trace_stop
	cp "$W/trace.txt" "$W/trace.diff.$1"
	steer_check "config $1 xps_steer" dum0 $NQ 1 "$_s0"
	steer_check "config $1 kernel-XPS" dum1 $NQ 1 "$_s1"
	for _c in $CPUS; do
		_u0=$(tbl_queues "$W/tbl.dum0" "$_c")
		_u1=$(tbl_queues "$W/tbl.dum1" "$_c")
		if [ "$_u0" != "$_u1" ]; then
			fail "config $1 cpu$_c: xps_steer used queues {$_u0}, kernel XPS {$_u1}"
			continue
		fi
		_allowed=$(echo "$3" | tr ' ' '\n' | awk -F: -v c="$_c" '$1 == c { print $2 }')
		if [ "$(trace_seq dum0 "$_c")" = "$(trace_seq dum1 "$_c")" ]; then
			diag "config $1 cpu$_c: same queue set {$_u0}; identical queue for every one of the packets"
		elif [ "$_allowed" = "*" ]; then
			# Unmapped CPU: the contract is stock selection, and stock
			# selection of the same flow is the same queue.
			fail "config $1 cpu$_c (in no mask): queue sequence differs from the kernel's stock selection"
			diag "  xps_steer: $(trace_seq dum0 "$_c" | cut -c1-120)"
			diag "  kernel   : $(trace_seq dum1 "$_c" | cut -c1-120)"
		else
			diag "config $1 cpu$_c: same queue set {$_u0}; per-flow choice within it differs from the kernel (allowed)"
		fi
	done
}

t_diff() {
	need_module || return
	# A: CPU1 -> {1,2}, CPU3 -> {0,3}; B: CPU0 -> {0,1}, CPU2 in no mask.
	diff_config A "9 2 6 8" "0:0 1:1,2 2:2 3:0,3"
	diff_config B "1 3 0 8" "0:0,1 1:1 2:* 3:3"
	diag "valid inputs, written to tx-2 of both (result and read-back must match):"
	_nok=0
	for _in in 0 1 f F 8 00000003 '3\n' '5\n' 0000000c 00000000 'a\n' 0; do
		cmp_write "$_in" 2 && case $CMP_RES in ok*) _nok=$((_nok + 1)) ;; esac
	done
	[ "$_nok" -gt 0 ] || fail "no valid input was accepted by either file"
	diag "$_nok valid writes accepted identically"
}

# Catalogue ID and input in xwrite's escape syntax (no literal blanks);
# @empty, @long1, @long0 and @page are generated.
BAD_INPUTS='X01 @empty
X02 \n
X03 \x20
X04 \t
X05 \x20\n
X06 \n\n
X07 g
X08 0x3
X09 1,,2
X10 123456789
X11 000000001
X12 ff
X13 10
X14 1f
X15 \x201
X16 1\x20
X17 -1
X18 +1
X19 1,2,3,4,5
X20 0,1
X21 00000000,1
X22 1,0
X23 00000001,00000000
X24 1\n\n
X25 \n1
X26 1\x00
X27 1\t
X28 ffffffffff
X29 ,
X30 1,
X31 ,1
X32 @long1
X33 @long0
X34 @page'

choose_priv() {
	PRIV_NOCAP='' PRIV_USER=''
	if setpriv --help 2>&1 | grep -q -- --bounding-set; then
		PRIV_NOCAP="setpriv --inh-caps=-net_admin --bounding-set=-net_admin"
		PRIV_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
	elif command -v privdrop >/dev/null; then
		PRIV_NOCAP="privdrop -c 12"
		PRIV_USER="privdrop -u 65534"
	else
		fail "neither util-linux setpriv nor privdrop available"
		return 1
	fi
	# Prove the wrappers do what they claim before trusting an EPERM.
	_eff=$($PRIV_NOCAP cat /proc/self/status </dev/null | awk '/^CapEff:/ { print $2 }')
	if [ -z "$_eff" ] || [ $(((0x$_eff >> 12) & 1)) != 0 ] || [ $((0x$_eff)) = 0 ]; then
		fail "'$PRIV_NOCAP' leaves CapEff=$_eff (want CAP_NET_ADMIN (bit 12) clear, others kept)"
		return 1
	fi
	_uid=$($PRIV_USER id -u </dev/null)
	if [ "$_uid" != 65534 ]; then
		fail "'$PRIV_USER id -u' printed '$_uid'"
		return 1
	fi
	diag "'$PRIV_NOCAP' gives CapEff=$_eff (CAP_NET_ADMIN clear); '$PRIV_USER' gives uid 65534"
	return 0
}

t_badinput() {
	need_module || return
	klog_mark
	_nerr=0
	_n=0
	diag "inputs written to tx-1 of both, each after presetting both to 5:"
	while read -r _id _in; do
		case $_in in
		@empty) _in= ;;
		@long1) _in=$(awk 'BEGIN { while (i++ < 5000) printf "1" }') ;;
		@long0) _in=$(awk 'BEGIN { while (i++ < 5000) printf "0" }') ;;
		@page) _in=$(awk 'BEGIN { while (i++ < 4095) printf "0" }')1 ;;
		esac
		# The rejection line is ratelimited (10 per 5 s): at most 9
		# writes per 5.5 s keep every one of them in the log.
		[ $((_n % 9)) != 0 ] || [ "$_n" = 0 ] || sleep 5.5
		_n=$((_n + 1))
		row_mark
		if cmp_write "$_in" 1 5; then
			case $CMP_RES in err*) _nerr=$((_nerr + 1)) ;; esac
			row "$_id" "$CMP_RES" 'tx-1: xps_cpus'
		fi
	done <<EOF
$BAD_INPUTS
EOF
	diag "$_n inputs: $_nerr rejected identically by both files"
	[ "$_nerr" -gt 0 ] || fail "no input was rejected: the rejection path was not exercised"

	if choose_priv; then
		# shellcheck disable=SC2086
		for _who in nocap user; do
			if [ $_who = nocap ]; then _p=$PRIV_NOCAP _want=EPERM _id=S01; else _p=$PRIV_USER _want=EACCES _id=S02; fi
			xw - "$(xf dum0 1)" 5; xw ref "$(kf dum1 1)" 5
			row_mark
			_ra=$(in_ns - $_p xwrite -- "$(xf dum0 1)" 3 2>&1)
			_rb=$(in_ns ref $_p xwrite -- "$(kf dum1 1)" 3 2>&1)
			rdn - "$(xf dum0 1)"; _a=$RD
			rdn ref "$(kf dum1 1)"; _b=$RD
			if [ "$_ra" != "$_rb" ]; then
				fail "$_who write: xps_steer '$_ra', kernel '$_rb'"
			elif [ "$_ra" != "err $_want" ]; then
				fail "$_who write: both gave '$_ra', expected 'err $_want'"
			elif [ "$_a" != "5$NL" ] || [ "$_b" != "5$NL" ]; then
				fail "$_who write changed a mask: xps_steer '$(show "$_a")', kernel '$(show "$_b")'"
			else
				diag "$_who ($_p): '$_ra' on both, masks still 5"
				row $_id "$_ra" xps_cpus
			fi
		done
		# Reading needs no privilege (mode 0644), as with the kernel's.
		row_mark
		_ra=$(in_ns - $PRIV_USER xwrite -R -- "$(xf dum0 1)" - 2>&1)
		_rb=$(in_ns ref $PRIV_USER xwrite -R -- "$(kf dum1 1)" - 2>&1)
		if [ "$_ra" != "$_rb" ] || [ "$_ra" != "ok 2" ]; then
			fail "uid 65534 read: xps_steer '$_ra', kernel '$_rb', expected 'ok 2' ('5\\n')"
		else
			diag "uid 65534 read: '$_ra' on both"
			row S03 "$_ra" xps_cpus
		fi
	fi
	klog_expect "xps_steer: dum0: tx-1: xps_cpus write rejected ("
}

# established_all NS N PORT...: every PORT (decimal, local) has at least N
# established sockets; one read of /proc/net/tcp for all of them.  Ports
# short of N are left in $T8_SHORT.
established_all() {	# (own variable names: wait_until's _n is global)
	_ea_ns=$1 _ea_need=$2
	shift 2
	in_ns "$_ea_ns" cat /proc/net/tcp >"$W/tcp8.txt" || return 1
	T8_SHORT=
	for _ea_port in "$@"; do
		_ea_hex=$(printf '%04X' "$_ea_port")
		[ "$(grep -c "^ *[0-9]*: [0-9A-F]*:$_ea_hex [0-9A-F]*:[0-9A-F]* 01 " "$W/tcp8.txt")" -ge "$_ea_need" ] ||
			T8_SHORT="$T8_SHORT $_ea_port"
	done
	[ -z "$T8_SHORT" ]
}

# t8_launch SECS: one pinned iperf3 server and client per CPU, SECS-second
# transfers (T8_SP/T8_CP: the pids); then wait until every client has its
# data connection up (control + data = 2 established sockets per server
# port) or one of them has already exited. Sets T8_ALIVE to the clients
# still running with every connection up (0 if they never were all up at
# once); returns 2 if something could not be started.
t8_launch() {
	T8_SP='' T8_CP='' T8_SECS=$1
	for _c in $CPUS; do
		iperf_server peer "$_c" "$DST2" $((5301 + _c)) "$W/s8.$_c" || return 2
		T8_SP="$T8_SP $IPERF_SPID"
		T8_PIDS="$T8_PIDS $IPERF_SPID"
	done
	for _c in $CPUS; do
		iperf_client "$_c" "$DST2" $((5301 + _c)) "$1" "$W/c8.$_c" &
		T8_CP="$T8_CP $!"
		T8_PIDS="$T8_PIDS $!"
	done
	_ports=
	for _c in $CPUS; do _ports="$_ports $((5301 + _c))"; done
	# wait_until counts polls, and one poll of /proc/net/tcp in the netns
	# can take seconds on the debug kernel, so t8_settled watches the clock.
	T8_T0=$(date +%s)
	wait_until $((T8_SECS + 30)) t8_settled $_ports
	T8_UP=$(($(date +%s) - T8_T0))
	sleep 0.5
	T8_ALIVE=0
	established_all peer 2 $_ports || return 0
	for _p in $T8_CP; do kill -0 "$_p" 2>/dev/null && T8_ALIVE=$((T8_ALIVE + 1)); done
	return 0
}

# t8_settled PORT...: every connection is up, or a client has exited (then
# they can no longer all be up at the same time).
t8_settled() {
	established_all peer 2 "$@" && return 0
	for _p in $T8_CP; do kill -0 "$_p" 2>/dev/null || return 0; done
	[ $(($(date +%s) - T8_T0)) -ge $((T8_SECS + 30)) ]
}

# t8_reap: wait for every client and server of the last t8_launch; a client
# must exit 0 having sent data.
t8_reap() {
	_c=0
	for _p in $T8_CP; do
		wait_pid "$_p" $((T8_SECS + 45))
		_rc=$?
		_bytes=$(iperf_bytes "$W/c8.$_c")
		if [ "$_rc" != 0 ] || ! [ "$_bytes" -gt 0 ] 2>/dev/null; then
			fail "iperf3 client on cpu $_c: rc=$_rc bytes=$_bytes"
			diag_file "$W/c8.$_c" 20
		else
			diag "iperf3 on cpu $_c: exit 0, $_bytes bytes"
		fi
		_c=$((_c + 1))
	done
	for _p in $T8_SP; do
		wait_pid "$_p" 10 || fail "iperf3 server (pid $_p) exit status $WAIT_RC"
	done
	T8_PIDS='' T8_CP='' T8_SP=''
}

t_rmmod_tcp() {
	need_module || return
	set_masks veth0 $(map11 $NQ) || return
	# Unload only while every client is still transferring. Connections
	# come up at different times; on a slow guest (on the debug kernel,
	# from 16 s to minutes) the first clients can finish before the last one
	# starts, so the round is repeated with longer transfers before anything
	# is unloaded.
	for _secs in 12 36 108; do
		t8_launch "$_secs" || return
		diag "round of $_secs s transfers: after $T8_UP s, $T8_ALIVE of $NCPU clients running with their connections up${T8_SHORT:+ (not up:$T8_SHORT)}"
		[ "$T8_ALIVE" = "$NCPU" ] && break
		t8_reap
		[ "$T_FAIL" = 0 ] || break
	done
	[ "$T8_ALIVE" = "$NCPU" ] ||
		fail "only $T8_ALIVE of $NCPU iperf3 clients running with their connections up at rmmod time"
	_alive=$T8_ALIVE
	klog_mark
	_t0=$(date +%s)
	modprobe -r xps_steer >"$W/rmmod.out" 2>&1
	_rc=$?
	_t1=$(date +%s)
	[ "$_rc" = 0 ] || { fail "modprobe -r under load failed (rc=$_rc)"; diag_file "$W/rmmod.out"; }
	diag "modprobe -r with $_alive TCP transfers running: rc=$_rc, took $((_t1 - _t0)) s"
	t8_reap
	if [ -e "$XS" ] || xps_loaded; then
		fail "xps_steer still present after modprobe -r"
	else
		diag "$XS gone after modprobe -r during TCP; log: $(klog_since | grep -c 'xps_steer: .*detached') 'detached' lines"
	fi
	# The hook is gone: CPU0's flows spread over all queues again.
	udp_all - veth0 "$DST2" "0:* 1:* 2:* 3:*"
	steer_check "stock after rmmod" veth0 $NQ 1 "$SPEC"
	if ping_ok - "$DST2"; then
		diag "veth0 -> veth1 ping ok after rmmod"
	else
		fail "veth0 -> veth1 ping fails after rmmod"
		diag_file "$W/ping.out"
	fi
}

t_rmmod_tcp_cleanup() {	# only if something failed half-way
	for _p in $T8_PIDS; do kill "$_p" 2>/dev/null; done
	T8_PIDS=
}

# fd_open PID PATTERN: process PID has a file matching PATTERN open.
fd_open() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -q -- "$2"
}

# held_io ID PID OUT: a `xwrite -g` started earlier must print "err ENODEV"
# (its descriptor outlived the file); catalogue row ID on success.
held_io() {
	wait_pid "$2" 20
	_r=$(cat "$3")
	if [ "$_r" = "err ENODEV" ]; then
		diag "$1: I/O through a descriptor that outlived its file: '$_r'"
		row "$1" "$_r" xps_cpus
	else
		fail "$1: I/O through a descriptor that outlived its file gave '$_r' (exit $WAIT_RC), expected 'err ENODEV'"
	fi
}

# held_start GONE FILE [-R]: an xwrite that opens FILE now and writes "3"
# (or reads, -R) once the path GONE has gone; returns once FILE is open.
held_start() {
	HELD_N=$((HELD_N + 1))
	HELD_OUT=$W/held.$HELD_N
	xwrite -g "$1" ${3:+"$3"} -- "$2" 3 >"$HELD_OUT" 2>&1 &
	HELD_PID=$!
	wait_until 10 fd_open "$HELD_PID" "$(basename "$(dirname "$2")")/xps_cpus" ||
		fail "xwrite (pid $HELD_PID) did not open $2"
}
HELD_N=0

t_delete() {
	must ip link add dum9 numtxqueues $NQ type dummy || return
	must ip link set dum9 up
	klog_mark
	xps_load dev=dum9 || return
	klog_expect "xps_steer: dum9: attached ($NQ tx queues)"
	expect_tree dum9 $NQ
	set_masks dum9 1 2
	# Descriptors opened before the delete, used after it.
	row_mark
	held_start "$XS/dum9" "$(xf dum9 1)"
	_pw=$HELD_PID _ow=$HELD_OUT
	held_start "$XS/dum9" "$(xf dum9 2)" -R
	_pr=$HELD_PID _or=$HELD_OUT
	klog_mark
	must ip link del dum9
	if wait_until 2 path_absent "$XS/dum9"; then
		diag "$XS/dum9 gone after ip link del"
	else
		fail "$XS/dum9 still exists after the device was deleted"
	fi
	klog_expect "xps_steer: dum9: detached"
	held_io S04 "$_pw" "$_ow"
	held_io S05 "$_pr" "$_or"
	row_mark
	xw - "$(xf dum9 1)" 3
	if [ "$XW" = "err ENOENT" ]; then
		row S06 "$XW" xps_cpus
	else
		fail "write to a deleted device's file gave '$XW', expected 'err ENOENT'"
	fi
	# The name stays listed: a new dum9 is attached afresh.
	must ip link add dum9 numtxqueues $NQ type dummy
	if wait_until 2 test -d "$XS/dum9"; then
		expect_tree dum9 $NQ && expect_masks dum9 0 0 0 0
	else
		fail "a re-created dum9 was not attached again"
	fi
	# A descriptor held across the module's unload.
	row_mark
	held_start "$XS" "$(xf dum9 0)"
	_pw=$HELD_PID _ow=$HELD_OUT
	xps_unload && diag "modprobe -r ok, $XS gone"
	held_io S08 "$_pw" "$_ow"
	must ip link del dum9
}

t_delete_cleanup() { ip link del dum9; }

# mask_writer DEV Q: rewrite and read back tx-Q until the file goes away.
mask_writer() {
	while cpumask "$2" >"$(xf "$1" "$2")"; do
		cat "$(xf "$1" "$2")" >/dev/null || break
	done 2>/dev/null
}

# Stores racing with unregistration must never deadlock: the device is
# deleted while a writer loops on each of its queues.
t_store_race() {
	xps_load dev=dumz || return
	row_mark
	_round=0
	while [ $_round -lt 20 ] && [ "$T_FAIL" = 0 ]; do
		must ip link add dumz numtxqueues $NQ type dummy || return
		if ! wait_until 2 test -e "$(xf dumz $((NQ - 1)))"; then
			fail "round $_round: dumz was not attached"
			return
		fi
		_pids=
		for _q in $(seq 0 $((NQ - 1))); do
			mask_writer dumz "$_q" &
			_pids="$_pids $!"
		done
		sleep 0.1
		timeout 20 ip link del dumz ||
			fail "round $_round: ip link del dumz failed or hung (rc=$?)"
		for _p in $_pids; do
			wait_pid "$_p" 10 || [ "$WAIT_RC" != 124 ] ||
				fail "round $_round: a writer was still running 10 s after the delete"
		done
		_round=$((_round + 1))
	done
	diag "$_round rounds: dumz deleted under $NQ looping writers each time"
	[ "$T_FAIL" = 0 ] && row S07 "no hang" xps_cpus
	xps_unload
}

t_store_race_cleanup() { ip link del dumz; }

t_late() {
	ip link del late0 2>/dev/null
	klog_mark
	row_mark
	xps_load dev=late0 || return
	klog_expect "xps_steer: late0: not present, will attach when it registers" &&
		row P18 loaded
	expect_no_tree late0
	# Names are looked up in the initial netns only.
	row_mark
	must ip -n peer link add late0 numtxqueues $NQ type dummy
	sleep 0.2
	expect_no_tree late0 && diag "late0 created in netns peer: not attached" &&
		row P19 "not attached"
	must ip link add late0 numtxqueues $NQ numrxqueues $NQ type dummy || return
	must ip addr add 10.9.3.1/24 dev late0
	must ip link set late0 up
	if ! wait_until 2 test -d "$XS/late0"; then
		fail "late0 registered but $XS/late0 did not appear"
		return
	fi
	klog_expect "xps_steer: late0: attached ($NQ tx queues)"
	expect_tree late0 $NQ || return
	expect_masks late0 0 0 0 0
	set_masks late0 $(map11 $NQ) || return
	udp_all - late0 10.9.3.2 "0:0 1:1 2:2 3:3"
	steer_check UDP late0 $NQ 0 "$SPEC"
}

t_late_cleanup() {
	ip link del late0
	ip -n peer link del late0
	modprobe -r xps_steer
}

t_rename() {
	klog_mark
	xps_load dev=dum0,dumt || return
	klog_expect "xps_steer: dum0: attached ($NQ tx queues)"
	set_masks dum0 $(map11 $NQ) || return
	must ip link set dum0 down
	must ip link set dum0 name dumr || return
	must ip link set dumr up
	expect_no_tree dum0
	row_mark
	xw - "$(xf dum0 1)" 3
	if [ "$XW" = "err ENOENT" ]; then
		row S13 "$XW" xps_cpus
	else
		fail "write to the old name's file after a rename gave '$XW', expected 'err ENOENT'"
	fi
	expect_tree dumr $NQ || return
	expect_masks dumr $(map11 $NQ)
	udp_all - dumr "$DST0" "0:0 1:1 2:2 3:3"
	steer_check "UDP after rename" dumr $NQ 0 "$SPEC"
	must ip link set dumr down
	must ip link set dumr name dum0
	must ip link set dum0 up
	expect_no_tree dumr
	expect_tree dum0 $NQ && expect_masks dum0 $(map11 $NQ)
	# Renamed TO a listed name: attached then.
	must ip link add dumq numtxqueues $NQ type dummy || return
	sleep 0.2
	expect_no_tree dumq
	klog_mark
	must ip link set dumq name dumt
	if wait_until 2 test -d "$XS/dumt"; then
		expect_tree dumt $NQ
		klog_expect "xps_steer: dumt: attached ($NQ tx queues)"
	else
		fail "dumq renamed to the listed name dumt was not attached"
	fi
}

t_rename_cleanup() {
	if [ -e /sys/class/net/dumr ]; then
		ip link set dumr down
		ip link set dumr name dum0
		ip link set dum0 up
	fi
	ip link del dumq
	ip link del dumt
	modprobe -r xps_steer
}

t_refused() {
	# s0 and bond0 exist before the load, tap0 and team0 register after it
	# (both attach paths must refuse).
	must ip link add s0 type dummy || return
	must ip addr add 10.9.4.1/24 dev s0
	must ip link set s0 up
	modprobe bonding max_bonds=0 >/dev/null 2>&1
	must ip link add bond0 type bond || return
	must ip link add bs0 type dummy
	must ip link set bs0 master bond0
	must ip addr add 10.9.5.1/24 dev bond0
	must ip link set bond0 up
	# /dev/net/tun appears (devtmpfs) only once tun is loaded: no udev here.
	modprobe tun >/dev/null 2>&1
	klog_mark
	row_mark
	xps_load dev=s0,bond0,tap0,team0 || return
	must ip tuntap add dev tap0 mode tap multi_queue
	# Queues attached by tapq: carrier on, and its TUNSETIFF would fail
	# had tap0's netdev_ops been replaced.  It reads what tap0 sends.
	tapq -i tap0 -q 2 -t 60 -n 20 >"$W/tapq.out" 2>&1 &
	TAPQ_PID=$!
	wait_until 10 grep -q attached "$W/tapq.out" ||
		{ fail "tapq could not attach queues to tap0"; diag_file "$W/tapq.out"; }
	must ip addr add 10.9.6.1/24 dev tap0
	must ip link set tap0 up
	modprobe team >/dev/null 2>&1
	must ip link add team0 type team
	must ip addr add 10.9.7.1/24 dev team0
	must ip link set team0 up
	must ip link set team0 carrier on
	klog_expect "xps_steer: s0: refused: single-queue device" &&
		expect_no_tree s0 && row P20 loaded 'xps_steer: s0: '
	klog_expect "xps_steer: bond0: refused: driver has its own ndo_select_queue"
	klog_expect "xps_steer: tap0: refused: driver tun recognises its devices by their netdev_ops pointer"
	klog_expect "xps_steer: team0: refused: driver team recognises its devices by their netdev_ops pointer"
	for _d in s0 bond0 tap0 team0; do
		expect_no_tree "$_d"
		diag "$_d: $(ls /sys/class/net/$_d/queues 2>/dev/null | grep -c '^tx-') tx queues, no tree"
	done
	# Still transmit (the hook must not be half-installed).
	for _p in "bond0 10.9.5.2" "tap0 10.9.6.2" "team0 10.9.7.2"; do
		set -- $_p
		must ip neigh replace "$2" lladdr 02:00:00:00:00:01 nud permanent dev "$1"
	done
	trace_start s0 bond0 bs0 tap0 team0
	for _dst in 10.9.4.2 10.9.5.2 10.9.6.2 10.9.7.2; do
		flood - 0 "$_dst" 4 20
	done
	trace_stop
	for _d in s0 bond0 bs0 tap0 team0; do
		_n=$(trace_table "$_d" | awk '{ t += $3 } END { print t + 0 }')
		if [ "$_n" -lt 20 ]; then
			fail "$_d transmitted $_n packets, expected at least 20"
		else
			diag "$_d transmitted $_n packets"
		fi
	done
	if wait_pid "$TAPQ_PID" 20; then
		diag "tap0's queues delivered them: $(grep 'read' "$W/tapq.out")"
	else
		fail "tapq did not read 20 frames from tap0"
		diag_file "$W/tapq.out"
	fi
	TAPQ_PID=
}

t_refused_cleanup() {
	[ -z "$TAPQ_PID" ] || kill "$TAPQ_PID"
	modprobe -r xps_steer
	for _d in team0 tap0 bond0 bs0 s0; do ip link del "$_d"; done
	ip tuntap del dev tap0 mode tap multi_queue
}

txq_count() { ls "/sys/class/net/$1/queues" | grep -c '^tx-'; }

t_queues() {
	klog_mark
	xps_load dev=veth0 || return
	expect_tree veth0 $NQ || return
	ethtool -l veth0 >"$W/ethtool.out" 2>&1
	diag "ethtool -l veth0:"
	diag_file "$W/ethtool.out" 12
	set_masks veth0 $(map11 $NQ) || return
	row_mark
	held_start "$XS/veth0/tx-3" "$(xf veth0 3)"
	_pw=$HELD_PID _ow=$HELD_OUT
	if ! ethtool -L veth0 tx 2 >"$W/ethtool.out" 2>&1; then
		if grep -qi 'not supported' "$W/ethtool.out"; then
			skip "ethtool -L unsupported on veth: $(head -n 1 "$W/ethtool.out")"
		else
			fail "ethtool -L veth0 tx 2 failed"
			diag_file "$W/ethtool.out"
		fi
		return
	fi
	diag "ethtool -L veth0 tx 2: veth0 now has $(txq_count veth0) tx queues"
	# Masks still name tx-2/tx-3 (CPUs 2, 3): those packets must fall back
	# below real_num_tx_queues, before any tree refresh.
	klog_mark
	udp_all - veth0 "$DST2" "0:0 1:1 2:0,1 3:0,1"
	steer_check "UDP with 2 queues" veth0 $NQ 0 "$SPEC"
	if klog_has "selects TX queue"; then
		fail "the kernel capped an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
	fi
	must ip link set veth0 down
	must ip link set veth0 up
	expect_tree veth0 2 && diag "after down/up: masks $(read_masks veth0 2)"
	held_io S10 "$_pw" "$_ow"
	row_mark
	xw - "$(xf veth0 3)" 8
	_r=$(xwrite -R -- "$(xf veth0 3)" - 2>&1)
	if [ "$XW" = "err ENOENT" ] && [ "$_r" = "err ENOENT" ]; then
		row S09 "$XW" xps_cpus
	else
		fail "tx-3 after the shrink: write '$XW', read '$_r', expected 'err ENOENT' for both"
	fi
	must ethtool -L veth0 tx $NQ || return
	must ip link set veth0 down
	must ip link set veth0 up
	veth_neigh
	expect_tree veth0 $NQ || return
	_m=$(read_masks veth0 $NQ)
	case $_m in
	*" 0 0") diag "regrown: masks $_m" ;;
	*) fail "regrown tx-2, tx-3 should read 0: masks $_m" ;;
	esac
	set_masks veth0 $(map11 $NQ) || return
	udp_all - veth0 "$DST2" "0:0 1:1 2:2 3:3"
	steer_check "UDP after regrow" veth0 $NQ 0 "$SPEC"
}

t_queues_cleanup() {
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = $NQ ] || ethtool -L veth0 tx $NQ
	ip link set veth0 up
}

# The shrink window: after ethtool -L has lowered real_num_tx_queues and
# before the NETDEV_CHANGE that makes xps_steer drop the vanished queues
# from its map, the map still names tx-2/tx-3 for CPUs 2/3.  The hook must
# then not answer >= real_num_tx_queues (the core would log "selects TX
# queue" and use queue 0).  The window is short and its timing is up to
# linkwatch, so it is measured, not assumed: kprobes mark when
# netif_set_real_num_tx_queues(veth0, 2) returned and when
# netdev_state_change(veth0) ran; packets in between are the window's.
KP_GROUP=xps_suite
t_window() {
	if [ ! -w "$TR/kprobe_events" ]; then
		skip "no kprobe_events in tracefs: cannot locate the window"
		return
	fi
	klog_mark
	xps_load dev=veth0 || return
	expect_tree veth0 $NQ || return
	if ! ethtool -l veth0 >"$W/ethtool.out" 2>&1 && grep -qi 'not supported' "$W/ethtool.out"; then
		skip "ethtool -L unsupported on veth: $(head -n 1 "$W/ethtool.out")"	# as test 14
		return
	fi
	# The device is known by its pointer: since 6.8 (net_device cacheline
	# groups) its name is no longer at offset 0.  Only veth0 shrinks to 2.
	if ! { echo "p:$KP_GROUP/setq netif_set_real_num_tx_queues dev=%di:x64 txq=%si:u32" &&
	       echo "r:$KP_GROUP/setq_ret netif_set_real_num_tx_queues ret=\$retval:s32" &&
	       echo "p:$KP_GROUP/change netdev_state_change dev=%di:x64"; } \
	    >>"$TR/kprobe_events" 2>"$W/kprobe.err"; then
		skip "cannot add kprobes: $(head -n 1 "$W/kprobe.err")"
		return
	fi
	# Packets of veth0 between setq_ret (after setq veth0 txq=2, same task)
	# and the next change for veth0: "cpu queue count" lines, plus the
	# number of windows on stderr.  One trace per cycle: the floods fill
	# the buffer fast.
	echo 16384 >"$TR/buffer_size_kb"
	echo 1 >"$TR/events/$KP_GROUP/enable"
	WIN_PIDS=
	for _c in 2 3; do
		taskset "$(cpumask $_c)" udpflood -d "$DST2" -f $FLOWS -n 100000000 \
			>"$W/wflood.$_c" 2>&1 &
		WIN_PIDS="$WIN_PIDS $!"
	done
	: >"$W/tbl.win.all"
	_cycles=0
	_wins=0
	while [ $_cycles -lt 6 ]; do
		set_masks veth0 $(map11 $NQ) || break
		trace_start veth0
		must ethtool -L veth0 tx 2 || break
		sleep 0.1
		trace_stop
		must ethtool -L veth0 tx $NQ || break
		wait_until 3 test -e "$(xf veth0 3)" ||
			{ fail "tx-3 did not come back after growing to $NQ queues"; break; }
		awk '
			/^#/ { next }
			{ task = $1; sub(/.*-/, "", task) }
			/ setq: / && / txq=2/ { match($0, /dev=0x[0-9a-f]+/); pending[task] = substr($0, RSTART, RLENGTH); next }
			/ setq_ret: / && pending[task] != "" { wdev = pending[task]; pending[task] = ""; inwin = 1; wins++; next }
			/ change: / { match($0, /dev=0x[0-9a-f]+/); if (substr($0, RSTART, RLENGTH) == wdev) inwin = 0; next }
			inwin && / dev=veth0 / {
				match($0, /\[[0-9]+\] /); cpu = substr($0, RSTART + 1, RLENGTH - 3) + 0
				match($0, /queue_mapping=[0-9]+/); q = substr($0, RSTART + 14, RLENGTH - 14) + 0
				n[cpu " " q]++
			}
			END {
				for (k in n) print k, n[k]
				print wins + 0 >"/dev/stderr"
			}' "$W/trace.txt" 2>"$W/win.count" >>"$W/tbl.win.all"
		_wins=$((_wins + $(cat "$W/win.count")))
		_cycles=$((_cycles + 1))
	done
	for _p in $WIN_PIDS; do kill "$_p"; wait "$_p"; done
	WIN_PIDS=
	echo 0 >"$TR/events/$KP_GROUP/enable"
	echo 4096 >"$TR/buffer_size_kb"
	awk '{ n[$1 " " $2] += $3 } END { for (k in n) print k, n[k] }' "$W/tbl.win.all" |
		sort -n >"$W/tbl.win"
	_inwin=$(awk '$1 >= 2 { t += $3 } END { print t + 0 }' "$W/tbl.win")
	diag "$_cycles shrink cycles, $_wins windows seen, $_inwin packets from CPUs 2-3 inside them"
	[ "$_wins" -gt 0 ] || fail "the kprobes saw no shrink of veth0 to 2 queues"
	if klog_has "selects TX queue"; then
		fail "the core had to cap an out-of-range queue:"
		klog_since | grep "selects TX queue" | head -n 3 | sed 's/^/#   /'
	fi
	if [ "$_inwin" -gt 0 ]; then
		check_tbl "$W/tbl.win" $NQ 0 0 "2:0,1 3:0,1" | awk '{ print "# window: " $0 }'
		check_tbl "$W/tbl.win" $NQ 0 0 "2:0,1 3:0,1" >/dev/null ||
			fail "packets in the window used a queue >= real_num_tx_queues"
	elif [ "$T_FAIL" = 0 ]; then
		skip "no packet from CPUs 2-3 fell inside the $_wins windows (linkwatch was faster)"
	fi
}

t_window_cleanup() {
	for _p in $WIN_PIDS; do kill "$_p"; done
	echo 0 >"$TR/events/$KP_GROUP/enable"
	echo 4096 >"$TR/buffer_size_kb"
	for _k in setq setq_ret change; do
		echo "-:$KP_GROUP/$_k" >>"$TR/kprobe_events"
	done
	modprobe -r xps_steer
	[ "$(txq_count veth0)" = $NQ ] || ethtool -L veth0 tx $NQ
}

# modprobe_bad PARAM ENTRY [ID]: the load must fail with EINVAL, leave
# nothing behind, and log a line naming ENTRY (any xps_steer line if ENTRY
# empty); then catalogue row ID. PARAM "-": no parameter at all.
modprobe_bad() {
	klog_mark
	row_mark
	if [ "$1" = - ]; then
		set -- "" "$2" "$3"
		modprobe xps_steer >"$W/modprobe.out" 2>&1 </dev/null
		_rc=$?
	else
		modprobe xps_steer "$1" >"$W/modprobe.out" 2>&1 </dev/null
		_rc=$?
	fi
	if [ "$_rc" = 0 ]; then
		fail "modprobe xps_steer '$1' succeeded, expected EINVAL"
		modprobe -r xps_steer
		return 1
	fi
	grep -q 'Invalid argument' "$W/modprobe.out" ||
		{ fail "'$1': modprobe did not report EINVAL:"; diag_file "$W/modprobe.out"; }
	{ xps_loaded || [ -e "$XS" ]; } && fail "'$1': module or $XS left behind"
	_l=$(klog_since | grep -F 'xps_steer' | grep -F -- "$2" | head -n 1)
	if [ -z "$_l" ]; then
		fail "'$1': no xps_steer log line naming '$2'"
		klog_since | tail -n 5 | sed 's/^/#   /'
		return 1
	fi
	diag "'$1' refused: ${_l#*] }"
	[ -z "$3" ] || row "$3" EINVAL
}

# modprobe_ok ID PARAM...: the load must succeed; catalogue row ID with
# the log of the load. The module stays loaded.
modprobe_ok() {
	_id=$1
	shift
	row_mark
	xps_load "$@" || return 1
	row "$_id" loaded
}

t_params() {
	xps_unload || return
	modprobe_bad - dev= P01
	modprobe_bad dev= dev= P02
	modprobe_bad dev=, "" P03
	modprobe_bad dev=dum0,,veth0 "" P04
	modprobe_bad dev=dum0, "" P05
	modprobe_bad dev=abcdefghijklmnop abcdefghijklmnop P06
	modprobe_bad dev=. . P08
	modprobe_bad dev=.. .. P09
	modprobe_bad dev=a/b a/b P10
	modprobe_bad dev=a:b a:b P11
	modprobe_bad 'dev=a b' 'a b' P12
	modprobe_bad 'dev= dum0' ' dum0' P13
	modprobe_bad dev=dum0,veth0,dum0 dum0 P15
	_names=$(awk 'BEGIN { for (i = 1; i <= 33; i++) printf "%sn%d", (i > 1 ? "," : ""), i }')
	modprobe_bad "dev=$_names" dev P16
	# Boundaries that must load: a 15-character name, 32 names.
	klog_mark
	if modprobe_ok P07 dev=abcdefghijklmno; then
		klog_expect "xps_steer: abcdefghijklmno: not present, will attach when it registers"
		xps_unload
	fi
	klog_mark
	_names=${_names%,n33}
	row_mark
	if xps_load "dev=$_names"; then
		_n=$(klog_since | grep -c 'xps_steer: n[0-9]*: not present')
		if [ "$_n" = 32 ]; then
			diag "32 names accepted"
			echo "# catalogue: P17 | loaded | 32 lines: xps_steer: nN: not present, will attach when it registers"
		else
			fail "32 names: $_n 'not present' lines, expected 32"
		fi
		xps_unload
	fi
	# A tab ends the parameter (the kernel's parser splits at blanks and
	# modprobe quotes only values with spaces): "b" is another parameter.
	_tab=$(printf '\t')
	if modprobe_ok P14 "dev=a${_tab}b"; then
		expect_no_tree a
		xps_unload
	fi
	# Not a pattern: "pat%d" never matches, the device gets pat<N>.
	if modprobe_ok P21 'dev=pat%d'; then
		must ip link add 'pat%d' numtxqueues $NQ type dummy
		_pd=$(ls /sys/class/net | grep '^pat' | tr '\n' ' ')
		if [ -z "$_pd" ] || ls "$XS" | grep -q '^pat'; then
			fail "'ip link add pat%d' made '$_pd'; $XS holds '$(ls "$XS" | tr '\n' ' ')', expected no pat* directory"
		else
			diag "'ip link add pat%d' made $_pd, not attached"
		fi
		for _d in $_pd; do ip link del "$_d"; done
		xps_unload
	fi
	# Unknown parameters are the kernel's business: logged and ignored.
	if modprobe_ok P22 dev=dum0 foo=1; then
		expect_tree dum0 $NQ
	fi
	# A second modprobe of a loaded module does nothing, whatever dev= says.
	row_mark
	if modprobe xps_steer dev=veth0 >"$W/modprobe.out" 2>&1 </dev/null; then
		if [ -e "$XS/veth0" ]; then
			fail "a second modprobe with dev=veth0 attached veth0"
		else
			diag "second modprobe dev=veth0: exit 0, veth0 not attached, dev is '$(cat /sys/module/xps_steer/parameters/dev)'"
			row P23 "no effect"
		fi
	else
		fail "second modprobe xps_steer dev=veth0 failed:"
		diag_file "$W/modprobe.out"
	fi
	# The parameter is read-only (0444) once loaded, even for root.
	row_mark
	xw - /sys/module/xps_steer/parameters/dev veth0
	_r=$(cat /sys/module/xps_steer/parameters/dev)
	if [ "$XW" = "err EACCES" ] && [ "$_r" = dum0 ]; then
		row P24 "$XW"
	else
		fail "root writing /sys/module/xps_steer/parameters/dev: '$XW', now reads '$_r' (expected 'err EACCES', 'dum0')"
	fi
	# So is the features file (the compat probe results).
	rd "$XS/features"
	_f0=$RD
	row_mark
	xw - "$XS/features" "sysfs_emit no"
	rd "$XS/features"
	if [ "$XW" = "err EACCES" ] && [ "$RD" = "$_f0" ]; then
		row S14 "$XW"
	else
		fail "root writing $XS/features: '$XW' (expected 'err EACCES'), content changed: $([ "$RD" = "$_f0" ] && echo no || echo yes)"
	fi
	xps_unload
}

# sock_flood NS ARGS...: udpflood pinned to CPU 0, moving to CPU 1 halfway.
sock_flood() {
	_ns=$1
	shift
	in_ns "$_ns" taskset 1 udpflood -d "$DST0" -p 9000 -f 8 -n 200 -m 1 "$@" \
		>"$W/sock.out" 2>&1
	if ! grep -q 'sent 200 of 200' "$W/sock.out" ||
	    ! grep -q 'moved to cpu 1 ' "$W/sock.out"; then
		fail "udpflood $* (netns $_ns) did not send 100 packets on cpu 0, then 100 on cpu 1"
		diag_file "$W/sock.out"
		return 1
	fi
}

t_sockcache() {
	klog_mark
	xps_load dev=dum0 || return
	set_masks dum0 $(map11 $NQ) || return
	kset_masks ref dum1 $(map11 $NQ) || return
	# Connected sockets cache their queue (UDP never sets ooo_okay): the
	# half sent after moving to CPU 1 must stay on queue 0, as with the
	# kernel's XPS.  Unconnected sockets are steered per packet: CPU 1's
	# half goes to queue 1.  dum1 (kernel XPS) checks the premise.
	# Kernels whose sk_tx_queue_get() is out of line (7.x) let a cached
	# queue go stale (sk_tx_queue_mapping_jiffies) and pick again, so
	# there CPU 1's half may be on queue 0 or 1, for both.
	_cq=0
	if grep -q ' sk_tx_queue_get$' /proc/kallsyms; then
		_cq=0,1
		diag "this kernel re-picks stale cached queues (sk_tx_queue_get): cpu1 may use queue 0 or 1"
	fi
	for _mode in connected unconnected; do
		if [ $_mode = connected ]; then _a=-c _q1=$_cq; else _a='' _q1=1; fi
		trace_start dum0 dum1
		sock_flood - $_a -P 21000 && sock_flood ref $_a -P 21000
		trace_stop
		steer_check "$_mode, cpu0 then cpu1, xps_steer" dum0 $NQ 0 "0:0:100 1:$_q1:100"
		steer_check "$_mode, cpu0 then cpu1, kernel-XPS" dum1 $NQ 0 "0:0:100 1:$_q1:100"
	done
}

t_sockcache_cleanup() { modprobe -r xps_steer; }

# A mask may name a possible CPU that is offline: xps_steer keeps it (and
# reads it back), so the CPU steers as soon as it comes online. The
# kernel's file drops offline CPUs: a documented difference.
OFF_CPU=3
t_offline() {
	_on=/sys/devices/system/cpu/cpu$OFF_CPU/online
	if [ ! -w "$_on" ]; then
		fail "$_on missing: CPU $OFF_CPU cannot be taken offline"
		return
	fi
	xps_load dev=dum0 || return
	set_masks dum0 0 0 0 0 || return
	kset_masks ref dum1 0 0 0 0 || return
	must sh -c "echo 0 >$_on" || return
	_online=$(cat /sys/devices/system/cpu/online)
	diag "CPU $OFF_CPU offline: online CPUs $_online"
	row_mark
	xw - "$(xf dum0 3)" 8; _ra=$XW
	xw ref "$(kf dum1 3)" 8; _rb=$XW
	rdn - "$(xf dum0 3)"; _a=$RD
	rdn ref "$(kf dum1 3)"; _b=$RD
	diag "mask 8 (CPU $OFF_CPU only) written to tx-3: xps_steer '$_ra', reads '$(show "$_a")'; kernel '$_rb', reads '$(show "$_b")'"
	if [ "$_ra" != "ok 1" ] || [ "$_a" != "8$NL" ]; then
		fail "a mask naming offline CPU $OFF_CPU: '$_ra', reads '$(show "$_a")', expected 'ok 1' and '8\\n'"
	fi
	must sh -c "echo 1 >$_on"
	wait_until 5 sh -c "[ \"\$(cat /sys/devices/system/cpu/online)\" = 0-3 ]" ||
		fail "CPU $OFF_CPU did not come back online"
	rdn - "$(xf dum0 3)"
	[ "$RD" = "8$NL" ] || fail "after CPU $OFF_CPU came online tx-3 reads '$(show "$RD")', expected '8\\n'"
	# It steers at once, without a new write.
	trace_start dum0
	flood - $OFF_CPU "$DST0" $FLOWS $PKTS && _spec="$OFF_CPU:3:$SENT"
	trace_stop
	steer_check "UDP from CPU $OFF_CPU after it came online" dum0 $NQ 0 "${_spec:-$OFF_CPU:3:1}" &&
		[ "$T_FAIL" = 0 ] && row S11 "$_ra" xps_cpus
}

t_offline_cleanup() {
	echo 1 >/sys/devices/system/cpu/cpu$OFF_CPU/online
	modprobe -r xps_steer
}

# conc_writer FILE N V1 V2...: N rounds of writing V1, V2, ... in turn
# (shell redirection: a fresh open and one write each); prints the number
# of failed writes.
conc_writer() {
	_f=$1 _r=$2 _bad=0
	shift 2
	while [ "$_r" -gt 0 ]; do
		for _v in "$@"; do
			printf '%s\n' "$_v" 2>/dev/null >"$_f" || _bad=$((_bad + 1))
		done
		_r=$((_r - 1))
	done
	echo "$_bad"
}

# Concurrent writers: four on tx-0 (each its own CPU), one on each other
# queue. Every write succeeds, tx-0 ends as one writer's last mask, the
# others as their writer's, and the map then steers by exactly those.
t_concurrent() {
	xps_load dev=dum0 || return
	row_mark
	_pids=
	rm -f "$W"/conc.*
	# Writers pinned to their own CPU (the subshell pins itself: bash's
	# BASHPID; unpinned where there is none).
	for _c in 0 1 2 3; do
		(	[ -z "${BASHPID:-}" ] || taskset -p "$(cpumask $_c)" "$BASHPID" >/dev/null
			conc_writer "$(xf dum0 0)" 50 f "$(cpumask $_c)") >"$W/conc.$_c" 2>&1 &
		_pids="$_pids $!"
	done
	for _q in 1 2 3; do
		(conc_writer "$(xf dum0 $_q)" 50 f 0 "$(cpumask $_q)") >"$W/conc.q$_q" 2>&1 &
		_pids="$_pids $!"
	done
	for _p in $_pids; do
		wait_pid "$_p" 180 || fail "writer $_p: exit $WAIT_RC"
	done
	_bad=$(cat "$W"/conc.* | awk '{ t += $1 } END { print t + 0 }')
	[ "$_bad" = 0 ] || fail "$_bad of 850 concurrent writes failed: $(cat "$W"/conc.* | tr '\n' ' ')"
	_m=$(read_masks dum0 $NQ)
	diag "after 4 x 100 writes to tx-0 and 3 x 150 to tx-1..tx-3, all at once: masks $_m"
	case $_m in
	"1 2 4 8"|"2 2 4 8"|"4 2 4 8"|"8 2 4 8") ;;
	*) fail "masks after concurrent writes read '$_m': tx-0 must hold one writer's last mask (1, 2, 4 or 8), tx-N mask 1<<N" ;;
	esac
	# Steering follows what reads back (tx-0's CPU also names tx-N).
	_tx0=$(cat "$(xf dum0 0)")
	_spec=
	for _c in $CPUS; do
		_in0=$((0x$_tx0 >> _c & 1))
		if [ "$_c" = 0 ]; then
			if [ "$_in0" = 1 ]; then _q=0; else _q='*'; fi
		elif [ "$_in0" = 1 ]; then
			_q="0,$_c"
		else
			_q=$_c
		fi
		_spec="$_spec${_spec:+ }$_c:$_q"
	done
	udp_all - dum0 "$DST0" "$_spec"
	steer_check "UDP after concurrent writes" dum0 $NQ 0 "$SPEC"
	[ "$T_FAIL" = 0 ] && row S12 ok xps_cpus
}

t_concurrent_cleanup() { modprobe -r xps_steer; }

t_final() {
	xps_unload
	[ -e "$XS" ] && fail "$XS exists with the module unloaded"
	dmesg >"$W/dmesg.txt"
	if grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|UBSAN|KASAN|refcount_t' "$W/dmesg.txt" >"$W/bad.txt"; then
		fail "kernel log has warnings:"
		diag_file "$W/bad.txt" 30
	fi
	diag "kernel log: $(grep -c 'xps_steer: .*: attached' "$W/dmesg.txt") attach, $(grep -c 'xps_steer: .*: detached' "$W/dmesg.txt") detach, $(grep -c 'xps_steer: .*refused' "$W/dmesg.txt") refusal lines; no WARNING/BUG"
}

# ----------------------------------------------------------------- main --

T_START=$(date +%s)
echo "TAP version 13"
# The plan is the number of run_test lines below, so it cannot go stale.
echo "1..$(grep -c '^run_test ' "$0")"
diag "kernel $(uname -r), CPUs online: $CPUS(nr_cpu_ids $NR_CPU_IDS)"
if [ "$NR_CPU_IDS" != 4 ] || [ "$NCPU" != 4 ]; then
	echo "Bail out! the suite's masks assume 4 possible and online CPUs"
	exit 1
fi
for _t in xwrite udpflood iperf3 ip ethtool taskset modprobe; do
	command -v "$_t" >/dev/null || diag "WARNING: $_t not found in PATH"
done
trace_setup || diag "WARNING: no tracing: every steering check will fail"

run_test "load/attach: tree tx-0..tx-3 with default masks 0, 'attached' logged" t_load
run_test "1:1 map on dummy: every ICMP/UDP packet from CPU i on queue i" t_map11
run_test "shared map on dummy: packets stay in their CPU's queue set, every queue of it used" t_shared
run_test "unmapped CPUs use stock hashing over all queues, mapped CPU0 stays on queue 0" t_unmapped
run_test "veth across netns: ICMP and pinned TCP, every packet from CPU i on queue i" t_veth
run_test "differential vs kernel XPS: same queue sets per CPU, same read-back" t_diff
run_test "bad input and privileges: same errno as the kernel's file, mask unchanged" t_badinput
run_test "rmmod while TCP runs on every CPU: transfers complete, tree gone" t_rmmod_tcp
run_test "delete an attached device: tree gone, 'detached', rmmod ok" t_delete
run_test "store racing with unregister: delete under looping writers never hangs" t_store_race
run_test "late attach: listed device registering later is attached and steered" t_late
run_test "rename: tree follows the device, masks kept, steering kept" t_rename
run_test "refused devices: single-queue, bond, multiqueue tap, team" t_refused
run_test "queue count change with ethtool -L: never a queue beyond real_num_tx_queues" t_queues
run_test "shrink window: before the tree refresh, no queue >= real_num_tx_queues" t_window
run_test "dev= list validation: invalid lists fail with EINVAL naming the entry" t_params
run_test "socket-cached queue: connected sockets keep it across a CPU move, like kernel XPS" t_sockcache
run_test "offline CPU in a mask: kept and read back, steers once the CPU is online" t_offline
run_test "concurrent writers: every write succeeds, last writes win, steering follows" t_concurrent
run_test "final: module unloads, no kernel warnings" t_final

T_END=$(date +%s)
diag "suite: $N_PASS passed, $N_FAIL failed, $N_SKIP skipped in $((T_END - T_START)) s"
[ "$N_FAIL" = 0 ]
