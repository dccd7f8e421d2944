#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist.sh - the persistence boots of `make check-install`: run once per
# boot by xps-steer-test.service (test/guest/xps-steer-test.service) in the
# installed Debian system, with systemd as init and udev running. Nobody
# runs xps-steer here: /etc/xps-steer.conf maps eth0 (matched by MAC and
# driver) CPU c -> queue 3-c, and the package's xps-steer.service and
# 70-xps-steer.rules must put that map in force:
#
#   boot 1, 2  persist_boot, then reboot
#   boot 3     persist_boot, persist_modprobe, persist_unit_restart,
#              persist_driver_reload, persist_hotplug, persist_rename,
#              persist_cpu_hotplug, persist_channels, then power off
#
# The boot number is kept on the root file system ($STATE, "N begun" or
# "N done", synced): a boot that finds the one before it begun but not done
# (a panic rebooted the guest, or the unit was killed) says so and powers
# off, as does a boot beyond the last. KTAP on stdout (the unit sends it to
# ttyS0), then XPS_STEER_PERSIST_BOOT=<n>, XPS_STEER_GUEST_TAINT=<n> and
# XPS_STEER_GUEST_EXIT=<rc>: the host (check-install.sh) judges each boot's
# part of the console on its own. The NIC, the traffic and the per-packet
# oracle: install-lib.sh.

# Functions run through run_test; lists are split on purpose.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C

# shellcheck source=lib.sh
. /test/lib.sh
# shellcheck source=install-lib.sh
. /test/install-lib.sh

BOOTS=3
STATE=/var/lib/xps-steer-test/boot
UNIT=xps-steer.service
SETTLE=60	# seconds: udevadm settle, and for a map to appear

# ------------------------------------------------------------- helpers --

# settle: udev has handled every event so far (its RUN programs done),
# bounded.
settle() {
	udevadm settle --timeout="$SETTLE" >"$W/settle.out" 2>&1 ||
		diag "udevadm settle: not settled after $SETTLE s"
}

masks_are_rev() { [ "$(read_masks "$DEV" "$NQ")" = "8 4 2 1" ]; }

# applied LABEL: after LABEL, the configured map is in force without
# anyone running xps-steer: masks 8 4 2 1 within SETTLE s, then every
# packet of every CPU on its queue.
applied() {
	settle
	if ! wait_until "$SETTLE" masks_are_rev; then
		fail "$1: the configured map is not in force after $SETTLE s: masks '$(read_masks "$DEV" "$NQ" 2>&1)', expected '8 4 2 1'"
		diag "module status: $(tr '\n' ';' </sys/module/xps_steer/status 2>&1)"
		diag "the log of udev and the unit since boot:"
		journalctl -b -q -o short-monotonic -u systemd-udevd.service -u "$UNIT" --no-pager 2>&1 |
			tail -n 20 | sed 's/^/#   /'
		return 1
	fi
	diag "$1: masks $(read_masks "$DEV" "$NQ")"
	udev_runs_ok "$1"
	send_all || return
	check "$(rev_spec)" "$1"
}

# udev_runs_ok LABEL: no program of 70-xps-steer.rules failed since the
# boot, or since the test began (udev_mark) (udevd logs "Process '...'
# failed with exit code N.", "terminated by signal", "timed out" as
# warnings or errors).
UDEV_SINCE=
udev_mark() { UDEV_SINCE=$(date +%s); }
udev_runs_ok() {
	journalctl -b ${UDEV_SINCE:+--since "@$UDEV_SINCE"} -q -o cat \
		-u systemd-udevd.service --no-pager 2>&1 |
		grep -F "/usr/sbin/xps-steer" >"$W/udev.out"
	grep -q -e "failed" -e "terminated by signal" -e "timed out" "$W/udev.out" || return 0
	fail "$1: a udev rule's xps-steer run failed:"
	diag_file "$W/udev.out" 10
}

# need_map: precondition of a test that checks the map stays in force.
need_map() {
	need_module || return
	masks_are_rev && return 0
	fail "the map is not in force before the test (masks '$(read_masks "$DEV" "$NQ" 2>&1)'): an earlier step failed; nothing to test"
	return 1
}

# unload: modprobe -r xps_steer, then traffic must not follow the map.
unload() {
	must modprobe -r xps_steer || return
	path_absent "$XS" || { fail "$XS still exists after modprobe -r"; return 1; }
	not_rev "after modprobe -r xps_steer"
}

# ---------------------------------------------------------------- tests --

