# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lifecycle.sh - the module and its devices coming and going: rmmod under
# TCP, deleted, late, renamed and refused devices, a device named
# "features", stores racing with unregister.  held_start/held_io are also
# used by queues.sh.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def rmmod_under_tcp "rmmod while TCP runs on every CPU: transfers complete, tree gone"
test_def delete_attached_device "delete an attached device: tree gone, 'detached', rmmod ok"
test_def store_race_unregister "store racing with unregister: delete under looping writers never hangs"
test_def late_attach "late attach: listed device registering later is attached and steered"
test_def rename_follows_device "rename: tree follows the device, masks kept, steering kept"
test_def name_collision_features "a device named 'features' attaches and steers, a rename onto 'features' and back moves the directory, no stale one"
test_def refused_devices "refused devices (single-queue, bond, multiqueue tap, team) and denylisted ones guarded (xfrm, gtp)"

# established_all NS N PORT...: every PORT (decimal, local) has at least N
# established sockets; one read of /proc/net/tcp for all of them.  Ports
# short of N are left in $T8_SHORT.
established_all() {
	local ea_ns ea_need ea_port ea_hex
	ea_ns=$1 ea_need=$2
	shift 2
	in_ns "$ea_ns" cat /proc/net/tcp >"$W/tcp8.txt" || return 1
	T8_SHORT=
	for ea_port in "$@"; do
		ea_hex=$(printf '%04X' "$ea_port")
		[ "$(grep -c "^ *[0-9]*: [0-9A-F]*:$ea_hex [0-9A-F]*:[0-9A-F]* 01 " "$W/tcp8.txt")" -ge "$ea_need" ] ||
			T8_SHORT="$T8_SHORT $ea_port"
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
	local c ports p
	T8_SP=() T8_CP=() T8_SECS=$1
	for c in "${CPUS[@]}"; do
		iperf_server peer "$c" "$DST2" $((5301 + c)) "$W/s8.$c" || return 2
		T8_SP+=("$IPERF_SPID")
		T8_PIDS+=("$IPERF_SPID")
	done
	for c in "${CPUS[@]}"; do
		iperf_client "$c" "$DST2" $((5301 + c)) "$1" "$W/c8.$c" &
		T8_CP+=($!)
		T8_PIDS+=($!)
	done
	ports=()
	for c in "${CPUS[@]}"; do ports+=($((5301 + c))); done
	# wait_until watches the clock (one poll of /proc/net/tcp in the netns
	# can take seconds on the debug kernel); t8_settled does too.
	T8_T0=$SECONDS
	wait_until $((T8_SECS + 30)) t8_settled "${ports[@]}"
	T8_UP=$((SECONDS - T8_T0))
	sleep 0.5
	T8_ALIVE=0
	established_all peer 2 "${ports[@]}" || return 0
	for p in "${T8_CP[@]}"; do kill -0 "$p" 2>/dev/null && T8_ALIVE=$((T8_ALIVE + 1)); done
	return 0
}

# t8_settled PORT...: every connection is up, or a client has exited (then
# they can no longer all be up at the same time).
t8_settled() {
	local p
	established_all peer 2 "$@" && return 0
	for p in "${T8_CP[@]}"; do kill -0 "$p" 2>/dev/null || return 0; done
	[ $((SECONDS - T8_T0)) -ge $((T8_SECS + 30)) ]
}

# t8_reap: wait for every client and server of the last t8_launch; a client
# must exit 0 having sent data.
t8_reap() {
	local c p rc bytes
	c=0
	for p in "${T8_CP[@]}"; do
		wait_pid "$p" $((T8_SECS + 45))
		rc=$?
		bytes=$(iperf_bytes "$W/c8.$c")
		if [ "$rc" != 0 ] || ! [ "$bytes" -gt 0 ] 2>/dev/null; then
			fail "iperf3 client on cpu $c: rc=$rc bytes=$bytes"
			diag_file "$W/c8.$c" 20
		else
			diag "iperf3 on cpu $c: exit 0, $bytes bytes"
		fi
		c=$((c + 1))
	done
	for p in "${T8_SP[@]}"; do
		wait_pid "$p" 10 || fail "iperf3 server (pid $p) exit status $WAIT_RC"
	done
	T8_PIDS=() T8_CP=() T8_SP=()
}

