#!/bin/bash
# verify.sh - xps-steer verify's table and verdict, from saved traces of
# net/net_dev_start_xmit (the live capture is tested in the guest).
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

verify_fixture() {
	fake_cpus 4
	fake_netdev eth0 4
	fake_module "eth0 attached queues=4 active=4 hook=installed name=eth0"
	fake_attached eth0 4
	printf 'tx-0 0\ntx-1 1\ntx-2 2\ntx-3\n' >"$(R /sys/kernel/xps_steer/eth0/map)"
}

# trace_lines CPU:QUEUE:COUNT...: tracepoint lines, plus one of another device.
trace_lines() {
	local spec cpu q n i
	echo "# tracer: nop"
	echo "# entries-in-buffer/entries-written: 9/9   #P:4"
	for spec in "$@"; do
		IFS=: read -r cpu q n <<<"$spec"
		for ((i = 0; i < n; i++)); do
			printf '            ping-123     [%03d] b..1.  100.%06d: net_dev_start_xmit: dev=eth0 queue_mapping=%d skbaddr=00000000 vlan_tagged=0\n' "$cpu" "$i" "$q"
		done
	done
	echo '            ping-124     [001] b..1.  101.000000: net_dev_start_xmit: dev=eth01 queue_mapping=3 skbaddr=00000000'
}

test_tool_verify_on_map() {
	verify_fixture
	trace_lines 0:0:3 1:1:2 2:2:4 3:1:1 3:3:2 >trace.txt
	xs verify eth0 --trace trace.txt
	expect_rc 0
	expect_eq "table" "eth0 (backend module): 12 packets; packets per CPU and transmit queue:
  cpu  tx-0  tx-1  tx-2  tx-3  mapped  off-map
  0    3     0     0     0     tx-0    0
  1    0     2     0     0     tx-1    0
  2    0     0     4     0     tx-2    0
  3    0     1     0     2     none    -
off the map: 0; left off on purpose (module counters: socket kept its queue, traffic class, inactive queue, subordinate device): 0; from CPUs in no mask (stock selection): 3
ok: each mapped CPU's packets were on its queues, or off on purpose" "$out"
}

test_tool_verify_off_map() {
	verify_fixture
	trace_lines 0:0:3 1:2:5 >trace.txt
	xs verify eth0 --trace trace.txt
	expect_rc 4
	expect_eq "rows" "  cpu  tx-0  tx-1  tx-2  tx-3  mapped  off-map
  0    3     0     0     0     tx-0    0
  1    0     0     5     0     tx-1    5" "$(sed -n 2,4p "$T_DIR/out")"
	xs verify eth0 --trace trace.txt --json
	expect_rc 4
	expect_eq "json" "8 5 false 2 1:[0,0,5,0]:[1]:5" \
		"$(jq -r '"\(.packets) \(.off_map) \(.ok) \(.cpus | length) " + (.cpus[1] | "\(.cpu):\(.packets|tojson):\(.mapped_queues|tojson):\(.off_map)")' "$T_DIR/out")"
}

test_tool_verify_no_packets() {
	verify_fixture
	trace_lines >trace.txt
	xs verify eth0 --trace trace.txt
	expect_rc 4
	[[ $out == *"FAIL: no packets seen"* ]] || fail "verdict: $out"
}

test_tool_verify_bad_input() {
	verify_fixture
	xs verify eth0 0
	expect_rc 2
	expect_eq "seconds" "xps-steer: verify: eth0: SECONDS must be 1 to 3600, not '0'" "$errtext"
	xs verify nosuch0 1
	expect_rc 3
	xs verify eth0 1
	expect_rc 1
	expect_eq "no tracefs" "xps-steer: verify: eth0: tracefs with net/net_dev_start_xmit not found (mount -t tracefs nodev /sys/kernel/tracing)" "$errtext"
}

