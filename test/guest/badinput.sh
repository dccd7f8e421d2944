# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# badinput.sh - bad xps_cpus input and privileges, against the kernel's own
# file (docs/bad-input.md, rows X01-X34 and S01-S03), and writers from
# another network namespace (rows S16, S17).  cmp_write is also used by
# steer_vs_kernel_xps (steering.sh).
# Sourced by suite.sh (the runner); helpers in lib.sh.

test_def badinput_masks_privileges "bad input and privileges: same errno as the kernel's file, mask unchanged"
test_def netns_writer_refused "a root writer in another network namespace gets EPERM and a log line, the mask and steering unchanged; reads work from any namespace"

# cmp_write INPUT Q [PRESET]: one identical write to dum0's xps_steer file
# and to dum1's kernel file (netns ref); results and read-backs must match,
# a rejected write must leave each mask as it was.  Sets CMP_RES.  The
# file is tx-Q/$CMP_FILE (default xps_cpus).
cmp_write() {
	local fa fb a0 b0 ra rb a1 b1 inp
	fa=$XS/dum0/tx-$2/${CMP_FILE:-xps_cpus}
	fb=/sys/class/net/dum1/queues/tx-$2/${CMP_FILE:-xps_cpus}
	if [ -n "$3" ]; then
		xw - "$fa" "$3"
		xw ref "$fb" "$3"
	fi
	rdn - "$fa"; a0=$RD
	rdn ref "$fb"; b0=$RD
	xw - "$fa" "$1"; ra=$XW
	xw ref "$fb" "$1"; rb=$XW
	rdn - "$fa"; a1=$RD
	rdn ref "$fb"; b1=$RD
	CMP_RES=$ra
	inp=$(printf '%.24s' "$1")
	case $ra in
	ok\ *|err\ *) ;;
	*)	fail "write '$inp': xwrite did not run: '$ra'"
		return 1 ;;
	esac
	if [ "$ra" != "$rb" ]; then
		fail "write '$inp': xps_steer '$ra' but kernel '$rb'"
		return 1
	fi
	case $ra in
	ok*)	if [ "$a1" != "$b1" ]; then
			fail "write '$inp' ($ra): xps_steer reads '$(show "$a1")', kernel '$(show "$b1")'"
			return 1
		fi ;;
	*)	if [ "$a1" != "$a0" ] || [ "$b1" != "$b0" ]; then
			fail "rejected write '$inp' ($ra) changed a mask: xps_steer '$(show "$a0")'->'$(show "$a1")', kernel '$(show "$b0")'->'$(show "$b1")'"
			return 1
		fi ;;
	esac
	diag "  '$inp' -> $ra on both; both read '$(show "$a1")'"
	return 0
}

# Catalogue ID and input in xwrite's escape syntax (no literal blanks);
# @empty, @long1, @long0 and @page are generated.
BAD_INPUTS='X01 @empty
X02 \n
X03 \x20
X04 \t
X05 \x20\n
X06 \n\n
X07 g
X08 0x3
X09 1,,2
X10 123456789
X11 000000001
X12 ff
X13 10
X14 1f
X15 \x201
X16 1\x20
X17 -1
X18 +1
X19 1,2,3,4,5
X20 0,1
X21 00000000,1
X22 1,0
X23 00000001,00000000
X24 1\n\n
X25 \n1
X26 1\x00
X27 1\t
X28 ffffffffff
X29 ,
X30 1,
X31 ,1
X32 @long1
X33 @long0
X34 @page'

