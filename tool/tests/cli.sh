#!/bin/bash
# cli.sh - the command line, the same for every command: --help and -h
# print the command's usage on stdout (exit 0, nothing read or written);
# an unknown option is exit 2 with the usage on stderr; options are taken
# before, between and after the operands, with the same result.
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Every command's usage line, as its --help prints it first.
CLI_USAGE=(
	"status [DEV...] [--json]"
	"map DEV [--json]"
	"set DEV QUEUE CPULIST [--kernel]"
	"attach DEV[:guard]..."
	"detach DEV..."
	"auto DEV --policy POLICY [--dry-run] [--json] [--topology FILE]"
	"apply [DEV...] [--dry-run] [--if-configured] [--config FILE] [--topology FILE]"
	"save [DEV...] [--output FILE] [--config FILE]"
	"verify DEV [SECONDS] [--json] [--trace FILE]"
	"load [--config FILE] [--topology FILE]"
	"hotplug IFNAME [--config FILE] [--topology FILE]"
)

# eth0 attached (4 queues, 3 in use), eth1 refused, eth2 not listed; a
# configuration for eth0 and eth1 and a trace of eth0 beside the root.
cli_fixture() {
	fake_attached_and_refused
	fake_netdev eth2 2 virtio_net 52:54:00:aa:bb:03 0000:00:05.0
	printf 'tx-0 0\ntx-1 1\ntx-2 2-3\ntx-3 3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
	printf '[eth0]\ntx-0 = 1\ntx-1 = 2-3\n[eth1]\ntx-1 = 2\n' >"$T_DIR/cli.conf"
	{
		echo "# tracer: nop"
		printf '            ping-1     [000] b..1.  100.000001: net_dev_start_xmit: dev=eth0 queue_mapping=0 skbaddr=0\n'
		printf '            ping-1     [001] b..1.  100.000002: net_dev_start_xmit: dev=eth0 queue_mapping=2 skbaddr=0\n'
	} >"$T_DIR/cli.trace"
}

# The files below the root and what they hold, one line each, comment
# lines left out (save's header names the command line as it was given).
cli_tree() {
	local f
	find "$XPS_STEER_ROOT" -type f -print0 | sort -z |
		while IFS= read -r -d '' f; do
			echo "${f#"$XPS_STEER_ROOT"}: $(grep -v '^#' "$f" | paste -sd'|')"
		done
}

