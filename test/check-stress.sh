#!/bin/bash
# check-stress.sh - `make check-stress`: the stress suite (test/guest/stress.sh)
# in a QEMU guest running Debian bookworm's stock kernel, 4 of 8 possible
# vCPUs online (-smp 4,maxcpus=8). Run as root on Debian 12; installs what
# it needs with apt. Arguments (NAME=COUNT) are passed to stress.sh, e.g.
# `test/check-stress.sh CYCLES=20` for a quick manual round; `make
# check-stress` passes none (the full counts). Exits non-zero on any failure.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=verdict.sh
. "$top/test/verdict.sh"
out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-stress.XXXXXX)}
mkdir -p "$out"

"$top/test/deps.sh"
"$top/test/guest-kernel.sh" fetch >/dev/null
kdir=$("$top/test/guest-kernel.sh" kdir)

# Build in a copy: the work tree's own build products stay untouched.
mkdir -p "$out/build"
tar -C "$top" --exclude=.git --exclude='*.o' --exclude='*.ko' -cf - . | tar -C "$out/build" -xf -
make -s -C "$out/build" KDIR="$kdir" >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2 && echo "check-stress.sh: FAIL: module build failed" >&2 && exit 1; }

status=0
t0=$(date +%s)
# Single-threaded TCG: under multi-threaded TCG the guest kernel's int3
# live text patching (tracepoints toggled hundreds of times here) was once
# seen half-done by another vCPU thread, a stall with asm_exc_int3 and no
# xps_steer frame (see test/matrix.sh for the same on 7.2).
"$top/test/vm.sh" --ko "$out/build/xps_steer.ko" --smp 4 --maxcpus 8 --mem 2G \
	--timeout 5400 --log "$out/console.log" \
	--script "$top/test/guest/stress.sh" -- "$@" || status=1
t1=$(date +%s)

tr -d '\r' <"$out/console.log" >"$out/stress.tap"
summary=$(tap_summary "$out/stress.tap") || status=1
echo "console log: $out/console.log"
grep -E '^# (stress|counts|[0-9]+ |traffic|UDP )' "$out/stress.tap" || true
echo "xps_steer stress (stock kernel $("$top/test/guest-kernel.sh" abi)): $summary in $((t1 - t0)) s"
exit "$status"
