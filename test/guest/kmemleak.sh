#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmemleak.sh - run a guest suite between two kmemleak scans (debug kernel).
#
# usage (in the guest): /bin/sh /test/kmemleak.sh SCRIPT [ARGS...]
#
# Before SCRIPT: one scan, then "clear", so objects the kernel leaked while
# booting are not blamed on the suite.  After it: wait past kmemleak's
# minimum object age (5 s), scan twice, and read the report.  Any
# "unreferenced object" fails: the report is shown and the exit status is 1
# even if SCRIPT passed.  The result is one more KTAP document after the
# suite's.  On a kernel without kmemleak this fails too: it is meant for the
# debug kernel only (test/check-debug.sh).
KL=/sys/kernel/debug/kmemleak
script=$1
shift

if [ ! -w "$KL" ]; then
	echo "Bail out! $KL missing: not a CONFIG_DEBUG_KMEMLEAK kernel"
	exit 1
fi
echo scan >"$KL"
echo clear >"$KL"

bash "$script" "$@"
rc=$?

echo "TAP version 13"
echo "1..1"
sleep 6
t0=$(date +%s)
echo scan >"$KL"
sleep 1
echo scan >"$KL"
cat "$KL" >/tmp/kmemleak.txt
n=$(grep -c '^unreferenced object' /tmp/kmemleak.txt)
echo "# kmemleak: 2 scans in $(($(date +%s) - t0)) s after $script: $n unreferenced objects"
if [ "$n" = 0 ]; then
	echo "ok 1 - kmemleak: no unreferenced objects after $script"
else
	sed 's/^/#   /' /tmp/kmemleak.txt | head -n 120
	echo "not ok 1 - kmemleak: $n unreferenced objects after $script"
	rc=1
fi
exit "$rc"
