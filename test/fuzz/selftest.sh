#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftest.sh - `make fuzz-selftest`: prove the fuzzer finds bugs. Plants
# one bug at a time in a temporary copy of src/map.c and requires run.sh to
# report a finding within FUZZ_SECONDS (default 60, the CI round). Each
# mutant is fuzzed twice: from the committed seeds (which must still pass
# on the real map.c, so this is what `make fuzz` would report), and from
# one trivial seed (4 CPUs, 4 queues, every mask empty: each mutant gets
# it right), so the fuzzer has to find a failing input itself.
set -euo pipefail

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
here=$TOP/test/fuzz
seconds=${FUZZ_SECONDS:-60}
tmp=$(mktemp -d /tmp/xps_steer-fuzz-selftest.XXXXXX)
mkdir "$tmp/trivial"
printf '\000\004\000\004\000' >"$tmp/trivial/4cpu-4q-empty"

# name|sed expression on src/map.c
mutants=(
	'layout off by one: the last CPU keeps its count as its offset|s/for (cpu = 0; cpu < nr_cpus; cpu++) {/for (cpu = 0; cpu + 1 < nr_cpus; cpu++) {/'
	'bits at or above nr_cpus counted in the total|/total += bitmap_weight/{n;s/nr_cpus);/mask_longs * BITS_PER_LONG);/}'
	'queue lists one entry too short|s/array_size(total, sizeof(u16))/array_size(total - 1, sizeof(u16))/'
	'inline queue not the first of the list|s/entry->queue = queue;/entry->queue = queue + 1;/'
	'one queue more than queue numbers allow|s/nr_queues > XPS_STEER_MAX_QUEUES/nr_queues > XPS_STEER_MAX_QUEUES + 1/'
)

failed=0
i=0
for m in "${mutants[@]}"; do
	i=$((i + 1))
	name=${m%%|*}
	expr=${m#*|}
	copy=$tmp/map-$i.c
	sed "$expr" "$TOP/src/map.c" >"$copy"
	if cmp -s "$copy" "$TOP/src/map.c"; then
		echo "fuzz-selftest: FAIL: mutant $i ($name): the sed expression changed nothing"
		failed=1
		continue
	fi
	echo "fuzz-selftest: mutant $i: $name"
	diff -u "$TOP/src/map.c" "$copy" | sed -n '/^[-+][^-+]/s/^/fuzz-selftest:   /p' || true
	for from in seeds trivial; do
		if [ $from = seeds ]; then s=$here/corpus; else s=$tmp/trivial; fi
		t0=$(date +%s)
		rc=0
		XPS_STEER_FUZZ_OUT=$tmp/out-$i-$from "$here/run.sh" --map "$copy" \
			--seconds "$seconds" --seeds "$s" >"$tmp/run-$i-$from.log" 2>&1 || rc=$?
		t1=$(date +%s)
		if ((rc == 1)); then
			echo "fuzz-selftest: ok: mutant $i found from the $from in $((t1 - t0)) s (build included):"
			grep -E 'fuzz_map: FAIL|ERROR: |runtime error|reproducer' "$tmp/run-$i-$from.log" |
				head -n 2 | sed 's/^/fuzz-selftest:   /'
		else
			echo "fuzz-selftest: FAIL: mutant $i ($name) not found from the $from within $seconds s (run.sh exit $rc)"
			tail -n 5 "$tmp/run-$i-$from.log" | sed 's/^/fuzz-selftest:   /'
			failed=1
		fi
	done
done
((failed == 0)) || exit 1
echo "fuzz-selftest: PASS: all ${#mutants[@]} planted bugs found (work dir $tmp)"
