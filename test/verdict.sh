# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# verdict.sh - the pass/fail verdict on a guest's serial console log and
# on KTAP results, shared by test/vm.sh, install-test.sh and the check-*
# scripts. Sourced by bash scripts.
#
#   console_verdict NAME LOG QEMU_STATUS TIMEOUT
#     0 only if the guest printed XPS_STEER_GUEST_EXIT=0 and the kernel
#     reported no problem (WARNING/BUG/Oops/panic/stall/... in the console,
#     or a WARN/oops/bad-page/soft-lockup taint flag in the
#     XPS_STEER_GUEST_TAINT=<n> line); else 1, with one `NAME: FAIL: reason`
#     line per problem on stderr. QEMU_STATUS 124/137 (timeout(1)) is a
#     timeout after TIMEOUT seconds.

console_verdict() {
	local name=$1 log=$2 qstatus=$3 tmo=$4 fail=0 line problems taint bad flag rc
	# Only kernel log lines ("[  12.345678] ...", possibly glued to the end of
	# a script's partial line) count, so a test script that merely prints the
	# word WARNING: is not mistaken for a kernel splat.
	problems='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace|KASAN|UBSAN'
	problems+='|possible circular locking|lockdep|rcu_[a-z]+ (self-)?detected stall|RCU stall'
	problems+='|blocked for more than|kmemleak|refcount_t|unregister_netdevice: waiting for'
	if line=$(grep -m1 -E "\[ *[0-9]+\.[0-9]+\] .*($problems)" "$log"); then
		echo "$name: FAIL: kernel reported: ${line#*] }" >&2
		fail=1
	fi
	# Taint flags catch splats the console may have missed. The out-of-tree /
	# unsigned module flags (O, E) are expected and ignored.
	taint=$(sed -n 's/.*XPS_STEER_GUEST_TAINT=\([0-9]*\).*/\1/p' "$log" | tail -n1)
	bad=''
	for flag in 4:M:machine-check 5:B:bad-page 7:D:oops 9:W:warning 14:L:soft-lockup; do
		((${taint:-0} >> ${flag%%:*} & 1)) && bad+=" ${flag#*:}"
	done
	if [[ -n $bad ]]; then
		echo "$name: FAIL: kernel tainted $taint:$bad" >&2
		fail=1
	fi
	rc=$(sed -n 's/.*XPS_STEER_GUEST_EXIT=\([0-9]*\).*/\1/p' "$log" | tail -n1)
	if ((qstatus == 124 || qstatus == 137)); then
		echo "$name: FAIL: timeout after $tmo s" >&2
		fail=1
	elif [[ -z $rc ]]; then
		echo "$name: FAIL: guest did not report an exit status (qemu exit $qstatus)" >&2
		fail=1
	elif ((rc != 0)); then
		echo "$name: FAIL: guest script exited $rc" >&2
		fail=1
	fi
	return "$fail"
}

# tap_summary TAP...: prints "P passed, F failed, S skipped" over these KTAP
# files (a SKIP is counted as a skip, never as a pass). Returns 1 unless
# something passed and nothing failed.
tap_summary() {
	local all passed failed skipped
	all=$(cat "$@" | tr -d '\r')
	skipped=$(grep -cE '^ok [0-9]+ .*# SKIP' <<<"$all" || true)
	passed=$(($(grep -cE '^ok [0-9]+' <<<"$all" || true) - skipped))
	failed=$(grep -cE '^not ok [0-9]+' <<<"$all" || true)
	echo "$passed passed, $failed failed, $skipped skipped"
	((passed > 0 && failed == 0))
}
