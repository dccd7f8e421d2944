#!/bin/bash
# check-debug.sh - `make check-debug`: the functional suite and the stress
# suite on the debug kernel (test/debug-kernel.sh: KASAN, UBSAN, KMEMLEAK,
# lockdep, PROVE_RCU, DEBUG_OBJECTS_RCU_HEAD, DEBUG_ATOMIC_SLEEP, DEBUG_NET,
# refcount trackers), booted with panic_on_warn=1. Each suite runs between
# kmemleak scans (test/guest/kmemleak.sh): any leak report fails, as does
# any KASAN/UBSAN/lockdep/RCU report, WARN, hung task or oops that vm.sh
# finds in the console. The first run builds the kernel (long; cached in
# /var/cache/xps_steer/debug-kernel-<key>/).
#
# The guests use single-threaded TCG (one host core each), so on a machine
# with 2 or more cores two run side by side: lane 1 the stress suite's
# attach/detach cycles (its longest test on this kernel), mask writes,
# map writes, queue-count changes, AF_PACKET cycles, CPU hotplug and
# runtime device-list changes; lane 2 the functional suite, then device
# churn (stress.sh T=..., split by measured time).
# Every test runs once, at full counts. XPS_STEER_DEBUG_LANES=1 runs it all
# in one lane.
#
# Usage: test/check-debug.sh [T=name[,name...]] [COUNT=N...]
#   T= runs just these tests, the suite's (test/guest/suite.sh --list) in
#   one guest and the stress suite's (test/guest/stress.sh --list, then
#   stress_final) in another, side by side; an unknown name is refused
#   (exit 2) before anything is built. For a gate on one area, e.g. guard
#   mode: T=guard_event_restore,...,stress_guard_churn.
#   COUNT=N (CYCLES=20 ...) goes to stress.sh, for quick manual rounds only.
# XPS_STEER_DEBUG_ONLY=suite|stress runs just one of the two.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
only=${XPS_STEER_DEBUG_ONLY:-}
case $only in
'' | suite | stress) ;;
*) die_usage "XPS_STEER_DEBUG_ONLY=$only: expected suite or stress" ;;
esac
t_and_counts "$@"
spec=$T_SPEC counts=(${T_COUNTS[@]+"${T_COUNTS[@]}"})
suite_sel='' stress_sel=''
if [[ -n $spec ]]; then
	suite_known=" $(test_names "$TOP/test/guest/suite.sh" | paste -sd' ') "
	stress_known=" $(test_names "$TOP/test/guest/stress.sh" | paste -sd' ') "
	IFS=, read -ra names <<<"$spec"
	for name in "${names[@]}"; do
		if [[ $suite_known == *" $name "* ]]; then
			suite_sel+=$name,
		elif [[ $stress_known == *" $name "* ]]; then
			[[ $name == stress_final ]] || stress_sel+=$name,
		else
			die_usage "T=$spec: unknown test '$name'; the suite's:$suite_known(test/guest/suite.sh --list), the stress suite's:$stress_known(test/guest/stress.sh --list)"
		fi
	done
	suite_sel=${suite_sel%,}
	[[ -z $stress_sel ]] || stress_sel+=stress_final
	# Only the suites T= names a test of; never a whole suite for none.
	if [[ -z $suite_sel ]]; then
		[[ $only != suite ]] || die_usage "T=$spec names no test of the suite, and XPS_STEER_DEBUG_ONLY=suite"
		only=stress
	elif [[ -z $stress_sel ]]; then
		[[ $only != stress ]] || die_usage "T=$spec names no stress test, and XPS_STEER_DEBUG_ONLY=stress"
		only=suite
	fi
fi
out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-debug.XXXXXX)}
mkdir -p "$out"

"$TOP/test/deps.sh"
cache=$("$TOP/test/debug-kernel.sh" build)
root=$cache/root
abi=$(cat "$cache/abi")
kdir=$cache/src
echo "check-debug.sh: debug kernel $abi (build took $(cat "$cache/build-seconds") s; cache $cache)"

build_copy "$out" "$kdir"
# The test-only drivers (test/modules/) the guard tests of both suites load.
test_kos=()
tkos=$(build_test_modules "$out" "$kdir")
while read -r ko; do test_kos+=(--ko "$ko"); done <<<"$tkos"

# A lane takes about 2 hours on an idle 2-core host and more on a busy
# one: a guest is stopped only after 4 hours (the last lane 1 ran into a
# 2-hour limit under load, in its third of six tests).
vm() {	# NAME VM.SH-ARGS... -- GUEST-ARGS...
	local name=$1 t0 t1 rc=0
	shift
	t0=$(date +%s)
	"$TOP/test/vm.sh" --kernel-root "$root" --abi "$abi" --ko "$out/build/xps_steer.ko" \
		--mem 2G --timeout 14400 --append "panic_on_warn=1" \
		--log "$out/$name.log" --script "$TOP/test/guest/kmemleak.sh" "$@" || rc=1
	t1=$(date +%s)
	echo "$name: vm.sh exit $rc in $((t1 - t0)) s" >>"$out/times"
	return "$rc"
}

stress() {	# NAME STRESS.SH-ARGS...
	local name=$1
	shift
	vm "$name" --smp 4 --maxcpus 8 "${test_kos[@]}" -- /test/stress.sh "$@"
}
suite() { vm suite --smp 4 "${test_kos[@]}" -- /test/suite.sh ${suite_sel:+"T=$suite_sel"}; }

lanes=${XPS_STEER_DEBUG_LANES:-$(($(nproc) >= 2 ? 2 : 1))}
# Lane 2 also runs the functional suite first, so it takes fewer stress
# tests than check-stress.sh's lane 2.
# With T=, the named stress tests are one lane beside the suite's.
if [[ -n $spec ]]; then
	lane1=$stress_sel lane2=
else
	{ read -r lane1 && read -r lane2; } < <(stress_lanes "stress_device_churn")
fi
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
status=0
pid1=
rest=(stress)
if want stress && [ "$lanes" -ge 2 ]; then
	stress stress-1 "T=$lane1" ${counts[@]+"${counts[@]}"} &
	pid1=$!
	if [[ -n $lane2 ]]; then rest=(stress-2 "T=$lane2"); else rest=(); fi
elif [[ -n $spec ]]; then
	rest=(stress "T=$lane1")
fi
if want suite; then suite || status=1; fi
if want stress && ((${#rest[@]})); then stress "${rest[@]}" ${counts[@]+"${counts[@]}"} || status=1; fi
if [ -n "$pid1" ]; then wait "$pid1" || status=1; fi

cat "$out"/*.log | tr -d '\r' >"$out/all.tap"
summary=$(tap_summary "$out/all.tap") || status=1
grep -E '^# (suite|stress|counts|kmemleak|[0-9]+ |traffic|UDP )' "$out/all.tap" || true
cat "$out/times"
echo "console logs: $out/*.log"
echo "xps_steer on debug kernel $abi: $summary"
exit "$status"
