# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# foreign.sh - another module copies a device's net_device_ops and installs
# its copy, as DSA did to a switch's master device before 5.9:
# test/modules/ops_copier.ko (`modprobe ops_copier dev=NAME`, installed in
# the guest by vm.sh --ko). Once its copy of xps_steer's copy
# is installed, that copy leads to xps_steer's hook, so xps_steer must not
# go away until the copier has put xps_steer's copy back.
# Sourced by suite.sh (the runner); helpers in lib.sh. Each test uses a
# dummy of its own (dumc, created afresh) and leaves neither module loaded.
# Without the module reference each attached device holds, and without
# dev= refusing to detach while such a copy is in, the first test crashes
# the guest. Rows R13 and R14 of docs/bad-input.md.

test_def ops_copied_after_attach "ops copied after attach (pre-5.9 DSA): rmmod xps_steer refused while the copy leads to its hook, steering per packet, no crash; dev= detach EBUSY until the copier is gone"
test_def ops_copied_before_attach "ops copied before attach: xps_steer steers through a copy of the copier's copy; the copier puts the driver's ops back (stock selection); xps_steer detaches with a log line, no WARNING"

FDEV=dumc		# the device whose ops are copied (NQ tx queues)
FDST=10.9.8.2		# via dumc (10.9.8.1/24)
FDEVP=/sys/module/xps_steer/parameters/dev

copier_loaded() { grep -q '^ops_copier ' /proc/modules; }

