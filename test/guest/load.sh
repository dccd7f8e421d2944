# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# load.sh - loading and attaching, and the final check of the kernel log.
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def load_attach "load/attach: tree tx-0..tx-3 with default masks 0, 'attached' logged, features file in /sys/module/xps_steer"
test_def final_no_warnings "final: module unloads, no kernel warnings"

t_load_attach() {
	local d q bad proto m
	fx_suite || return
	klog_mark
	xps_load dev=dum0,veth0 || return
	klog_expect "xps_steer: dum0: attached ($NQ tx queues)"
	klog_expect "xps_steer: veth0: attached ($NQ tx queues)"
	for d in dum0 veth0; do
		expect_tree "$d" "$NQ" || continue
		for q in $(seq_tx "$NQ"); do
			rd "$XS/$d/$q/xps_cpus"
			[ "$RD" = "0$NL" ] ||
				fail "$d $q: default mask reads '$(show "$RD")', expected '0\\n'"
		done
	done
	# Device directories only: the module's own files live elsewhere.
	expect_xps_names "dum0 veth0"
	diag "default masks read '0\\n'"
	# The compat probe results, in the module's directory, mode 0444:
	# "<probe> yes|no" lines, exactly one ndo_select_queue prototype.
	m=$(stat -c %a "$FEAT" 2>&1)
	[ "$m" = 444 ] || fail "$FEAT: mode '$m', expected 444"
	rd "$FEAT" || fail "cannot read $FEAT: $(cat "$W/rd.err")"
	bad=$(printf '%s' "$RD" | grep -cvE '^[a-z0-9_]+ (yes|no)$')
	proto=$(printf '%s' "$RD" | grep -cE '^select_queue_[a-z_]+ yes$')
	{ [ "$bad" = 0 ] && [ "$proto" = 1 ] && [ "${RD: -1}" = "$NL" ]; } ||
		fail "features: malformed or not exactly one select_queue variant: '$(show "$RD")'"
	diag "features: $(printf '%s' "$RD" | awk '$2 == "yes" { printf "%s ", $1 }')"
}

t_load_attach_cleanup() { modprobe -r xps_steer; }

# The whole kernel log of the boot, whatever ran before: no warnings.
t_final_no_warnings() {
	xps_unload
	[ -e "$XS" ] && fail "$XS exists with the module unloaded"
	if klog_splats "$W/bad.txt"; then
		fail "kernel log has warnings:"
		diag_file "$W/bad.txt" 30
	fi
	diag "kernel log: $(grep -c 'xps_steer: .*: attached' "$W/dmesg.txt") attach, $(grep -c 'xps_steer: .*: detached' "$W/dmesg.txt") detach, $(grep -c 'xps_steer: .*refused' "$W/dmesg.txt") refusal lines; no WARNING/BUG"
}
