#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - show what xps_steer does, inside the QEMU guest (make demo).
#
# The kernel tracepoint net/net_dev_start_xmit records, for every packet,
# the CPU that sent it and the TX queue it was given.  We print that as a
# CPU x queue table.
#
# Part 1: a dummy device with 4 TX queues; every CPU sends UDP packets (64
# flows) with its sender pinned to it by taskset: with the kernel's stock
# choice (a hash of the flow: every CPU on every queue), then with
# xps_steer mapping CPU n to queue n (a diagonal).
#
# Part 2: why not the kernel's own xps_cpus files?  eth0 is virtio-net with
# 4 queue pairs (test/demo.sh puts it on a host tap).  The map CPU n ->
# queue 3-n (masks 8 4 2 1) is written to the kernel's files (a table: the
# kernel follows it), then to xps_steer's; CPU 3 goes offline and online,
# and the kernel's map is written again before ethtool -L combined 3, then
# 4.  virtio-net rewrites the kernel's map each time (to its own CPU n ->
# queue n); xps_steer's is kept (a table), and once xps_steer is unloaded
# the kernel follows the driver's map (a table).  eth0 has a qdisc, so a packet may be handed to the driver by
# another CPU than its sender: the sender is told by the packet's length
# (CPU c sends BASE+c byte payloads), as in the NIC tests (nics.sh).
#
# Exit status 0 iff every claim printed held: part 1's second table is
# diagonal; in part 2 every packet followed the kernel's map as written,
# the kernel's map was changed by both events, xps_steer's was not, every
# packet followed xps_steer's map, and after modprobe -r every packet
# followed the kernel's changed map, which is no longer CPU n -> queue 3-n.

LIB=$(dirname "$0")/lib.sh
[ -r "$LIB" ] || LIB=/test/lib.sh
# shellcheck source=lib.sh
. "$LIB"

DEV=dum0
NQ=4
PKTS=400


# table: the last trace as a CPU x queue table, without the "#" prefix.
table() {
	trace_table $DEV >"$W/demo.tbl"
	tbl_matrix "$W/demo.tbl" $NQ | sed 's/^#  //'
}

send_from_every_cpu() {
	trace_start $DEV
	for c in "${CPUS[@]}"; do
		taskset "$(cpumask "$c")" udpflood -d 10.9.0.2 -f 64 -n $PKTS >"$W/demo.flood" 2>&1 ||
			{ say "udpflood failed on CPU $c:"; cat "$W/demo.flood"; }
	done
	trace_stop >/dev/null
}

say "=== xps_steer demo: kernel $(uname -r), CPUs ${CPUS[*]}"
say "=== Part 1: what xps_steer does"
if ! trace_setup; then
	say "no tracing available: cannot show per-packet queues"
	exit 1
fi
ip link add $DEV numtxqueues $NQ numrxqueues $NQ type dummy &&
	ip addr add 10.9.0.1/24 dev $DEV && ip link set $DEV up || exit 1
say "Device $DEV: dummy, $NQ TX queues.  Each CPU sends $PKTS UDP packets"
say "(64 flows = 64 source ports) with the sender pinned to that CPU."
say "Table: packets sent by each CPU (rows) on each TX queue (columns)."
say ""

say "--- 1. Stock kernel: xps_steer not loaded, queue = hash of the flow"
send_from_every_cpu
table
say "Every CPU writes to every queue: queue locks and cache lines bounce"
say "between CPUs."
say ""

say "--- 2. modprobe xps_steer dev=$DEV; queue n gets CPU n:"
if ! modprobe xps_steer dev=$DEV; then
	say "modprobe xps_steer failed"
	exit 1
fi
map11 $NQ
for q in "${!MAP[@]}"; do
	say "    echo ${MAP[q]} > $XS/$DEV/tx-$q/xps_cpus"
	echo "${MAP[q]}" >"$XS/$DEV/tx-$q/xps_cpus" || exit 1
done
send_from_every_cpu
table
say ""

spec=
for c in "${CPUS[@]}"; do
	spec="$spec $c:$c:$PKTS"