T8_PIDS=() T8_CP=() T8_SP=()
t_rmmod_under_tcp() {
	local secs alive t0 rc t1
	fx_loaded dev=dum0,veth0 || return
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	# Unload only while every client is still transferring. Connections
	# come up at different times; on a slow guest (on the debug kernel,
	# from 16 s to minutes) the first clients can finish before the last one
	# starts, so the round is repeated with longer transfers before anything
	# is unloaded.
	for secs in 12 36 108; do
		t8_launch "$secs" || return
		diag "round of $secs s transfers: after $T8_UP s, $T8_ALIVE of $NCPU clients running with their connections up${T8_SHORT:+ (not up:$T8_SHORT)}"
		[ "$T8_ALIVE" = "$NCPU" ] && break
		t8_reap
		[ "$T_FAIL" = 0 ] || break
	done
	[ "$T8_ALIVE" = "$NCPU" ] ||
		fail "only $T8_ALIVE of $NCPU iperf3 clients running with their connections up at rmmod time"
	alive=$T8_ALIVE
	klog_mark
	t0=$(date +%s)
	modprobe -r xps_steer >"$W/rmmod.out" 2>&1
	rc=$?
	t1=$(date +%s)
	[ "$rc" = 0 ] || { fail "modprobe -r under load failed (rc=$rc)"; diag_file "$W/rmmod.out"; }
	diag "modprobe -r with $alive TCP transfers running: rc=$rc, took $((t1 - t0)) s"
	t8_reap
	if [ -e "$XS" ] || xps_loaded; then
		fail "xps_steer still present after modprobe -r"
	else
		diag "$XS gone after modprobe -r during TCP; log: $(klog_since | grep -c 'xps_steer: .*detached') 'detached' lines"
	fi
	# The hook is gone: CPU0's flows spread over all queues again.
	udp_all - veth0 "$DST2" "0:* 1:* 2:* 3:*"
	steer_check "stock after rmmod" veth0 "$NQ" 1 "$SPEC"
	if ping_ok - "$DST2"; then
		diag "veth0 -> veth1 ping ok after rmmod"
	else
		fail "veth0 -> veth1 ping fails after rmmod"
		diag_file "$W/ping.out"
	fi
}

t_rmmod_under_tcp_cleanup() {	# only if something failed half-way
	local p
	for p in "${T8_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	T8_PIDS=()
}

