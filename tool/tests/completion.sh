#!/bin/bash
# completion.sh - the bash completion (completion/xps-steer): commands,
# devices, queues and policies offered at each position.
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# complete WORD...: what the completion offers for the last word, sorted,
# on one line.
complete_words() {
	COMP_WORDS=(xps-steer "$@")
	COMP_CWORD=$#
	COMP_LINE="xps-steer $*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_xps_steer
	printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd' '
}

test_tool_completion() {
	# shellcheck source=../completion/xps-steer
	. "$(dirname "$TOPO")/../completion/xps-steer"
	fake_cpus 4
	fake_netdev eth0 3
	fake_netdev eth1 2 bnx2x 52:54:00:aa:bb:02 0000:00:04.0
	fake_module "eth0 attached queues=3 active=3 hook=installed name=eth0" "eth9 absent"
	fake_attached eth0 3
	expect_eq "commands" "--help --version apply attach auto detach hotplug load map save set status verify" \
		"$(complete_words "")"
	expect_eq "status devices" "eth0 eth1 eth9" "$(complete_words status "")"
	expect_eq "detach: listed names only" "eth0 eth9" "$(complete_words detach "")"
	expect_eq "set queues" "tx-0 tx-1 tx-2" "$(complete_words set eth0 "")"
	expect_eq "policies" "cache irq numa one-to-one" "$(complete_words auto eth0 --policy "")"
	expect_eq "set: options after the operands too" "--help --kernel" "$(complete_words set eth0 0 1 --)"
	# Each command's options: the ones its --help lists.
	local cmd
	for cmd in status map set attach detach auto apply save verify load hotplug; do
		xs "$cmd" --help
		expect_rc 0
		expect_eq "$cmd: options" \
			"$(sed -n 's/^  \(-[a-z], \|    \)\(--[a-z-]*\).*/\2/p' "$T_DIR/out" | sort | paste -sd' ')" \
			"$(complete_words "$cmd" --)"
	done
}