t_persist_boot() {
	local st
	settle
	# The package's postinst enabled the unit; it ran at this boot, once,
	# and succeeded.
	st=$(systemctl is-enabled "$UNIT" 2>&1)
	[ "$st" = enabled ] || fail "$UNIT is '$st', not enabled (the package's postinst enables it)"
	systemctl show -p ActiveState -p Result -p ExecMainStatus "$UNIT" >"$W/unit.out" 2>&1
	diag "$UNIT: $(tr '\n' ' ' <"$W/unit.out")"
	if ! grep -qx ActiveState=active "$W/unit.out" || ! grep -qx Result=success "$W/unit.out" ||
		! grep -qx ExecMainStatus=0 "$W/unit.out"; then
		fail "$UNIT did not run to success at boot"
	fi
	journalctl -b -q -o cat -u "$UNIT" --no-pager >"$W/journal.out" 2>&1
	diag "its log:"
	diag_file "$W/journal.out" 20
	grep -qx "xps_steer: loaded with dev=$DEV" "$W/journal.out" ||
		fail "$UNIT did not load xps_steer with dev=$DEV ('xps-steer load' matches the section by MAC and driver)"
	diag "module status: $(tr '\n' ';' </sys/module/xps_steer/status 2>&1)"
	grep -q "^$DEV attached" /sys/module/xps_steer/status 2>/dev/null || fail "$DEV is not attached"
	nic_up || return
	applied "boot $BOOT"
}

t_persist_modprobe() {
	udev_mark
	need_module || return
	unload || return
	# Only the udev rule on the module's attach event writes the map now.
	must modprobe xps_steer dev="$DEV" || return
	applied "modprobe xps_steer dev=$DEV (the udev rule)"
}

t_persist_unit_restart() {
	udev_mark
	need_module || return
	unload || return
	# What xps-steer.conf(5) tells an operator after an unload.
	must timeout 150 systemctl restart "$UNIT" || return
	applied "systemctl restart $UNIT"
}

t_persist_driver_reload() {
	udev_mark
	need_module || return
	must rmmod virtio_net || return
	wait_until 10 path_absent /sys/class/net/"$DEV" || { fail "$DEV still there after rmmod virtio_net"; return 1; }
	grep -q "^$DEV absent" /sys/module/xps_steer/status ||
		fail "module status after rmmod virtio_net: $(tr '\n' ';' </sys/module/xps_steer/status 2>&1), expected $DEV absent"
	# The module still lists eth0: it attaches the new device, whose masks
	# start empty, and the udev rule on its attach event writes the map.
	must modprobe virtio_net || return
	wait_until 30 test -d /sys/class/net/"$DEV" || { fail "no $DEV 30 s after modprobe virtio_net"; return 1; }
	nic_up || return
	applied "rmmod virtio_net; modprobe virtio_net (the udev rule)"
}

t_persist_hotplug() {
	udev_mark
	need_module || return
	# eth0 out of the module's list (detached, the module stays): when it
	# registers again nothing in the module attaches it.
	must sh -c "echo > $DEVP" || return
	dev_is "" || return
	must rmmod virtio_net || return
	wait_until 10 path_absent /sys/class/net/"$DEV" || { fail "$DEV still there after rmmod virtio_net"; return 1; }
	# The net-device rule (xps-steer hotplug) finds a section for the new
	# eth0 and puts it in dev=; the attach event's rule writes the map.
	must modprobe virtio_net || return
	wait_until 30 test -d /sys/class/net/"$DEV" || { fail "no $DEV 30 s after modprobe virtio_net"; return 1; }
	nic_up || return
	applied "$DEV registered while not in dev= (the udev rules)" || return
	dev_is "$DEV"
}

masks_rev_on() { [ "$(read_masks "$1" "$NQ")" = "8 4 2 1" ]; }	# DEV

# The masks cleared first: only the udev rule, run on the module's move
# event for the new name, can bring the map back.
t_persist_rename() {
	local new=wan0 q
	udev_mark
	need_map || return
	for ((q = 0; q < NQ; q++)); do
		must sh -c "echo 0 > $XS/$DEV/tx-$q/xps_cpus" || return
	done
	[ "$(read_masks "$DEV" "$NQ")" = "0 0 0 0" ] ||
		{ fail "masks not cleared: '$(read_masks "$DEV" "$NQ")'"; return 1; }
	must ip link set "$DEV" down || return
	must ip link set "$DEV" name "$new" || return
	settle
	if ! wait_until "$SETTLE" masks_rev_on "$new"; then
		fail "$DEV renamed to $new: masks '$(read_masks "$new" "$NQ" 2>&1)' after $SETTLE s, expected '8 4 2 1' (the move event's rule)"
		must ip link set "$new" name "$DEV"
		return 1
	fi
	diag "renamed to $new: masks $(read_masks "$new" "$NQ")"
	must ip link set "$new" name "$DEV" || return
	nic_up || return
	applied "$DEV renamed to $new (the map re-applied by the move event's rule) and back"
}