done
if check_tbl "$W/demo.tbl" $NQ 0 0 "$spec" >"$W/demo.chk"; then
	say "Diagonal: every packet from CPU n left on queue n."
	rc=0
else
	say "NOT diagonal:"
	cat "$W/demo.chk"
	rc=1
fi
modprobe -r xps_steer
ip link del $DEV
say ""

# ------------------------------------------------------------ part 2 --

NIC=eth0
BASE=200		# UDP payload of CPU c: BASE + c bytes
FRAME=$((BASE + 42))	# Ethernet + IPv4 + UDP headers
WANT="8 4 2 1"		# tx-0 <- CPU 3, tx-1 <- CPU 2, ...
LAST=${CPUS[-1]}

# bad MSG...: a claim of the demo did not hold.
bad() {
	say "DEMO FAILED: $*"
	rc=1
}

# kmap / xmap: the kernel's and xps_steer's masks of tx-0 .. tx-3.
kmap() {
	local q out=
	for ((q = 0; q < NQ; q++)); do
		out+="${out:+ }$(cat "$(kf $NIC $q)" 2>&1)"
	done
	echo "$out"
}
xmap() { read_masks $NIC $NQ; }

# show_maps: both maps, and whether each is still the one written.
show_maps() {
	local k x
	k=$(kmap)
	x=$(xmap)
	if [[ $k == "$WANT" ]]; then
		say "    kernel's xps_cpus:    $k   (as written)"
	else
		say "    kernel's xps_cpus:    $k   <- rewritten by the driver"
	fi
	if [[ $x == "$WANT" ]]; then
		say "    xps_steer's xps_cpus: $x   <- kept"
	else
		say "    xps_steer's xps_cpus: $x   <- NOT the map written"
	fi
	[[ $k != "$WANT" ]] || bad "virtio-net kept the kernel's map: nothing to show on $(uname -r)"
	[[ $x == "$WANT" ]] || bad "xps_steer's map changed"
}

# nic_send: every CPU sends PKTS datagrams (64 flows), pinned; prints the
# sender CPU x queue table ($W/nic.tbl).
nic_send() {
	local c
	trace_start $NIC
	for c in "${CPUS[@]}"; do
		flood - "$c" 10.9.1.2 64 $PKTS -s $((BASE + c)) ||
			{ say "udpflood failed on CPU $c:"; cat "$W/flood.out"; }
	done
	wait_until 10 qdisc_empty
	trace_stop >/dev/null
	sender_table $NIC $FRAME >"$W/nic.tbl"
	tbl_matrix "$W/nic.tbl" $NQ | sed 's/^#  //'
}
# shellcheck disable=SC2317 # called through wait_until
qdisc_empty() { tc -s qdisc show dev "$NIC" | awk '/backlog/ && $3 != "0p" { b = 1 } END { exit b }'; }