choose_priv() {
	local eff uid
	PRIV_NOCAP=() PRIV_USER=()
	if setpriv --help 2>&1 | grep -q -- --bounding-set; then
		PRIV_NOCAP=(setpriv --inh-caps=-net_admin --bounding-set=-net_admin)
		PRIV_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	elif command -v privdrop >/dev/null; then
		PRIV_NOCAP=(privdrop -c 12)
		PRIV_USER=(privdrop -u 65534)
	else
		fail "neither util-linux setpriv nor privdrop available"
		return 1
	fi
	# Prove the wrappers do what they claim before trusting an EPERM.
	eff=$("${PRIV_NOCAP[@]}" cat /proc/self/status </dev/null | awk '/^CapEff:/ { print $2 }')
	if [ -z "$eff" ] || [ $(((0x$eff >> 12) & 1)) != 0 ] || [ $((0x$eff)) = 0 ]; then
		fail "'${PRIV_NOCAP[*]}' leaves CapEff=$eff (want CAP_NET_ADMIN (bit 12) clear, others kept)"
		return 1
	fi
	uid=$("${PRIV_USER[@]}" id -u </dev/null)
	if [ "$uid" != 65534 ]; then
		fail "'${PRIV_USER[*]} id -u' printed '$uid'"
		return 1
	fi
	diag "'${PRIV_NOCAP[*]}' gives CapEff=$eff (CAP_NET_ADMIN clear); '${PRIV_USER[*]}' gives uid 65534"
	return 0
}

t_badinput_masks_privileges() {
	local nerr n id inp who want ra rb a b
	local -a p
	fx_loaded dev=dum0,veth0 || return
	klog_mark
	nerr=0
	n=0
	diag "inputs written to tx-1 of both, each after presetting both to 5:"
	while read -r id inp; do
		case $inp in
		@empty) inp= ;;
		@long1) inp=$(awk 'BEGIN { while (i++ < 5000) printf "1" }') ;;
		@long0) inp=$(awk 'BEGIN { while (i++ < 5000) printf "0" }') ;;
		@page) inp=$(awk 'BEGIN { while (i++ < 4095) printf "0" }')1 ;;
		esac
		# The rejection line is ratelimited (10 per 5 s): at most 9
		# writes per 5.5 s keep every one of them in the log.
		[ $((n % 9)) != 0 ] || [ "$n" = 0 ] || sleep 5.5
		n=$((n + 1))
		row_mark
		if cmp_write "$inp" 1 5; then
			case $CMP_RES in err*) nerr=$((nerr + 1)) ;; esac
			row "$id" "$CMP_RES" 'tx-1: xps_cpus'
		fi
	done <<EOF
$BAD_INPUTS
EOF
	diag "$n inputs: $nerr rejected identically by both files"
	[ "$nerr" -gt 0 ] || fail "no input was rejected: the rejection path was not exercised"

	if choose_priv; then
		for who in nocap user; do
			if [ $who = nocap ]; then
				p=("${PRIV_NOCAP[@]}") want=EPERM id=S01
			else
				p=("${PRIV_USER[@]}") want=EACCES id=S02
			fi
			xw - "$(xf dum0 1)" 5; xw ref "$(kf dum1 1)" 5
			row_mark
			ra=$(in_ns - "${p[@]}" xwrite -- "$(xf dum0 1)" 3 2>&1)
			rb=$(in_ns ref "${p[@]}" xwrite -- "$(kf dum1 1)" 3 2>&1)
			rdn - "$(xf dum0 1)"; a=$RD
			rdn ref "$(kf dum1 1)"; b=$RD
			if [ "$ra" != "$rb" ]; then
				fail "$who write: xps_steer '$ra', kernel '$rb'"
			elif [ "$ra" != "err $want" ]; then
				fail "$who write: both gave '$ra', expected 'err $want'"
			elif [ "$a" != "5$NL" ] || [ "$b" != "5$NL" ]; then
				fail "$who write changed a mask: xps_steer '$(show "$a")', kernel '$(show "$b")'"
			else
				diag "$who (${p[*]}): '$ra' on both, masks still 5"
				row "$id" "$ra" xps_cpus
			fi
		done
		# Reading needs no privilege (mode 0644), as with the kernel's.
		row_mark
		ra=$(in_ns - "${PRIV_USER[@]}" xwrite -R -- "$(xf dum0 1)" - 2>&1)
		rb=$(in_ns ref "${PRIV_USER[@]}" xwrite -R -- "$(kf dum1 1)" - 2>&1)
		if [ "$ra" != "$rb" ] || [ "$ra" != "ok 2" ]; then
			fail "uid 65534 read: xps_steer '$ra', kernel '$rb', expected 'ok 2' ('5\\n')"
		else
			diag "uid 65534 read: '$ra' on both"
			row S03 "$ra" xps_cpus
		fi
	fi
	klog_expect "xps_steer: dum0: tx-1: xps_cpus write rejected ("
}

