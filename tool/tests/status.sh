#!/bin/bash
# status.sh - xps-steer status, map, set, attach and detach against fake
# module and kernel files.
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Two devices listed: eth0 attached (4 queues, 3 active), eth1 refused.
status_fixture() {
	fake_cpus 4
	fake_netdev eth0 3 virtio_net 52:54:00:AA:BB:01 0000:00:03.0 0
	fake_netdev eth1 2 bnx2x 52:54:00:aa:bb:02 0000:00:04.0 1
	fake_module "eth0 attached queues=4 active=3 hook=installed name=eth0" \
		"eth1 refused reason=own-select-queue" "eth9 absent"
	fake_attached eth0 4 3
	printf 'tx-0 0\ntx-1 1\ntx-2 2-3\ntx-3 3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
	echo 5 >"$(R /sys/kernel/xps_steer/eth0/tx-2/packets)"
	hexmask 4 2 >"$(R /sys/class/net/eth0/queues/tx-2/xps_cpus)"
	hexmask 4 0-1 >"$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
}

test_tool_status_text() {
	status_fixture
	xs status
	expect_rc 0
	expect_eq "status" "eth0: attached, backend module, hook installed, mode steer
  driver virtio_net, bus 0000:00:03.0, numa node 0, mac 52:54:00:aa:bb:01
  queues 4, 3 active
  queue  cpus  rxqs  irq  irq-cpus  kernel-xps   packets
  tx-0   0     0     -    -         none         0
  tx-1   1     0     -    -         none         0
  tx-2   2-3   0     -    -         2 (differs)  5
  tx-3*  3     0     -    -         -            0
  * not in use (ethtool -L): keeps its mask, no packet is sent on it
  kernel-xps: the kernel's own xps_cpus differs; it applies only to packets xps_steer leaves to stock selection
  counters: steered=0 steered_by_rxqs=0 kept_socket_queue=0 cpu_in_no_mask=0 subordinate_device=0 traffic_class=0 queue_inactive=0 no_map=0

eth1: refused (own-select-queue), backend kernel
  driver bnx2x, bus 0000:00:04.0, numa node 1, mac 52:54:00:aa:bb:02
  queues 2, 2 active
  warning: masks are the kernel's xps_cpus files; the driver may rewrite them (CPU hotplug, ethtool -L)
  queue  cpus  rxqs  irq  irq-cpus  kernel-xps  packets
  tx-0   none  -     -    -         -           -
  tx-1   0-1   -     -    -         -           -

eth9: absent, backend none
  no such device yet: attached when it registers" "$out"
}

test_tool_status_json() {
	status_fixture
	xs status --json
	expect_rc 0
	expect_eq "json summary" "1 true eth0:attached:module:3:2-3:2:true:5 eth1:refused:kernel:own-select-queue:0-1 eth9:absent:none" \
		"$(jq -r '[.version, .module_loaded,
			(.devices[0] | "\(.name):\(.state):\(.backend):\(.queues_active):\(.queues[2].cpus):\(.queues[2].kernel_xps_cpus):\(.queues[2].kernel_differs):\(.queues[2].packets)"),
			(.devices[1] | "\(.name):\(.state):\(.backend):\(.reason):\(.queues[1].cpus)"),
			(.devices[2] | "\(.name):\(.state):\(.backend)")] | join(" ")' "$T_DIR/out")"
	expect_eq "counters" 0 "$(jq '.devices[0].counters.no_map' "$T_DIR/out")"
}

test_tool_status_unknown_device() {
	status_fixture
	xs status nosuch0
	expect_rc 3
	expect_eq "message" "xps-steer: status: nosuch0: no such device, and not in xps_steer's device list" "$errtext"
}

test_tool_status_not_loaded() {
	fake_cpus 2
	xs status
	expect_rc 0
	expect_eq "output" "xps_steer: not loaded" "$out"
}

test_tool_map_cpu_to_queues() {
	status_fixture
	xs map eth0
	expect_rc 0
	expect_eq "map" "eth0 (backend module): CPU -> transmit queues
  cpu  queues
  0    tx-0
  1    tx-1
  2    tx-2
  3    tx-2" "$out"
	xs map eth0 --json
	expect_eq "json" "0:[0] 3:[2]" "$(jq -r '[.cpus[0], .cpus[3]] | map("\(.cpu):\(.queues|tojson)") | join(" ")' "$T_DIR/out")"
}

test_tool_set_module_backend() {
	status_fixture
	xs set eth0 tx-1 0-1,3
	expect_rc 0
	expect_eq "written" "0-1,3" "$(cat "$(R /sys/kernel/xps_steer/eth0/tx-1/xps_cpus_list)")"
	xs set eth0 2 none
	expect_rc 0
	expect_eq "cleared" "" "$(cat "$(R /sys/kernel/xps_steer/eth0/tx-2/xps_cpus_list)")"
}

test_tool_set_kernel_backend() {
	status_fixture
	xs set eth1 1 3
	expect_rc 0
	expect_eq "kernel file" "8" "$(cat "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)")"
	[[ $errtext == *"writing the kernel's own xps_cpus (xps_steer refused the device); driver bnx2x may rewrite it"* ]] ||
		fail "no warning: $errtext"
}

