#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# drivers-md.sh - print docs/drivers.md: every driver of the survey with
# the mode xps_steer serves it in, the drivers it is tested on, the
# devices it guards or refuses and why, read from the sources so that the
# page cannot drift from them:
#   - scripts/drivers-survey.tsv: the survey's drivers;
#   - src/denylist.c: the DENY() and NO_XPS() tables (match, name,
#     reason, the code in 6.1.192, kernels) and the comment that lists
#     the comparisons not listed;
#   - src/verdicts.c: the rows of the "refused:" and "attached in guard
#     mode" verdicts (status word, log text), in the order attach.c
#     checks them;
#   - test/guest/suite.sh and the test files it sources: the suite's tests
#     and its dummy and veth devices;
#   - test/guest/nics.sh: the real NIC drivers and their tests;
#   - test/guest/lifecycle.sh: what refused_devices creates and expects;
#   - docs/compat.md: the kernels make check-matrix booted the suite on.
# Usage: scripts/drivers-md.sh >docs/drivers.md
#        scripts/drivers-md.sh --readme: the README's table of drivers
# (make check T=lint fails when either differs from what this prints).
set -euo pipefail
cd "$(dirname "$0")/.."

# The DENY() (or, given NO_XPS, the NO_XPS()) entries of src/denylist.c,
# one per line: match<TAB>name<TAB>why<TAB>cite<TAB>kernels.
deny_entries() {
	awk -v macro="${1:-DENY}" '
		$0 ~ "^\t" macro "\\(" { on = 1; text = "" }
		on { text = text $0 }
		on && /\),[ \t]*$/ {
			on = 0
			match(text, macro "\\([A-Z_]+,")
			kind = substr(text, RSTART + length(macro) + 1, RLENGTH - length(macro) - 2)
			out = kind
			rest = text
			n = 0
			while (match(rest, /"([^"\\]|\\.)*"/)) {
				s = substr(rest, RSTART + 1, RLENGTH - 2)
				gsub(/\\"/, "\"", s)
				out = out "\t" s
				rest = substr(rest, RSTART + RLENGTH)
				n++
			}
			if (n != 4) { print "drivers-md.sh: bad " macro " entry: " text > "/dev/stderr"; exit 1 }
			print out
		}' src/denylist.c
}

# The "not listed" comment of src/denylist.c: one "- name: text" per line.
not_listed() {
	awk '
		/^ \* Compared in 6\.1\.192 but not listed/ { on = 1; next }
		on && /^ \*\// { if (item != "") print item; exit }
		on && /^ \* - / { if (item != "") print item; item = substr($0, 4); next }
		on && /^ \*   / { sub(/^ \*   /, ""); item = item " " $0 }
	' src/denylist.c
}

# The rows of src/verdicts.c whose log text starts with PREFIX, in their
# order: word<TAB>log text.
verdict_rows() {
	awk -v prefix="$1" '
		/^\t\t\.word = "/ { w = $0; sub(/^[^"]*"/, "", w); sub(/".*/, "", w) }
		/^\t\t\.log = "/ {
			l = $0; sub(/^[^"]*"/, "", l); sub(/",$/, "", l)
			if (index(l, prefix) == 1) print w "\t" l
		}' src/verdicts.c
}

# What the log line adds to a verdict's text (src/verdicts.c,
# xps_steer_log_verdict()), as the tables below show it.
verdict_facts() {
	case $1 in
	denylisted) echo " (driver D: reason, N tx queues)" ;;
	requested | own-select-queue | too-many-queues) echo " (N tx queues)" ;;
	select-ignores-xps) echo " (driver D: reason)" ;;
	*) echo "" ;;
	esac
}

# The body of shell function NAME in FILE...
body() {
	local name=$1
	shift
	awk -v f="$name() {" '$0 == f { on = 1; next } on && /^}/ { exit } on' "$@"
}

