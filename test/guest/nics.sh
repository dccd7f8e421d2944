#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nics.sh - the real-NIC-driver lane (test/check-nics.sh), run in a guest
# whose only NIC is driven by a real driver; KTAP output, one line per
# test, tests named nic_<driver>_<test> and declared with test_def (the
# runner and helpers in lib.sh).
#
# Usage (in the guest): nics.sh DRIVER [T=name[,name...]]
#   DRIVER: virtio (virtio-net, 4 queue pairs on a host multi_queue tap),
#   vmxnet3, igb. T= runs just these tests of DRIVER, in the order given
#   (default: all of them, in the order below); nics.sh --list prints the
#   names of every driver's tests. An unknown name is a "Bail out!", exit 1.
# Each test sets up its own fixture (fx_nic, fx_attached: idempotent), so
# any subset runs alone or in any order.
#
# Per-packet oracle: the net/net_dev_start_xmit tracepoint records every
# frame handed to the driver, with the CPU that handed it over (the [00N]
# column) and its queue_mapping. A real NIC has a qdisc (mq, one child each),
# so a frame chosen a queue by its sender's CPU can be handed to the driver
# later by another CPU (a qdisc run from a softirq or a TX completion): the
# sender is therefore also identified by the frame's length (the sender
# pinned with taskset to CPU c sends UDP payloads of BASE+c bytes), and
# every check is on the sender. How many frames the CPU column put on
# another CPU is printed.
#
# Traffic goes to a made-up neighbour (static ARP entry) on the guest's
# own subnet: frames only need to be transmitted; the host side (a tap
# without an address, or QEMU's user backend with restrict=on) drops them.
# Exit status: 0 iff every selected test passed (skips excepted).

NIC_DRIVERS=(virtio vmxnet3 igb)
# The tests of each driver, in order, and what each proves.
NIC_TESTS=(probe stock attach steer rmmod_traffic reload channels keeps_map guard_keeps_map guard_hotplug_loop final)
declare -A NIC_DESC=(
	[probe]="the driver loads, the NIC appears and gets carrier; its queues"
	[stock]="without xps_steer every frame is seen, and the 1:1 map is not what happens anyway"
	[attach]="modprobe xps_steer dev=eth0 attaches with the driver's queue count, masks empty"
	[steer]="1:1 and shared maps steer every frame of every CPU"
	[rmmod_traffic]="modprobe -r xps_steer under traffic from every CPU"
	[reload]="rmmod/modprobe of the driver: detached, attached again, steering again"
	[channels]="ethtool -L shrink under traffic and grow back"
	[keeps_map]="a map survives CPU hotplug and ethtool -L per packet; virtio-net resets the kernel's own xps_cpus with the same map"
	[guard_hotplug_loop]="guard mode (guard_interval_ms=200) under 20 CPU hotplug events in a row: afterwards the kernel's files read the map and every frame follows it; at most one restore per event plus one per check period (never a busy loop); on virtio-net, which rewrites its map on each, fights counted"
	[guard_keeps_map]="guard mode (dev=eth0:guard), the 1:1 map: after CPU offline, online and ethtool -L one queue fewer and back the kernel's own files read the map again; frames off the map in each window counted; every frame after the restore on the map"
	[final]="the module unloads, no kernel warning"
)

HERE=$(dirname "$0")
[ -r "$HERE/lib.sh" ] || HERE=/test
# shellcheck source=lib.sh
. "$HERE/lib.sh"

DRV=
case ${1:-} in
--list) ;;
virtio | vmxnet3 | igb) DRV=$1 && shift ;;
*)	echo "Bail out! usage: nics.sh virtio|vmxnet3|igb [T=name[,name...]], or nics.sh --list"
	exit 1 ;;
esac
# nic_<driver>_<test> runs nic_<test>; a guest knows its own driver's only.
drivers=("${NIC_DRIVERS[@]}")
[ -z "$DRV" ] || drivers=("$DRV")
for d in "${drivers[@]}"; do
	for t in "${NIC_TESTS[@]}"; do
		test_def "nic_${d}_$t" "$d: ${NIC_DESC[$t]}"
		eval "t_nic_${d}_$t() { nic_test $t; }"
	done
done
suite_args "$@"
case $? in 0) ;; 2) exit 0 ;; *) exit 1 ;; esac

DEV=eth0
ADDR=10.9.0.1
DST=10.9.0.2
DMAC=02:00:00:00:00:02
PKTS=200	# datagrams per CPU and check
FLOWS=64	# flows per sender: hashing can reach every queue of a set
BASE=200	# UDP payload of CPU c: BASE + c bytes
FRAME=$((BASE + 42))	# Ethernet + IPv4 + UDP headers
NQ=0		# TX queues the driver exposes once up (fx_nic)
NQ_DOWN=0	# ... and before it was first opened
NQ_MAX=0	# num_tx_queues: xps_steer has a tx-<n> for each

case $DRV in
virtio)	MODS=(virtio_pci virtio_net) RELOAD=virtio_net ;;
vmxnet3) MODS=(vmxnet3) RELOAD=vmxnet3 ;;
igb)	MODS=(igb) RELOAD=igb ;;
esac

carrier_up() { [[ $(cat "/sys/class/net/$DEV/carrier" 2>/dev/null) == 1 ]]; }

