#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh - `make fuzz`: build the fuzzers (libFuzzer, ASan, UBSan with
# integer checks) and run each for a bounded time, one after the other:
#   map      fuzz_map.c: the map builder, src/map.c unchanged
#   maptext  fuzz_maptext.c: the map file and CPU-list parsers,
#            src/maptext.c unchanged
#   names    fuzz_names.c: the dev= device-list parser, src/names.c
#            unchanged
#
# Usage: test/fuzz/run.sh [--target map|maptext|names|all] [--seconds N]
#                         [--map FILE] [--maptext FILE] [--names FILE]
#                         [--corpus DIR] [--seeds DIR]
#   --target T    fuzz only T (default: all, each for --seconds)
#   --seconds N   run time per target (default $FUZZ_SECONDS, else 300)
#   --map FILE    fuzz this copy of map.c instead of src/map.c (used by
#                 selftest.sh to plant bugs); --maptext FILE and
#                 --names FILE likewise
#   --corpus DIR  keep the working corpus in DIR/<target> (default: a fresh
#                 temporary directory, so every run starts from the
#                 committed seeds in test/fuzz/corpus/ (map),
#                 test/fuzz/corpus-maptext/ and test/fuzz/corpus-names/,
#                 which it never modifies)
#   --seeds DIR   start from the inputs in DIR instead (with one --target)
# Environment: XPS_STEER_FUZZ_OUT  build and artifact directory (default: a
#                 new /tmp/xps_steer-fuzz.XXXXXX)
#
# Exit status: 0 if the time ran out without a finding; 1 on any finding
# (model mismatch, sanitizer report, leak, crash, timeout, out of memory):
# the reproducer is kept and the command that replays it is printed; 2 on
# usage or build errors.
set -euo pipefail

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
here=$TOP/test/fuzz
top=$TOP
seconds=${FUZZ_SECONDS:-300}
target=all
declare -A src=([map]=$top/src/map.c [maptext]=$top/src/maptext.c [names]=$top/src/names.c)
declare -A seedsof=([map]=$here/corpus [maptext]=$here/corpus-maptext [names]=$here/corpus-names)
corpus=''
seeds=''

while (($#)); do
	case $1 in
	--target) target=${2:?} && shift ;;
	--seconds) seconds=${2:?} && shift ;;
	--map) src[map]=${2:?} && shift ;;
	--maptext) src[maptext]=${2:?} && shift ;;
	--names) src[names]=${2:?} && shift ;;
	--corpus) corpus=${2:?} && shift ;;
	--seeds) seeds=${2:?} && shift ;;
	*) die_usage "unknown argument '$1' (see the header of $0)" ;;
	esac
	shift
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die_usage "--seconds/FUZZ_SECONDS must be a positive integer, not '$seconds'"
case $target in
all) targets=(map maptext names) ;;
map | maptext | names) targets=("$target") ;;
*) die_usage "--target must be map, maptext, names or all, not '$target'" ;;
esac
[[ -z $seeds || $target != all ]] || die_usage "--seeds needs one --target"
for t in "${targets[@]}"; do
	[ -r "${src[$t]}" ] || die_usage "no ${src[$t]}"
done

# Debian 12: clang 14 with its runtime libraries (libFuzzer, sanitizers).
pkgs=(clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "fuzz: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

out=${XPS_STEER_FUZZ_OUT:-$(mktemp -d /tmp/xps_steer-fuzz.XXXXXX)}
mkdir -p "$out"

# fuzz T: build and run target T; status 0 (no finding) or 1 (finding).
fuzz() {
	local t=$1 bin map seeds=${seeds:-${seedsof[$1]}} work log rc cpu last cov artifact runs dict=()
	bin=$out/fuzz_$t
	map=${src[$t]}
	[ ! -r "$here/$t.dict" ] || dict=(-dict="$here/$t.dict")
	# -fsanitize=integer minus unsigned-shift-base: the bitmap code shifts
	# ~0UL on purpose, as the kernel does. The other integer checks flag any
	# unsigned wrap-around and any implicit truncation (a queue number that
	# does not fit in u16).
	san=fuzzer,address,undefined,implicit-conversion,unsigned-integer-overflow
	clang -std=gnu11 -g -O1 -Wall -Wextra -Werror -fno-omit-frame-pointer \
		-fsanitize=$san -fno-sanitize-recover=all \
		-I"$here/include" -I"$top/src" \
		-o "$bin" "$here/fuzz_$t.c" "$map" ||
		die_usage "build failed"
	echo "fuzz: $t: built $bin from $map"

	work=${corpus:+$corpus/$t}
	work=${work:-$out/corpus-$t}
	mkdir -p "$work"
	log=$out/fuzz-$t.log
	echo "fuzz: $t: running for ${seconds} s from $(find "$seeds" -type f | wc -l) seeds in $seeds (log: $log)"
	rc=0
	# -timeout: one input taking 25 s is a hang. -rss_limit_mb: a runaway
	# allocation is a finding too.
	# CPU time too: on a shared machine exec/s says more about the load.
	TIMEFORMAT='%U %S'
	{ time "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/$t-" "${dict[@]}" \
		"$work" "$seeds" >"$log" 2>&1; } 2>"$out/cpu" || rc=$?
	cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$out/cpu")

	stat() { awk -v k="stat::$1:" '$1 == k { print $2 }' "$log"; }
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
	cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\)\/.*/cov \1, ft \2, corpus \3/p' <<<"$last")
	if ((rc != 0)); then
		artifact=$(sed -n "s/.*Test unit written to \(.*\)/\1/p" "$log" | tail -n 1)
		echo "fuzz: $t: FAIL: finding (libFuzzer exit $rc) after $(stat number_of_executed_units) runs:"
		grep -E 'fuzz_[a-z]*: FAIL|ERROR: |runtime error|SUMMARY' "$log" | head -n 8 | sed 's/^/fuzz:   /'
		echo "fuzz: $t: reproducer: ${artifact:-none written}"
		[ -z "$artifact" ] || echo "fuzz: $t: replay with: $bin $artifact"
		return 1
	fi
	runs=$(stat number_of_executed_units)
	if [ -z "$runs" ] || ((runs == 0)); then
		echo "fuzz: $t: FAIL: the fuzzer ran no input"
		tail -n 20 "$log"
		return 1
	fi
	echo "fuzz: $t: PASS: $runs runs in $seconds s ($(stat average_exec_per_sec) exec/s; $cpu s of CPU: $(awk -v r="$runs" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? r / c : 0) }') runs per CPU second), $cov, peak RSS $(stat peak_rss_mb) MB, no finding"
}

status=0
for t in "${targets[@]}"; do
	fuzz "$t" || status=1
done
exit "$status"