# cli_same RC LINE...: each command line (split at blanks; a leading
# POSIXLY_CORRECT=1 is put in its environment) run on a fresh fixture
# exits RC, and its stdout, stderr and the files below the root are the
# first line's.
cli_same() {
	local want=$1 cl got first="" first_line="" posix
	local -a args
	shift
	for cl in "$@"; do
		rm -rf "${XPS_STEER_ROOT:?}"
		mkdir -p "$XPS_STEER_ROOT"
		cli_fixture
		posix=
		[[ $cl == POSIXLY_CORRECT=1\ * ]] && posix=1 cl=${cl#* }
		read -ra args <<<"$cl"
		if [ -n "$posix" ]; then
			POSIXLY_CORRECT=1 xs "${args[@]}"
		else
			xs "${args[@]}"
		fi
		expect_eq "'$cl': exit code" "$want" "$rc"
		got="stdout: $out
stderr: $errtext
files:
$(cli_tree)"
		if [ -z "$first_line" ]; then
			first=$got first_line=$cl
		else
			expect_eq "'$cl' as '$first_line'" "$first" "$got"
		fi
	done
}

# --help and -h anywhere on the line: the usage on stdout, exit 0, before
# anything else is looked at (operands, missing ones, a device list).
test_tool_cli_help() {
	cli_fixture
	local u cmd h before
	xs --help
	expect_rc 0
	expect_eq "the commands --help lists" \
		"$(printf '%s\n' "${CLI_USAGE[@]}" | awk '{ print $1 }' | paste -sd' ')" \
		"$(sed -n '/^commands:$/,/^$/p' "$T_DIR/out" | awk 'NR > 1 && NF { print $1 }' | paste -sd' ')"
	before=$(cli_tree)
	for u in "${CLI_USAGE[@]}"; do
		cmd=${u%% *}
		for h in --help -h; do
			xs "$cmd" "$h"
			expect_rc 0
			expect_eq "$cmd $h: usage" "usage: xps-steer $u" "$(head -n 1 "$T_DIR/out")"
			expect_eq "$cmd $h: stderr" "" "$errtext"
			[[ $out == *"-h, --help "* ]] || fail "$cmd $h: no options listed: $out"
		done
		xs "$cmd" -h
		local short=$out
		xs "$cmd" --help
		expect_eq "$cmd: -h as --help" "$out" "$short"
	done
	# After operands, and with other options: still the usage, nothing done.
	xs detach eth0 --help
	expect_rc 0
	expect_eq "detach eth0 --help" "usage: xps-steer detach DEV..." "$(head -n 1 "$T_DIR/out")"
	xs set eth0 0 1 --kernel -h
	expect_rc 0
	expect_eq "set ... -h" "usage: xps-steer set DEV QUEUE CPULIST [--kernel]" "$(head -n 1 "$T_DIR/out")"
	xs apply eth0 --config "$T_DIR/cli.conf" --help
	expect_rc 0
	xs auto eth0 --help
	expect_rc 0
	expect_eq "nothing written" "$before" "$(cli_tree)"
}

# Any option the command does not take, its usage on stderr, exit 2.
test_tool_cli_unknown_option() {
	cli_fixture
	local u cmd opt before
	before=$(cli_tree)
	for u in "${CLI_USAGE[@]}"; do
		cmd=${u%% *}
		for opt in --no-such-option -Z; do
			xs "$cmd" "$opt"
			expect_rc 2
			expect_eq "$cmd $opt" "xps-steer: $cmd: unknown option '$opt'
usage: xps-steer $u" "$(head -n 2 "$T_DIR/err")"
			expect_eq "$cmd $opt: stdout" "" "$out"
		done
	done
	# Another command's option, and --json where there is no JSON.
	xs status eth0 --dry-run
	expect_rc 2
	expect_eq "status --dry-run" "xps-steer: status: unknown option '--dry-run'" "$(head -n 1 "$T_DIR/err")"
	xs apply --json
	expect_rc 2
	expect_eq "apply --json" "xps-steer: apply: unknown option '--json'" "$(head -n 1 "$T_DIR/err")"
	xs set eth0 0 1 -j
	expect_rc 2
	expect_eq "set -j" "xps-steer: set: unknown option '-j'" "$(head -n 1 "$T_DIR/err")"
	# An option's argument missing, or given to one that takes none.
	xs auto eth0 --policy
	expect_rc 2
	expect_eq "--policy" "xps-steer: auto: option '--policy' needs an argument
usage: xps-steer auto DEV --policy POLICY [--dry-run] [--json] [--topology FILE]" "$(head -n 2 "$T_DIR/err")"
	xs status --json=yes
	expect_rc 2
	expect_eq "--json=yes" "xps-steer: status: option '--json' takes no argument" "$(head -n 1 "$T_DIR/err")"
	# Operands missing or too many: the same usage on stderr.
	xs map
	expect_rc 2
	expect_eq "map" "xps-steer: map: missing arguments
usage: xps-steer map DEV [--json]" "$(head -n 2 "$T_DIR/err")"
	xs verify eth0 5 6 --json
	expect_rc 2
	expect_eq "verify" "xps-steer: verify: too many arguments ('6')
usage: xps-steer verify DEV [SECONDS] [--json] [--trace FILE]" "$(head -n 2 "$T_DIR/err")"
	xs nosuch --help
	expect_rc 2
	expect_eq "unknown command" "xps-steer: unknown command 'nosuch'" "$(head -n 1 "$T_DIR/err")"
	expect_eq "nothing written" "$before" "$(cli_tree)"
}

# Options before, between and after the operands: one result, and the
# result the command gives (each line exits as it should, and writes).
test_tool_cli_option_order() {
	local c=$T_DIR/cli.conf t=$T_DIR/cli.trace
	cli_same 0 "status --json eth0 eth1" "status eth0 --json eth1" \
		"status eth0 eth1 --json" "status eth0 -j eth1" \
		"POSIXLY_CORRECT=1 status eth0 eth1 -j"
	[[ $out == "{"* ]] || fail "status: no JSON: $out"
	cli_same 0 "map --json eth0" "map eth0 --json" "map eth0 -j"
	cli_same 0 "set --kernel eth2 1 0-1" "set eth2 --kernel 1 0-1" \
		"set eth2 1 --kernel 0-1" "set eth2 1 0-1 --kernel" \
		"set --kernel -- eth2 1 0-1" "POSIXLY_CORRECT=1 set eth2 1 0-1 --kernel"
	expect_eq "set --kernel: written" "$(hexmask 4 0-1)" \
		"$(cat "$(R /sys/class/net/eth2/queues/tx-1/xps_cpus)")"
	cli_same 0 "auto --policy cache --dry-run --json --topology $TOPO/1s-4c.xml eth0" \
		"auto eth0 --policy cache --dry-run --json --topology $TOPO/1s-4c.xml" \
		"auto --json eth0 --topology=$TOPO/1s-4c.xml --dry-run --policy=cache" \
		"auto -j --dry-run eth0 --policy cache --topology $TOPO/1s-4c.xml"
	cli_same 0 "auto --policy one-to-one --topology $TOPO/1s-4c.xml eth0" \
		"auto eth0 --policy one-to-one --topology $TOPO/1s-4c.xml"
	expect_eq "auto: written" "tx-0 0,3
tx-1 1
tx-2 2" "$(cat "$(R /sys/kernel/xps_steer/eth0/map)")"
	cli_same 0 "apply --dry-run --config $c eth0 eth1" \
		"apply eth0 --dry-run eth1 --config $c" \
		"apply eth0 eth1 --config=$c --dry-run"
	cli_same 0 "apply --config $c eth0 eth1" "apply eth0 --config $c eth1" \
		"apply eth0 eth1 --config $c"
	expect_eq "apply: written" "tx-0 1
tx-1 2-3
tx-2" "$(cat "$(R /sys/kernel/xps_steer/eth0/map)")"
	cli_same 0 "save --output $XPS_STEER_ROOT/saved.conf --config $c eth0 eth1" \
		"save eth0 --output $XPS_STEER_ROOT/saved.conf eth1 --config $c" \
		"save eth0 eth1 --config $c --output $XPS_STEER_ROOT/saved.conf"
	[ -s "$(R /saved.conf)" ] || fail "save: nothing saved"
	cli_same 4 "verify --trace $t --json eth0" "verify eth0 --trace $t --json" \
		"verify eth0 -j --trace $t"
	cli_same 4 "verify --trace $t eth0 7" "verify eth0 --trace $t 7" \
		"verify eth0 7 --trace $t"
	cli_same 0 "hotplug --config $c eth1" "hotplug eth1 --config $c"
	expect_eq "hotplug: written" "$(hexmask 4 2)" \
		"$(cat "$(R /sys/class/net/eth1/queues/tx-1/xps_cpus)")"
}