# nic_check SPEC-FN WHAT: every CPU's packets (all it sent) on the queue(s)
# SPEC-FN CPU prints, else the demo fails.
nic_check() {
	local c spec=
	for c in "${CPUS[@]}"; do
		spec+=" $c:$("$1" "$c"):$PKTS"
	done
	check_tbl "$W/nic.tbl" $NQ 0 0 "$spec" >"$W/nic.chk" && return 0
	bad "not every packet $2:"
	cat "$W/nic.chk"
	return 1
}
rev_queue() { echo $((NQ - 1 - $1)); }
# kernel_queues CPU: the queues whose kernel mask holds CPU ("1,3").
# shellcheck disable=SC2317 # called through nic_check
kernel_queues() {
	local q m out=
	for ((q = 0; q < NQ; q++)); do
		m=$(cat "$(kf "$NIC" "$q")")
		((0x${m//,/} >> $1 & 1)) && out+="${out:+,}$q"
	done
	echo "${out:--}"
}

nic_up() {
	local m
	for m in virtio_pci virtio_net; do
		modprobe $m || { say "modprobe $m failed"; return 1; }
	done
	wait_until 20 test -d /sys/class/net/$NIC || { say "no $NIC"; return 1; }
	echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
	echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
	echo 1 >/proc/sys/net/ipv6/conf/$NIC/disable_ipv6
	ip addr add 10.9.1.1/24 dev $NIC && ip link set $NIC up &&
		ip neigh replace 10.9.1.2 lladdr 02:00:00:00:00:02 dev $NIC nud permanent || return 1
	wait_until 30 carrier_on $NIC || { say "$NIC: no carrier"; return 1; }
	[[ $(txq_count $NIC) == "$NQ" ]] || { say "$NIC has $(txq_count $NIC) TX queues, not $NQ"; return 1; }
}

say "=== Part 2: why xps_steer, when the kernel has its own xps_cpus files?"
if ! nic_up; then
	say "DEMO FAILED: no virtio-net $NIC with $NQ queues"
	exit 1
fi
say "Device $NIC: virtio-net, $NQ queue pairs.  Each CPU sends $PKTS UDP packets (64 flows)."
say "The map: CPU n -> queue 3-n, i.e. masks $WANT for tx-0 .. tx-3."
say ""
read -ra want <<<"$WANT"
say "--- 3. The map written to the kernel's own files (xps_steer not loaded):"
say "    echo ${want[0]} > /sys/class/net/$NIC/queues/tx-0/xps_cpus; echo ${want[1]} > .../tx-1/xps_cpus; ..."
kset_masks - $NIC "${want[@]}" || { say "DEMO FAILED: cannot write the kernel's map"; exit 1; }
nic_send
nic_check rev_queue "from CPU n left on queue 3-n" &&
	say "The kernel's own XPS follows it: CPU n -> queue 3-n."
say ""
say "--- 4. modprobe xps_steer dev=$NIC; the same map written to xps_steer's files:"
say "    echo ${want[0]} > $XS/$NIC/tx-0/xps_cpus; echo ${want[1]} > .../tx-1/xps_cpus; ..."
modprobe xps_steer dev=$NIC || { say "DEMO FAILED: modprobe xps_steer dev=$NIC"; exit 1; }
set_masks $NIC "${want[@]}" || { say "DEMO FAILED: cannot write xps_steer's map"; exit 1; }
say "Then CPU $LAST offline and online again (echo 0, then 1 > /sys/devices/system/cpu/cpu$LAST/online):"
echo 0 >"/sys/devices/system/cpu/cpu$LAST/online" || bad "CPU $LAST: offline failed"
sleep 1
echo 1 >"/sys/devices/system/cpu/cpu$LAST/online" || bad "CPU $LAST: online failed"
cpus_refresh
show_maps
say "The kernel's map written again, then ethtool -L $NIC combined 3, and back to 4:"
kset_masks - $NIC "${want[@]}" || bad "cannot write the kernel's map"
ethtool -L $NIC combined 3 || bad "ethtool -L $NIC combined 3 failed"
ethtool -L $NIC combined $NQ || bad "ethtool -L $NIC combined $NQ failed"
wait_until 30 carrier_on $NIC || bad "$NIC: no carrier after ethtool -L"
show_maps
say ""
say "--- 5. Packets now, xps_steer loaded:"
nic_send
nic_check rev_queue "from CPU n left on queue 3-n" &&
	say "Still CPU n -> queue 3-n: xps_steer's map survived both."
say ""
say "--- 6. modprobe -r xps_steer: the kernel's own XPS chooses again:"
modprobe -r xps_steer || bad "modprobe -r xps_steer failed"
nic_send
if nic_check kernel_queues "followed the kernel's rewritten map"; then
	if check_tbl "$W/nic.tbl" $NQ 0 0 "$(for c in "${CPUS[@]}"; do printf '%s:%s ' "$c" "$(rev_queue "$c")"; done)" >/dev/null; then
		bad "the kernel's XPS still sends CPU n on queue 3-n"
	else
		say "Every packet followed the kernel's map as the driver left it ($(kmap)),"
		say "not the one written in step 3."
	fi
fi
say ""
if ((rc == 0)); then
	say "Shown: virtio-net rewrote the kernel's map on CPU hotplug and ethtool -L;"
	say "xps_steer's map was kept and steered every packet."
fi
exit $rc