# The suite's tests, in order (SUITE_TESTS of suite.sh).
suite_tests() {
	awk '/^SUITE_TESTS=\(/ { on = 1; next } on && /^\)/ { exit } on { print $1 }' test/guest/suite.sh
}

# Kernels the matrix booted the suite on: "5.10.0-46-amd64 (bullseye)", ...
matrix_kernels() {
	awk -F'|' '
		$2 ~ /^ [a-z-]+ $/ && $3 ~ /amd64/ && $9 ~ /PASS/ {
			gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $10)
			printf "%s%s (%s, %s)", sep, $3, $2, $10; sep = ", "
		}' docs/compat.md
}

# Code spans: name -> `name`.
code() { printf '%s%s%s' '`' "$1" '`'; }
# A table cell: no pipe characters.
cell() { printf '%s' "$1" | sed 's/|/\\|/g'; }

match_label() {
	case $1 in
	DRIVER) echo "bus driver" ;;
	KIND) echo "link kind" ;;
	DEVTYPE) echo "device type" ;;
	DSA_MASTER) echo "DSA master" ;;
	*) echo "$1" ;;
	esac
}

# verdict_table PREFIX: the rows of the verdicts whose log text starts
# with PREFIX: the log line, what it means.
verdict_table() {
	local word text
	while IFS=$'\t' read -r word text; do
		echo "| \`xps_steer: eth0: $(cell "$text$(verdict_facts "$word")")\` | $(cell "$(verdict_meaning "$word")") |"
	done < <(verdict_rows "$1")
}

# What each verdict's status word means, for the tables below.
verdict_meaning() {
	case $1 in
	single-queue) echo "one transmit queue: nothing to steer" ;;
	too-many-queues) echo "queue numbers are u16 and 65535 means \"no queue\" to the core" ;;
	select-ignores-xps) echo "the driver's own selection never consults the kernel's XPS map, so neither mode can steer it (the table below)" ;;
	no-kernel-xps) echo "the device can only be guarded, and a kernel built without CONFIG_XPS has no map to guard" ;;
	requested) echo "\`dev=<name>:guard\`: the operator asked for guard mode on a device steer mode could serve" ;;
	denylisted) echo "the driver is on the denylist below: a copy of its ops would break it" ;;
	own-select-queue) echo "the driver picks queues itself, and its ordinary packets go through the kernel's XPS map (netdev_pick_tx()); its own choices (FCoE, PTP, TC queues) keep working" ;;
	*) echo "drivers-md.sh: no meaning for verdict '$1'" >&2; return 1 ;;
	esac
}

# in_list WORD LIST...: whether WORD is one of LIST.
in_list() {
	local w=$1 x
	shift
	for x; do [[ $x == "$w" ]] && return 0; done
	return 1
}

mapfile -t deny_names < <(deny_entries | cut -f2)
mapfile -t no_xps_names < <(deny_entries NO_XPS | cut -f2)

# mode_of TABLE_NAME OWN_SELECT: the mode attach.c chooses, in its order.
mode_of() {
	if [[ $2 != - ]] && in_list "$1" "${no_xps_names[@]}"; then
		echo "refused: its selection ignores XPS"
	elif in_list "$1" "${deny_names[@]}"; then
		echo "guard (denylisted)"
	elif [[ $2 != - ]]; then
		echo "guard (own ndo_select_queue)"
	else
		echo "steer"
	fi
}

# The survey's rows: driver<TAB>table<TAB>select<TAB>steered<TAB>rewrites<TAB>tested.
survey() { grep -v '^#' scripts/drivers-survey.tsv; }

tested_text() {
	case $1 in
	nics) echo "QEMU's device, per packet, in steer and guard mode (\`make check-nics\`)" ;;
	-) echo "not tested: no such device here" ;;
	*) echo "$1" ;;
	esac
}

