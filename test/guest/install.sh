#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# install.sh - PID 1 of the installation test's last guest (test/check-install.sh):
# a Debian bookworm root filesystem with xps-steer-dkms installed by apt,
# booted with its own kernel; eth0 is virtio-net with 4 queue pairs on a
# host multiqueue tap; 4 vCPUs. KTAP output on the console, then
# XPS_STEER_GUEST_TAINT=<n> and XPS_STEER_GUEST_EXIT=<rc>, then power off.
# The NIC, the traffic and the per-packet oracle: install-lib.sh. The last
# boot of the test: the systemd boots of persist.sh come before it.

# Functions run through run_test; lists are split on purpose.
# shellcheck source=pid1.sh
. /test/pid1.sh
pid1_start xps-install

# shellcheck source=lib.sh
. /test/lib.sh
# shellcheck source=install-lib.sh
. /test/install-lib.sh
# shellcheck source=/dev/null # written by test/check-install.sh
. /test/expect.env

# ---------------------------------------------------------------- tests --

t_install_modinfo() {
	local f k v l p d
	if [ "$(uname -r)" != "$EXPECT_ABI" ]; then
		fail "booted kernel $(uname -r), expected $EXPECT_ABI"
		return
	fi
	must modinfo xps_steer || return
	diag_file "$W/q.out" 20
	f=$(modinfo -n xps_steer)
	case $f in
	/lib/modules/"$EXPECT_ABI"/updates/dkms/xps_steer.ko*) ;;
	*) fail "modinfo -n: '$f', not the DKMS-installed module" ;;
	esac
	for k in description version license; do
		[ -n "$(modinfo -F "$k" xps_steer)" ] || fail "modinfo: no $k"
	done
	v=$(modinfo -F version xps_steer)
	[ "$v" = "$EXPECT_VERSION" ] || fail "version '$v', package version $EXPECT_VERSION"
	l=$(modinfo -F license xps_steer)
	[ "$l" = GPL ] || [ "$l" = "GPL v2" ] || fail "license '$l'"
	# "name:description (type)"; a parameter without MODULE_PARM_DESC has
	# an empty description.
	modinfo -F parm xps_steer >"$W/parm"
	[ -s "$W/parm" ] || fail "modinfo lists no parameter (dev= is expected)"
	grep -q '^dev:' "$W/parm" || fail "modinfo lists no dev parameter"
	while IFS= read -r p; do
		d=${p#*:}
		d=${d% \(*\)}
		d=$(echo "$d" | tr -d ' ')
		[ -n "$d" ] || fail "parameter '${p%%:*}' has no description"
	done <"$W/parm"
}

t_install_nic() {
	local n
	modprobe virtio_net 2>/dev/null
	wait_until 10 test -d /sys/class/net/"$DEV" || { fail "no $DEV"; return; }
	n=$(txq_count "$DEV")
	[ "$n" = "$NQ" ] || fail "$DEV has $n tx queues, expected $NQ"
	diag "$DEV: driver $(basename "$(readlink /sys/class/net/"$DEV"/device/driver)"), $n tx queues"
	ethtool -l "$DEV" 2>&1 | sed 's/^/#   /'
	nic_up
}

t_install_stock() {
	# The module's map below must not be what happens anyway.
	not_rev "without xps_steer"
}

t_install_load() {
	klog_mark
	must modprobe xps_steer dev=eth0 || return
	expect_tree "$DEV" "$NQ" || return
	klog_expect "$DEV: attached ($NQ tx queues)"
}

t_install_tool() {
	local v
	v=$(xps-steer --version 2>&1)
	[ "$v" = "xps-steer $EXPECT_VERSION" ] || fail "xps-steer --version: '$v', package version $EXPECT_VERSION"
	need_module || return
	must xps-steer status --json "$DEV" || return
	jq -e '.devices[0] | .state == "attached" and .backend == "module" and .driver == "virtio_net" and .queues_total == 4' \
		"$W/q.out" >/dev/null || { fail "xps-steer status --json $DEV:"; diag_file "$W/q.out" 40; }
}

