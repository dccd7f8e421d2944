#!/bin/bash
# check-busy.sh - `make check-busy`: the README's two commands on a busy
# host. While `stress-ng --cpu N` (default: one worker per host CPU, i.e.
# two busy loops on a 2-core machine) keeps every host core busy, it runs
# `make check` RUNS times in a row, each from a fresh clone of the
# repository's HEAD, then `make demo` DEMOS times; it stops at the first
# failure. One line per run: what ran, its time and its summary line.
#
# Usage: test/check-busy.sh [RUNS=5] [DEMOS=3] [CPUS=<host CPUs>]
#   Output (clones, logs): XPS_STEER_OUT, default a new /tmp/xps_steer-busy.*;
#   run N of KIND (check, demo): clone KIND-N, KIND-N.log, outputs KIND-N.out
#   Exit status: 0 only if every run passed.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

runs=5 demos=3 cpus=$(nproc)
for arg in "$@"; do
	case $arg in
	RUNS=[0-9]*) runs=${arg#RUNS=} ;;
	DEMOS=[0-9]*) demos=${arg#DEMOS=} ;;
	CPUS=[1-9]*) cpus=${arg#CPUS=} ;;
	*) usage ;;
	esac
done

command -v stress-ng >/dev/null ||
	apt-get install -y -qq --no-install-recommends stress-ng >/dev/null ||
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends stress-ng >/dev/null; } ||
	die "cannot install stress-ng"
command -v git >/dev/null || die "git is needed to clone the tree"

out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-busy.XXXXXX)}
mkdir -p "$out"
head=$(git -C "$TOP" rev-parse --short HEAD)
[[ -z $(git -C "$TOP" status --porcelain --untracked-files=no) ]] ||
	say "note: the work tree has uncommitted changes; the clones test HEAD ($head) only"

stress-ng --cpu "$cpus" --timeout 0 >"$out/stress-ng.log" 2>&1 &
stress_pid=$!
on_exit kill "$stress_pid"
sleep 1
kill -0 "$stress_pid" 2>/dev/null || die "stress-ng did not start (log $out/stress-ng.log)"
say "stress-ng --cpu $cpus running (pid $stress_pid); HEAD $head; logs in $out"

# run_one KIND N TARGET: a fresh clone, `make TARGET` in it, one line.
run_one() {
	local kind=$1 n=$2 target=$3 dir log t rc line
	dir=$out/$kind-$n
	log=$out/$kind-$n.log
	rm -rf "$dir"
	git clone -q "$TOP" "$dir"
	git -C "$dir" checkout -q "$head"	# every run tests the same commit
	t=$(now_us)
	rc=0
	# Its own output directory: an XPS_STEER_OUT given to this script
	# would otherwise be every run's, each overwriting the last's logs.
	XPS_STEER_OUT=$out/$kind-$n.out make -C "$dir" "$target" >"$log" 2>&1 || rc=$?
	case $target in
	check) line=$(grep -E '^xps_steer: [0-9]+ passed' "$log" | tail -n 1 || true) ;;
	demo) line=$(grep -E 'Diagonal|NOT diagonal|^Shown:|DEMO FAILED' "$log" | paste -sd ' ' || true) ;;
	esac
	printf '%s %d/%s: %s, %d s, exit %d: %s\n' "$kind" "$n" "$target" \
		"$head" "$(secs_since "$t")" "$rc" "${line:-no summary line}" | tee -a "$out/summary"
	[[ $rc == 0 ]] || die "make $target (run $n) failed under load: $log"
}

for ((i = 1; i <= runs; i++)); do run_one check "$i" check; done
for ((i = 1; i <= demos; i++)); do run_one demo "$i" demo; done
say "all passed under stress-ng --cpu $cpus: $runs x make check, $demos x make demo (summary $out/summary)"
