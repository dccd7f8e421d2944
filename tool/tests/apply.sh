#!/bin/bash
# apply.sh - xps-steer apply, save, load and hotplug against fake module
# and kernel files: what is written where, idempotence, the kernel backend
# for refused devices, and exit codes.
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

AP_OLD=946684800	# 2000-01-01: an mtime no write can leave behind

ap_map() { cat "$(R "/sys/kernel/xps_steer/$1/map")"; }
ap_kxps() { cat "$(R "/sys/class/net/$1/queues/tx-$2/xps_cpus")"; }

# ap_conf: /etc/xps-steer.conf from stdin.
ap_conf() {
	mkdir -p "$(R /etc)"
	cat >"$(R /etc/xps-steer.conf)"
}

# eth0 attached (4 queues, 3 active), eth1 refused (2 queues), 4 CPUs.
ap_fixture() {
	fake_attached_and_refused
	printf 'tx-0\ntx-1\ntx-2\ntx-3 3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
}

# Queues not named get an empty mask; a queue not in use is left out
# of the write (it keeps its mask), with a warning for a line naming it.
test_tool_apply_explicit_map() {
	ap_fixture
	printf 'tx-0 3\ntx-1 2\ntx-2\ntx-3 3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
	ap_conf <<-'EOF'
	[eth0]
	tx-0 = 0-1
	tx-2 = 3
	tx-3 = 2
	EOF
	xs apply eth0
	expect_rc 0
	expect_eq "stdout" "eth0: applied map [eth0] (3 queues)" "$out"
	expect_eq "stderr" "xps-steer: apply: warning: eth0: tx-3 of [eth0] (/etc/xps-steer.conf) skipped: the device has 3 active tx queues (4 in all)" "$errtext"
	expect_eq "map written" "tx-0 0-1
tx-1
tx-2 3" "$(ap_map eth0)"
}

# A second apply finds the live map equal and writes nothing.
test_tool_apply_twice_unchanged() {
	ap_fixture
	ap_conf <<-'EOF'
	[eth0]
	tx-0 = 0-1
	tx-1 = 2-3
	EOF
	xs apply eth0
	expect_rc 0
	expect_eq "first" "eth0: applied map [eth0] (3 queues)" "$out"
	touch -d "@$AP_OLD" "$(R /sys/kernel/xps_steer/eth0/map)"
	xs apply eth0
	expect_rc 0
	expect_eq "second" "eth0: unchanged" "$out"
	expect_eq "stderr" "" "$errtext"
	expect_eq "map not rewritten" "$AP_OLD" "$(stat -c %Y "$(R /sys/kernel/xps_steer/eth0/map)")"
	expect_eq "map" "tx-0 0-1
tx-1 2-3
tx-2" "$(ap_map eth0)"
}

test_tool_apply_dry_run() {
	ap_fixture
	ap_conf <<-'EOF'
	[eth0]
	tx-0 = 0-1
	tx-1 = 2-3
	EOF
	touch -d "@$AP_OLD" "$(R /sys/kernel/xps_steer/eth0/map)"
	xs apply --dry-run eth0
	expect_rc 0
	expect_eq "dry run" "eth0: would apply map [eth0] (3 queues):
  tx-0 0-1
  tx-1 2-3
  tx-2" "$out"
	expect_eq "map untouched" "tx-0
tx-1
tx-2
tx-3 3" "$(ap_map eth0)"
	expect_eq "mtime" "$AP_OLD" "$(stat -c %Y "$(R /sys/kernel/xps_steer/eth0/map)")"
}

# A refused device gets the kernel's own xps_cpus (hex), with a warning;
# a second run is unchanged.
test_tool_apply_kernel_backend_refused() {
	ap_fixture
	ap_conf <<-'EOF'
	[eth1]
	tx-0 = 0-1
	tx-1 = 2-3
	EOF
	xs apply
	expect_rc 0
	expect_eq "stdout" "eth1: applied map [eth1] (2 queues) to the kernel's xps_cpus" "$out"
	expect_eq "warning" "xps-steer: apply: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused it); driver bnx2x may rewrite them on CPU hotplug or ethtool -L" "$errtext"
	expect_eq "tx-0" "$(hexmask 4 0-1)" "$(ap_kxps eth1 0)"
	expect_eq "tx-1" "$(hexmask 4 2-3)" "$(ap_kxps eth1 1)"
	expect_eq "eth0 untouched" "tx-0
tx-1
tx-2
tx-3 3" "$(ap_map eth0)"
	xs apply eth1
	expect_rc 0
	expect_eq "second" "eth1: unchanged" "$out"
	expect_eq "no warning" "" "$errtext"
}

