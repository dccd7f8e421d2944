# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# params.sh - the dev= module parameter (docs/bad-input.md, rows P01-P17
# and P21-P23; S14, the features file).
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def params_dev_validation "dev= list validation: invalid lists fail with EINVAL naming the entry"

# modprobe_bad PARAM ENTRY [ID]: the load must fail with EINVAL, leave
# nothing behind, and log a line naming ENTRY (any xps_steer line if ENTRY
# empty); then catalogue row ID. PARAM "-": no parameter at all.
modprobe_bad() {
	local rc l
	klog_mark
	row_mark
	if [ "$1" = - ]; then
		set -- "" "$2" "$3"
		modprobe xps_steer >"$W/modprobe.out" 2>&1 </dev/null
		rc=$?
	else
		modprobe xps_steer "$1" >"$W/modprobe.out" 2>&1 </dev/null
		rc=$?
	fi
	if [ "$rc" = 0 ]; then
		fail "modprobe xps_steer '$1' succeeded, expected EINVAL"
		modprobe -r xps_steer
		return 1
	fi
	grep -q 'Invalid argument' "$W/modprobe.out" ||
		{ fail "'$1': modprobe did not report EINVAL:"; diag_file "$W/modprobe.out"; }
	{ xps_loaded || [ -e "$XS" ]; } && fail "'$1': module or $XS left behind"
	l=$(klog_since | grep -F 'xps_steer' | grep -F -- "$2" | head -n 1)
	if [ -z "$l" ]; then
		fail "'$1': no xps_steer log line naming '$2'"
		klog_since | tail -n 5 | sed 's/^/#   /'
		return 1
	fi
	diag "'$1' refused: ${l#*] }"
	[ -z "$3" ] || row "$3" EINVAL
}

t_params_dev_validation() {
	local names n tab d f0
	local -a pd
	fx_suite || return
	modprobe_bad - dev= P01
	modprobe_bad dev= dev= P02
	modprobe_bad dev=, "" P03
	modprobe_bad dev=dum0,,veth0 "" P04
	modprobe_bad dev=dum0, "" P05
	modprobe_bad dev=abcdefghijklmnop abcdefghijklmnop P06
	modprobe_bad dev=. . P08
	modprobe_bad dev=.. .. P09
	modprobe_bad dev=a/b a/b P10
	modprobe_bad dev=a:b a:b P11
	modprobe_bad 'dev=a b' 'a b' P12
	modprobe_bad 'dev= dum0' ' dum0' P13
	modprobe_bad dev=dum0,veth0,dum0 dum0 P15
	names=$(awk 'BEGIN { for (i = 1; i <= 33; i++) printf "%sn%d", (i > 1 ? "," : ""), i }')
	modprobe_bad "dev=$names" dev P16
	# Boundaries that must load: a 15-character name, 32 names.
	klog_mark
	if xps_load_row P07 dev=abcdefghijklmno; then
		klog_expect "xps_steer: abcdefghijklmno: not present, will attach when it registers"
		xps_unload
	fi
	klog_mark
	names=${names%,n33}
	row_mark
	if xps_load "dev=$names"; then
		n=$(klog_since | grep -c 'xps_steer: n[0-9]*: not present')
		if [ "$n" = 32 ]; then
			diag "32 names accepted"
			echo "# catalogue: P17 | loaded | 32 lines: xps_steer: nN: not present, will attach when it registers"
		else
			fail "32 names: $n 'not present' lines, expected 32"
		fi
		xps_unload
	fi
	# A tab ends the parameter (the kernel's parser splits at blanks and
	# modprobe quotes only values with spaces): "b" is another parameter.
	tab=$(printf '\t')
	if xps_load_row P14 "dev=a${tab}b"; then
		expect_no_tree a
		xps_unload
	fi
	# Not a pattern: "pat%d" never matches, the device gets pat<N>.
	if xps_load_row P21 'dev=pat%d'; then
		must ip link add 'pat%d' numtxqueues "$NQ" type dummy
		# (no process substitution in the guest: it has no /dev/fd)
		read -ra pd <<<"$(dir_names /sys/class/net pat | tr '\n' ' ')"
		if [ "${#pd[@]}" = 0 ] || [ -n "$(dir_names "$XS" pat)" ]; then
			fail "'ip link add pat%d' made '${pd[*]}'; $XS holds '$(dir_names "$XS" | tr '\n' ' ')', expected no pat* directory"
		else
			diag "'ip link add pat%d' made ${pd[*]}, not attached"
		fi
		for d in "${pd[@]}"; do ip link del "$d"; done
		xps_unload
	fi
	# Unknown parameters are the kernel's business: logged and ignored.
	if xps_load_row P22 dev=dum0 foo=1; then
		expect_tree dum0 "$NQ"
	fi
	# A second modprobe of a loaded module does nothing, whatever dev= says.
	row_mark
	if modprobe xps_steer dev=veth0 >"$W/modprobe.out" 2>&1 </dev/null; then
		if [ -e "$XS/veth0" ]; then
			fail "a second modprobe with dev=veth0 attached veth0"
		else
			diag "second modprobe dev=veth0: exit 0, veth0 not attached, dev is '$(cat /sys/module/xps_steer/parameters/dev)'"
			row P23 "no effect"
		fi
	else
		fail "second modprobe xps_steer dev=veth0 failed:"
		diag_file "$W/modprobe.out"
	fi
	# The features file (the compat probe results) is read-only, even for root.
	rd "$FEAT" || fail "cannot read $FEAT: $(cat "$W/rd.err")"
	f0=$RD
	row_mark
	xw - "$FEAT" "sysfs_emit no"
	rd "$FEAT"
	if [ "$XW" = "err EACCES" ] && [ -n "$f0" ] && [ "$RD" = "$f0" ]; then
		row S14 "$XW"
	else
		fail "root writing $FEAT: '$XW' (expected 'err EACCES'), content changed: $([ "$RD" = "$f0" ] && echo no || echo yes), read before: '$(show "$f0")'"
	fi
	xps_unload
}

t_params_dev_validation_cleanup() { modprobe -r xps_steer; }