t_persist_cpu_hotplug() {
	local cpu=/sys/devices/system/cpu/cpu3/online
	need_map || return
	must sh -c "echo 0 > $cpu" || return
	cpus_refresh
	diag "cpu3 offline: CPUs ${CPUS[*]}, masks $(read_masks "$DEV" "$NQ")"
	send_all
	check "$(rev_spec)" "cpu3 offline"
	must sh -c "echo 1 > $cpu" || return
	cpus_refresh
	diag "cpu3 online again: CPUs ${CPUS[*]}"
	[ "${#CPUS[@]}" = "$NQ" ] || fail "CPUs online: ${CPUS[*]}"
	if masks_are_rev; then
		diag "masks $(read_masks "$DEV" "$NQ")"
	else
		fail "masks after the CPU hotplug cycle: '$(read_masks "$DEV" "$NQ")', expected '8 4 2 1'"
	fi
	send_all || return
	check "$(rev_spec)" "after the cpu3 offline/online cycle"
}

t_persist_channels() {
	need_map || return
	channels_cycle
}

test_def persist_boot "at boot, with nobody running xps-steer: the unit (enabled by the package) loaded xps_steer with dev=$DEV, and every packet from CPU c leaves on queue 3-c"
test_def persist_modprobe "modprobe -r xps_steer (stock selection), modprobe xps_steer dev=$DEV: the udev rule re-applies the map, per packet"
test_def persist_unit_restart "modprobe -r xps_steer, systemctl restart $UNIT: the map is back, per packet"
test_def persist_driver_reload "rmmod virtio_net, modprobe virtio_net: the re-registered $DEV is attached and the udev rule re-applies the map, per packet"
test_def persist_hotplug "$DEV out of dev=, rmmod virtio_net, modprobe virtio_net: the net-device udev rule puts $DEV back in dev= and the attach event's rule re-applies the map, per packet"
test_def persist_rename "masks cleared, $DEV renamed to wan0: the udev rule on the module's move event re-applies the map (matched by MAC); renamed back, per packet"
test_def persist_cpu_hotplug "cpu3 offline and online again: the map in force throughout, per packet"
test_def persist_channels "ethtool -L combined 2 then $NQ: no queue >= real_num_tx_queues, the map in force, per packet"

# Only when something is wrong with the boot count.
t_persist_previous() {
	fail "boot $((BOOT - 1)) began and never finished (a panic rebooted the guest, or the test unit was stopped): see the console before this line"
}
t_persist_extra() {
	fail "boot $BOOT: only $BOOTS boots were expected (the last one powers off)"
}
test_def persist_previous "the boot before this one finished"
test_def persist_extra "no boot after the last"

main() {
	local last=0 what='done' tests
	NEXT=poweroff
	mkdir -p "${STATE%/*}"
	[ ! -r "$STATE" ] || read -r last what <"$STATE"
	BOOT=$((last + 1))
	echo "$BOOT begun" >"$STATE"
	sync
	if [ "$what" != 'done' ]; then
		tests=persist_previous
	elif [ "$BOOT" -gt "$BOOTS" ]; then
		tests=persist_extra
	elif [ "$BOOT" -lt "$BOOTS" ]; then
		tests=persist_boot
		NEXT=reboot
	else
		tests=persist_boot,persist_modprobe,persist_unit_restart,persist_driver_reload,persist_hotplug,persist_rename,persist_cpu_hotplug,persist_channels
	fi
	select_tests "$tests" || return 1
	run_selected "persist boot $BOOT of $BOOTS" || return 1
	[ "$N_SKIP" = 0 ]
}

main </dev/null 2>&1
rc=$?
echo
echo "XPS_STEER_PERSIST_BOOT=$BOOT"
echo "XPS_STEER_GUEST_TAINT=$(cat /proc/sys/kernel/tainted)"
echo "XPS_STEER_GUEST_EXIT=$rc"
echo "$BOOT done" >"$STATE"
sync
# The next boot (exit 0: the unit's SuccessAction=reboot), or the end, the
# last boot or a wrong count (exit 1: FailureAction=poweroff). Either way
# the test's result is on the console.
[ "$NEXT" = reboot ]