# /sys/kernel/xps_steer is visible from every network namespace (unlike
# /sys/class/net): root with CAP_NET_ADMIN in namespace ref (or peer, where
# veth0's other end lives) must not change dum0's or veth0's masks.
t_netns_writer_refused() {
	local eff r m
	fx_loaded dev=dum0,veth0 || return
	klog_mark
	map11 "$NQ"
	set_masks dum0 "${MAP[@]}" || return
	set_masks veth0 "${MAP[@]}" || return
	# The writer is privileged: the refusal is about its namespace.
	eff=$(in_ns ref cat /proc/self/status | awk '/^CapEff:/ { print $2 }')
	if [ -z "$eff" ] || [ $(((0x$eff >> 12) & 1)) != 1 ]; then
		fail "root in netns ref has CapEff=$eff: CAP_NET_ADMIN (bit 12) expected"
		return
	fi
	diag "root in netns ref: CapEff=$eff (CAP_NET_ADMIN set)"
	row_mark
	xw ref "$(xf dum0 1)" 3
	rdn - "$(xf dum0 1)"
	if [ "$XW" = "err EPERM" ] && [ "$RD" = "2$NL" ]; then
		klog_expect "xps_steer: dum0: tx-1: xps_cpus write from another network namespace refused"
		row S16 "$XW" xps_cpus
	else
		fail "root in netns ref writing 3 to dum0 tx-1: '$XW', then reads '$(show "$RD")' (expected 'err EPERM', '2\n')"
	fi
	# Reads work from any namespace.
	row_mark
	r=$(in_ns ref xwrite -R -- "$(xf dum0 1)" - 2>&1)
	rdn ref "$(xf dum0 1)"
	if [ "$r" = "ok 2" ] && [ "$RD" = "2$NL" ]; then
		row S17 "$r" xps_cpus
	else
		fail "root in netns ref reading dum0 tx-1: '$r', '$(show "$RD")' (expected 'ok 2', '2\n')"
	fi
	# The same through a shell, as an operator would, on another queue;
	# and from netns peer to veth0 (its peer's namespace).
	if in_ns ref sh -c "echo f > $(xf dum0 0)" 2>"$W/sh.err"; then
		fail "root in netns ref: 'echo f > $(xf dum0 0)' succeeded"
	else
		diag "root in netns ref: echo f > tx-0: $(head -n 1 "$W/sh.err")"
	fi
	klog_expect "xps_steer: dum0: tx-0: xps_cpus write from another network namespace refused"
	xw peer "$(xf veth0 2)" 1
	[ "$XW" = "err EPERM" ] ||
		fail "root in netns peer writing 1 to veth0 tx-2 gave '$XW', expected 'err EPERM'"
	klog_expect "xps_steer: veth0: tx-2: xps_cpus write from another network namespace refused"
	expect_masks dum0 "${MAP[@]}"
	expect_masks veth0 "${MAP[@]}"
	# Not refused in the initial namespace: the same write succeeds there.
	xw - "$(xf dum0 1)" 3
	m=$(cat "$(xf dum0 1)")
	if [ "$XW" != "ok 1" ] || [ "$m" != 3 ]; then
		fail "root in the initial namespace writing 3 to dum0 tx-1: '$XW', reads '$m' (expected 'ok 1', '3')"
	fi
	set_masks dum0 "${MAP[@]}" || return
	# Steering is what the initial namespace wrote, per packet.
	udp_all - dum0 "$DST0" "0:0 1:1 2:2 3:3"
	steer_check "UDP after refused writes from other namespaces" dum0 "$NQ" 0 "$SPEC"
}

t_netns_writer_refused_cleanup() { modprobe -r xps_steer; }
