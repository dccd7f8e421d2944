# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# status.sh - /sys/module/xps_steer/status: one line per name in dev=, in
# its order, so that what the kernel log said about each name (attached,
# not present, refused and why) can be read back at any time, and whether
# an attached device's ops still lead to the hook (docs/usage.md,
# "Status"; docs/bad-input.md, row S18).
# Sourced by suite.sh (the runner); helpers in lib.sh; status_hook uses
# foreign.sh's ops_copier helpers.

test_def status_file "status: a line per dev= name, in order: attached (queues, active queues, hook, name now), absent, refused with the reason; follows late attach, renames, deletion and dev= writes (ethtool -L: queues_inactive_files); read-only, readable by all"
test_def status_hook "status says whether the ops still lead to the hook: installed, copied (ops_copier's copy of xps_steer's copy), installed again, replaced (ops_copier put the driver's ops back)"

STF=/sys/module/xps_steer/status

# status_is LABEL LINE...: the status file reads exactly these lines (none:
# an empty file).
status_is() {
	local label=$1 want=
	shift
	[ $# = 0 ] || want=$(printf '%s\n' "$@"; echo .)
	want=${want%.}
	if ! rd "$STF"; then
		fail "$label: cannot read $STF: $(cat "$W/rd.err")"
		return 1
	fi
	if [ "$RD" = "$want" ]; then
		diag "$label: $STF reads:"
		printf '%s' "$RD" | sed 's/^/#   /'
		[ -n "$RD" ] || diag "  (empty)"
		return 0
	fi
	fail "$label: $STF reads:"
	printf '%s' "$RD" | sed 's/^/#   /'
	[ -n "$RD" ] || diag "  (empty)"
	diag "expected:"
	printf '%s' "$want" | sed 's/^/#   /'
	[ -n "$want" ] || diag "  (empty)"
	return 1
}

# st_del: the devices status_file creates, gone.
st_del() {
	local d
	for d in late0 s0 s9 bond0 tap0; do ip link del "$d" 2>/dev/null; done
	ip tuntap del dev tap0 mode tap multi_queue 2>/dev/null
}

t_status_file() {
	local att="attached queues=$NQ active=$NQ hook=installed"
	fx_suite || return
	st_del
	# Refused for each reason the suite can produce: a single-queue
	# dummy, a bond and a multiqueue tap (their own selections never read
	# the kernel's XPS map).
	must ip link add s0 type dummy || return
	modprobe bonding max_bonds=0 >/dev/null 2>&1
	must ip link add bond0 type bond || return
	modprobe tun >/dev/null 2>&1
	must ip tuntap add dev tap0 mode tap multi_queue || return
	xps_load dev=dum0,veth0,late0,s0,bond0,tap0 || return

	status_is "at load" \
		"dum0 $att name=dum0 mode=steer" \
		"veth0 $att name=veth0 mode=steer" \
		"late0 absent" \
		"s0 refused reason=single-queue error=-95" \
		"bond0 refused reason=select-ignores-xps error=-95 driver=bond" \
		"tap0 refused reason=select-ignores-xps error=-95 driver=tun"

	# Read-only for root, readable by every user.
	local m
	m=$(stat -c %a "$STF")
	[ "$m" = 444 ] || fail "$STF has mode $m, expected 444"
	row_mark
	xw - "$STF" "dum0 absent"
	if [ "$XW" = "err EACCES" ]; then
		row S18 "$XW"
	else
		fail "root writing $STF gave '$XW', expected 'err EACCES'"
	fi
	if choose_priv; then
		rdn - "$STF"
		local all=$RD
		RD=$("${PRIV_USER[@]}" cat "$STF" 2>&1; echo .)
		RD=${RD%.}
		[ "$RD" = "$all" ] || fail "uid 65534 reads '$(show "$RD")', root '$(show "$all")'"
	fi

	# Late attach; an attached device renamed stays under the name it was
	# attached as, with its name now; a refused one renamed away is absent
	# and refused again when renamed back; a deleted one is absent.
	must ip link add late0 numtxqueues "$NQ" type dummy || return
	must ip link set dum0 down
	must ip link set dum0 name dumr || return
	must ip link set s0 name s9 || return
	must ip tuntap del dev tap0 mode tap multi_queue
	status_is "late0 registered, dum0 renamed dumr, s0 renamed s9, tap0 deleted" \
		"dum0 $att name=dumr mode=steer" \
		"veth0 $att name=veth0 mode=steer" \
		"late0 $att name=late0 mode=steer" \
		"s0 absent" \
		"bond0 refused reason=select-ignores-xps error=-95 driver=bond" \
		"tap0 absent"
	must ip link set dumr name dum0
	must ip link set dum0 up
	must ip link set s9 name s0
	must ip link del late0
	status_is "names back, late0 deleted" \
		"dum0 $att name=dum0 mode=steer" \
		"veth0 $att name=veth0 mode=steer" \
		"late0 absent" \
		"s0 refused reason=single-queue error=-95" \
		"bond0 refused reason=select-ignores-xps error=-95 driver=bond" \
		"tap0 absent"

	# dev= written: the new list, in its order; the empty list, no line.
	xw - "$DEVP" "s0,newx,dum0"
	[ "$XW" = "ok 12" ] || fail "writing s0,newx,dum0 to dev= gave '$XW'"
	status_is "dev=s0,newx,dum0" \
		"s0 refused reason=single-queue error=-95" \
		"newx absent" \
		"dum0 $att name=dum0 mode=steer"
	xw - "$DEVP" "$NL"
	[ "$XW" = "ok 1" ] || fail "writing an empty dev= gave '$XW'"
	status_is "empty dev="
	xps_unload
}

t_status_file_cleanup() {
	modprobe -r xps_steer
	ip link set dumr name dum0 2>/dev/null
	ip link set dum0 up 2>/dev/null
	st_del
}

t_status_hook() {
	local att="dumc attached queues=$NQ active=$NQ"
	fx_foreign || return
	xps_load dev="$FDEV" || return
	status_is "xps_steer alone" "$att hook=installed name=dumc mode=steer" || return
	copier_load xps_steer_select_queue || return
	status_is "ops_copier's copy of xps_steer's copy installed" \
		"$att hook=copied name=dumc mode=steer"
	copier_unload xps_steer_select_queue || return
	status_is "xps_steer's copy back" "$att hook=installed name=dumc mode=steer"
	xps_unload || return

	# The copier's copy first, xps_steer's on top; then the copier puts
	# the driver's own ops back: nothing leads to the hook any more.
	copier_load || return
	xps_load dev="$FDEV" || return
	status_is "xps_steer on top of ops_copier's copy" \
		"$att hook=installed name=dumc mode=steer"
	copier_unload || return
	status_is "the driver's ops back" "$att hook=replaced name=dumc mode=steer"
	f_no_splat
}

t_status_hook_cleanup() { foreign_reset; }
