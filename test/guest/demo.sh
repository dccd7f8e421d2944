#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - show what xps_steer does, inside the QEMU guest (make demo).
#
# A dummy device with 4 TX queues; every CPU sends UDP packets (64 flows)
# with its sender pinned to it by taskset.  The kernel tracepoint
# net/net_dev_start_xmit records, for every packet, the CPU that sent it and
# the TX queue it was given.  We print that as a CPU x queue table twice:
# with the kernel's stock choice (a hash of the flow: every CPU on every
# queue), then with xps_steer mapping CPU n to queue n (a diagonal).
# Exit status 0 iff the second table is diagonal.

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
exit $rc
