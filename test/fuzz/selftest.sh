#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftest.sh - `make fuzz-selftest`: prove the fuzzers find bugs. Plants
# one bug at a time in a temporary copy of src/map.c or src/maptext.c and
# requires run.sh (that target only) to report a finding within
# FUZZ_SECONDS (default 60, the CI round). Each mutant is fuzzed twice:
# from the committed seeds (which must still pass on the real source, so
# this is what `make fuzz` would report), and from one trivial seed that
# each mutant gets right (map: 4 CPUs, 4 queues, every mask empty;
# maptext: 4 queues all active, 4 CPUs, no current mask, "tx-0 0\n";
# names: "eth0"), so the fuzzer has to find a failing input itself.
set -euo pipefail

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
here=$TOP/test/fuzz
seconds=${FUZZ_SECONDS:-60}
tmp=$(mktemp -d /tmp/xps_steer-fuzz-selftest.XXXXXX)
mkdir -p "$tmp/trivial-map" "$tmp/trivial-maptext" "$tmp/trivial-names"
printf '\000\004\000\004\000' >"$tmp/trivial-map/4cpu-4q-empty"
printf '\003\004\003\000tx-0 0\n' >"$tmp/trivial-maptext/4q-4cpu-tx0"
printf 'eth0' >"$tmp/trivial-names/eth0"

# target|name|sed expression on src/<target>.c
mutants=(
	'map|layout off by one: the last CPU keeps its count as its offset|s/for (cpu = 0; cpu < nr_cpus; cpu++) {/for (cpu = 0; cpu + 1 < nr_cpus; cpu++) {/'
	'map|bits at or above nr_cpus counted in the total|/total += bitmap_weight/{n;s/nr_cpus);/mask_longs * BITS_PER_LONG);/}'
	'map|queue lists one entry too short|s/array_size(total, sizeof(u16))/array_size(total - 1, sizeof(u16))/'
	'map|inline queue not the first of the list|s/entry->queue = queue;/entry->queue = queue + 1;/'
	'map|one queue more than queue numbers allow|s/nr_queues > XPS_STEER_MAX_QUEUES/nr_queues > XPS_STEER_MAX_QUEUES + 1/'
	'maptext|the first queue out of use takes a new mask|s/if (queue >= active \&\&/if (queue > active \&\&/'
	'maptext|queues the map does not name keep their masks|s/memset(next, 0, (size_t)nr_queues \* mask_longs \* sizeof(\*next));/memcpy(next, cur, (size_t)nr_queues * mask_longs * sizeof(*next));/'
	'maptext|a queue named twice: the last line wins|s/if (test_bit(queue, seen))/if (0 \&\& test_bit(queue, seen))/'
	'names|a device named twice is taken twice|s/if (xps_steer_names_has(list, name))/if (0 \&\& xps_steer_names_has(list, name))/'
	'names|the 15-character name refused as too long|s/len >= IFNAMSIZ)/len >= IFNAMSIZ - 1)/'
	'names|a refused list keeps the names before the bad entry|/err->entry = name;/{n;s/list->nr = 0;/;/}'
)

failed=0
i=0
for m in "${mutants[@]}"; do
	i=$((i + 1))
	target=${m%%|*}
	m=${m#*|}
	name=${m%%|*}
	expr=${m#*|}
	orig=$TOP/src/$target.c
	copy=$tmp/$target-$i.c
	sed "$expr" "$orig" >"$copy"
	if cmp -s "$copy" "$orig"; then
		echo "fuzz-selftest: FAIL: mutant $i ($name): the sed expression changed nothing"
		failed=1
		continue
	fi
	echo "fuzz-selftest: mutant $i ($target): $name"
	diff -u "$orig" "$copy" | sed -n '/^[-+][^-+]/s/^/fuzz-selftest:   /p' || true
	for from in seeds trivial; do
		if [ $from = seeds ]; then
			s=$here/corpus
			[ "$target" = map ] || s=$here/corpus-$target
		else
			s=$tmp/trivial-$target
		fi
		t0=$(date +%s)
		rc=0
		XPS_STEER_FUZZ_OUT=$tmp/out-$i-$from "$here/run.sh" --target "$target" \
			--"$target" "$copy" --seconds "$seconds" --seeds "$s" >"$tmp/run-$i-$from.log" 2>&1 || rc=$?
		t1=$(date +%s)
		if ((rc == 1)); then
			echo "fuzz-selftest: ok: mutant $i found from the $from in $((t1 - t0)) s (build included):"
			grep -E 'fuzz_[a-z]*: FAIL|ERROR: |runtime error|reproducer' "$tmp/run-$i-$from.log" |
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