# link_steady: carrier and operstate up, and no carrier change for
# SETTLE_S seconds. Carrier alone is not enough after a driver reset: the
# qdiscs are re-activated later (linkwatch, up to a second), and igb under
# QEMU can lose the link again right after it came back (its watchdog then
# resets the device, dropping what was queued). LINK_SEEN holds the last
# carrier_changes value and when it was first seen, so on a steady link
# the wait costs nothing after the first SETTLE_S seconds.
SETTLE_S=3
LINK_SEEN=
link_steady() {
	local d=/sys/class/net/$DEV changes now
	carrier_up && [[ $(cat "$d/operstate" 2>/dev/null) == up ]] || return 1
	changes=$(cat "$d/carrier_changes" 2>/dev/null) || return 1
	now=$(now_ms)
	if [[ ${LINK_SEEN% *} != "$changes" ]]; then
		LINK_SEEN="$changes $now"
		return 1
	fi
	((now - ${LINK_SEEN#* } >= SETTLE_S * 1000))
}

# wait_link: link_steady within 60 s, else a failure naming the state.
wait_link() {
	local d=/sys/class/net/$DEV
	wait_until 60 link_steady && return 0
	fail "$DEV: link not steady 60 s after $1 (carrier $(cat "$d/carrier" 2>/dev/null)," \
		"operstate $(cat "$d/operstate" 2>/dev/null), carrier changes $(cat "$d/carrier_changes" 2>/dev/null))"
	return 1
}

# nic_test NAME: runs nic_NAME. If it failed, the kernel's lines about the
# NIC since it began are shown (a mark of its own: tests move KMARK), so a
# driver's own resets and TX hangs are on record. If the driver's TX
# watchdog fired meanwhile (a "transmit queue N timed out" line: a queue
# the device stopped serving, then a device reset that drops what was
# queued; seen with igb and virtio-net under QEMU, also without
# xps_steer, see docs/testing.md), the test runs once more, saying so; a
# second failure stands.
nic_test() {
	local attempt name=nic_${DRV}_$1
	for attempt in 1 2; do
		kmsg_mark nic
		NIC_MARK=$MARK
		"nic_$1"
		((T_FAIL == 0)) && return
		diag "kernel lines about $DEV since $name began (carrier changes now $(cat "/sys/class/net/$DEV/carrier_changes" 2>/dev/null)):"
		log_after "$NIC_MARK" | grep -E "$DEV|$DRV|NETDEV|xps_steer" | tail -n 30 | sed 's/^/#   /'
		((attempt == 1)) || return
		log_after "$NIC_MARK" | grep -q 'transmit queue [0-9]* timed out' || return
		diag "RETRY: $DEV's TX watchdog fired during $name (the driver reset the device): $name once more"
		T_FAIL=0
		T_SKIP=
	done
}

dev_present() { [[ -d /sys/class/net/$DEV ]]; }
dev_is_up() { (($(cat "/sys/class/net/$DEV/flags") & 1)); }

# qdisc_drained: nothing left queued on DEV (root mq and its children).
qdisc_drained() {
	tc -s qdisc show dev "$DEV" | awk '/backlog/ && $3 != "0p" { bad = 1 } END { exit bad }'
}

# nic_up: address, link up, the made-up neighbour, carrier. IPv6 off, so
# no router solicitations or MLD reports in the traces.
nic_up() {
	echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
	echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
	[[ -e /proc/sys/net/ipv6/conf/$DEV ]] && echo 1 >"/proc/sys/net/ipv6/conf/$DEV/disable_ipv6"
	must ip addr replace "$ADDR/24" dev "$DEV" || return 1
	must ip link set "$DEV" up || return 1
	must ip neigh replace "$DST" lladdr "$DMAC" dev "$DEV" nud permanent || return 1
	wait_link "ip link set $DEV up"
}

# tbl_from_trace FILE [MARK]: sender_table of DEV's frames of ours.
tbl_from_trace() { sender_table "$DEV" "$FRAME" "$1" "${2:-}"; }

# send_all: every CPU sends PKTS datagrams over FLOWS flows, pinned; the
# trace is saved once the qdisc has drained; $W/tbl is the sender x queue
# table and SENT_BY[c] what CPU c's sender reports sent.
SENT_BY=()
send_all() {
	local cpu
	trace_start "$DEV"
	for cpu in "${CPUS[@]}"; do
		flood - "$cpu" "$DST" "$FLOWS" "$PKTS" -s $((BASE + cpu)) || { trace_stop; return 1; }
		SENT_BY[cpu]=$SENT
	done
	wait_until 10 qdisc_drained || diag "note: $DEV's qdisc still holds packets 10 s after the senders ended"
	trace_stop
	tbl_from_trace "$W/trace.txt" >"$W/tbl"
	diag "sender CPU x queue, frames of $FRAME+cpu bytes ($MOVED of them handed to the driver by another CPU than the sender):"
	tbl_matrix "$W/tbl" "$(txq_count "$DEV")"
	return 0
}

# spec_of QUEUES-FN: "cpu:queues:sent ..." for check_tbl, QUEUES-FN CPU
# printing the allowed queues of CPU.
spec_of() {
	local cpu out=''
	for cpu in "${CPUS[@]}"; do
		out+="$cpu:$("$1" "$cpu"):${SENT_BY[cpu]:-1} "
	done
	echo "${out% }"
}

# The 1:1 map: CPU c -> queue NQ-1-c (mod NQ). Reversed, so that it is not
# virtio-net's own XPS map (CPU c -> queue c): stock selection never
# passes for it, and its return after the unload can be seen.
rev_queue() { echo $(((NQ - 1 - $1 % NQ + NQ) % NQ)); }
# The shared map: CPU c -> queues {2c, 2c+1} (mod NQ): two queues each, so
# both must carry packets (a hook taking only a CPU's first queue fails).
pair_queues() { local q=$((2 * $1 % NQ)); echo "$q,$(((q + 1) % NQ))"; }
any_queue() { echo '*'; }
# After a shrink to NEWQ queues: the mapped queue if it is still there,
# else any queue below NEWQ (stock selection).
shrunk_queues() {
	local q out=''
	q=$(rev_queue "$1")
	if ((q < NEWQ)); then
		echo "$q"
		return
	fi
	for ((q = 0; q < NEWQ; q++)); do out+="${out:+,}$q"; done
	echo "$out"
}

# masks_of QUEUES-FN: the xps_cpus masks (tx-0 ... tx-NQ-1) giving each
# online CPU the queues QUEUES-FN names.
masks_of() {
	local -a m=()
	local cpu q out=''
	for ((q = 0; q < NQ; q++)); do m[q]=0; done
	for cpu in "${CPUS[@]}"; do
		for q in $("$1" "$cpu" | tr ',' ' '); do
			m[q]=$((m[q] | 1 << cpu))
		done
	done
	for ((q = 0; q < NQ; q++)); do out+="$(printf '%x' "${m[q]}") "; done
	echo "${out% }"
}

# nic_check SPEC LABEL [ALL]: check_tbl on $W/tbl; with ALL=1 every allowed
# queue of a CPU must have carried a frame.
nic_check() {
	local rc
	check_tbl "$W/tbl" "$(txq_count "$DEV")" 0 "${3:-0}" "$1" >"$W/chk.out"
	rc=$?
	awk -v p="# $2: " '{ print p $0 }' "$W/chk.out"
	((rc == 0)) || fail "$2: per-packet check failed (spec: $1)"
	return "$rc"
}

# steer_map QUEUES-FN LABEL [ALL]: write the map, read it back, send from
# every CPU, check every frame.
steer_map() {
	local -a masks
	read -r -a masks <<<"$(masks_of "$1")"
	set_masks "$DEV" "${masks[@]}" || return 1
	expect_masks "$DEV" "${masks[@]}" || return 1
	send_all || return 1
	nic_check "$(spec_of "$1")" "$2" "${3:-0}"
}

# no_splat: no kernel warning or queue capping logged since the mark.
no_splat() {
	local bad
	bad=$(klog_since | grep -E "$SPLAT_RE|selects TX queue|asks to queue packet" | head -n 5)
	[[ -z $bad ]] && return 0
	fail "the kernel logged, since the test started:"
	diag "$bad"
	return 1
}

# channel_kind: the ethtool -l kind of channel this driver changes:
# combined or tx (nothing if it has no count above 1).
channel_kind() {
	ethtool -l "$DEV" 2>/dev/null | awk '
		/^Pre-set maximums/ { p = 1 } /^Current hardware/ { p = 0 }
		p && /^Combined:/ && $2 + 0 > 1 { print "combined"; exit }
		p && /^TX:/ && $2 + 0 > 1 { print "tx"; exit }'
}

# fx_nic_up: the driver loaded, DEV there, addressed and up with carrier.
# The first time DEV is seen down, its queue count is NQ_DOWN; the first
# time it is up, NQ (and a "# nic:" line for check-nics.sh). A count an
# earlier test left changed (ethtool -L) is put back.
fx_nic_up() {
	local m kind
	if ! dev_present; then
		for m in "${MODS[@]}"; do
			must modprobe "$m" || return 1
		done
		if ! wait_until 20 dev_present; then
			fail "no $DEV after modprobe ${MODS[*]}"
			diag "  /sys/class/net holds: $(cd /sys/class/net && echo *)"
			return 1
		fi
	fi
	# Some drivers (igb) register with their maximum and set the real
	# count when the device is opened: count the queues once it is up.
	if ((NQ_DOWN == 0)) && ! dev_is_up; then
		NQ_DOWN=$(txq_count "$DEV")
	fi
	nic_up || return 1
	NQ_MAX=$(ip -d link show dev "$DEV" | sed -n 's/.* numtxqueues \([0-9]*\) .*/\1/p')
	if ((NQ == 0)); then
		NQ=$(txq_count "$DEV")
		diag "nic: driver=$DRV txqs=$NQ rxqs=$(find "/sys/class/net/$DEV/queues" -maxdepth 1 -name 'rx-*' | wc -l)"
	elif (($(txq_count "$DEV") != NQ)); then
		kind=$(channel_kind)
		diag "$DEV has $(txq_count "$DEV") tx queues (an earlier test?): ethtool -L $DEV $kind $NQ"
		must ethtool -L "$DEV" "$kind" "$NQ" && must ip link set "$DEV" down || return 1
		nic_up || return 1
	fi
}

# fx_nic: fx_nic_up, and at least 2 queues to steer (else the test is
# skipped).
fx_nic() {
	fx_nic_up || return 1
	if ((NQ < 2)); then
		skip "$DEV exposes $NQ tx queue(s): nothing to steer"
		return 1
	fi
}

# fx_attached: fx_nic, xps_steer loaded with dev=DEV and DEV's tree there
# (a tx-<n> for each of num_tx_queues, active or not).
fx_attached() {
	fx_nic || return 1
	if ! xps_loaded; then
		xps_load "dev=$DEV" || return 1
	fi
	expect_tree "$DEV" "$NQ_MAX"
}

attach_line() { klog_since | grep -E "xps_steer: $DEV: (attached|refused|not attached)" | tail -n 1; }

# ---------------------------------------------------------------- tests --

nic_probe() {
	local drv
	fx_nic_up || return
	drv=$(basename "$(readlink "/sys/class/net/$DEV/device/driver" 2>/dev/null)")
	diag "$DEV: driver $drv, $NQ_DOWN tx queues while down, $NQ once up: $(cd "/sys/class/net/$DEV/queues" && echo *)"
	ethtool -l "$DEV" 2>&1 | sed 's/^/#   /'
	tc qdisc show dev "$DEV" | head -n 3 | sed 's/^/#   /'
	[[ -d $EV ]] || fail "no tracepoint $EV"
}

nic_stock() {
	fx_nic && xps_unload || return
	send_all || return
	# Everything was transmitted: the counts below are not empty by accident.
	nic_check "$(spec_of any_queue)" "stock selection, every frame seen" || return
	# The map the tests use must not be what happens anyway.
	if check_tbl "$W/tbl" "$NQ" 0 0 "$(spec_of rev_queue)" >/dev/null; then
		fail "without xps_steer every frame already follows CPU c -> queue NQ-1-c: the steering check could not fail"
	else
		diag "stock selection is not the 1:1 map used below (as it must not be)"
	fi
}

nic_attach() {
	local line
	fx_nic && xps_unload || return
	klog_mark
	xps_load "dev=$DEV" || return
	line=$(attach_line)
	diag "dmesg: ${line:-(no attach line)}"
	diag "nic: driver=$DRV xps_steer=${line#*"$DEV": }"
	case $line in
	*"$DEV: attached ($NQ_MAX tx queues)"*) ;;
	*) fail "expected '$DEV: attached ($NQ_MAX tx queues)' (num_tx_queues)"; return ;;
	esac
	expect_tree "$DEV" "$NQ_MAX" || return
	expect_empty_masks "$NQ_MAX"
}

# expect_empty_masks [N]: the first N (default NQ) xps_cpus files of DEV
# read 0.
expect_empty_masks() {
	local -a masks=()
	local i
	for ((i = 0; i < ${1:-$NQ}; i++)); do masks+=(0); done
	expect_masks "$DEV" "${masks[@]}"
}

nic_steer() {
	fx_attached || return
	steer_map rev_queue "1:1 map, CPU c -> queue NQ-1-c" || return
	steer_map pair_queues "shared map, CPU c -> queues 2c,2c+1 (both used)" 1
}

# bg_sender CPU: run pinned to CPU, bursts of 20 datagrams until $W/stop
# exists; the number of bursts sent so far in $W/bg.<cpu>.n, what was sent
# in $W/bg.<cpu> at the end.
bg_sender() {
	local cpu=$1 n=0 bursts=0 s
	while [[ ! -e $W/stop ]]; do
		s=$(udpflood -d "$DST" -p 9000 -f 16 -n 20 -s $((BASE + cpu)) 2>&1 |
			awk '/^udpflood: sent/ { print $3 }')
		if ((${s:-0} > 0)); then
			n=$((n + s))
			bursts=$((bursts + 1))
			echo "$bursts" >"$W/bg.$cpu.n"
		fi
		sleep 0.05
	done
	echo "$n" >"$W/bg.$cpu"
}

bursts_of() { cat "$W/bg.$1.n" 2>/dev/null || echo 0; }

# senders_past [N...]: each CPU's sender has sent more bursts than the
# number given for it (in CPUS order; none given: 0).
senders_past() {
	local cpu i=0
	local -a past=("$@")
	for cpu in "${CPUS[@]}"; do
		(($(bursts_of "$cpu") > past[i++])) || return 1
	done
}

# under_traffic CMD...: a sender per CPU (bg_sender) into a trace of DEV;
# once all have sent, a second later, CMD runs between the trace markers
# XPS_NICS_CMD_START and XPS_NICS_CMD_DONE, the senders go on for 2 s
# more and until each has sent two more bursts (a busy host can starve a
# vCPU for seconds), then stop; the trace is saved once the qdisc drained.
# CMD's status in UT_RC, its output in $W/ut.out, its time in UT_MS.
under_traffic() {
	local cpu pid pids=() t0 err=0
	local -a done_at=()
	rm -f "$W/stop" "$W"/bg.*
	trace_start "$DEV"
	export W DST BASE
	export -f bg_sender
	for cpu in "${CPUS[@]}"; do
		# shellcheck disable=SC2016 # $1 is the child shell's argument
		taskset -c "$cpu" bash -c 'bg_sender "$1"' bg_sender "$cpu" &
		pids+=($!)
	done
	wait_until 60 senders_past || fail "the senders did not all start within 60 s"
	sleep 1
	echo XPS_NICS_CMD_START >"$TR/trace_marker"
	t0=${EPOCHREALTIME/./}
	"$@" >"$W/ut.out" 2>&1
	UT_RC=$?
	UT_MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
	echo XPS_NICS_CMD_DONE >"$TR/trace_marker"
	for cpu in "${CPUS[@]}"; do done_at+=($(($(bursts_of "$cpu") + 1))); done
	sleep 2
	wait_until 30 senders_past "${done_at[@]}" ||
		fail "a sender sent fewer than two bursts in the 30 s after the command"
	touch "$W/stop"
	for pid in "${pids[@]}"; do
		wait_pid "$pid" 30 || err=1
	done
	wait_until 10 qdisc_drained
	trace_stop
	((err == 0)) || fail "a background sender did not stop"
}

# bg_sent CPU: what CPU's background sender sent.
bg_sent() { cat "$W/bg.$1" 2>/dev/null || echo 0; }

# every_cpu QUEUES-FN MIN: "cpu:queues:MIN ..." for check_tbl.
every_cpu() {
	local cpu out=''
	for cpu in "${CPUS[@]}"; do out+="$cpu:$("$1" "$cpu"):$2 "; done
	echo "${out% }"
}

nic_rmmod_traffic() {
	local cpu sent seen
	local -a masks
	fx_attached || return
	read -r -a masks <<<"$(masks_of rev_queue)"
	set_masks "$DEV" "${masks[@]}" || return
	klog_mark
	under_traffic modprobe -r xps_steer
	diag "modprobe -r xps_steer under traffic: rc $UT_RC, $UT_MS ms"
	((UT_RC == 0)) || { fail "modprobe -r xps_steer under traffic failed (rc=$UT_RC)"; diag_file "$W/ut.out"; }
	path_absent "$XS" || fail "$XS still exists after modprobe -r"
	klog_expect "$DEV: detached"
	no_splat
	# Before the unload every frame followed the map; after it every CPU
	# still sent; everything sent was transmitted.
	sed -n '/XPS_NICS_CMD_START/q;p' "$W/trace.txt" >"$W/trace.before"
	tbl_from_trace "$W/trace.before" >"$W/tbl"
	diag "before the unload:"
	tbl_matrix "$W/tbl" "$NQ"
	nic_check "$(every_cpu rev_queue 1)" "before modprobe -r"
	tbl_from_trace "$W/trace.txt" XPS_NICS_CMD_DONE >"$W/tbl"
	diag "after the unload ($MOVED handed over by another CPU):"
	tbl_matrix "$W/tbl" "$NQ"
	nic_check "$(every_cpu any_queue 1)" "traffic continues after modprobe -r"
	tbl_from_trace "$W/trace.txt" >"$W/tbl"
	for cpu in "${CPUS[@]}"; do
		sent=$(bg_sent "$cpu")
		seen=$(awk -v c="$cpu" '$1 == c { t += $3 } END { print t + 0 }' "$W/tbl")
		diag "cpu$cpu: sent $sent, transmitted $seen"
		((seen >= sent && sent > 0)) || fail "cpu$cpu: $seen frames seen of $sent sent"
	done
	# Stock selection is back: every CPU has frames off its mapped queue.
	send_all || return
	for cpu in "${CPUS[@]}"; do
		if check_tbl "$W/tbl" "$NQ" 0 0 "$cpu:$(rev_queue "$cpu"):1" >/dev/null; then
			fail "cpu$cpu: after the unload every frame still on queue $(rev_queue "$cpu")"
		fi
	done
	nic_check "$(spec_of any_queue)" "after the unload, every frame seen"
}

nic_reload() {
	local line
	fx_nic || return
	klog_mark
	xps_load "dev=$DEV" || return
	steer_map rev_queue "before the driver reload" || return
	klog_mark
	must rmmod "$RELOAD" || return
	wait_until 10 path_absent "/sys/class/net/$DEV" || { fail "$DEV still there after rmmod $RELOAD"; return; }
	klog_expect "$DEV: detached"
	expect_no_tree "$DEV"
	[[ -d $XS ]] || fail "$XS went away with the device"
	xps_loaded || fail "xps_steer was unloaded with the driver"
	no_splat
	klog_mark
	must modprobe "$RELOAD" || return
	wait_until 20 dev_present || { fail "no $DEV after modprobe $RELOAD"; return; }
	line=$(attach_line)
	diag "dmesg after modprobe $RELOAD: ${line:-(no attach line)}"
	# Attached when it registers, a tx-<n> for each of num_tx_queues
	# (igb sets the real count only when opened).
	klog_expect "$DEV: attached ($NQ_MAX tx queues)" || return
	expect_tree "$DEV" "$NQ_MAX" || return
	# A new device: the module's masks start empty again.
	expect_empty_masks "$NQ_MAX" || return
	nic_up || return
	expect_tree "$DEV" "$NQ_MAX" || return
	expect_empty_masks "$NQ_MAX" || return
	steer_map rev_queue "after the driver reload, map re-written" || return
	no_splat
}

# shrink KIND: ethtool -L DEV KIND NEWQ, then wait for the link; 3 if
# ethtool refused (not supported).
shrink() {
	ethtool -L "$DEV" "$1" "$NEWQ" || return 3
	wait_link "ethtool -L $DEV $1 $NEWQ" || { echo "link not steady 60 s after ethtool -L"; return 1; }
}

nic_channels() {
	local kind
	local -a want
	fx_attached || return
	kind=$(channel_kind)
	if [[ -z $kind ]]; then
		skip "ethtool -l $DEV shows no channel count above 1 to change: $(ethtool -l "$DEV" 2>&1 | head -n 1)"
		return
	fi
	NEWQ=2
	klog_mark
	steer_map rev_queue "$NQ queues, before ethtool -L" || return
	# The shrink under traffic from every CPU: from the moment ethtool -L
	# returned (and the link is back, for drivers that reopen the device),
	# no frame on a queue >= NEWQ. Frames queued on the removed queues at
	# that moment are dropped with their qdiscs: no count is compared.
	under_traffic shrink "$kind"
	if ((UT_RC == 3)) && grep -q 'not supported' "$W/ut.out"; then
		skip "ethtool -L $DEV $kind $NEWQ: $(head -n 1 "$W/ut.out")"
		return
	fi
	((UT_RC == 0)) || { fail "ethtool -L $DEV $kind $NEWQ under traffic (rc $UT_RC)"; diag_file "$W/ut.out"; return; }
	diag "ethtool -L $DEV $kind $NEWQ under traffic: $UT_MS ms, link up again included"
	tbl_from_trace "$W/trace.txt" XPS_NICS_CMD_DONE >"$W/tbl"
	diag "frames after ethtool -L returned ($MOVED handed over by another CPU):"
	tbl_matrix "$W/tbl" "$NQ"
	nic_check "$(every_cpu shrunk_queues 1)" "traffic during the shrink, after ethtool -L returned"
	# And with the count settled: every datagram sent is seen.
	send_all || return
	# Per packet: never a queue >= NEWQ. CPUs whose mapped queue is still
	# there keep it, the others fall back to stock selection below NEWQ.
	nic_check "$(spec_of shrunk_queues)" "after ethtool -L $kind $NEWQ"
	awk -v n="$NEWQ" '$2 >= n { bad += $3 } END { exit bad > 0 }' "$W/tbl" ||
		fail "frames on a queue >= $NEWQ after the shrink"
	# The tree does not follow the count: every queue keeps its tx-<n>
	# and its mask, and a removed queue takes no new mask.
	expect_tree "$DEV" "$NQ_MAX" || return
	xw - "$(xf "$DEV" "$NEWQ")" 1
	[[ $XW == "err ENXIO" ]] ||
		fail "writing tx-$NEWQ while $NEWQ queues are active gave '$XW', expected 'err ENXIO'"
	read -r -a want <<<"$(masks_of rev_queue)"
	expect_masks "$DEV" "${want[@]}" || return
	must ethtool -L "$DEV" "$kind" "$NQ" || return
	wait_link "ethtool -L $DEV $kind $NQ" || return
	nic_up || return
	diag "ethtool -L $DEV $kind $NQ: $(txq_count "$DEV") tx queues, masks $(read_masks "$DEV" "$NQ")"
	# Grown back: the queues that were removed steer again with the masks
	# they kept, without a new write or a link change.
	expect_masks "$DEV" "${want[@]}" || return
	send_all || return
	nic_check "$(spec_of rev_queue)" "grown back to $NQ queues, masks kept"
	no_splat
}

# kread_masks: DEV's own kernel xps_cpus, queues 0 .. NQ-1.
kread_masks() {
	local q out=
	for ((q = 0; q < NQ; q++)); do
		out+="${out:+ }$(cat "$(kf "$DEV" "$q")" 2>&1)"
	done
	echo "$out"
}

# kept_after LABEL KERNEL-BEFORE WANT...: after an event, xps_steer's
# masks are still WANT and every frame follows them; the kernel's own
# masks (written with the same map) are shown, and virtio-net must have
# rewritten them: that is the README's reason to use xps_steer with it.
kept_after() {
	local label=$1 k0=$2 k
	shift 2
	k=$(kread_masks)
	diag "after $label: the kernel's xps_cpus: $k (written: $k0); xps_steer's: $(read_masks "$DEV" "$NQ")"
	if [[ $DRV == virtio && $k == "$k0" ]]; then
		fail "after $label virtio-net kept the kernel's map: the README's virtio-net case no longer holds on $(uname -r)"
	fi
	expect_masks "$DEV" "$@" || return 1
	send_all || return 1
	nic_check "$(spec_of rev_queue)" "after $label, xps_steer's map"
}

nic_keeps_map() {
	local -a want
	local cpu k0 kind
	fx_attached || return
	fx_cpus_online
	cpus_refresh
	read -r -a want <<<"$(masks_of rev_queue)"
	set_masks "$DEV" "${want[@]}" || return
	kset_masks - "$DEV" "${want[@]}" || return
	k0=$(kread_masks)
	cpu=${CPUS[-1]}
	must eval "echo 0 >/sys/devices/system/cpu/cpu$cpu/online" || return
	sleep 1
	must eval "echo 1 >/sys/devices/system/cpu/cpu$cpu/online" || return
	cpus_refresh
	kept_after "CPU $cpu offline and online" "$k0" "${want[@]}" || return
	kind=$(channel_kind)
	if [[ -z $kind ]]; then
		diag "ethtool -l $DEV shows no channel count to change: the ethtool -L half is not run"
		no_splat
		return
	fi
	kset_masks - "$DEV" "${want[@]}" || return
	# One queue fewer and back, as the README's virtio-net case; drivers
	# that take only some counts (vmxnet3: ethtool says "not supported")
	# skip this half, as nic_channels does.
	if ! ethtool -L "$DEV" "$kind" $((NQ - 1)) >"$W/el.out" 2>&1; then
		if grep -q 'not supported' "$W/el.out"; then
			diag "ethtool -L $DEV $kind $((NQ - 1)): $(head -n 1 "$W/el.out"): the ethtool -L half is not run"
			no_splat
			return
		fi
		fail "ethtool -L $DEV $kind $((NQ - 1)) failed"
		diag_file "$W/el.out"
		return
	fi
	wait_link "ethtool -L $DEV $kind $((NQ - 1))" || return
	must ethtool -L "$DEV" "$kind" "$NQ" || return
	wait_link "ethtool -L $DEV $kind $NQ" || return
	nic_up || return
	kept_after "ethtool -L $kind $((NQ - 1)) then $NQ" "$k0" "${want[@]}" || return
	no_splat
}

# kmap_is M0 M1 ...: the kernel's own xps_cpus of DEV's first queues
# read these masks.
kmap_is() {
	local q=0 m
	for m in "$@"; do
		[[ $(cat "$(kf "$DEV" "$q")" 2>/dev/null) == "$m" ]] || return 1
		q=$((q + 1))
	done
}

# kmap_online_is M0 M1 ...: the same, on the CPUs online now (a driver
# that keeps an offline CPU in its map, as the kernel does, passes).
kmap_online_is() {
	local q=0 m k on=0 cpu
	for cpu in $(cpu_list_expand "$(cat /sys/devices/system/cpu/online)"); do
		on=$((on | 1 << cpu))
	done
	for m in "$@"; do
		k=$(cat "$(kf "$DEV" "$q")" 2>/dev/null) || return 1
		(((16#$k & on) == (16#$m & on))) || return 1
		q=$((q + 1))
	done
}

# guard_event LABEL WANT CMD...: CMD under traffic from every CPU, then the
# wait until the kernel's own files read WANT (masks, one word); the frames
# of the CPUs online throughout that left on another queue than the 1:1
# map's between the command's start and the restore are counted.
guard_event() {
	local label=$1 kmasks=$2 cpu off=0 n
	shift 2
	under_traffic guard_cmd_restored "$kmasks" "$@"
	if ((UT_RC != 0)); then
		fail "$label: the command or the restore failed (kernel: $(kread_masks), want $kmasks)"
		diag_file "$W/ut.out"
		return 1
	fi
	awk '/XPS_NICS_CMD_START/ { on = 1 } on { print } /XPS_NICS_CMD_DONE/ { exit }' \
		"$W/trace.txt" >"$W/window.txt"
	tbl_from_trace "$W/window.txt" >"$W/window.tbl"
	for cpu in "${CPUS[@]}"; do
		[[ $cpu == "$GUARD_HOT_CPU" ]] && continue
		n=$(awk -v c="$cpu" -v q="$(rev_queue "$cpu")" '$1 == c && $2 != q { t += $3 } END { print t + 0 }' "$W/window.tbl")
		off=$((off + n))
	done
	diag "$label: restored $UT_MS ms after the command began; $off frames of $(tbl_total "$W/window.tbl") in that window off the map"
	diag "after $label: the kernel's xps_cpus: $(kread_masks); xps_steer's: $(read_masks "$DEV" "$NQ")"
}

# guard_cmd_restored WANT CMD...: CMD, then up to 10 s for the kernel's
# files to read WANT.
guard_cmd_restored() {
	local kmasks=$1
	shift
	"$@" || return 1
	# shellcheck disable=SC2086 # the masks, one a word
	wait_until 10 kmap_online_is $kmasks
}

# guard_hotplug STATE: CPU GUARD_HOT_CPU offline (0) or online (1).
guard_hotplug() { echo "$1" >"/sys/devices/system/cpu/cpu$GUARD_HOT_CPU/online"; }

# guard_channels N: ethtool -L to N queues, then the link steady.
guard_channels() {
	ethtool -L "$DEV" "$(channel_kind)" "$1" && wait_until 60 link_steady
}

GUARD_HOT_CPU=

nic_guard_keeps_map() {
	local -a want
	local kind hot poll
	fx_nic || return
	xps_unload || return
	fx_cpus_online
	cpus_refresh
	xps_load "dev=$DEV:guard" || return
	[[ $(cat "$XS/$DEV/mode" 2>&1) == guard ]] ||
		{ fail "$XS/$DEV/mode reads '$(cat "$XS/$DEV/mode" 2>&1)', expected guard"; return; }
	read -r -a want <<<"$(masks_of rev_queue)"
	set_masks "$DEV" "${want[@]}" || return
	kmap_is "${want[@]}" ||
		{ fail "the kernel's xps_cpus read '$(kread_masks)' after xps_steer's files were written, expected '${want[*]}'"; return; }
	GUARD_HOT_CPU=${CPUS[-1]}
	hot=$(awk '$1 == "restored_by_hotplug" { print $2 }' "$XS/$DEV/stats")
	# Offline, the map on the CPUs left (virtio-net's rewrite undone).
	guard_event "CPU $GUARD_HOT_CPU offline" "${want[*]}" guard_hotplug 0 || return
	cpus_refresh
	guard_event "CPU $GUARD_HOT_CPU online" "${want[*]}" guard_hotplug 1 || return
	cpus_refresh
	# virtio-net rewrites its map on hotplug; the others keep theirs.
	[[ $DRV != virtio ]] || (($(awk '$1 == "restored_by_hotplug" { print $2 }' "$XS/$DEV/stats") > hot)) ||
		fail "stats: restored_by_hotplug did not grow over the hotplug ($(tr '\n' ' ' <"$XS/$DEV/stats"))"
	GUARD_HOT_CPU=
	send_all || return
	nic_check "$(spec_of rev_queue)" "after CPU hotplug, guard mode" || return
	kind=$(channel_kind)
	if [[ -z $kind ]] || ! ethtool -L "$DEV" "$kind" "$NQ" >"$W/el.out" 2>&1; then
		diag "ethtool -L $DEV: no channel count to change ($(head -n 1 "$W/el.out" 2>/dev/null)): the ethtool -L half is not run"
		no_splat
		return
	fi
	poll=$(grep -E '^restored_by_(poll|event) ' "$XS/$DEV/stats" | awk '{ t += $2 } END { print t + 0 }')
	guard_event "ethtool -L $kind $((NQ - 1))" "${want[*]:0:NQ-1}" guard_channels $((NQ - 1)) || return
	guard_event "ethtool -L $kind $NQ" "${want[*]}" guard_channels "$NQ" || return
	nic_up || return
	(($(grep -E '^restored_by_(poll|event) ' "$XS/$DEV/stats" | awk '{ t += $2 } END { print t + 0 }') > poll)) ||
		fail "stats: no restore counted over ethtool -L ($(tr '\n' ' ' <"$XS/$DEV/stats"))"
	send_all || return
	nic_check "$(spec_of rev_queue)" "after ethtool -L, guard mode" || return
	no_splat
}

nic_guard_hotplug_loop() {
	local -a want
	local hot i ev=0 t0 t1 r0 f0 c0 r f c bound
	fx_nic || return
	xps_unload || return
	fx_cpus_online
	cpus_refresh
	xps_load "dev=$DEV:guard" guard_interval_ms=200 || return
	read -r -a want <<<"$(masks_of rev_queue)"
	set_masks "$DEV" "${want[@]}" || return
	kmap_is "${want[@]}" || { fail "the kernel's xps_cpus read '$(kread_masks)', expected '${want[*]}'"; return; }
	hot=${CPUS[-1]}
	r0=$(stat_sum "$DEV" restored_by_) f0=$(stat_sum "$DEV" fights_by_) c0=$(stat_sum "$DEV" checks)
	t0=$(now_ms)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		if ! echo 0 >"/sys/devices/system/cpu/cpu$hot/online" ||
			! echo 1 >"/sys/devices/system/cpu/cpu$hot/online"; then
			fail "hotplug round $i of CPU $hot failed"
			return
		fi
		ev=$((ev + 2))
	done
	t1=$(now_ms)
	cpus_refresh
	# The last restore may wait out a back-off (4 s at most).
	wait_until 15 kmap_is "${want[@]}" ||
		{ fail "after $ev hotplug events the kernel's xps_cpus read '$(kread_masks)' 15 s later, expected '${want[*]}'"; return; }
	r=$(($(stat_sum "$DEV" restored_by_) - r0)) f=$(($(stat_sum "$DEV" fights_by_) - f0)) c=$(($(stat_sum "$DEV" checks) - c0))
	diag "$ev hotplug events of CPU $hot in $((t1 - t0)) ms: $r restores, $f fights, $c checks; stats: $(tr '\n' ' ' <"$XS/$DEV/stats")"
	# One restore per event, one per 200 ms period of the loop and of the
	# wait: more would be a guard chasing its own tail.
	bound=$((ev + ($(now_ms) - t0) / 200 + 2))
	((r <= bound)) || fail "$r restores for $ev hotplug events: more than $bound, the guard is spinning"
	[[ $DRV != virtio ]] || ((f > 0)) ||
		fail "virtio-net rewrote its map on $ev hotplug events, yet no fight was counted"
	send_all || return
	nic_check "$(spec_of rev_queue)" "after $ev hotplug events, guard mode" || return
	no_splat
}

nic_final() {
	xps_unload
	if klog_splats "$W/bad.txt" 'selects TX queue|asks to queue packet'; then
		fail "the kernel log has warnings:"
		diag_file "$W/bad.txt" 30
	fi
}

diag "driver under test: $DRV"
run_selected "nics $DRV" </dev/null 2>&1