# devlist_writable: xps_steer's device list can be written at runtime
# (an empty list detaches every device). The mode is checked, not
# `[ -w ]`: root passes that on a read-only sysfs file too.
devlist_writable() {
	local m
	m=$(stat -c %a "$FDEVP" 2>/dev/null) || return 1
	[ $((8#$m & 8#222)) != 0 ]
}

# foreign_reset: neither module loaded (the copier first: unloading it
# puts back what it found), dumc gone.
foreign_reset() {
	if copier_loaded; then
		must rmmod ops_copier || return 1
	fi
	if xps_loaded && devlist_writable; then
		q xwrite -- "$FDEVP" "$NL"
	fi
	xps_unload || return 1
	ip link del "$FDEV" 2>/dev/null
	return 0
}

# fx_foreign: the suite's topology, neither module loaded, dumc new (NQ
# queues, 10.9.8.1/24, up); the kernel log and taint marked.
fx_foreign() {
	foreign_reset || return 1
	fx_suite || return 1
	fx_dummy "$FDEV" - 10.9.8.1 || return 1
	F_TAINT=$(cat /proc/sys/kernel/tainted)
	klog_mark
}

# copier_said TEXT: ops_copier's last log line about dumc (shown) starts
# with "ops_copier: dumc: TEXT".
copier_said() {
	local line
	line=$(klog_since | grep -F "ops_copier: $FDEV: " | tail -n 1 | sed 's/^\[[^]]*\] //')
	case $line in
	"ops_copier: $FDEV: $1"*)
		diag "log: $line"
		return 0 ;;
	esac
	fail "ops_copier's last line about $FDEV is '$line', expected 'ops_copier: $FDEV: $1...'"
	return 1
}

# copier_load [HOOK]: modprobe ops_copier dev=dumc; the log must say the
# copy is installed (and that its ndo_select_queue is HOOK, if given).
copier_load() {
	if ! modinfo ops_copier >/dev/null 2>&1; then
		fail "ops_copier is not installed in this guest (test/modules/ops_copier.ko, vm.sh --ko)"
		return 1
	fi
	modprobe_ok "load ops_copier" ops_copier dev="$FDEV" || return 1
	copier_loaded || { fail "modprobe ops_copier exited 0, but it is not loaded"; return 1; }
	copier_said "netdev_ops copied and installed (ndo_select_queue ${1:-}"
}

# copier_unload [HOOK]: rmmod ops_copier; the log must say the saved ops
# are back (and that their ndo_select_queue is HOOK, if given).
copier_unload() {
	must rmmod ops_copier || return 1
	copier_loaded && { fail "ops_copier still loaded after rmmod"; return 1; }
	copier_said "netdev_ops restored (${1:-}"
}

# f_steer LABEL: the 1:1 map (CPU c -> queue c) holds for every packet on dumc.
f_steer() {
	udp_all - "$FDEV" "$FDST" "0:0 1:1 2:2 3:3"
	steer_check "$1" "$FDEV" "$NQ" 0 "$SPEC"
}

# f_stock LABEL: stock selection on dumc: every CPU's 64 flows spread over
# every queue (a map still in force would keep each CPU on one queue).
f_stock() {
	udp_all - "$FDEV" "$FDST" "0:* 1:* 2:* 3:*"
	steer_check "$1" "$FDEV" "$NQ" 1 "$SPEC"
}

# f_no_splat: no kernel problem report since fx_foreign (the log since the
# mark; new D, W, B or L taint flags), the guest still running this.
f_no_splat() {
	local now new
	klog_since | grep -E "$SPLAT_RE" >"$W/fsplat.txt"
	if [ -s "$W/fsplat.txt" ]; then
		fail "kernel problem reports in the log since the test started:"
		diag_file "$W/fsplat.txt" 30
	fi
	now=$(cat /proc/sys/kernel/tainted)
	# D (died) 128, W (warning) 512, B (bad page) 32, L (soft lockup) 16384.
	new=$(((now & ~F_TAINT) & (128 | 512 | 32 | 16384)))
	[ "$new" = 0 ] || fail "new taint flags: $F_TAINT -> $now"
	[ "$T_FAIL" != 0 ] || diag "no kernel problem report, no new taint flag (tainted: $now)"
}

# f_xps_refuses CMD...: CMD (an unload of xps_steer) must leave it loaded.
f_xps_refuses() {
	local rc
	"$@" >"$W/unload.out" 2>&1 </dev/null
	rc=$?
	if xps_loaded; then
		diag "$* with ops_copier's copy installed: rc=$rc, xps_steer still loaded: $(tr '\n' ' ' <"$W/unload.out")"
		return 0
	fi
	fail "$* returned $rc and unloaded xps_steer while ops_copier's copy of its ops leads to its hook: the next packet on $FDEV jumps into freed module text"
	diag_file "$W/unload.out"
	return 1
}

t_ops_copied_after_attach() {
	fx_foreign || return
	xps_load dev="$FDEV" || return
	klog_expect "xps_steer: $FDEV: attached ($NQ tx queues)" || return
	map11 "$NQ"
	set_masks "$FDEV" "${MAP[@]}" || return
	f_steer "1:1 map, xps_steer alone" || return

	# ops_copier copies xps_steer's copy: its copy leads to our hook.
	copier_load xps_steer_select_queue || return
	f_steer "1:1 map through ops_copier's copy of xps_steer's copy"

	# Where this unloaded xps_steer, the traffic below faulted in its freed
	# text (BUG: unable to handle page fault): the guest dies, the run fails.
	f_xps_refuses rmmod xps_steer && f_xps_refuses modprobe -r xps_steer
	f_steer "1:1 map after the refused unloads"

	devlist_writable || { fail "$FDEVP is not writable: no runtime detach"; return; }
	dev_write R13 "$NL" "err EBUSY"
	xps_loaded || fail "xps_steer unloaded by the refused detach"
	rdn - "$FDEVP"
	[ "$RD" = "$FDEV$NL" ] || fail "dev= reads '$(show "$RD")' after the refused detach, expected '$FDEV'"
	expect_tree "$FDEV" "$NQ"
	f_steer "1:1 map after the refused detach"

	# The copier puts xps_steer's copy back: still steered per packet.
	copier_unload xps_steer_select_queue || return
	f_steer "1:1 map with xps_steer's copy back"

	xw - "$FDEVP" "$NL"
	if [ "$XW" = "ok 1" ]; then
		diag "empty dev= once ops_copier is gone: $XW"
	else
		fail "writing an empty dev= once ops_copier is gone gave '$XW', expected 'ok 1'"
	fi
	klog_expect "xps_steer: $FDEV: detached"
	if rmmod xps_steer >"$W/unload.out" 2>&1; then
		diag "rmmod xps_steer with nothing attached: ok"
	else
		fail "rmmod xps_steer with nothing attached failed:"
		diag_file "$W/unload.out"
	fi
	xps_loaded && fail "xps_steer still loaded after rmmod"
	path_absent "$XS" || fail "$XS still exists after rmmod"
	f_stock "stock selection after the unload"
	f_no_splat
}

t_ops_copied_after_attach_cleanup() { foreign_reset; }

t_ops_copied_before_attach() {
	fx_foreign || return
	# The copier itself: no such device, no load.
	if modprobe ops_copier dev=dumnone >"$W/modprobe.out" 2>&1 </dev/null; then
		fail "modprobe ops_copier dev=dumnone (no such device) succeeded"
		rmmod ops_copier
	else
		diag "modprobe ops_copier dev=dumnone: $(tr '\n' ' ' <"$W/modprobe.out")"
		klog_expect "ops_copier: dumnone: no such device in the initial network namespace (-19)"
	fi
	# The copier alone: a copy of the dummy's ops, stock selection.
	copier_load || return
	f_stock "stock selection through ops_copier's copy" || return

	# xps_steer copies the copier's copy and installs its own.
	xps_load dev="$FDEV" || return
	klog_expect "xps_steer: $FDEV: attached ($NQ tx queues)" || return
	map11 "$NQ"
	set_masks "$FDEV" "${MAP[@]}" || return
	f_steer "1:1 map, xps_steer on top of ops_copier's copy" || return

	# The copier puts the driver's own ops back: xps_steer's copy is no
	# longer installed, nothing leads to its hook.
	copier_unload || return
	f_stock "stock selection with the driver's ops back"

	# xps_steer detaches, with a log line and no WARNING: with
	# panic_on_warn=1 a WARN would panic.
	devlist_writable || { fail "$FDEVP is not writable: no runtime detach"; return; }
	dev_write R14 "$NL" "ok 1"
	path_absent "$XS/$FDEV" || fail "$XS/$FDEV still exists after the detach"
	if rmmod xps_steer >"$W/unload.out" 2>&1; then
		diag "rmmod xps_steer with nothing attached: ok"
	else
		fail "rmmod xps_steer with nothing attached failed:"
		diag_file "$W/unload.out"
	fi
	xps_loaded && fail "xps_steer still loaded after its unload"
	path_absent "$XS" || fail "$XS still exists after the unload"
	diag "xps_steer's log lines: $(klog_since | grep -F "xps_steer: $FDEV:" | sed 's/^\[[^]]*\] //' | tr '\n' '|')"
	if klog_since | grep -q 'WARNING:'; then
		fail "a WARNING was logged (with panic_on_warn=1 it panics)"
	fi
	f_stock "stock selection after the unload"
	f_no_splat
}

t_ops_copied_before_attach_cleanup() { foreign_reset; }
