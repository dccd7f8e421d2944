# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# devlist.sh - the device list at runtime (/sys/module/xps_steer/parameters/dev)
# and unloading: each attached device holds a module reference, so plain
# rmmod refuses while one is attached, and `modprobe -r` (the modprobe.d
# rule the packages install) detaches everything first
# (docs/bad-input.md, rows R01-R12).
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def unload_refused_while_attached "rmmod refuses while a device is attached (still steering); modprobe -r detaches, then unloads"
test_def dev_list_runtime "dev= written at runtime: devices attach and detach at once, absent ones when they register; empty list, then rmmod"
test_def dev_list_burst "dev= written 80 times in a row, veth0 in every other list: each write attaches or detaches at once (39 detaches: slots come back); per packet after the last"
test_def dev_list_bad_input "dev= written at runtime with bad input or without privilege: the error, a log line, nothing changes"

t_unload_refused_while_attached() {
	local rc
	fx_loaded dev=dum0 || return
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
	row_mark
	rmmod xps_steer >"$W/rmmod.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] || ! xps_loaded; then
		fail "rmmod xps_steer with dum0 attached: rc=$rc, loaded: $(xps_loaded && echo yes || echo no)"
		return
	fi
	if grep -q 'in use' "$W/rmmod.out"; then
		row R01 "in use"
	else
		fail "rmmod xps_steer refused, but not as 'in use':"
		diag_file "$W/rmmod.out"
	fi
	expect_tree dum0 "$NQ" || return
	udp_all - dum0 "$DST0" "0:0 1:1 2:2 3:3"
	steer_check "UDP after the refused rmmod" dum0 "$NQ" 0 "$SPEC"

	row_mark
	if ! modprobe -r xps_steer >"$W/rmmod.out" 2>&1; then
		fail "modprobe -r xps_steer failed:"
		diag_file "$W/rmmod.out"
		return
	fi
	row R02 ok
	xps_loaded && fail "xps_steer still loaded after modprobe -r"
	path_absent "$XS" || fail "$XS still exists after modprobe -r"
	# Stock selection again: 64 flows of one CPU spread over all queues.
	udp_all - dum0 "$DST0" "0:* 1:* 2:* 3:*"
	steer_check "stock after modprobe -r" dum0 "$NQ" 1 "$SPEC"
}

t_dev_list_runtime() {
	fx_loaded dev=dum0 || return
	dev_is dum0 || return
	path_absent "$XS/veth0" || { fail "veth0 attached before it was named"; return; }

	# Add veth0: attached at once, steering per packet.
	dev_write R03 dum0,veth0 "ok 10" || return
	dev_is dum0,veth0
	expect_tree veth0 "$NQ" || return
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	set_masks dum0 "${MAP[@]}" || return
	udp_all - veth0 "$DST2" "0:0 1:1 2:2 3:3"
	steer_check "UDP on veth0 added at runtime" veth0 "$NQ" 0 "$SPEC"

	# Drop dum0: detached at once; veth0 keeps its masks.
	dev_write R04 veth0 "ok 5" || return
	dev_is veth0
	path_absent "$XS/dum0" || fail "$XS/dum0 still exists after dum0 left dev="
	expect_masks veth0 "${MAP[@]}"
	udp_all - dum0 "$DST0" "0:* 1:* 2:* 3:*"
	steer_check "dum0 stock after it left dev=" dum0 "$NQ" 1 "$SPEC"

	# A name that is not there yet: attached when it registers.
	ip link del dumx 2>/dev/null
	dev_write R05 veth0,dumx "ok 10" || return
	must ip link add dumx numtxqueues 4 type dummy || return
	if wait_until 5 test -d "$XS/dumx"; then
		expect_tree dumx 4
	else
		fail "dumx named in dev=, created afterwards: not attached"
	fi
	must ip link del dumx
	wait_until 5 path_absent "$XS/dumx" || fail "$XS/dumx survives the device"

	# The empty list: everything detached; then plain rmmod works.
	dev_write R06 "$NL" "ok 1" || return
	dev_is ""
	path_absent "$XS/veth0" || fail "$XS/veth0 still exists after an empty dev="
	row_mark
	if rmmod xps_steer >"$W/rmmod.out" 2>&1; then
		row R07 ok
	else
		fail "rmmod with nothing attached failed:"
		diag_file "$W/rmmod.out"
	fi
}

t_dev_list_bad_input() {
	local id val want before names i
	fx_loaded dev=dum0,veth0 || return
	set_masks dum0 1 2 4 8 || return
	before=$(tree_list dum0)/$(tree_list veth0)
	names=
	for ((i = 1; i <= 33; i++)); do names+="${names:+,}n$i"; done
	while read -r id val want; do
		[ "$val" = @33 ] && val=$names
		dev_write "$id" "$val" "$want" || continue
		dev_is dum0,veth0
		[ "$(tree_list dum0)/$(tree_list veth0)" = "$before" ] ||
			fail "$id: the trees changed: $(tree_list dum0)/$(tree_list veth0)"
	done <<'EOF'
R08 dum0,,veth0 err EINVAL
R09 veth0,veth0 err EINVAL
R10 @33 err EINVAL
EOF
	# From another network namespace, as root: EPERM, logged.
	row_mark
	xw ref "$DEVP" veth0
	if [ "$XW" = "err EPERM" ]; then
		row R11 "$XW"
	else
		fail "dev= written from netns ref gave '$XW', expected 'err EPERM'"
	fi
	# Without CAP_NET_ADMIN: EPERM, not logged.
	if choose_priv; then
		row_mark
		XW=$("${PRIV_NOCAP[@]}" xwrite -- "$DEVP" veth0 2>&1)
		if [ "$XW" = "err EPERM" ]; then
			row R12 "$XW"
		else
			fail "dev= written without CAP_NET_ADMIN gave '$XW', expected 'err EPERM'"
		fi
	fi
	dev_is dum0,veth0
	expect_masks dum0 1 2 4 8
}

# 39 detaches in a burst are more than the 32 slots, each given back only
# after the reaper's grace periods: an attach that finds none free waits
# for the reaper rather than refuse. No process started in the loop, so
# the writes come as fast as the shell can make them.
t_dev_list_burst() {
	local i list want
	fx_loaded dev=dum0 || return
	klog_mark
	for ((i = 0; i < 80; i++)); do
		list=dum0 want=dum0
		if ((i % 2 == 1)); then	# the last one too
			list=dum0,veth0 want="dum0 veth0"
		fi
		if ! printf '%s' "$list" 2>"$W/burst.err" >"$DEVP"; then
			fail "write $i: dev=$list failed: $(cat "$W/burst.err")"
			return
		fi
		names_in "$XS"
		if [ "$DIR_NAMES" != "$want" ]; then
			fail "write $i: dev=$list, but $XS has '$DIR_NAMES'"
			diag "log: $(klog_since | grep xps_steer | tail -n 3)"
			return
		fi
	done
	diag "80 dev= writes, each followed at once by its tree"
	if klog_since | grep -q 'slots are in use'; then
		fail "an attach was refused for want of a slot:"
		klog_since | grep 'slots are in use' | head -n 3 | sed 's/^/#   /'
	fi
	map11 "$NQ"
	set_masks veth0 "${MAP[@]}" || return
	udp_all - veth0 "$DST2" "0:0 1:1 2:2 3:3"
	steer_check "UDP after the burst" veth0 "$NQ" 0 "$SPEC"
}