test_tool_set_bad_input() {
	status_fixture
	xs set eth0 tx-x 1
	expect_rc 2
	expect_eq "queue" "xps-steer: set: eth0: 'tx-x' is not a queue (N or tx-N)" "$errtext"
	xs set eth0 1 1-z
	expect_rc 2
	expect_eq "list" "xps-steer: set: eth0: '1-z' is not a CPU list (like 0-3,8; none for no CPU)" "$errtext"
	for bad in 3-1 1,,2 1-2-3 ,1 "1," 4294967296 65536 "1 2" 1-; do
		xs set eth0 1 "$bad"
		expect_rc 2
		expect_eq "list '$bad'" "xps-steer: set: eth0: '$bad' is not a CPU list (like 0-3,8; none for no CPU)" "$errtext"
	done
	xs set eth0 9 1
	expect_rc 2
	expect_eq "range" "xps-steer: set: eth0: no queue tx-9: the device has 4" "$errtext"
	xs set eth9 0 1
	expect_rc 3
	xs set lo 0 1
	expect_rc 3
	expect_eq "files untouched" "tx-0 0
tx-1 1
tx-2 2-3
tx-3 3" "$(cat "$(R /sys/kernel/xps_steer/eth0/map)")"
}

test_tool_attach_detach() {
	status_fixture
	# What the module's status file will say of eth5 once it is listed.
	echo "eth5 absent" >>"$(R /sys/module/xps_steer/status)"
	xs attach eth5
	expect_rc 0
	expect_eq "report" "eth5: absent: attached when it registers" "$out"
	expect_eq "list" "eth0,eth1,eth9,eth5" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	xs detach eth1 eth9
	expect_rc 0
	expect_eq "list" "eth0,eth5" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	xs detach eth7
	expect_rc 3
	expect_eq "unchanged" "eth0,eth5" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
}

test_tool_status_failed() {
	fake_cpus 2
	fake_netdev eth3 2
	fake_module "eth3 failed reason=no-free-slot"
	xs status eth3
	expect_rc 0
	expect_eq "first line" "eth3: failed (no-free-slot), backend kernel" "$(head -n 1 "$T_DIR/out")"
	xs status --json
	expect_eq "json" "failed no-free-slot kernel" "$(jq -r '.devices[0] | "\(.state) \(.reason) \(.backend)"' "$T_DIR/out")"
}

# A refused line that gives a queue count, for a device that has gone,
# and a blank line: no crash, and no queues made up.
test_tool_status_refused_gone() {
	fake_cpus 2
	fake_module "eth9 refused reason=too-many-queues queues=70000 max=65535"
	echo "   " >>"$(R /sys/module/xps_steer/status)"
	xs status --json
	expect_rc 0
	expect_eq "json" "eth9 refused none 0 0" \
		"$(jq -r '.devices[] | "\(.name) \(.state) \(.backend) \(.queues_total) \(.queues | length)"' "$T_DIR/out")"
}

# The kernel's hex text holds the possible CPUs only: a CPU beyond them is
# refused (ERANGE), never dropped.
test_tool_set_kernel_beyond_possible() {
	status_fixture
	xs set eth1 0 1,33
	expect_rc 1
	expect_eq "message" "xps-steer: set: eth1: tx-0: write rejected (Numerical result out of range): a CPU beyond the possible CPUs" \
		"$(grep -v warning <<<"$errtext")"
	expect_eq "file unchanged" "0" "$(cat "$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)")"
}

# Parallel attaches (udev runs one hotplug per new device at once): the
# dev= list is locked, no name is lost.
test_tool_attach_parallel() {
	local i pids=()
	status_fixture
	mkdir -p "$(R /run)"
	for i in 1 2 3 4 5 6 7 8; do
		echo "veth$i absent" >>"$(R /sys/module/xps_steer/status)"
	done
	for i in 1 2 3 4 5 6 7 8; do
		"$XS" attach "veth$i" >/dev/null 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i"; done
	expect_eq "every name listed" "eth0 eth1 eth9 veth1 veth2 veth3 veth4 veth5 veth6 veth7 veth8" \
		"$(tr ',' '\n' <"$(R /sys/module/xps_steer/parameters/dev)" | sort | paste -sd' ')"
}

