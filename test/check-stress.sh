#!/bin/bash
# check-stress.sh - `make check-stress`: the stress suite (test/guest/stress.sh)
# in a QEMU guest running Debian bookworm's stock kernel, 4 of 8 possible
# vCPUs online (-smp 4,maxcpus=8). Run as root on Debian 12; installs what
# it needs with apt. Exits non-zero on any failure.
#
# Usage: test/check-stress.sh [T=name[,name...]] [COUNT=N...]
#   T= runs just these stress tests (test/guest/stress.sh --list), in the
#   order given; an unknown name is refused (exit 2) before anything boots.
#   COUNT=N (CYCLES=20 ...) overrides a count, for a quick manual round;
#   `make check-stress` passes none (the full counts) unless given
#   COUNTS="CYCLES=20 ...".
# The whole suite (no T=) runs in two guests side by side on a host with
# 2 or more cores, each guest one host thread (single-threaded TCG): lane 2
# takes LANE2's tests, lane 1 all others, both end with stress_final.
# XPS_STEER_STRESS_LANES=1 keeps them in one guest.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t_and_counts "$@"
spec=$T_SPEC counts=(${T_COUNTS[@]+"${T_COUNTS[@]}"})
names=$(select_names "$TOP/test/guest/stress.sh" "$spec") || exit
sel=$(paste -sd, <<<"$names")

out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-stress.XXXXXX)}
mkdir -p "$out"

"$TOP/test/deps.sh"
"$TOP/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$TOP/test/guest-kernel.sh" kdir)
build_copy "$out" "$kdir"
# The test-only drivers the guard-mode tests load (bnxlike, ops_checker).
test_kos=()
tkos=$(build_test_modules "$out" "$kdir")
while read -r ko; do test_kos+=(--ko "$ko"); done <<<"$tkos"

# About half of the suite's guest time each, measured on the stock
# kernel (docs/testing.md): the runtime list and device churn here, the
# map writers and attach cycles in lane 1.
LANE2="stress_dev_list stress_device_churn stress_packet_bypass stress_cpu_hotplug stress_mask_writes stress_guard_drivers"
lanes=${XPS_STEER_STRESS_LANES:-$(($(nproc) >= 2 ? 2 : 1))}
if [[ -n $spec ]] || ((lanes < 2)); then
	lane_tests=("$sel")
else
	mapfile -t lane_tests < <(stress_lanes "$LANE2")
fi
# Logs of an earlier run in the same directory must not be counted.
rm -f "$out"/stress-*.tap "$out"/console-*.log

# Single-threaded TCG (vm.sh): under multi-threaded TCG the guest kernel's
# int3 live text patching (tracepoints toggled hundreds of times here) was
# once seen half-done by another vCPU thread, a stall with asm_exc_int3 and
# no xps_steer frame (see test/check-matrix.sh for the same on 7.2).
lane() {	# N TESTS: one guest; its TAP in $out/stress-N.tap
	local n=$1 tests=$2
	local log="$out/console-$n.log" rc=0 planned reported
	"$TOP/test/vm.sh" --ko "$out/build/xps_steer.ko" "${test_kos[@]}" --smp 4 --maxcpus 8 --mem 2G \
		--timeout 5400 --log "$log" \
		--script "$TOP/test/guest/stress.sh" -- "T=$tests" ${counts[@]+"${counts[@]}"} || rc=1
	tr -d '\r' <"$log" >"$out/stress-$n.tap"
	# A guest that died half-way reports fewer tests than it was given.
	planned=$(tr , '\n' <<<"$tests" | grep -c .)
	reported=$(grep -cE '^(not )?ok [0-9]+' "$out/stress-$n.tap" || true)
	if ((reported != planned)); then
		echo "lane $n: $reported of $planned tests reported ($tests)" >&2
		rc=1
	fi
	echo "lane $n: $tests: vm.sh and tests $( ((rc)) && echo FAILED || echo ok)"
	return "$rc"
}

status=0
t0=$(now_us)
pids=()
for i in "${!lane_tests[@]}"; do
	lane "$((i + 1))" "${lane_tests[$i]}" &
	pids+=($!)
done
for pid in "${pids[@]}"; do
	wait "$pid" || status=1
done

cat "$out"/stress-*.tap >"$out/stress.tap"
summary=$(tap_summary "$out/stress.tap") || status=1
echo "console logs: $out/console-*.log"
grep -E '^# (stress|counts|[0-9]+ |traffic|UDP )' "$out/stress.tap" || true
echo "xps_steer stress (stock kernel $("$TOP/test/guest-kernel.sh" abi)): $summary in $(secs_since "$t0") s"
exit "$status"