# fd_open PID PATTERN: process PID has a file matching PATTERN open.
fd_open() {
	local fd
	for fd in "/proc/$1/fd"/*; do
		case $(readlink "$fd" 2>/dev/null) in *"$2"*) return 0 ;; esac
	done
	return 1
}

# held_io ID PID OUT [WANT]: a `xwrite -g` started earlier must print WANT
# (default "err ENODEV": its descriptor outlived the file); catalogue row
# ID on success.
held_io() {
	local r want=${4:-err ENODEV}
	wait_pid "$2" 20
	r=$(cat "$3")
	if [ "$r" = "$want" ]; then
		diag "$1: I/O through a descriptor opened before: '$r'"
		row "$1" "$r" xps_cpus
	else
		fail "$1: I/O through a descriptor opened before gave '$r' (exit $WAIT_RC), expected '$want'"
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

t_delete_attached_device() {
	local pw ow pr or
	fx_suite || return
	ip link del dum9 2>/dev/null
	must ip link add dum9 numtxqueues "$NQ" type dummy || return
	must ip link set dum9 up
	klog_mark
	xps_load dev=dum9 || return
	klog_expect "xps_steer: dum9: attached ($NQ tx queues)"
	expect_tree dum9 "$NQ"
	set_masks dum9 1 2
	# Descriptors opened before the delete, used after it.
	row_mark
	held_start "$XS/dum9" "$(xf dum9 1)"
	pw=$HELD_PID ow=$HELD_OUT
	held_start "$XS/dum9" "$(xf dum9 2)" -R
	pr=$HELD_PID or=$HELD_OUT
	klog_mark
	must ip link del dum9
	if wait_until 2 path_absent "$XS/dum9"; then
		diag "$XS/dum9 gone after ip link del"
	else
		fail "$XS/dum9 still exists after the device was deleted"
	fi
	klog_expect "xps_steer: dum9: detached"
	held_io S04 "$pw" "$ow"
	held_io S05 "$pr" "$or"
	row_mark
	xw - "$(xf dum9 1)" 3
	if [ "$XW" = "err ENOENT" ]; then
		row S06 "$XW" xps_cpus
	else
		fail "write to a deleted device's file gave '$XW', expected 'err ENOENT'"
	fi
	# The name stays listed: a new dum9 is attached afresh.
	must ip link add dum9 numtxqueues "$NQ" type dummy
	if wait_until 2 test -d "$XS/dum9"; then
		expect_tree dum9 "$NQ" && expect_masks dum9 0 0 0 0
	else
		fail "a re-created dum9 was not attached again"
	fi
	# A descriptor held across the module's unload.
	row_mark
	held_start "$XS" "$(xf dum9 0)"
	pw=$HELD_PID ow=$HELD_OUT
	xps_unload && diag "modprobe -r ok, $XS gone"
	held_io S08 "$pw" "$ow"
	must ip link del dum9
}

t_delete_attached_device_cleanup() { ip link del dum9; }

# mask_writer DEV Q: rewrite and read back tx-Q until the file goes away.
mask_writer() {
	while cpumask "$2" >"$(xf "$1" "$2")"; do
		cat "$(xf "$1" "$2")" >/dev/null || break
	done 2>/dev/null
}

# Stores racing with unregistration must never deadlock: the device is
# deleted while a writer loops on each of its queues.
t_store_race_unregister() {
	local round q p
	local -a pids
	fx_suite || return
	ip link del dumz 2>/dev/null
	xps_load dev=dumz || return
	row_mark
	round=0
	while [ $round -lt 20 ] && [ "$T_FAIL" = 0 ]; do
		must ip link add dumz numtxqueues "$NQ" type dummy || return
		if ! wait_until 2 test -e "$(xf dumz $((NQ - 1)))"; then
			fail "round $round: dumz was not attached"
			return
		fi
		pids=()
		for q in $(seq 0 $((NQ - 1))); do
			mask_writer dumz "$q" &
			pids+=($!)
		done
		sleep 0.1
		timeout 20 ip link del dumz ||
			fail "round $round: ip link del dumz failed or hung (rc=$?)"
		for p in "${pids[@]}"; do
			wait_pid "$p" 10 || [ "$WAIT_RC" != 124 ] ||
				fail "round $round: a writer was still running 10 s after the delete"
		done
		round=$((round + 1))
	done
	diag "$round rounds: dumz deleted under $NQ looping writers each time"
	[ "$T_FAIL" = 0 ] && row S07 "no hang" xps_cpus
	xps_unload
}

t_store_race_unregister_cleanup() { ip link del dumz; }

t_late_attach() {
	fx_suite || return
	ip link del late0 2>/dev/null
	ip -n peer link del late0 2>/dev/null
	klog_mark
	row_mark
	xps_load dev=late0 || return
	klog_expect "xps_steer: late0: not present, will attach when it registers" &&
		row P18 loaded
	expect_no_tree late0
	# Names are looked up in the initial netns only.
	row_mark
	must ip -n peer link add late0 numtxqueues "$NQ" type dummy
	sleep 0.2
	expect_no_tree late0 && diag "late0 created in netns peer: not attached" &&
		row P19 "not attached"
	must ip link add late0 numtxqueues "$NQ" numrxqueues "$NQ" type dummy || return
	must ip addr add 10.9.3.1/24 dev late0
	must ip link set late0 up
	if ! wait_until 2 test -d "$XS/late0"; then
		fail "late0 registered but $XS/late0 did not appear"
		return
	fi
	klog_expect "xps_steer: late0: attached ($NQ tx queues)"
	expect_tree late0 "$NQ" || return
	expect_masks late0 0 0 0 0
	map11 "$NQ"
	set_masks late0 "${MAP[@]}" || return
	udp_all - late0 10.9.3.2 "0:0 1:1 2:2 3:3"
	steer_check UDP late0 "$NQ" 0 "$SPEC"
}

t_late_attach_cleanup() {
	ip link del late0
	ip -n peer link del late0
	modprobe -r xps_steer
}

t_rename_follows_device() {
	fx_suite || return
	ip link del dumq 2>/dev/null
	ip link del dumt 2>/dev/null
	klog_mark
	xps_load dev=dum0,dumt || return
	klog_expect "xps_steer: dum0: attached ($NQ tx queues)"
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
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
	expect_tree dumr "$NQ" || return
	expect_masks dumr "${MAP[@]}"
	udp_all - dumr "$DST0" "0:0 1:1 2:2 3:3"
	steer_check "UDP after rename" dumr "$NQ" 0 "$SPEC"
	must ip link set dumr down
	must ip link set dumr name dum0
	must ip link set dum0 up
	expect_no_tree dumr
	expect_tree dum0 "$NQ" && expect_masks dum0 "${MAP[@]}"
	# Renamed TO a listed name: attached then.
	must ip link add dumq numtxqueues "$NQ" type dummy || return
	sleep 0.2
	expect_no_tree dumq
	klog_mark
	must ip link set dumq name dumt
	if wait_until 2 test -d "$XS/dumt"; then
		expect_tree dumt "$NQ"
		klog_expect "xps_steer: dumt: attached ($NQ tx queues)"
	else
		fail "dumq renamed to the listed name dumt was not attached"
	fi
}

t_rename_follows_device_cleanup() {
	if [ -e /sys/class/net/dumr ]; then
		ip link set dumr down
		ip link set dumr name dum0
		ip link set dum0 up
	fi
	ip link del dumq
	ip link del dumt
	modprobe -r xps_steer
}

# The module's own files are not in the namespace of device names: a
# device may be called "features" (the compat probe results file's name),
# at load and by a rename.
t_name_collision_features() {
	local m0
	fx_suite || return
	kmsg_mark coll
	m0=$MARK
	ip link del features 2>/dev/null
	must ip link add features numtxqueues "$NQ" numrxqueues "$NQ" type dummy || return
	must ip addr add 10.9.7.1/24 dev features
	must ip link set features up || return
	klog_mark
	xps_load_row P25 dev=features || return
	klog_expect "xps_steer: features: attached ($NQ tx queues)"
	expect_tree features "$NQ"
	expect_xps_names features
	features_ok
	map11 "$NQ"
	if set_masks features "${MAP[@]}"; then
		expect_masks features "${MAP[@]}"
		udp_all - features 10.9.7.2 "0:0 1:1 2:2 3:3"
		steer_check "UDP on a device named features" features "$NQ" 0 "$SPEC"
	fi
	xps_unload
	must ip link del features
	# An attached device renamed onto "features", and back.
	klog_mark
	xps_load dev=dum0 || return
	set_masks dum0 "${MAP[@]}" || return
	must ip link set dum0 down
	must ip link set dum0 name features || return
	must ip link set features up
	expect_xps_names features
	expect_tree features "$NQ" && expect_masks features "${MAP[@]}"
	features_ok
	must ip link set features down
	must ip link set features name dum0
	must ip link set dum0 up
	expect_xps_names dum0
	expect_tree dum0 "$NQ" && expect_masks dum0 "${MAP[@]}"
	if log_after "$m0" | grep -E "duplicate filename|Call Trace|xps_steer: .*(cannot|out of memory|\(-12\))" >"$W/coll.txt"; then
		fail "kernel log since the test started:"
		diag_file "$W/coll.txt" 20
	fi
	xps_unload
}

t_name_collision_features_cleanup() {
	if [ -e /sys/class/net/features ] && [ ! -e /sys/class/net/dum0 ]; then
		ip link set features down
		ip link set features name dum0
		ip link set dum0 up
	fi
	ip link del features
	modprobe -r xps_steer
}

t_refused_devices() {
	local d dst n gtp=
	# s0, bond0 and xfrm9 exist before the load, tap0, team0 and gtp9
	# register after it (both attach paths must refuse).
	fx_suite || return
	refused_del
	must ip link add s0 type dummy || return
	must ip addr add 10.9.4.1/24 dev s0
	must ip link set s0 up
	modprobe bonding max_bonds=0 >/dev/null 2>&1
	must ip link add bond0 type bond || return
	must ip link add bs0 type dummy
	must ip link set bs0 master bond0
	must ip addr add 10.9.5.1/24 dev bond0
	must ip link set bond0 up
	# An xfrm interface with 4 queues: no ndo_select_queue of its own,
	# so only the denylist keeps it from steer mode (xfrmi_decode_session()
	# compares netdev_ops): it is guarded.
	modprobe xfrm_interface >/dev/null 2>&1
	must ip link add xfrm9 numtxqueues 4 type xfrm dev lo if_id 9 || return
	# /dev/net/tun appears (devtmpfs) only once tun is loaded: no udev here.
	modprobe tun >/dev/null 2>&1
	klog_mark
	row_mark
	xps_load dev=s0,bond0,tap0,team0,xfrm9,gtp9 || return
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
	# A gtp device with 4 queues (gtp_find_dev() compares netdev_ops):
	# guarded too.
	# iproute2 has the kernel open the GTP sockets itself
	# (IFLA_GTP_CREATE_SOCKETS), so no GTP daemon is needed. Kernels
	# without that attribute (5.10 has none, 6.1 has it) want the UDP
	# sockets of a GTP daemon (IFLA_GTP_FD0/FD1), which ip cannot pass.
	modprobe gtp >/dev/null 2>&1
	if ip link add gtp9 numtxqueues 4 type gtp role sgsn >"$W/gtp.out" 2>&1; then
		gtp=gtp9
	elif [ "$(printf '%s\n' 6.1 "$(uname -r)" | sort -V | head -n 1)" != 6.1 ]; then
		diag "gtp9 not checked: this kernel's gtp cannot open its own sockets: $(cat "$W/gtp.out")"
	else
		fail "ip link add gtp9 numtxqueues 4 type gtp role sgsn failed"
		diag_file "$W/gtp.out"
	fi
	klog_expect "xps_steer: s0: refused: single-queue device" &&
		expect_no_tree s0 && row P20 loaded 'xps_steer: s0: '
	klog_expect "xps_steer: bond0: refused: its driver picks queues without the kernel's XPS map (driver bond:"
	klog_expect "xps_steer: tap0: refused: its driver picks queues without the kernel's XPS map (driver tun:"
	klog_expect "xps_steer: team0: refused: its driver picks queues without the kernel's XPS map (driver team:"
	klog_expect "xps_steer: xfrm9: attached in guard mode: a copy of its ops would break its driver (driver xfrm:"
	[ -z "$gtp" ] ||
		klog_expect "xps_steer: gtp9: attached in guard mode: a copy of its ops would break its driver (driver gtp:"
	for d in xfrm9 $gtp; do
		n=$(txq_count "$d")
		[ "$n" -ge 2 ] || fail "$d has $n tx queues: its guard mode proves nothing about the denylist"
		if [ "$(cat "$XS/$d/mode" 2>&1)" = guard ]; then
			diag "$d: $(txq_count "$d") tx queues, guarded"
		else
			fail "$d: mode '$(cat "$XS/$d/mode" 2>&1)', expected guard"
		fi
	done
	for d in s0 bond0 tap0 team0; do
		expect_no_tree "$d"
		diag "$d: $(txq_count "$d") tx queues, no tree"
	done
	# Still transmit (the hook must not be half-installed).
	for d in bond0:10.9.5.2 tap0:10.9.6.2 team0:10.9.7.2; do
		must ip neigh replace "${d#*:}" lladdr 02:00:00:00:00:01 nud permanent dev "${d%:*}"
	done
	trace_start s0 bond0 bs0 tap0 team0
	for dst in 10.9.4.2 10.9.5.2 10.9.6.2 10.9.7.2; do
		flood - 0 "$dst" 4 20
	done
	trace_stop
	for d in s0 bond0 bs0 tap0 team0; do
		n=$(trace_table "$d" | awk '{ t += $3 } END { print t + 0 }')
		if [ "$n" -lt 20 ]; then
			fail "$d transmitted $n packets, expected at least 20"
		else
			diag "$d transmitted $n packets"
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

# refused_del: the devices of refused_devices, gone.
refused_del() {
	local d
	for d in gtp9 xfrm9 team0 tap0 bond0 bs0 s0; do ip link del "$d" 2>/dev/null; done
	ip tuntap del dev tap0 mode tap multi_queue 2>/dev/null
}

TAPQ_PID=
t_refused_devices_cleanup() {
	[ -z "$TAPQ_PID" ] || kill "$TAPQ_PID"
	modprobe -r xps_steer
	refused_del
}