# A task may name itself anything: "[3]" or "queue_mapping=2" in its name
# must not move its packets to another CPU or queue.
test_tool_verify_task_names() {
	verify_fixture
	{
		echo "# tracer: nop"
		printf '      worker[3]-55     [001] b..1.  100.000001: net_dev_start_xmit: dev=eth0 queue_mapping=1 skbaddr=0\n'
		printf ' queue_mapping=2-56    [002] b..1.  100.000002: net_dev_start_xmit: dev=eth0 queue_mapping=2 skbaddr=0\n'
	} >trace.txt
	xs verify eth0 --trace trace.txt --json
	expect_rc 0
	expect_eq "cpus and queues" "1:[0,1,0,0] 2:[0,0,1,0]" \
		"$(jq -r '[.cpus[] | "\(.cpu):\(.packets|tojson)"] | join(" ")' "$T_DIR/out")"
}

# vf_tracefs: an empty fake tracefs with the tracepoint and instances/.
vf_tracefs() {
	mkdir -p "$(R /sys/kernel/tracing/events/net/net_dev_start_xmit)" \
		"$(R /sys/kernel/tracing/instances)"
}

# The live capture in a fake tree (whose new instance gets tracefs's
# files, empty): the instance is gone afterwards, and instances a killed
# verify left behind (its PID gone, in this PID namespace) are removed
# first; others' stay.
test_tool_verify_stale_instances() {
	verify_fixture
	vf_tracefs
	local ns dead inst
	ns=$(stat -L -c %i /proc/self/ns/pid)
	dead=$(sh -c 'echo $$')
	inst=$(R /sys/kernel/tracing/instances)
	mkdir "$inst/xps-steer-verify-$ns-$dead" "$inst/xps-steer-verify-$ns-$$" \
		"$inst/xps-steer-verify-1-$dead" "$inst/other"
	xs verify eth0 1
	expect_rc 4
	expect_eq "stderr" "xps-steer: verify: warning: removed trace instance xps-steer-verify-$ns-$dead: its verify (PID $dead) was killed before it could
eth0: recording transmits for 1 s..." "$errtext"
	[[ $out == *"FAIL: no packets seen"* ]] || fail "verdict: $out"
	expect_eq "instances left" "other
xps-steer-verify-1-$dead
xps-steer-verify-$ns-$$" "$(LC_ALL=C ls "$inst")"
}

# SIGINT, SIGTERM or SIGHUP while recording: the trace instance is
# removed, then verify dies of the signal (exit status 128 + N, as the
# shell expects). verify keeps a signal it was started with ignored
# ignored, as nohup wants; a background job of this shell starts with
# SIGINT ignored, and the suite itself may have been started with any of
# the three ignored (under nohup, SIGHUP): env gives verify all three at
# their default, whatever this shell inherited.
test_tool_verify_signal_cleanup() {
	verify_fixture
	vf_tracefs
	local sig want pid i rc ns inst
	ns=$(stat -L -c %i /proc/self/ns/pid)
	inst=$(R /sys/kernel/tracing/instances)
	for sig in INT TERM HUP; do
		env --default-signal=INT,TERM,HUP "$XS" verify eth0 60 >"$T_DIR/out" 2>"$T_DIR/err" &
		pid=$!
		for ((i = 0; i < 100; i++)); do
			[ -e "$inst/xps-steer-verify-$ns-$pid/trace" ] && break
			sleep 0.1
		done
		[ -e "$inst/xps-steer-verify-$ns-$pid" ] || fail "$sig: no instance made"
		kill -"$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		want=$((128 + $(kill -l "$sig")))
		expect_eq "$sig: exit status" "$want" "$rc"
		expect_eq "$sig: instances" "" "$(LC_ALL=C ls "$inst")"
		expect_eq "$sig: stderr" "eth0: recording transmits for 60 s...
xps-steer: verify: eth0: interrupted by SIG$sig: trace instance removed" "$(cat "$T_DIR/err")"
	done
}
