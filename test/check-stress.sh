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
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

spec='' counts=()
for arg in "$@"; do
	case $arg in
	T=*) spec=${arg#T=} ;;
	[A-Z]*=*) counts+=("$arg") ;;
	*) die_usage "unknown argument '$arg' (usage: test/check-stress.sh [T=name,...] [COUNT=N...])" ;;
	esac
done
names=$(select_names "$TOP/test/guest/stress.sh" "$spec") || exit
sel=$(paste -sd, <<<"$names")

out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-stress.XXXXXX)}
mkdir -p "$out"

"$TOP/test/deps.sh"
"$TOP/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$TOP/test/guest-kernel.sh" kdir)
build_copy "$out" "$kdir"

status=0
t0=$(now_us)
# Single-threaded TCG (vm.sh): under multi-threaded TCG the guest kernel's
# int3 live text patching (tracepoints toggled hundreds of times here) was
# once seen half-done by another vCPU thread, a stall with asm_exc_int3 and
# no xps_steer frame (see test/check-matrix.sh for the same on 7.2).
"$TOP/test/vm.sh" --ko "$out/build/xps_steer.ko" --smp 4 --maxcpus 8 --mem 2G \
	--timeout 5400 --log "$out/console.log" \
	--script "$TOP/test/guest/stress.sh" -- "T=$sel" ${counts[@]+"${counts[@]}"} || status=1

tr -d '\r' <"$out/console.log" >"$out/stress.tap"
summary=$(tap_summary "$out/stress.tap") || status=1
echo "console log: $out/console.log"
grep -E '^# (stress|counts|[0-9]+ |traffic|UDP )' "$out/stress.tap" || true
echo "xps_steer stress (stock kernel $("$TOP/test/guest-kernel.sh" abi)): $summary in $(secs_since "$t0") s"
exit "$status"