# backend = module for a refused device is an error; backend = kernel for
# an attached one writes the kernel's files and leaves the map alone.
test_tool_apply_backend_preference() {
	ap_fixture
	ap_conf <<-'EOF'
	[eth1]
	backend = module
	tx-0 = 0
	[eth0]
	backend = kernel
	tx-1 = 1
	EOF
	xs apply
	expect_rc 1
	expect_eq "stdout" "eth0: applied map [eth0] (3 queues) to the kernel's xps_cpus" "$out"
	expect_eq "stderr" "xps-steer: apply: warning: eth0: writing the kernel's own xps_cpus (backend = kernel; xps_steer's masks still decide for it); driver virtio_net may rewrite them on CPU hotplug or ethtool -L
xps-steer: apply: eth1: xps_steer refused it (own-select-queue), and [eth1] (/etc/xps-steer.conf) says backend = module" "$errtext"
	expect_eq "eth0 kernel tx-1" "$(hexmask 4 1)" "$(ap_kxps eth0 1)"
	expect_eq "eth0 kernel tx-0" "$(hexmask 4 "")" "$(ap_kxps eth0 0)"
	expect_eq "eth0 map untouched" "tx-0
tx-1
tx-2
tx-3 3" "$(ap_map eth0)"
	expect_eq "eth1 untouched" "$(hexmask 4 "")" "$(ap_kxps eth1 0)"
}

# One device failing does not stop the next; the exit code is 1.
test_tool_apply_failure_continues() {
	ap_fixture
	fake_netdev eth2 2 virtio_net 52:54:00:aa:bb:03 0000:00:05.0
	fake_module "eth0 attached queues=4 active=3 hook=installed name=eth0" \
		"eth1 refused reason=own-select-queue" \
		"eth2 attached queues=2 active=2 hook=installed name=eth2"
	fake_attached eth2 2
	# The kernel refuses eth1's tx-1 (here: a directory, EISDIR).
	rm "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
	mkdir "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
	ap_conf <<-'EOF'
	[all]
	name = eth*
	tx-0 = 0
	tx-1 = 1
	EOF
	xs apply
	expect_rc 1
	expect_eq "stdout" "eth0: applied map [all] (3 queues)
eth2: applied map [all] (2 queues)" "$out"
	expect_eq "stderr" "xps-steer: apply: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused it); driver bnx2x may rewrite them on CPU hotplug or ethtool -L
xps-steer: apply: eth1: tx-1: xps_cpus write rejected (Is a directory)
xps-steer: apply: eth1: tx-0: written before tx-1 refused, now back as they were: the device's masks are unchanged" "$errtext"
	expect_eq "eth1 tx-0 put back" "$(hexmask 4 "")" "$(ap_kxps eth1 0)"
	expect_eq "eth2 map" "tx-0 0
tx-1 1" "$(ap_map eth2)"
}

# Named devices: unknown (3), not matched (3), present but not attached
# with backend auto (3, with the way out).
test_tool_apply_exit_codes() {
	ap_fixture
	fake_netdev eth5 2 virtio_net 52:54:00:aa:bb:05 0000:00:06.0
	ap_conf <<-'EOF'
	[eth5]
	tx-0 = 0
	EOF
	xs apply nosuch0
	expect_rc 3
	expect_eq "unknown" "xps-steer: apply: nosuch0: no such device" "$errtext"
	xs apply eth0
	expect_rc 3
	expect_eq "unmatched" "xps-steer: apply: eth0: no section of the configuration matches it" "$errtext"
	# The udev rule's form: an unmatched device is left alone, no error.
	xs apply --if-configured eth0
	expect_rc 0
	expect_eq "unmatched, --if-configured" "" "$errtext$out"
	xs apply --if-configured nosuch0
	expect_rc 3
	xs apply eth5
	expect_rc 3
	expect_eq "not attached" "xps-steer: apply: eth5: not attached to xps_steer: \`xps-steer attach eth5\` (or load) first, or backend = kernel in [eth5] for the kernel's own xps_cpus" "$errtext"
	# A CPU the machine cannot have is refused before anything is written.
	printf '[eth0]\ntx-0 = 0\ntx-1 = 2,4\n' | ap_conf
	xs apply eth0
	expect_rc 1
	expect_eq "impossible CPU" "xps-steer: apply: eth0: tx-1: CPU 4 is not a possible CPU (0-3)" "$errtext"
	expect_eq "map untouched" "tx-0
tx-1
tx-2
tx-3 3" "$(ap_map eth0)"
	xs apply --bogus
	expect_rc 2
}

