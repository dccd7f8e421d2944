#!/bin/bash
# config.sh - the configuration file: syntax and semantic errors (exit 2,
# file:line, nothing applied) and which section matches which device.
# Matching is observed through `apply --dry-run`, which names the section
# whose map it would write.
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Three attached devices, 2 queues each, on 4 CPUs:
#   ens5 virtio_net 52:54:00:aa:bb:03 0000:00:05.0
#   eth0 virtio_net 52:54:00:aa:bb:01 0000:00:03.0
#   eth1 ixgbe      52:54:00:aa:bb:02 0000:3b:00.0
cf_fixture() {
	fake_cpus 4
	fake_netdev ens5 2 virtio_net 52:54:00:aa:bb:03 0000:00:05.0
	fake_netdev eth0 2 virtio_net 52:54:00:aa:bb:01 0000:00:03.0
	fake_netdev eth1 2 ixgbe 52:54:00:AA:BB:02 0000:3b:00.0
	fake_module "ens5 attached queues=2 active=2 hook=installed name=ens5" \
		"eth0 attached queues=2 active=2 hook=installed name=eth0" \
		"eth1 attached queues=2 active=2 hook=installed name=eth1"
	fake_attached ens5 2
	fake_attached eth0 2
	fake_attached eth1 2
	mkdir -p "$(R /etc/xps-steer.d)"
}

# cf_conf FILE: the configuration below the root, from stdin.
cf_conf() {
	mkdir -p "$(dirname "$(R "$1")")"
	cat >"$(R "$1")"
}

# No map file may have changed.
cf_expect_maps_untouched() {
	local d
	for d in ens5 eth0 eth1; do
		expect_eq "$d map untouched" "tx-0
tx-1" "$(cat "$(R "/sys/kernel/xps_steer/$d/map")")"
	done
}

test_tool_config_unknown_key() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	[eth0]
	tx-0 = 0
	speed = 10G
	EOF
	xs apply
	expect_rc 2
	expect_eq "message" "xps-steer: apply: /etc/xps-steer.conf:3: unknown key 'speed' (name, mac, driver, path, policy, backend, tx-<n>)" "$errtext"
	expect_eq "stdout" "" "$out"
	cf_expect_maps_untouched
}

# Every error of a file is reported, in line order, then nothing applied.
test_tool_config_bad_values() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	; a comment
	[eth0]
	policy = fastest
	[eth1]
	backend = kernal
	tx-0 = 0-3,x
	tx-01 = 1
	tx-1 = 1
	tx-1 = 2
	[uplink]
	mac = 52-54-00-aa-bb-01
	name = eth* # comment
	mac = 52:54:00:aa:bb:zz
	policy = cache
	[ens5]
	policy = cache
	policy = numa
	EOF
	xs apply
	expect_rc 2
	expect_eq "messages" "xps-steer: apply: /etc/xps-steer.conf:3: policy: 'fastest' is not one of one-to-one, cache, numa, irq
xps-steer: apply: /etc/xps-steer.conf:5: backend: 'kernal' is not one of auto, module, kernel
xps-steer: apply: /etc/xps-steer.conf:6: tx-0: '0-3,x' is not a CPU list (like 0-3,8; none for no CPU)
xps-steer: apply: /etc/xps-steer.conf:7: 'tx-01' is not a queue (tx-<n>: n in decimal, no leading zero, at most 65535)
xps-steer: apply: /etc/xps-steer.conf:9: tx-1 given twice in this section
xps-steer: apply: /etc/xps-steer.conf:11: mac: '52-54-00-aa-bb-01' is not an address like 52:54:00:12:34:56
xps-steer: apply: /etc/xps-steer.conf:12: name: 'eth* # comment' has blanks (a comment after a value starts with ' ;')
xps-steer: apply: /etc/xps-steer.conf:13: mac given twice in this section
xps-steer: apply: /etc/xps-steer.conf:17: policy given twice in this section" "$errtext"
	cf_expect_maps_untouched
}

