# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# events.sh - the uevents xps_steer sends when it attaches, renames and
# detaches a device (SUBSYSTEM=xps_steer, DEVPATH its directory,
# INTERFACE its name; docs/usage.md, "Attach events"), as a udev rule
# would receive them: test/tools/uevmon listens on the kernel's uevent
# socket (the guest has no udevadm) and prints one line per event, and
# for an "add" how many tx-<n>/xps_cpus files the tree had when the
# event was read.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def uevents_attach "uevents (SUBSYSTEM=xps_steer, INTERFACE): add with the tree complete at load and late attach, move with the old name on rename, remove on ip link del, netns move, dev= writes and modprobe -r; none for refused devices or kept ones"

UEV=$W/uev.out
EV_PID=
EV_WANT=()

# ev_start: uevmon in the background, listening; no event expected yet.
ev_start() {
	rm -f "$UEV" "$W/uev.err"
	: >"$UEV"
	uevmon -s xps_steer -t 600 >"$UEV" 2>"$W/uev.err" &
	EV_PID=$!
	EV_WANT=()
	wait_until 5 grep -q listening "$W/uev.err" && return 0
	fail "uevmon is not listening"
	diag_file "$W/uev.err"
	return 1
}

ev_lines_ge() { [ "$(wc -l <"$UEV")" -ge "$1" ]; }

# ev_add NAME [QUEUES], ev_move NEW OLD, ev_rm NAME: the line uevmon
# prints for each event (QUEUES: NQ).
ev_add() {
	echo "ACTION=add DEVPATH=/kernel/xps_steer/$1 SUBSYSTEM=xps_steer INTERFACE=$1 tree=${2:-$NQ}"
}
ev_move() {
	echo "ACTION=move DEVPATH=/kernel/xps_steer/$1 SUBSYSTEM=xps_steer INTERFACE=$1 INTERFACE_OLD=$2 DEVPATH_OLD=/kernel/xps_steer/$2"
}
ev_rm() {
	echo "ACTION=remove DEVPATH=/kernel/xps_steer/$1 SUBSYSTEM=xps_steer INTERFACE=$1"
}

# ev_expect LABEL LINE...: after LABEL, the events so far are the earlier
# ones and these lines (none: no new event), exactly, in this order.
ev_expect() {
	local label=$1 want
	shift
	EV_WANT+=("$@")
	# Generous: the debug kernel took over 10 s to attach big0 (4096
	# queues); a passing run waits only until the events are there.
	wait_until 60 ev_lines_ge "${#EV_WANT[@]}"
	# Time for an event too many to arrive, too.
	sleep 0.5
	want=
	[ ${#EV_WANT[@]} = 0 ] || want=$(printf '%s\n' "${EV_WANT[@]}")
	if [ "$(cat "$UEV")" = "$want" ]; then
		diag "$label:"
		[ $# != 0 ] || diag "  no new event"
		[ $# = 0 ] || printf '%s\n' "$@" | sed 's/^/#   /'
		return 0
	fi
	fail "$label: the xps_steer uevents differ from the expected ones"
	diag "received:"
	diag_file "$UEV"
	diag "expected:"
	[ -z "$want" ] || printf '%s\n' "$want" | sed 's/^/#   /'
	return 1
}

ev_del() {
	local d
	for d in late0 late1 s0 s1 mv0 big0; do ip link del "$d" 2>/dev/null; done
	ip -n ref link del mv0 2>/dev/null
}

t_uevents_attach() {
	fx_suite || return
	ev_del
	must ip link add s0 type dummy || return
	ev_start || return

	xps_load dev=dum0,late0,s0,mv0,big0 || return
	ev_expect "load, dum0 present, s0 single-queue" "$(ev_add dum0)" || return
	must ip link add late0 numtxqueues "$NQ" type dummy || return
	ev_expect "late0 registered" "$(ev_add late0)" || return
	# 4096 tx-<n> directories take long enough to create that an add
	# sent before the last of them would be read with fewer (seen: an add
	# sent before the tx-<n> of 4 queues was still read with all 4).
	must ip link add big0 numtxqueues 4096 type dummy || return
	ev_expect "big0 (4096 queues) registered" "$(ev_add big0 4096)" || return
	must ip link del big0 || return
	ev_expect "big0 deleted" "$(ev_rm big0)" || return
	must ip link set late0 name late1 || return
	ev_expect "late0 renamed late1" "$(ev_move late1 late0)" || return
	must ip link set s0 name s1 || return
	must ip link set s1 name s0 || return
	ev_expect "refused s0 renamed s1 and back" || return
	must ip link del late1 || return
	ev_expect "late1 deleted" "$(ev_rm late1)" || return
	must ip link add mv0 numtxqueues "$NQ" type dummy || return
	ev_expect "mv0 registered" "$(ev_add mv0)" || return
	must ip link set mv0 netns ref || return
	ev_expect "mv0 moved to netns ref" "$(ev_rm mv0)" || return

	# dum0 stays attached through both writes until the second drops it.
	xw - "$DEVP" dum0,veth0
	[ "$XW" = "ok 10" ] || fail "writing dum0,veth0 to dev= gave '$XW'"
	ev_expect "dev=dum0,veth0" "$(ev_add veth0)" || return
	xw - "$DEVP" veth0
	[ "$XW" = "ok 5" ] || fail "writing veth0 to dev= gave '$XW'"
	ev_expect "dev=veth0" "$(ev_rm dum0)" || return
	xps_unload || return
	ev_expect "modprobe -r xps_steer" "$(ev_rm veth0)"
}

t_uevents_attach_cleanup() {
	[ -z "$EV_PID" ] || kill "$EV_PID"
	EV_PID=
	modprobe -r xps_steer
	ev_del
}