# A policy through policy_compute on a given topology: one-to-one puts
# the k-th eligible CPU on queue k mod n; isolated CPUs are left out.
test_tool_apply_policy() {
	ap_fixture
	echo 3 >"$(R /sys/devices/system/cpu/isolated)"
	ap_conf <<-'EOF'
	[eth0]
	policy = one-to-one
	EOF
	xs apply eth0 --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "stdout" "eth0: applied policy one-to-one (3 queues)" "$out"
	# The policy's notes (its own wording), on stderr, device named.
	grep -q '^note: eth0: CPUs 3 ' "$T_DIR/err" || fail "no note on CPU 3: $errtext"
	expect_eq "map" "tx-0 0
tx-1 1
tx-2 2" "$(ap_map eth0)"
	xs apply eth0 --topology "$TOPO/1s-4c.xml"
	expect_rc 0
	expect_eq "again" "eth0: unchanged" "$out"
}

# save writes the live maps as sections (atomically, creating the
# directory); cleared masks come back with apply.
test_tool_save_apply_roundtrip() {
	ap_fixture
	printf 'tx-0 0-1\ntx-1\ntx-2 2-3\ntx-3 3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
	hexmask 4 1 >"$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)"
	hexmask 4 0,2-3 >"$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
	xs save
	expect_rc 0
	expect_eq "stdout" "eth0: saved (3 queues)
eth1: saved (2 queues, the kernel's xps_cpus)
saved to /etc/xps-steer.d/90-saved.conf" "$out"
	local f
	f=$(R /etc/xps-steer.d/90-saved.conf)
	expect_eq "header" "# The live transmit queue maps, saved on" "$(head -n 1 "$f" | cut -c 1-40)"
	expect_eq "command" "#   xps-steer save" "$(sed -n 2p "$f")"
	expect_eq "sections" "[eth0]
tx-0 = 0-1
tx-1 = none
tx-2 = 2-3
# tx-3..tx-3: not in use now (ethtool -L), not saved

[eth1]
backend = kernel
tx-0 = 1
tx-1 = 0,2-3" "$(sed '1,/^$/d' "$f")"
	expect_eq "mode" "644" "$(stat -c %a "$f")"
	expect_eq "no temporary left" "90-saved.conf" "$(ls "$(R /etc/xps-steer.d)")"
	# Clear everything, then apply the saved file.
	printf 'tx-0\ntx-1\ntx-2\ntx-3 3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
	hexmask 4 "" >"$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)"
	hexmask 4 "" >"$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
	xs apply
	expect_rc 0
	expect_eq "apply" "eth0: applied map [eth0] (3 queues)
eth1: applied map [eth1] (2 queues) to the kernel's xps_cpus" "$out"
	expect_eq "eth0 map" "tx-0 0-1
tx-1
tx-2 2-3" "$(ap_map eth0)"
	expect_eq "eth1 tx-0" "$(hexmask 4 1)" "$(ap_kxps eth1 0)"
	expect_eq "eth1 tx-1" "$(hexmask 4 0,2-3)" "$(ap_kxps eth1 1)"
	xs apply
	expect_rc 0
	expect_eq "idempotent" "eth0: unchanged
eth1: unchanged" "$out"
}

# --output FILE and named devices; a device that cannot be saved keeps
# the old file whole.
test_tool_save_output() {
	ap_fixture
	printf 'tx-0 1\ntx-1 2\ntx-2 3\ntx-3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
	xs save eth0 --output "$T_DIR/saved.conf"
	expect_rc 0
	expect_eq "stdout" "eth0: saved (3 queues)
saved to $T_DIR/saved.conf" "$out"
	expect_eq "body" "[eth0]
tx-0 = 1
tx-1 = 2
tx-2 = 3
# tx-3..tx-3: not in use now (ethtool -L), not saved" "$(sed '1,/^$/d' "$T_DIR/saved.conf")"
	cp "$T_DIR/saved.conf" "$T_DIR/before"
	xs save eth0 nosuch0 --output "$T_DIR/saved.conf"
	expect_rc 3
	expect_eq "stderr" "xps-steer: save: nosuch0: no such device
xps-steer: save: nothing saved" "$errtext"
	cmp -s "$T_DIR/before" "$T_DIR/saved.conf" || fail "the old file changed"
	rm -rf "$(R /sys/module/xps_steer)"
	xs save
	expect_rc 3
	expect_eq "not loaded" "xps-steer: save: xps_steer is not loaded and no present device has backend = kernel: nothing to save (name devices to save their kernel xps_cpus)" "$errtext"
}

# ap_fake_modprobe: $XPS_STEER_MODPROBE for the tool; records its arguments
# in $T_DIR/modprobe.args and loads a fake module that attaches the
# present devices of dev= (2 queues each) and lists the others absent.
ap_fake_modprobe() {
	cat >"$T_DIR/modprobe" <<-EOF
	#!/bin/bash
	. "$TESTS/lib.sh"
	echo "\$*" >>"$T_DIR/modprobe.args"
	[ "\$1" = xps_steer ] && [[ \$2 == dev=* ]] || exit 1
	IFS=, read -ra names <<<"\${2#dev=}"
	lines=()
	for n in "\${names[@]}"; do
		if [ -d "\$(R /sys/class/net/\$n)" ]; then
			lines+=("\$n attached queues=2 active=2 hook=installed name=\$n")
		else
			lines+=("\$n absent")
		fi
	done
	fake_module "\${lines[@]}"
	for n in "\${names[@]}"; do
		[ -d "\$(R /sys/class/net/\$n)" ] && fake_attached "\$n" 2
	done
	exit 0
	EOF
	chmod +x "$T_DIR/modprobe"
	export XPS_STEER_MODPROBE=$T_DIR/modprobe
}

# load at boot: modprobe with the present matched devices and the fixed
# names of sections for devices not there yet; backend = kernel sections
# stay out of dev= and are applied through the kernel's files.
test_tool_load_modprobe() {
	fake_cpus 4
	fake_netdev eth0 2
	fake_netdev eth1 2 ixgbe 52:54:00:aa:bb:02 0000:3b:00.0
	fake_netdev eth2 2 bnx2x 52:54:00:aa:bb:03 0000:00:04.0
	fake_netdev lo 1 virtio_net 00:00:00:00:00:00 0000:00:07.0
	ap_fake_modprobe
	ap_conf <<-'EOF'
	[eth0]
	tx-0 = 0
	tx-1 = 1
	[later0]
	policy = cache
	[ixgbe]
	driver = ixgbe
	tx-0 = 0-1
	tx-1 = 2-3
	[eth2]
	backend = kernel
	tx-0 = 3
	[later1]
	backend = kernel
	tx-0 = 1
	EOF
	xs load
	expect_rc 0
	expect_eq "modprobe" "xps_steer dev=eth0,eth1,later0" "$(cat "$T_DIR/modprobe.args")"
	expect_eq "stdout" "xps_steer: loaded with dev=eth0,eth1,later0
eth0: applied map [eth0] (2 queues)
eth1: applied map [ixgbe] (2 queues)
eth2: applied map [eth2] (2 queues) to the kernel's xps_cpus" "$out"
	expect_eq "stderr" "xps-steer: load: warning: eth2: writing the kernel's own xps_cpus (backend = kernel); driver bnx2x may rewrite them on CPU hotplug or ethtool -L" "$errtext"
	expect_eq "eth0 map" "tx-0 0
tx-1 1" "$(ap_map eth0)"
	expect_eq "eth1 map" "tx-0 0-1
tx-1 2-3" "$(ap_map eth1)"
	expect_eq "eth2 tx-0" "$(hexmask 4 3)" "$(ap_kxps eth2 0)"
	# Again: loaded, everything listed: no modprobe, nothing written.
	xs load
	expect_rc 0
	expect_eq "second load" "eth0: unchanged
eth1: unchanged
eth2: unchanged" "$out"
	expect_eq "modprobe once" 1 "$(wc -l <"$T_DIR/modprobe.args")"
}

# load with the module loaded: the union with the current dev= list.
test_tool_load_union() {
	fake_cpus 4
	fake_netdev eth0 2
	fake_module "eth5 absent"
	ap_fake_modprobe
	ap_conf <<-'EOF'
	[eth0]
	tx-0 = 0
	[eth5]
	tx-0 = 1
	EOF
	xs load
	expect_eq "dev=" "eth5,eth0" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	expect_eq "no modprobe" "no" "$([ -e "$T_DIR/modprobe.args" ] && echo yes || echo no)"
	# The fake module does not attach on the write: apply says so.
	expect_rc 3
	expect_eq "stdout" "xps_steer: dev=eth5,eth0" "$out"
	expect_eq "stderr" "xps-steer: load: eth0: not attached to xps_steer: \`xps-steer attach eth0\` (or load) first, or backend = kernel in [eth0] for the kernel's own xps_cpus" "$errtext"
}

test_tool_load_no_configuration() {
	fake_cpus 2
	fake_netdev eth0 2
	ap_fake_modprobe
	xs load
	expect_rc 0
	expect_eq "stdout" "no configuration (/etc/xps-steer.conf, /etc/xps-steer.d/*.conf): nothing to do" "$out"
	[ ! -e "$T_DIR/modprobe.args" ] || fail "modprobe ran"
}

# hotplug: unmatched devices are left alone quietly; a matched one goes
# into dev= (its attach event then applies); a refused one, or backend =
# kernel, is applied through the kernel's files at once.
test_tool_hotplug() {
	ap_fixture
	fake_netdev veth0 1 virtio_net 52:54:00:aa:bb:07 0000:00:07.0
	fake_netdev eth3 2 virtio_net 52:54:00:aa:bb:08 0000:00:08.0
	ap_conf <<-'EOF'
	[eth1]
	tx-0 = 1
	[eth3]
	tx-0 = 0
	[eth0]
	tx-0 = 2
	EOF
	xs hotplug veth0
	expect_rc 0
	expect_eq "unmatched: quiet" "" "$out$errtext"
	xs hotplug eth1
	expect_rc 0
	expect_eq "refused" "eth1: applied map [eth1] (2 queues) to the kernel's xps_cpus" "$out"
	expect_eq "eth1 tx-0" "$(hexmask 4 1)" "$(ap_kxps eth1 0)"
	xs hotplug eth0
	expect_rc 0
	expect_eq "attached" "eth0: attached to xps_steer; its attach event applies [eth0]" "$out"
	xs hotplug eth3
	expect_eq "dev=" "eth0,eth1,eth3" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
	expect_eq "listed" "xps_steer: dev=eth0,eth1,eth3" "$out"
	# The fake module does not attach on the write: hotplug says so.
	expect_rc 3
	expect_eq "not attached" "xps-steer: hotplug: eth3: not attached to xps_steer: \`xps-steer attach eth3\` (or load) first, or backend = kernel in [eth3] for the kernel's own xps_cpus" "$errtext"
}

# udev expands %k before the rename; IFINDEX finds the device's new name.
test_tool_hotplug_renamed() {
	fake_cpus 4
	fake_netdev ens3 2 bnx2x
	echo 7 >"$(R /sys/class/net/ens3/ifindex)"
	ap_conf <<-'EOF'
	[ens3]
	backend = kernel
	tx-1 = 2-3
	EOF
	SUBSYSTEM=net IFINDEX=7 xs hotplug eth0
	expect_rc 0
	expect_eq "stdout" "ens3: applied map [ens3] (2 queues) to the kernel's xps_cpus" "$out"
	expect_eq "tx-1" "$(hexmask 4 2-3)" "$(ap_kxps ens3 1)"
	xs hotplug eth0
	expect_rc 3
	expect_eq "without IFINDEX" "xps-steer: hotplug: eth0: no such device" "$errtext"
}

test_tool_hotplug_not_loaded() {
	fake_cpus 4
	fake_netdev eth0 2
	ap_conf <<-'EOF'
	[eth0]
	tx-0 = 1
	EOF
	xs hotplug eth0
	expect_rc 0
	expect_eq "stdout" "eth0: xps_steer is not loaded; \`xps-steer load\` (xps-steer.service) attaches it" "$out"
	expect_eq "untouched" "$(hexmask 4 "")" "$(ap_kxps eth0 0)"
}

# save keeps each device where its configuration puts it: an attached
# device with backend = kernel is saved from the kernel's xps_cpus, with
# its backend line, so that the saved section (which wins over the rule)
# writes there again; a present device the configuration puts on the
# kernel backend is saved without being named, even with the module
# unloaded.
test_tool_save_configured_backend() {
	ap_fixture
	fake_netdev eth5 2 bnx2x 52:54:00:aa:bb:05 0000:00:06.0
	printf 'tx-0 0-1\ntx-1 2\ntx-2 3\ntx-3 3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
	hexmask 4 3 >"$(R /sys/class/net/eth0/queues/tx-0/xps_cpus)"
	hexmask 4 0-2 >"$(R /sys/class/net/eth0/queues/tx-1/xps_cpus)"
	hexmask 4 2 >"$(R /sys/class/net/eth5/queues/tx-1/xps_cpus)"
	ap_conf <<-'EOF2'
	[eth0]
	backend = kernel
	policy = cache
	[kern]
	name = eth5
	backend = kernel
	tx-0 = 1
	EOF2
	xs save --output "$T_DIR/saved.conf"
	expect_rc 0
	expect_eq "stdout" "eth0: saved (3 queues, the kernel's xps_cpus)
eth1: saved (2 queues, the kernel's xps_cpus)
eth5: saved (2 queues, the kernel's xps_cpus)
saved to $T_DIR/saved.conf" "$out"
	expect_eq "sections" "[eth0]
backend = kernel
tx-0 = 3
tx-1 = 0-2
tx-2 = none
# tx-3..tx-3: not in use now (ethtool -L), not saved

[eth1]
backend = kernel
tx-0 = none
tx-1 = none

[eth5]
backend = kernel
tx-0 = none
tx-1 = 2" "$(sed '1,/^$/d' "$T_DIR/saved.conf")"
	# The saved file applied back writes the kernel's files, not the map.
	hexmask 4 "" >"$(R /sys/class/net/eth0/queues/tx-0/xps_cpus)"
	xs apply eth0 --config "$T_DIR/saved.conf"
	expect_rc 0
	expect_eq "applied back" "eth0: applied map [eth0] (3 queues) to the kernel's xps_cpus" "$out"
	expect_eq "kernel tx-0" "$(hexmask 4 3)" "$(ap_kxps eth0 0)"
	expect_eq "module map untouched" "tx-0 0-1
tx-1 2
tx-2 3
tx-3 3" "$(ap_map eth0)"
	# Module unloaded: the kernel-backend devices are still saved.
	rm -rf "$(R /sys/module/xps_steer)" "$(R /sys/kernel/xps_steer)"
	xs save --output "$T_DIR/saved.conf"
	expect_rc 0
	expect_eq "unloaded" "eth0: saved (3 queues, the kernel's xps_cpus)
eth5: saved (2 queues, the kernel's xps_cpus)
saved to $T_DIR/saved.conf" "$out"
	# A configuration error saves nothing.
	printf '[eth0]\nbackend = kernal\npolicy = cache\n' | ap_conf
	xs save --output "$T_DIR/saved.conf"
	expect_rc 2
	expect_eq "config error" "xps-steer: save: /etc/xps-steer.conf:2: backend: 'kernal' is not one of auto, module, kernel" "$errtext"
}

# The kernel backend writes queue by queue: when tx-2 refuses after tx-0
# and tx-1 were written, those two get their old masks back and the
# messages say so; the device is left as it was, not half old, half new.
test_tool_apply_kernel_backend_restores() {
	fake_cpus 4
	fake_netdev eth1 3 bnx2x 52:54:00:aa:bb:02 0000:00:04.0
	fake_module "eth1 refused reason=own-select-queue"
	hexmask 4 3 >"$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)"
	hexmask 4 2 >"$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)"
	# The kernel refuses tx-2 (here: a directory, EISDIR).
	rm "$(R /sys/class/net/eth1/queues/tx-2/xps_cpus)"
	mkdir "$(R /sys/class/net/eth1/queues/tx-2/xps_cpus)"
	ap_conf <<-'EOF2'
	[eth1]
	tx-0 = 0
	tx-1 = 1
	tx-2 = 2
	EOF2
	xs apply eth1
	expect_rc 1
	expect_eq "stdout" "" "$out"
	expect_eq "stderr" "xps-steer: apply: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused it); driver bnx2x may rewrite them on CPU hotplug or ethtool -L
xps-steer: apply: eth1: tx-2: xps_cpus write rejected (Is a directory)
xps-steer: apply: eth1: tx-0,tx-1: written before tx-2 refused, now back as they were: the device's masks are unchanged" "$errtext"
	expect_eq "tx-0 restored" "$(hexmask 4 3)" "$(ap_kxps eth1 0)"
	expect_eq "tx-1 restored" "$(hexmask 4 2)" "$(ap_kxps eth1 1)"
	# set --kernel-style auto on the same device says the same.
	xs auto eth1 --policy one-to-one --topology "$TOPO/1s-4c.xml"
	expect_rc 1
	expect_eq "auto" "xps-steer: auto: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused the device); driver bnx2x may rewrite it on CPU hotplug or ethtool -L
xps-steer: auto: eth1: tx-2: xps_cpus write rejected (Is a directory)
xps-steer: auto: eth1: tx-0,tx-1: written before tx-2 refused, now back as they were: the device's masks are unchanged" "$errtext"
	expect_eq "tx-0 restored again" "$(hexmask 4 3)" "$(ap_kxps eth1 0)"
}

# The kernel drops offline CPUs from xps_cpus when it is written: apply
# compares (and writes) what the kernel can hold, the wanted CPUs that
# are online, and says so, so that a second apply finds it unchanged.
test_tool_apply_kernel_backend_offline() {
	ap_fixture
	echo 0-2 >"$(R /sys/devices/system/cpu/online)"
	ap_conf <<-'EOF2'
	[eth1]
	tx-0 = 0,3
	tx-1 = 1-3
	EOF2
	xs apply eth1 --dry-run
	expect_rc 0
	expect_eq "dry run" "eth1: would apply map [eth1] (2 queues) to the kernel's xps_cpus:
  tx-0 0
  tx-1 1-2" "$out"
	xs apply eth1
	expect_rc 0
	expect_eq "stdout" "eth1: applied map [eth1] (2 queues) to the kernel's xps_cpus" "$out"
	expect_eq "stderr" "xps-steer: apply: warning: eth1: writing the kernel's own xps_cpus (xps_steer refused it); driver bnx2x may rewrite them on CPU hotplug or ethtool -L
note: eth1: CPU 3 offline: the kernel's xps_cpus cannot hold it, so it is left out of the map written and compared (write the map again once it is online)" "$errtext"
	expect_eq "tx-0" "$(hexmask 4 0)" "$(ap_kxps eth1 0)"
	expect_eq "tx-1" "$(hexmask 4 1-2)" "$(ap_kxps eth1 1)"
	# What the kernel holds after such a write: idempotent.
	touch -d "@$AP_OLD" "$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)"
	xs apply eth1
	expect_rc 0
	expect_eq "second" "eth1: unchanged" "$out"
	expect_eq "second note" "note: eth1: CPU 3 offline: the kernel's xps_cpus cannot hold it, so it is left out of the map written and compared (write the map again once it is online)" "$errtext"
	expect_eq "not rewritten" "$AP_OLD" "$(stat -c %Y "$(R /sys/class/net/eth1/queues/tx-0/xps_cpus)")"
	# Back online: the CPU is written.
	echo 0-3 >"$(R /sys/devices/system/cpu/online)"
	xs apply eth1
	expect_rc 0
	expect_eq "online again" "eth1: applied map [eth1] (2 queues) to the kernel's xps_cpus" "$out"
	expect_eq "tx-0 with CPU 3" "$(hexmask 4 0,3)" "$(ap_kxps eth1 0)"
	# The module keeps offline CPUs: nothing is left out there.
	echo 0-2 >"$(R /sys/devices/system/cpu/online)"
	printf '[eth0]\ntx-0 = 0,3\n' | ap_conf
	xs apply eth0
	expect_rc 0
	expect_eq "module" "eth0: applied map [eth0] (3 queues)" "$out$errtext"
	expect_eq "module map" "tx-0 0,3
tx-1
tx-2" "$(ap_map eth0)"
}

# Maps longer than a sysfs page. The module refuses to show a map that
# does not fit in a page (EFBIG): the masks are read queue by queue
# (xps_cpus_list). It refuses to take a map write of 4095 bytes or more
# (E2BIG): such a map is written queue by queue, with a warning that it
# is not atomic; a map that fits is still one write of the map file.
test_tool_apply_map_over_a_page() {
	local q d conf list
	fake_cpus 1024
	fake_netdev eth0 128
	fake_module "eth0 attached queues=128 active=128 hook=installed name=eth0"
	fake_attached eth0 128
	d=$(R /sys/kernel/xps_steer/eth0)
	# tx-N: CPUs N, N+128, ... (8 each): about 5 KiB of map text.
	conf="[eth0]"$'\n'
	for ((q = 0; q < 128; q++)); do
		list=$(seq -s, "$q" 128 1023)
		conf+="tx-$q = $list"$'\n'
	done
	printf '%s' "$conf" | ap_conf
	touch -d "@$AP_OLD" "$d/map"
	xs apply eth0
	expect_rc 0
	expect_eq "stdout" "eth0: applied map [eth0] (128 queues)" "$out"
	expect_eq "stderr" "xps-steer: apply: warning: eth0: the map is 4796 bytes, more than the 4094 a write of the map file may have: written queue by queue, not atomically (packets may see part of each map meanwhile)" "$errtext"
	expect_eq "map file not written" "$AP_OLD" "$(stat -c %Y "$d/map")"
	expect_eq "tx-0" "0,128,256,384,512,640,768,896" "$(cat "$d/tx-0/xps_cpus_list")"
	expect_eq "tx-127" "127,255,383,511,639,767,895,1023" "$(cat "$d/tx-127/xps_cpus_list")"
	# The module would now refuse to show the map: read queue by queue.
	fake_errno /sys/kernel/xps_steer/eth0/map read 27
	xs apply eth0
	expect_rc 0
	expect_eq "second" "eth0: unchanged" "$out$errtext"
	xs map eth0 --json
	expect_rc 0
	expect_eq "map, CPU 129" "[1]" "$(jq -c '.cpus[129].queues' "$T_DIR/out")"
	# A map that fits in a page is one write of the map file.
	printf '[eth0]\ntx-0 = 0-3\ntx-1 = 4-7\n' | ap_conf
	xs apply eth0
	expect_rc 0
	expect_eq "small" "eth0: applied map [eth0] (128 queues)" "$out$errtext"
	expect_eq "small map" "tx-0 0-3" "$(head -n 1 "$d/map")"
	# The map file refusing E2BIG anyway (a smaller limit): queue by queue.
	printf '[eth0]\ntx-0 = 8\n' | ap_conf
	fake_errno /sys/kernel/xps_steer/eth0/map write 7
	xs apply eth0
	expect_rc 0
	expect_eq "E2BIG" "xps-steer: apply: warning: eth0: the map file refused the map (Argument list too long): written queue by queue, not atomically (packets may see part of each map meanwhile)" "$errtext"
	expect_eq "tx-0 by queue" "8" "$(cat "$d/tx-0/xps_cpus_list")"
}

# dev= does not grow without end with pattern sections (veth* and the
# like come and go under new names, and dev= holds 32): when hotplug or
# load adds names, listed names that are absent and that only a name
# pattern wanted are dropped (hotplug adds them again when they appear);
# fixed names and names listed by hand stay. A device no section matches
# changes nothing at all, and hotplug never loads the module.
test_tool_hotplug_dev_list() {
	fake_cpus 4
	fake_netdev veth7 2
	fake_netdev lo0 1 virtio_net 52:54:00:aa:bb:09 0000:00:09.0
	ap_fake_modprobe
	fake_module "vethold1 absent" "fixed0 absent" "manual0 absent" "vethold2 absent"
	ap_conf <<-'EOF2'
	[veths]
	name = veth*
	tx-0 = 0
	[fixed0]
	tx-0 = 1
	EOF2
	local dev
	dev=$(R /sys/module/xps_steer/parameters/dev)
	touch -d "@$AP_OLD" "$dev"
	xs hotplug lo0
	expect_rc 0
	expect_eq "unmatched: quiet" "" "$out$errtext"
	expect_eq "unmatched: dev= not written" "$AP_OLD" "$(stat -c %Y "$dev")"
	[ ! -e "$(R /run/xps-steer.lock)" ] || fail "unmatched: the dev= lock was taken"
	xs hotplug veth7
	expect_eq "dev=" "fixed0,manual0,veth7" "$(cat "$dev")"
	expect_eq "stdout" "xps_steer: dev=fixed0,manual0,veth7 (dropped vethold1,vethold2: absent, listed for a name pattern only; added again when they appear)" "$out"
	# The fake module does not attach on the write: hotplug says so.
	expect_rc 3
	# load drops them too.
	fake_module "vethold3 absent" "fixed0 absent"
	xs load
	expect_eq "load dev=" "fixed0,veth7" "$(cat "$dev")"
	expect_eq "load stdout" "xps_steer: dev=fixed0,veth7 (dropped vethold3: absent, listed for a name pattern only; added again when they appear)" "$(head -n 1 "$T_DIR/out")"
	# Module not loaded: hotplug neither loads it nor writes anything.
	rm -rf "$(R /sys/module/xps_steer)" "$(R /sys/kernel/xps_steer)"
	xs hotplug veth7
	expect_rc 0
	expect_eq "not loaded" "veth7: xps_steer is not loaded; \`xps-steer load\` (xps-steer.service) attaches it" "$out"
	[ ! -e "$T_DIR/modprobe.args" ] || fail "modprobe ran: $(cat "$T_DIR/modprobe.args")"
}

# A CPU list longer than a configuration line may be (scattered CPUs of
# a big machine) is not saved: the file would fail every later apply and
# load (exit 2, nothing applied at boot). The old file stays.
test_tool_save_line_too_long() {
	local list
	fake_cpus 2048
	fake_netdev eth0 2
	fake_module "eth0 attached queues=2 active=2 hook=installed name=eth0"
	fake_attached eth0 2
	list=$(seq -s, 0 2 2047)
	printf 'tx-0 %s\ntx-1 1\n' "$list" >"$(R /sys/kernel/xps_steer/eth0/map)"
	xs save --output "$T_DIR/saved.conf"
	expect_rc 1
	expect_eq "stderr" "xps-steer: save: eth0: tx-0: its line would be $((${#list} + 7)) characters, more than a configuration line may have (4198): not saved
xps-steer: save: nothing saved" "$errtext"
	[ ! -e "$T_DIR/saved.conf" ] || fail "a file was written"
	# At the limit it is saved, and reads back.
	list=$(seq -s, 1000 2 2047 | cut -c 1-4191)
	list=${list%,*}
	printf 'tx-0 %s\ntx-1 1\n' "$list" >"$(R /sys/kernel/xps_steer/eth0/map)"
	xs save --output "$T_DIR/saved.conf"
	expect_rc 0
	xs apply --dry-run --config "$T_DIR/saved.conf"
	expect_rc 0
	expect_eq "reads back" "eth0: unchanged" "$out"
}

# attach with the module not loaded loads it with each name once, as a
# dev= write would list them (the module refuses a name given twice);
# detach takes a name given twice once.
test_tool_attach_loads_once_each() {
	fake_cpus 4
	fake_netdev eth0 2
	ap_fake_modprobe
	xs attach eth0 eth5 eth0
	expect_rc 0
	expect_eq "modprobe" "xps_steer dev=eth0,eth5" "$(cat "$T_DIR/modprobe.args")"
	expect_eq "report" "eth0: attached (2 tx queues)
eth5: absent: attached when it registers" "$out"
	# detach likewise: a name given twice is detached once, no error.
	xs detach eth5 eth5
	expect_rc 0
	expect_eq "detach" "eth5: detached" "$out"
	expect_eq "dev=" "eth0" "$(cat "$(R /sys/module/xps_steer/parameters/dev)")"
}