test_tool_config_policy_and_map() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	[eth0]
	tx-0 = 0
	policy = cache
	[eth1]
	policy = cache
	tx-0 = 1
	EOF
	xs apply
	expect_rc 2
	expect_eq "messages" "xps-steer: apply: /etc/xps-steer.conf:3: policy and tx-<n> lines cannot be mixed (tx-<n> at line 2)
xps-steer: apply: /etc/xps-steer.conf:6: policy and tx-<n> lines cannot be mixed (policy at line 5)" "$errtext"
	cf_expect_maps_untouched
}

# A section must say how to steer; its name is an interface name when it
# has no match keys.
test_tool_config_section_checks() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	[eth0]
	name = eth0
	backend = module

	[eth*]
	policy = cache
	[a-name-much-too-long]
	policy = cache
	[]
	policy = cache
	EOF
	xs apply
	expect_rc 2
	expect_eq "messages" "xps-steer: apply: /etc/xps-steer.conf:1: [eth0]: neither a policy nor tx-<n> lines: say how to steer (policy = cache, or tx-0 = 0-3 ...)
xps-steer: apply: /etc/xps-steer.conf:5: [eth*]: without name, mac, driver or path the section name is an interface name, taken literally; for a pattern write name = eth*
xps-steer: apply: /etc/xps-steer.conf:7: [a-name-much-too-long]: without name, mac, driver or path the section name is the interface name, and this is not one (1 to 15 characters, not . or .., no '/', ':', ',' or blanks)
xps-steer: apply: /etc/xps-steer.conf:9: empty section name" "$errtext"
	cf_expect_maps_untouched
}

# inih's finding (a line that is neither) and ours (no ']', no section).
test_tool_config_syntax_errors() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	tx-0 = 1
	[eth0]
	tx-0 = 0
	this is not a key
	[eth1
	tx-0 = 1
	EOF
	xs apply
	expect_rc 2
	expect_eq "messages" "xps-steer: apply: /etc/xps-steer.conf:1: tx-0: outside a section ([name] first)
xps-steer: apply: /etc/xps-steer.conf:4: syntax error: expected [section] or key = value
xps-steer: apply: /etc/xps-steer.conf:5: '[' without ']'" "$errtext"
	cf_expect_maps_untouched
}

# An error in any file stops everything; each file is named.
test_tool_config_errors_in_conf_d() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	[eth0]
	tx-0 = 0
	EOF
	cf_conf /etc/xps-steer.d/10-a.conf <<-'EOF'
	[eth1]
	tx-0 = all
	EOF
	cf_conf /etc/xps-steer.d/20-b.conf <<-'EOF'
	[ens5]
	EOF
	xs apply
	expect_rc 2
	expect_eq "messages" "xps-steer: apply: /etc/xps-steer.d/10-a.conf:2: tx-0: 'all' is not a CPU list (like 0-3,8; none for no CPU)
xps-steer: apply: /etc/xps-steer.d/20-b.conf:1: [ens5]: neither a policy nor tx-<n> lines: say how to steer (policy = cache, or tx-0 = 0-3 ...)" "$errtext"
	cf_expect_maps_untouched
	xs apply --config "$T_DIR/missing.conf"
	expect_rc 2
	expect_eq "missing --config" "xps-steer: apply: $T_DIR/missing.conf: cannot read (No such file or directory)" "$errtext"
}

# An indented line is a key of its own, not the previous value's
# continuation (inih's multi-line values); # and ; start comments.
test_tool_config_indented_and_comments() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	# comment
	[eth0]   ; the first NIC
	    tx-0 = 0-1   ; two CPUs
	    tx-1 = none
	EOF
	xs apply --dry-run eth0
	expect_rc 0
	expect_eq "dry run" "eth0: would apply map [eth0] (2 queues):
  tx-0 0-1
  tx-1" "$out"
}

# Match keys: name (fnmatch), mac (any case), driver, path; all given must
# match; a section without them matches its own name only.
test_tool_config_match_keys() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	[by-name]
	name = eth*
	tx-0 = 0
	[by-driver-and-name]
	driver = virtio*
	name = e*
	tx-0 = 2
	[by-mac]
	mac = 52:54:00:AA:BB:01
	tx-0 = 1
	[by-path]
	path = 0000:3b:00.?
	tx-1 = 0-3
	[nothing]
	name = eth1
	driver = virtio_net
	tx-0 = 0-3
	EOF
	xs apply --dry-run
	expect_rc 0
	expect_eq "dry run" "ens5: would apply map [by-driver-and-name] (2 queues):
  tx-0 2
  tx-1