lib=(test/guest/*.sh)
mapfile -t tests < <(suite_tests)
veth_tests=() guard_tests=()
for t in "${tests[@]}"; do
	# Whole bodies, no grep -q: an early exit would fail the pipe.
	tbody=$(body "t_$t" "${lib[@]}")
	[[ $tbody == *veth* || $tbody == *DST2* ]] && veth_tests+=("$t")
	[[ $t == guard* ]] && guard_tests+=("$t")
done
mapfile -t nic_drivers < <(sed -n 's/^NIC_DRIVERS=(\(.*\))$/\1/p' test/guest/nics.sh | tr ' ' '\n')
mapfile -t nic_tests < <(sed -n 's/^NIC_TESTS=(\(.*\))$/\1/p' test/guest/nics.sh | tr ' ' '\n')
kernels=$(matrix_kernels)

join() { local IFS=' '; local out='' x; for x in "$@"; do out+="${out:+, }$(code "$x")"; done; printf '%s' "$out"; }

if [[ ${1:-} == --readme ]]; then
	echo "| driver | what rewrites its map | xps_steer mode | how it is tested |"
	echo "|---|---|---|---|"
	survey | while IFS=$'\t' read -r driver table select _ rewrites tested; do
		echo "| \`$driver\` | $(cell "$rewrites") | $(mode_of "$table" "$select") | $(cell "$(tested_text "$tested")") |"
	done
	exit 0
fi

cat <<EOF
# Drivers: steered, guarded, refused

<!-- Generated by scripts/drivers-md.sh from scripts/drivers-survey.tsv,
src/denylist.c, the verdicts of src/verdicts.c, test/guest/ and
docs/compat.md. Do not edit: re-run it (make check T=lint fails when this
file is out of date). -->

xps_steer serves a multiqueue device in one of two modes
([design.md](design.md)):

- **steer**: the device gets a copy of its driver's \`net_device_ops\`
  with xps_steer's own \`ndo_select_queue\`, which picks the queue from
  xps_steer's map for every packet;
- **guard**: the device's ops are not touched; xps_steer writes its
  masks into the kernel's own XPS map and writes them again whenever the
  driver (or anyone) replaced or wiped that map. For drivers whose ops
  must not be copied (their own \`ndo_select_queue\`, or the denylist
  below) but whose ordinary packets the kernel's XPS steers.

A device whose queue selection never consults XPS is refused: neither
mode could steer it. The log line says which rule decided
([usage.md](usage.md) lists every log line).

## Every driver of the survey

The popular drivers, read in Debian's 6.1.192 sources (file:line in
\`drivers/net\` there), and the mode \`modprobe xps_steer dev=<nic>\`
serves each in:

| driver | own \`ndo_select_queue\` | its ordinary packets are steered by | what rewrites or wipes the kernel's map | xps_steer mode | tested |
|---|---|---|---|---|---|
EOF
survey | while IFS=$'\t' read -r driver table select steered rewrites tested; do
	echo "| \`$driver\` | $(cell "$select") | $(cell "$steered") | $(cell "$rewrites") | $(mode_of "$table" "$select") | $(cell "$(tested_text "$tested")") |"
done

cat <<'EOF'

Any other multiqueue driver is served by the same rules: steer when it
has no `ndo_select_queue` of its own and is not on the denylist, guard
otherwise, unless its selection is known to ignore XPS. Only the drivers
below have been tested here.

## Tested on

| driver | kernels | tests |
|---|---|---|
EOF
echo "| \`dummy\` (4 queues; \`dum0\`, \`dum1\` in a netns) | bookworm's 6.1 (\`make check\`, test/guest-kernel.sh); $kernels (\`make check-matrix\`, [compat.md](compat.md)) | the functional suite, test/guest/suite.sh: $(join "${tests[@]}") |"
echo "| \`veth\` (4 queues; \`veth0\`, its peer in a netns) | the same | $(join "${veth_tests[@]}") |"
for d in "${nic_drivers[@]}"; do
	case $d in
	virtio) name=virtio_net how="virtio-net, 4 queue pairs on a host multiqueue tap" ;;
	vmxnet3) name=vmxnet3 how="QEMU's vmxnet3" ;;
	igb) name=igb how="Intel 82576, Debian sid's QEMU" ;;
	*) name=$d how="" ;;
	esac
	names=()
	for t in "${nic_tests[@]}"; do names+=("nic_${d}_$t"); done
	echo "| \`$name\` ($how) | bookworm's 6.1 (\`make check-nics\`, the last part of \`make check\`) | test/guest/nics.sh: $(join "${names[@]}") |"
done
if ((${#guard_tests[@]})); then
	echo
	echo "Guard mode is tested in the suite by $(join "${guard_tests[@]}")."
fi

cat <<'EOF'

## Guarded: the rules

A device that steer mode cannot serve, or that `dev=` names with
`:guard`, is attached in guard mode, with one of these log lines (`eth0`
stands for the device):

| log line | why |
|---|---|
EOF
verdict_table "attached in guard mode"

cat <<'EOF'

## Refused: the rules, in the order they are checked

The first rule that matches refuses the device, with this log line:

| log line | why |
|---|---|
EOF
verdict_table "refused:"

cat <<'EOF'

Every refused device keeps transmitting with its driver's own queue
selection.

### Selections that ignore XPS

From `src/denylist.c`: on Azure, the device to guard is the VF (mlx5 or
mana's), not the synthetic hv_netvsc device.

| match | name | kernels | its queue is | the selection (6.1.192) |
|---|---|---|---|---|
EOF
deny_entries NO_XPS | while IFS=$'\t' read -r match name why cite kernels; do
	echo "| $(match_label "$match") | \`$(cell "$name")\` | $(cell "$kernels") | $(cell "$why") | $(cell "$cite") |"
done

cat <<'EOF'

### Refused and guarded devices in the suite

`refused_devices` (test/guest/lifecycle.sh) creates these and checks the
log line of each:

| device | created with | log line checked |
|---|---|---|
EOF
rbody=$(body t_refused_devices test/guest/lifecycle.sh)
while IFS= read -r expect; do
	dev=${expect#xps_steer: }
	dev=${dev%%:*}
	how=$(printf '%s\n' "$rbody" | grep -oE "ip (link add $dev [^>|&]*type [a-z]+[^>|&]*|tuntap add dev $dev [^>|&]*)" | sed -n 1p | sed 's/ *$//')
	# A checked prefix that stops inside the facts: the rest elided.
	[[ $expect != *'('*([^\)]) ]] || expect+=" …)"
	echo "| \`$dev\` | \`$(cell "$how")\` | \`$(cell "$expect")\` |"
done < <(printf '%s\n' "$rbody" | grep -oE 'klog_expect "xps_steer: [^"]*' | sed 's/^klog_expect "//')

cat <<'EOF'

## The denylist: guarded, never steered

Drivers that recognise their own devices by comparing `dev->netdev_ops`
with their ops table: a device wearing xps_steer's copy would stop being
theirs, so these are guarded. Each entry cites the comparison that
justifies it, in Debian's 6.1.192 sources (`drivers/net` and `net`),
from `src/denylist.c`. A device matches an entry by its parent's bus
driver, its link kind (`rtnl_link_ops->kind`), its device type, or (DSA
masters) a condition. An entry that is also in the table of selections
that ignore XPS above is refused.

| match | name | kernels | why | the comparison (6.1.192) |
|---|---|---|---|---|
EOF
deny_entries | while IFS=$'\t' read -r match name why cite kernels; do
	echo "| $(match_label "$match") | \`$(cell "$name")\` | $(cell "$kernels") | $(cell "$why") | $(cell "$cite") |"
done

cat <<'EOF'

### Compared, but not listed

These compare `netdev_ops` too, in 6.1.192, but listing them would gain
nothing or cost a whole NIC family its steer mode:

EOF
not_listed | sed 's/^- \([^:]*\):/- **\1**:/'