t_install_steering() {
	local q vpid moved
	need_module || return
	# tx-q carries CPU NQ-1-q: the reverse of virtio-net's own XPS
	# diagonal, set with the installed tool, read back from the module.
	for ((q = 0; q < NQ; q++)); do
		must xps-steer set "$DEV" "tx-$q" $((NQ - 1 - q)) || return
	done
	expect_masks "$DEV" 8 4 2 1 || return
	# xps-steer verify watches the same traffic.
	xps-steer verify "$DEV" 6 --json >"$W/verify.json" 2>"$W/verify.err" &
	vpid=$!
	sleep 2
	send_all || return
	moved=$MOVED
	check "$(rev_spec)" "CPU c -> queue $((NQ - 1))-c"
	wait "$vpid"
	diag "xps-steer verify $DEV: exit $?, $(jq -c '{packets, off_map, off_map_by_counters, ok}' "$W/verify.json" 2>&1)"
	# verify counts the CPU that handed a frame to the driver: frames
	# handed over by another CPU (MOVED, from the frame lengths) may be
	# off its map; every other frame must be on it.
	jq -e --argjson sent $((PKTS * ${#CPUS[@]})) --argjson moved "$moved" \
		'.packets >= $sent and .off_map <= $moved' "$W/verify.json" >/dev/null ||
		{ fail "xps-steer verify disagrees with the per-packet check ($PKTS x ${#CPUS[@]} sent, $moved moved)"; diag_file "$W/verify.err" 5; }
}

t_install_channels() {
	need_module || return
	channels_cycle
}

# kernel_rev: the kernel's own masks of eth0 are the reverse diagonal
# (tx-q: CPU NQ-1-q); read_kmasks: what they read.
kernel_rev() {
	local q
	for ((q = 0; q < NQ; q++)); do
		[ "$(cat "$(kf "$DEV" "$q")")" = "$(printf '%x' $((1 << (NQ - 1 - q))))" ] || return 1
	done
}
read_kmasks() {
	local q
	for ((q = 0; q < NQ; q++)); do printf '%s ' "$(cat "$(kf "$DEV" "$q")")"; done
}

# The installed tool in guard mode: attach eth0:guard, the same map set
# with xps-steer set lands in the kernel's own map; every packet follows
# it, verify agrees from the tracepoint (guard mode counts no packets);
# ethtool -L rewrites the kernel's map and the guard writes it again.
t_install_guard_verify() {
	local q vpid moved
	need_module || return
	must xps-steer attach "$DEV:guard" || return
	must xps-steer status --json "$DEV" || return
	jq -e '.devices[0] | .state == "attached" and .mode == "guard" and .guard == "requested"' \
		"$W/q.out" >/dev/null || { fail "xps-steer status --json $DEV after attach $DEV:guard:"; diag_file "$W/q.out" 40; return; }
	for ((q = 0; q < NQ; q++)); do
		must xps-steer set "$DEV" "tx-$q" $((NQ - 1 - q)) || return
	done
	kernel_rev || { fail "the kernel's masks read $(read_kmasks) after xps-steer set in guard mode"; return; }
	# virtio-net writes its own map on ethtool -L; the guard's restore
	# follows within guard_interval_ms (1 s).
	must ethtool -L "$DEV" combined 2 || return
	must ethtool -L "$DEV" combined "$NQ" || return
	wait_until 5 kernel_rev ||
		{ fail "after ethtool -L combined 2, $NQ the kernel's masks read $(read_kmasks), not restored"; return; }
	xps-steer verify "$DEV" 6 --json >"$W/verify.json" 2>"$W/verify.err" &
	vpid=$!
	sleep 2
	send_all || return
	moved=$MOVED
	check "$(rev_spec)" "guard mode: CPU c -> queue $((NQ - 1))-c"
	wait "$vpid"
	diag "xps-steer verify $DEV (guard): exit $?, $(jq -c '{packets, off_map, ok}' "$W/verify.json" 2>&1)"
	jq -e --argjson sent $((PKTS * ${#CPUS[@]})) --argjson moved "$moved" \
		'.packets >= $sent and .off_map <= $moved' "$W/verify.json" >/dev/null ||
		{ fail "xps-steer verify disagrees with the per-packet check in guard mode ($PKTS x ${#CPUS[@]} sent, $moved moved)"; diag_file "$W/verify.err" 5; }
}

t_install_unload() {
	need_module || return
	# The package's modprobe.d rule: modprobe -r detaches eth0 first.
	[ -r /usr/lib/modprobe.d/xps_steer.conf ] ||
		fail "the package did not install /usr/lib/modprobe.d/xps_steer.conf"
	must modprobe -r xps_steer || return
	path_absent "$XS" || fail "$XS still exists after modprobe -r"
	send_all || return
	check_tbl "$W/tbl" "$NQ" "$PKTS" 0 "$(for c in "${CPUS[@]}"; do printf '%s:* ' "$c"; done)" >/dev/null ||
		fail "traffic after unload: fewer packets than sent"
}

t_install_removal() {
	local left st
	must apt-get remove -y xps-steer-dkms || return
	# (Not command -v: bash remembers where it found xps-steer before.)
	if [ -e /usr/sbin/xps-steer ] || dpkg-query -W -f='${db:Status-Status}' xps-steer 2>/dev/null | grep -qx installed; then
		fail "xps-steer still installed: removing xps-steer-dkms must remove the tool that depends on it"
	fi
	diag_file "$W/q.out" 15
	left=$(find /lib/modules -name 'xps_steer.ko*')
	[ -z "$left" ] || fail "still in /lib/modules after apt-get remove: $left"
	q modinfo xps_steer && fail "modinfo still finds xps_steer"
	st=$(dkms status 2>&1 | grep xps-steer)
	[ -z "$st" ] || fail "dkms still lists: $st"
	[ ! -e /usr/src/xps-steer-"$EXPECT_VERSION" ] || fail "/usr/src/xps-steer-$EXPECT_VERSION left behind"
	[ ! -e /usr/lib/modprobe.d/xps_steer.conf ] || fail "/usr/lib/modprobe.d/xps_steer.conf left behind"
}

test_def install_modinfo "modinfo: DKMS-installed module, description, version, license, every parameter described"
test_def install_nic "eth0 is virtio-net with $NQ tx queues"
test_def install_stock "stock selection is not the test's map (the check can fail)"
test_def install_load "modprobe xps_steer dev=eth0 attaches eth0"
test_def install_tool "xps-steer (the tool package): version, status --json of the attached eth0"
test_def install_steering "every packet from CPU c leaves on queue 3-c, a map set with xps-steer set; xps-steer verify agrees"
test_def install_channels "ethtool -L combined 2 then $NQ: no queue >= real_num_tx_queues, map kept"
test_def install_guard_verify "xps-steer attach eth0:guard: the map set with xps-steer set is the kernel's, kept through ethtool -L; every packet follows it, xps-steer verify agrees"
test_def install_unload "modprobe -r xps_steer (the package's modprobe.d rule detaches first): tree gone, traffic flows"
test_def install_removal "apt-get remove xps-steer-dkms: module gone from /lib/modules, the tool with it"

main() {
	select_tests all || return 1
	run_selected install || return 1
	[ "$N_SKIP" = 0 ]
}

main </dev/null 2>&1
rc=$?
pid1_end "$rc"