eth0: would apply map [by-mac] (2 queues):
  tx-0 1
  tx-1
eth1: would apply map [by-path] (2 queues):
  tx-0
  tx-1 0-3" "$out"
	cf_expect_maps_untouched
}

# The last matching section wins: within a file, and across files
# (xps-steer.conf, then xps-steer.d/*.conf in name order).
test_tool_config_last_match_wins() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF'
	[all]
	name = *
	tx-0 = 0
	[eth0]
	tx-0 = 1
	[all-again]
	name = e*
	tx-0 = 2
	EOF
	cf_conf /etc/xps-steer.d/20-late.conf <<-'EOF'
	[eth1]
	tx-0 = 3
	EOF
	cf_conf /etc/xps-steer.d/10-early.conf <<-'EOF'
	[eth1-early]
	name = eth1
	tx-0 = 0-1
	EOF
	cf_conf /etc/xps-steer.d/30-not-conf.txt <<-'EOF'
	[eth1]
	tx-0 = 0-3
	EOF
	xs apply --dry-run
	expect_rc 0
	expect_eq "dry run" "ens5: would apply map [all-again] (2 queues):
  tx-0 2
  tx-1
eth0: would apply map [all-again] (2 queues):
  tx-0 2
  tx-1
eth1: would apply map [eth1] (2 queues):
  tx-0 3
  tx-1" "$out"
	# --config FILE reads that file only.
	cf_conf /etc/other.conf <<-'EOF'
	[eth0]
	tx-1 = 1
	EOF
	xs apply --dry-run --config "$(R /etc/other.conf)"
	expect_rc 0
	expect_eq "--config" "eth0: would apply map [eth0] (2 queues):
  tx-0
  tx-1 1" "$out"
}

# A CPU list longer than inih's default line (200 bytes) is read whole.
test_tool_config_long_line() {
	local list="" c
	fake_cpus 256
	fake_netdev eth0 2
	fake_module "eth0 attached queues=2 active=2 hook=installed name=eth0"
	fake_attached eth0 2
	for ((c = 0; c < 256; c += 2)); do list+="${list:+,}$c"; done
	printf '[eth0]\ntx-0 = %s\n' "$list" | cf_conf /etc/xps-steer.conf
	[ ${#list} -gt 400 ] || fail "list too short to test"
	xs apply eth0
	expect_rc 0
	expect_eq "applied" "eth0: applied map [eth0] (2 queues)" "$out"
	expect_eq "map" "tx-0 $list
tx-1" "$(cat "$(R /sys/kernel/xps_steer/eth0/map)")"
}

# The shipped example parses, and its [eth0] does what it says.
test_tool_config_example() {
	fake_cpus 8
	fake_netdev eth0 3
	fake_module "eth0 attached queues=3 active=3 hook=installed name=eth0"
	fake_attached eth0 3
	xs apply --dry-run --config "$TESTS/../xps-steer.conf.example"
	expect_rc 0
	expect_eq "stderr" "" "$errtext"
	expect_eq "dry run" "eth0: would apply map [eth0] (3 queues):
  tx-0 0-3
  tx-1 4-7
  tx-2" "$out"
}

# A name without a pattern goes into dev=: it must be an interface name,
# or one bad entry would make the module refuse the whole list.
test_tool_config_bad_fixed_name() {
	cf_fixture
	cf_conf /etc/xps-steer.conf <<-'EOF2'
	[uplink]
	name = this-name-is-too-long
	policy = cache
	EOF2
	xs apply --dry-run
	expect_rc 2
	expect_eq "message" "xps-steer: apply: /etc/xps-steer.conf:1: [uplink]: name = this-name-is-too-long is not an interface name (1 to 15 characters, not . or .., no '/', ':', ',' or blanks)" "$errtext"
}