# Every command that takes an interface name checks it first: a name the
# kernel would not take (or one with dev='s comma) is exit 2, with the
# rule, and nothing is read or written (no path outside /sys/class/net,
# no extra entry smuggled into dev=).
test_tool_bad_interface_names() {
	fake_cpus 4
	fake_netdev eth0 2
	fake_module "eth0 attached queues=2 active=2 hook=installed name=eth0"
	fake_attached eth0 2
	mkdir -p "$(R /etc)"
	printf '[eth0]\ntx-0 = 1\n' >"$(R /etc/xps-steer.conf)"
	local why="1 to 15 characters, not . or .., no '/', ':', ',' or blanks"
	local bad cmd
	for bad in "" "." ".." "a/b" "../eth0" "a:1" "eth0,eth1" "a b" "0123456789abcdef"; do
		for cmd in "status" "map" "set X 0 1" "attach" "detach" \
			"auto X --policy irq --dry-run" "apply" "save" "hotplug" "verify"; do
			local args=()
			read -ra args <<<"$cmd"
			if [[ $cmd == *X* ]]; then
				args=("${args[@]/X/$bad}")
			else
				args+=("$bad")
			fi
			xs "${args[@]}"
			expect_rc 2
			expect_eq "$cmd '$bad'" "xps-steer: ${args[0]}: '$bad' is not an interface name ($why)" "$errtext"
			expect_eq "$cmd '$bad': stdout" "" "$out"
		done
	done
	# attach checks every name before it writes anything.
	xs attach eth1 "eth2,eth3"
	expect_rc 2
	expect_eq "dev= untouched" "eth0" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	expect_eq "map untouched" "tx-0
tx-1" "$(cat "$(R /sys/kernel/xps_steer/eth0/map)")"
	# A config section's fixed name follows the same rule.
	printf '[a,b]\ntx-0 = 1\n' >"$(R /etc/xps-steer.conf)"
	xs apply
	expect_rc 2
	expect_eq "config" "xps-steer: apply: /etc/xps-steer.conf:1: [a,b]: without name, mac, driver or path the section name is the interface name, and this is not one ($why)" "$errtext"
}

# A guarded device (the module's status line says mode=guard, why, and the
# denylisted driver): status says so in text and JSON, no packets column
# (guard mode counts none), and a kernel map that differs is one the guard
# writes again.
test_tool_status_guard() {
	fake_cpus 4
	fake_netdev eth2 2 mlx5_core 52:54:00:aa:bb:03 0000:00:05.0 0
	fake_module "eth2 attached queues=2 active=2 hook=none name=eth2 mode=guard guard=denylisted driver=mlx5_core"
	fake_attached eth2 2
	rm "$(R /sys/kernel/xps_steer/eth2/tx-0/packets)" "$(R /sys/kernel/xps_steer/eth2/tx-1/packets)"
	printf '%s 0\n' applied restored_by_event restored_by_hotplug restored_by_poll \
		restore_failed checks >"$(R /sys/kernel/xps_steer/eth2/stats)"
	printf 'tx-0\ntx-1 1\n' >"$(R /sys/kernel/xps_steer/eth2/map)"
	hexmask 4 3 >"$(R /sys/class/net/eth2/queues/tx-1/xps_cpus)"
	xs status eth2
	expect_rc 0
	expect_eq "status" "eth2: attached, backend module, hook none, mode guard (denylisted, driver mlx5_core)
  driver mlx5_core, bus 0000:00:05.0, numa node 0, mac 52:54:00:aa:bb:03
  queues 2, 2 active
  queue  cpus  rxqs  irq  irq-cpus  kernel-xps   packets
  tx-0   none  0     -    -         none         -
  tx-1   1     0     -    -         3 (differs)  -
  kernel-xps: the kernel's own xps_cpus differs; the guard writes the map again within guard_interval_ms
  counters: applied=0 restored_by_event=0 restored_by_hotplug=0 restored_by_poll=0 restore_failed=0 checks=0" "$out"
	xs status --json eth2
	expect_rc 0
	expect_eq "json" "guard denylisted mlx5_core null 0" \
		"$(jq -r '.devices[0] | "\(.mode) \(.guard) \(.guard_driver) \(.queues[1].packets) \(.counters.restored_by_poll)"' "$T_DIR/out")"
	# A steered device says mode steer; a line without mode= (an older
	# module) too.
	fake_module "eth2 attached queues=2 active=2 hook=installed name=eth2"
	xs status --json eth2
	expect_eq "older module" "steer null" "$(jq -r '.devices[0] | "\(.mode) \(.guard)"' "$T_DIR/out")"
}

# attach DEV:guard lists the entry as given; asking again in the other
# mode replaces it; detach DEV finds DEV:guard; any other suffix is a bad
# name, refused before the list changes.
test_tool_attach_guard() {
	status_fixture
	echo "eth5 attached queues=2 active=2 hook=none name=eth5 mode=guard guard=requested" \
		>>"$(R /sys/module/xps_steer/status)"
	xs attach eth5:guard
	expect_rc 0
	expect_eq "report" "eth5: attached in guard mode (2 tx queues)" "$out"
	expect_eq "list" "eth0,eth1,eth9,eth5:guard" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	xs attach eth0:guard
	expect_rc 0
	expect_eq "mode changed" "eth0:guard,eth1,eth9,eth5:guard" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	xs attach eth0
	expect_eq "back to the default" "eth0,eth1,eth9,eth5:guard" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	xs attach eth6:steer
	expect_rc 2
	expect_eq "message" "xps-steer: attach: 'eth6:steer' is not an interface name (1 to 15 characters, not . or .., no '/', ':', ',' or blanks)" "$errtext"
	expect_eq "unchanged" "eth0,eth1,eth9,eth5:guard" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	xs detach eth5
	expect_rc 0
	expect_eq "detached" "eth0,eth1,eth9" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
}
