#!/bin/bash
# check.sh - `make check`: the static checks, then the functional suite in a
# QEMU guest running Debian bookworm's kernel, then the bad-input catalogue,
# then the real-NIC-driver lane (test/check-nics.sh: virtio-net, vmxnet3,
# igb, one guest each). Run as root on Debian 12; it installs what it needs
# with apt. Exits non-zero if anything failed.
#
# Usage: test/check.sh [T=name[,name...]]
#   T= runs just these tests: the suite's (test/guest/suite.sh --list; in
#   the order given, in one guest) and the real-NIC-driver lane's
#   (test/guest/nics.sh --list: nic_<driver>_<test>; only the drivers they
#   name are booted), and the operators' tool's (tool/tests/run.sh --list:
#   tool_<name>, on the host against fake /sys trees, built with ASan and
#   UBSan). The static checks (test/lint.sh) are the test named
#   `lint`: they run with no T= (or T=all) and when T names lint. The
#   catalogue check runs when a selected test checks rows of
#   docs/bad-input.md, and then only those rows are required. An unknown
#   name is refused (exit 2) before anything is built or booted.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

spec=
for arg in "$@"; do
	case $arg in
	T=*) spec=${arg#T=} ;;
	*) die_usage "unknown argument '$arg' (usage: test/check.sh [T=name[,name...]])" ;;
	esac
done
# `lint` is one more name; nic_* names are the NIC lane's, tool_* the
# tool's, the rest must be the suite's.
lint=0 guest=() nics=() tools=()
tool_names=" $("$TOP/tool/tests/run.sh" --list | paste -sd' ') "
if [[ -z $spec || $spec == all ]]; then
	lint=1
	mapfile -t guest < <(select_names "$TOP/test/guest/suite.sh" all)
	mapfile -t nics < <(select_names "$TOP/test/guest/nics.sh" all)
	read -ra tools <<<"$tool_names"
else
	nic_names=" $(test_names "$TOP/test/guest/nics.sh" | paste -sd' ') "
	IFS=, read -ra names <<<"$spec"
	rest=()
	for name in "${names[@]}"; do
		if [[ $name == lint ]]; then
			lint=1
		elif [[ $nic_names == *" $name "* ]]; then
			nics+=("$name")
		elif [[ $tool_names == *" $name "* ]]; then
			tools+=("$name")
		else
			rest+=("$name")
		fi
	done
	if ((${#rest[@]})); then
		suite_names=" $(test_names "$TOP/test/guest/suite.sh" | paste -sd' ') "
		for name in "${rest[@]}"; do
			[[ $suite_names == *" $name "* ]] ||
				die_usage "T=$spec: unknown test '$name'; the tests are lint, the suite's:$suite_names(test/guest/suite.sh --list), the NIC lane's:$nic_names(test/guest/nics.sh --list) and the tool's:$tool_names(tool/tests/run.sh --list)"
		done
		mapfile -t guest < <(printf '%s\n' "${rest[@]}")
	fi
fi

out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-check.XXXXXX)}
mkdir -p "$out"

"$TOP/test/deps.sh"
"$TOP/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$TOP/test/guest-kernel.sh" kdir)

status=0
taps=()
if ((lint)); then
	KDIR=$kdir "$TOP/test/lint.sh" | tee "$out/lint.tap" || status=1
	taps+=("$out/lint.tap")
fi

# The operators' tool, on the host (fast; before the guests).
if ((${#tools[@]})); then
	sel=$(IFS=,; echo "${tools[*]}")
	make -s -C "$TOP/tool" O="$out/tool" check "T=$sel" | tee "$out/tool.tap" || status=1
	taps+=("$out/tool.tap")
fi

if ((${#guest[@]} + ${#nics[@]})); then
	# lint.sh leaves a sparse build behind: then build the module under test
	# afresh (else make's own dependencies decide).
	((!lint)) || make -s -C "$TOP" KDIR="$kdir" clean >/dev/null
	make -s -C "$TOP" KDIR="$kdir" >/dev/null
fi

if ((${#guest[@]})); then
	sel=$(IFS=,; echo "${guest[*]}")
	# The test-only modules (test/modules/: ops_copier for foreign.sh) go
	# into the guest next to xps_steer, loadable by name.
	kos=(--ko "$TOP/xps_steer.ko")
	tkos=$(build_test_modules "$out" "$kdir")
	while read -r ko; do kos+=(--ko "$ko"); done <<<"$tkos"
	"$TOP/test/vm.sh" "${kos[@]}" --script "$TOP/test/guest/suite.sh" \
		--smp 4 --log "$out/console.log" -- "T=$sel" || status=1
	tr -d '\r' <"$out/console.log" >"$out/suite.tap"
	taps+=("$out/suite.tap")
	# Every row of docs/bad-input.md whose test ran must have been checked
	# by it, passing (all rows on a full run).
	if "$TOP/test/catalogue.sh" --covers "$TOP/docs/bad-input.md" "$sel"; then
		"$TOP/test/catalogue.sh" "$TOP/docs/bad-input.md" "$out/suite.tap" "$sel" |
			tee "$out/catalogue.tap" || status=1
		taps+=("$out/catalogue.tap")
	fi
	echo "console log: $out/console.log"
fi

# The same module on real NIC drivers (virtio-net, vmxnet3, igb), one guest
# each (`make check-nics` runs just this).
if ((${#nics[@]})); then
	sel=$(IFS=,; echo "${nics[*]}")
	XPS_STEER_OUT=$out/nics "$TOP/test/check-nics.sh" --ko "$TOP/xps_steer.ko" "T=$sel" || status=1
	for f in "$out"/nics/*.tap; do
		[[ ! -e $f ]] || taps+=("$f")
	done
	echo "real NIC drivers: $out/nics/"
fi

# One summary over the KTAP streams; a SKIP is reported, never a pass.
summary=$(tap_summary "${taps[@]:-/dev/null}") || status=1
echo "xps_steer: $summary"
exit "$status"
