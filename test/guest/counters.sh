# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# counters.sh - the per-device counters (<dev>/stats, tx-<n>/packets)
# reconciled exactly with the packets the net_dev_start_xmit trace saw:
# each packet counted once, under the queue it was steered to or the
# reason it was left to the stock selection.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def counters_reconcile "stats and tx-<n>/packets match the traced packets exactly: steered per queue, no map, CPU in no mask, socket queue kept, no queue in the packet's traffic class (queue inactive: queues_inactive_files)"

# ctr_snap DEV FILE: DEV's stats lines and "tx-<n> packets" lines.
ctr_snap() {
	local f q
	cat "$XS/$1/stats" >"$2" || { fail "cannot read $XS/$1/stats"; return 1; }
	for f in "$XS/$1"/tx-*/packets; do
		q=${f%/packets}
		echo "${q##*/} $(cat "$f")" >>"$2" || return 1
	done
}

# ctr_delta BEFORE AFTER: "name delta" for every counter.
ctr_delta() {
	awk 'NR == FNR { b[$1] = $2; next } { print $1, $2 - b[$1] }' "$1" "$2"
}

# ctr_expect LABEL DELTAS "name=value ...": each named counter moved by
# exactly value, every other counter not at all.
ctr_expect() {
	local label=$1 deltas=$2 want=$3
	if awk -v want="$want" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) { split(w[i], kv, "="); e[kv[1]] = kv[2] } }
		{ got = $2 + 0; ex = ($1 in e) ? e[$1] + 0 : 0; seen[$1] = 1
		  if (got != ex) { printf "FAIL %s: moved by %d, expected %d\n", $1, got, ex; bad = 1 } }
		END { for (k in e) if (!(k in seen)) { printf "FAIL %s: no such counter\n", k; bad = 1 }
		      exit bad }' "$deltas" >"$W/ctr.out"; then
		diag "$label: counters match the trace ($want)"
		return 0
	fi
	fail "$label: counters do not match the traced packets"
	diag_file "$W/ctr.out"
	diag "deltas:"
	diag_file "$deltas"
	return 1
}

# ctr_around DEV CMD...: snapshot DEV's counters around CMD, run with the
# trace on; leaves the deltas in $W/delta and the trace table in $W/tbl.
ctr_around() {
	local dev=$1
	shift
	ctr_snap "$dev" "$W/c0" || return 1
	"$@" || return 1
	ctr_snap "$dev" "$W/c1" || return 1
	ctr_delta "$W/c0" "$W/c1" >"$W/delta"
	trace_table "$dev" >"$W/tbl"
}

# tbl_count [cpu=C] [queue=Q]: traced packets in $W/tbl matching.
tbl_count() {
	awk -v f="$*" 'BEGIN { n = split(f, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); w[kv[1]] = kv[2] } }
		("cpu" in w && $1 != w["cpu"]) || ("queue" in w && $2 != w["queue"]) { next }
		{ t += $3 } END { print t + 0 }' "$W/tbl"
}

t_counters_reconcile() {
	local t s q want c
	fx_loaded dev=dum0,veth0 || return

	# No mask set: every packet is counted under no_map.
	ctr_around dum0 udp_all - dum0 "$DST0" "0:* 1:* 2:* 3:*" || return
	t=$(tbl_count)
	[ "$t" -gt 0 ] || { fail "no map: the trace saw no packet on dum0"; return; }
	ctr_expect "no map, $t packets" "$W/delta" "no_map=$t" || return

	# CPUs 0-2 steered to queues 0-2, CPU 3 in no mask.
	set_masks dum0 1 2 4 0 || return
	ctr_around dum0 udp_all - dum0 "$DST0" "0:0 1:1 2:2 3:*" || return
	steer_check UDP dum0 "$NQ" 0 "$SPEC" || return
	want="cpu_in_no_mask=$(tbl_count cpu=3)"
	s=0
	for q in 0 1 2; do
		want="$want tx-$q=$(tbl_count cpu="$q" queue="$q")"
		s=$((s + $(tbl_count cpu="$q")))
	done
	ctr_expect "mapped CPUs 0-2, unmapped CPU 3" "$W/delta" "steered=$s $want" || return

	# A connected socket caches its queue after the first packet. The
	# kernels whose sk_tx_queue_get() is out of line (the 2025 series "net:
	# allow busy connected flows to switch tx queues" made it so, set
	# ooo_okay when a socket has nothing in flight and let a cached queue
	# go stale; sid's 7.2 has it) may pick again instead, on
	# the same queue here: there the trace cannot tell kept from steered,
	# so only their sum is checked.
	ctr_around dum0 flood_traced dum0 - 0 "$DST0" 1 200 -c || return
	t=$(tbl_count queue=0)
	c=$(awk '$1 == "kept_socket_queue" { print $2 }' "$W/delta")
	if [ "$(tbl_count)" != "$t" ]; then
		fail "connected socket: $(tbl_count) packets traced, only $t of them on tx-0"
		return
	fi
	if grep -q ' sk_tx_queue_get$' /proc/kallsyms; then
		diag "this kernel may pick a cached queue again (sk_tx_queue_get): $c of $t packets kept"
	elif [ "${c:-0}" -lt 1 ]; then
		fail "connected socket: $t packets traced on tx-0, $c kept"
		return
	fi
	ctr_expect "connected socket, $t packets" "$W/delta" \
		"steered=$((t - c)) tx-0=$((t - c)) kept_socket_queue=$c" || return

	# Traffic classes (mqprio, priority 0 in class 0: tx-0 and tx-1):
	# CPUs 0 and 1 steered inside it, CPU 2 (tx-2 only) has no queue in
	# it and goes to the stock selection, CPU 3 is in no mask.
	must tc qdisc add dev dum0 root handle 1: mqprio num_tc 2 \
		map 0 0 0 0 1 1 1 1 1 1 1 1 1 1 1 1 queues 2@0 2@2 hw 0 || return
	ctr_around dum0 udp_all - dum0 "$DST0" "0:0 1:1 2:0,1 3:0,1"
	must tc qdisc del dev dum0 root
	steer_check "UDP, mqprio" dum0 "$NQ" 0 "$SPEC" || return
	ctr_expect "mqprio num_tc 2" "$W/delta" \
		"steered=$(($(tbl_count cpu=0) + $(tbl_count cpu=1))) tx-0=$(tbl_count cpu=0 queue=0) tx-1=$(tbl_count cpu=1 queue=1) traffic_class=$(tbl_count cpu=2) cpu_in_no_mask=$(tbl_count cpu=3)"
}

# flood_traced DEV NS CPU DST FLOWS N [ARGS]: one pinned udpflood into a
# trace of DEV.
flood_traced() {
	local dev=$1
	shift
	rm -f "$W/trace.txt"
	trace_start "$dev"
	flood "$@"
	trace_stop
}
