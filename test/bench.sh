#!/bin/bash
# bench.sh - `make bench`: xps_steer side by side with stock selection and
# the kernel's own XPS, in QEMU guests running Debian bookworm's kernel.
# Writes docs/perf.md and docs/perf.png; exits non-zero if a target is
# missed or a run failed. Run as root on Debian 12 (installs what it needs
# with apt). What is measured and how: docs/benchmark.md.
#
# Three guests:
#   cost   -smp 1 (4 possible CPUs), -icount shift=4, single-threaded TCG:
#          per-packet cost of A-D on four selection paths (nomask, one,
#          hash, unmapped), each with 1 and with 32 attached devices, and
#          with 1 device again with a build of the module that counts
#          nothing (devs=1nc), for the cost of the counters; then the
#          control path and memory per device with 4 possible CPUs
#   ctl64  the same control-path and memory measurements with 64 possible
#          CPUs
#   wall   -smp 4: locality from the net_dev_start_xmit tracepoint, TCP
#          request/response and iperf3 bulk over veth (wall clock)
#   guard  -smp 4, a 4-queue virtio-net NIC and the test driver bnxlike:
#          guard mode's window from a rewrite of the kernel's map to the
#          restore, per trigger, under traffic (wall clock)
# cost also measures a guarded device's per-packet cost (DEVS=1g), and cost
# and ctl64 the periodic check's cost. cost and ctl64 run in parallel
# (icount makes their results independent of host load); wall and guard
# run alone afterwards.
#
# `test/bench.sh --report DIR` only regenerates docs/perf.md and perf.png
# (and the verdict) from the logs a previous run left in DIR.
#
# Environment (defaults in brackets):
#   XPS_BENCH_COST_ROUNDS [5]  XPS_BENCH_COST_SECS [2]   guest seconds per flood
#   XPS_BENCH_WALL_ROUNDS [5]  XPS_BENCH_WALL_SECS [4]
#   XPS_BENCH_GUARD_EVENTS [100]  events per trigger in the guard guest
#   XPS_STEER_OUT              directory for logs (default: a new /tmp dir)
#   XPS_BENCH_DOCS             where perf.md/perf.png go [docs/ of the tree]
#   XPS_BENCH_TARGET [parity]  which per-packet cost target fails the run:
#                              parity C/B >= 1.00 on one and hash with 1
#                                     and 32 devices (no more than the
#                                     kernel's own XPS), and the
#                                     fallback bound 0.985 on unmapped and
#                                     nomask, where 1.00 is out of reach
#                                     (docs/benchmark.md accounts for it)
#                              floor  C/B >= 0.98 on every path; the 1.00
#                                     of one and hash is still reported, as
#                                     MISSED when missed, never as PASS
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$TOP
report_only=0
if [[ ${1:-} == --report ]]; then
	report_only=1
	out=${2:?usage: bench.sh [--report DIR]}
	[[ -f $out/params ]] || die_usage "FAIL: $out holds no bench run (no params file)"
	# shellcheck source=/dev/null
	. "$out/params"
else
	(($# == 0)) || die_usage "usage: bench.sh [--report DIR]"
	out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-bench.XXXXXX)}
fi
docs=${XPS_BENCH_DOCS:-$top/docs}
target=${XPS_BENCH_TARGET:-parity}
[[ $target == parity || $target == floor ]] || die_usage "FAIL: XPS_BENCH_TARGET must be parity or floor, not '$target'"
COST_FLOOR=0.98		# C/B on every path: the module's own target
COST_PARITY=1.00	# C/B on one and hash, 1 and 32 devices: the kernel's own cost
# C/B on unmapped and nomask: xps_steer has no answer there and hands the
# packet to the stock selection, so its hook's instructions (about 60,
# counted in docs/benchmark.md) come on top of B's; this bound keeps them
# from growing.
COST_FALLBACK=0.985
mkdir -p "$out" "$docs"
if ((!report_only)); then
	cr=${XPS_BENCH_COST_ROUNDS:-5} cs=${XPS_BENCH_COST_SECS:-2}
	wr=${XPS_BENCH_WALL_ROUNDS:-5} ws=${XPS_BENCH_WALL_SECS:-4}
	ge=${XPS_BENCH_GUARD_EVENTS:-100}
fi
ge=${ge:-100}
for v in "$cr" "$cs" "$wr" "$ws" "$ge"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || die_usage "FAIL: rounds/seconds must be positive integers"
done

# The commit of the tree, -dirty if it differs from it other than in the
# files this script writes.
tree_rev() {
	local r
	r=$(git -C "$top" describe --always 2>/dev/null) || { echo 'no git'; return; }
	git -C "$top" diff --quiet HEAD -- . ':(exclude)docs/perf.md' ':(exclude)docs/perf.png' || r+=-dirty
	echo "$r"
}

run_all() {
	t_start=$SECONDS

	"$top/test/deps.sh"
	if ! command -v gnuplot >/dev/null; then
		say "installing gnuplot-nox (for docs/perf.png)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null; }
	fi
	"$top/test/guest-kernel.sh" fetch >/dev/null
	kdir=$("$top/test/guest-kernel.sh" kdir)
	abi=$("$top/test/guest-kernel.sh" abi)

	# A fresh build of the module under test (a lint run may have left a
	# sparse build behind).
	make -s -C "$top" KDIR="$kdir" clean >/dev/null
	make -s -C "$top" KDIR="$kdir" >/dev/null
	ko=$top/xps_steer.ko
	# The same source with a hook that counts nothing (see Kbuild): the
	# cost guest measures what counting costs, in the same boot.
	rm -rf "$out/nocounters"
	build_copy "$out/nocounters" "$kdir" XPS_STEER_BENCH_NO_COUNTERS=y
	cp "$out/nocounters/build/xps_steer.ko" "$out/xps_steer_nocounters.ko"
	# The guard guest's test driver (bnxlike).
	test_kos=()
	tkos=$(build_test_modules "$out" "$kdir")
	while read -r tko; do test_kos+=(--ko "$tko"); done <<<"$tkos"
	printf 'cr=%s cs=%s wr=%s ws=%s ge=%s abi=%s\n' "$cr" "$cs" "$wr" "$ws" "$ge" "$abi" >"$out/params"

	status=0
	vm() {	# NAME VM-ARGS... -- GUEST-ARGS...
		local name=$1
		shift
		if ! "$top/test/vm.sh" --ko "$ko" --timeout 3000 --log "$out/$name.log" \
			--script "$top/test/guest/bench.sh" "$@" >"$out/$name.out" 2>&1; then
			grep -E '^(bench: FAIL|vm.sh: FAIL)' "$out/$name.out" >&2 || tail -n 20 "$out/$name.out" >&2
			say "FAIL: the $name guest failed (log: $out/$name.log)"
			return 1
		fi
		say "$name guest: $(grep -o 'PASS ([0-9]* s' "$out/$name.out" | tr -d '(')"
	}

	say "cost guest (-smp 1 -icount shift=4, $cr rounds x $cs guest-s) and ctl64 guest, in parallel"
	icount=(--qemu -icount --qemu shift=4 --smp 1)
	vm cost "${icount[@]}" --maxcpus 4 --ko "$out/xps_steer_nocounters.ko" -- cost "$cr" "$cs" &
	p1=$!
	vm ctl64 "${icount[@]}" --maxcpus 64 -- ctl &
	p2=$!
	wait "$p1" || status=1
	wait "$p2" || status=1
	say "wall guest (-smp 4, $wr rounds x $ws s)"
	vm wall --smp 4 -- wall "$wr" "$ws" || status=1
	say "guard guest (-smp 4, virtio-net with 4 queue pairs, bnxlike, $ge events per trigger)"
	tap=xpsbg$$
	mq_tap_add "$tap" || die "cannot create tap $tap"
	virtio_mq "$tap" 4
	vm_args VIRTIO_MQ
	vm guard --smp 4 "${test_kos[@]}" "${VM_ARGS[@]}" -- guard "$ge" || status=1
	ip link del "$tap"

	cat "$out"/{cost,ctl64,wall,guard}.log 2>/dev/null | tr -d '\r' | grep -a '^BENCH ' >"$out/bench.txt" || true
	if ((status)); then
		say "FAIL: a guest failed; docs/perf.md not written (results so far: $out/bench.txt)"
		exit 1
	fi
	printf 'elapsed=%s date=%q rev=%q\n' $((SECONDS - t_start)) "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(tree_rev)" >>"$out/params"
}

if ((!report_only)); then
	run_all
	# shellcheck source=/dev/null
	. "$out/params"
fi
command -v gnuplot >/dev/null || { echo "bench.sh: FAIL: gnuplot missing (apt-get install gnuplot-nox)" >&2 && exit 1; }

# ------------------------------------------------------------ results --
B=$out/bench.txt
# kv FIELD: awk helper that extracts key=value fields into v[]
# shellcheck disable=SC2016 # awk code, not shell
AWKKV='function kv(   i, p) { delete v; for (i = 2; i <= NF; i++) { p = index($i, "="); if (p) v[substr($i, 1, p - 1)] = substr($i, p + 1) } }'

# Cost: per path, median rate per config and per-round ratios.
cost_table=$(awk "$AWKKV"'
	$2 == "cost" { kv(); k = v["path"] ":" (v["devs"] == "" ? 1 : v["devs"]); r[k, v["round"], v["cfg"]] = v["rate"]; cf[v["cfg"]] = 1
		if (!(k in seen)) { seen[k] = 1; order[++np] = k } if (v["round"] > nr) nr = v["round"] }
	function med(k, c,   i, n, a, t, j) { n = 0; for (i = 1; i <= nr; i++) if ((k, i, c) in r) a[++n] = r[k, i, c]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0 }
	END {
		for (p = 1; p <= np; p++) {
			k = order[p]; mn = 9; rs = ""; rsa = ""
			for (i = 1; i <= nr; i++) {
				cb = r[k, i, "C"] / r[k, i, "B"]; ca = r[k, i, "C"] / r[k, i, "A"]
				if (cb < mn) mn = cb
				rs = rs sprintf("%s%.4f", i > 1 ? " " : "", cb); rsa = rsa sprintf("%s%.4f", i > 1 ? " " : "", ca)
			}
			d = ("D" in cf) ? sprintf("%.0f", med(k, "D")) : "n/a"
			printf "%s %.0f %.0f %.0f %s %.4f %.4f %.4f %s|%s\n", k, med(k, "A"), med(k, "B"), med(k, "C"), d,
				med(k, "C") / med(k, "B"), med(k, "C") / med(k, "A"), mn, rs, rsa
		}
	}' "$B")
[[ -n $cost_table ]] || { say "FAIL: no cost results in $B"; exit 1; }

# Wall clock: median, min, max, spread per config.
wall_stats() {	# KIND FIELD
	awk "$AWKKV"' $2 == "'"$1"'" { kv(); c = v["cfg"]; x[c, ++n[c]] = v["'"$2"'"]; rr[c] = rr[c] (rr[c] == "" ? "" : " ") v["'"$2"'"] }
	END {
		for (ci = 1; ci <= 3; ci++) {
			c = substr("ABC", ci, 1); m = n[c]
			for (i = 1; i <= m; i++) a[i] = x[c, i] + 0
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
			printf "%s %.1f %.1f %.1f %.1f %s\n", c, med, a[1], a[m], med ? 100 * (a[m] - a[1]) / med : 0, rr[c]
		}
	}' "$B"
}
rr_table=$(wall_stats rr tps)
bulk_table=$(wall_stats bulk mbps)

loc_table=$(awk "$AWKKV"' $2 == "loc" { kv(); q = ""; for (i = 2; i <= NF; i++) if ($i ~ /^q[0-9]+=/) q = q " " $i
	printf "%s %s %s %s %s%s\n", v["wl"], v["cfg"], v["pkts"], v["shared"], (v["shared10"] == "" ? "?" : v["shared10"]), q }' "$B")

# ------------------------------------------------------------- targets --
verdicts=()
fail_t=0
missed_parity=0 parity_rows=0	# one/hash rows, and those below 1.00 not gated (floor)
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
more() { awk -v m="$1" 'BEGIN { printf "%.1f", (1 / m - 1) * 100 }'; }
# Guest instructions per packet C minus B, from the median rates: under
# -icount shift=4 one instruction is 16 ns of guest time.
INSTR_PER_GUEST_S=62.5e6
instr() { awk -v b="$1" -v c="$2" -v n="$INSTR_PER_GUEST_S" 'BEGIN { printf "%+.0f", n * (1 / c - 1 / b) }'; }
while read -r key _ rb rc _ cb _ mn _; do
	path=${key%%:*} devs=${key#*:}
	case $devs in 1nc | 1g) continue ;; esac	# the counters' and guard mode's verdicts, below
	name="cost/$path, $devs device$( ((devs == 1)) || echo s)"
	# Parity (1.00) covers the paths where xps_steer answers; on
	# unmapped and nomask it cannot be reached (see COST_FALLBACK).
	parity=0
	case $path in one | hash) parity=1 parity_rows=$((parity_rows + 1)) ;; esac
	if [[ $target == floor ]]; then
		gate=$COST_FLOOR
	elif ((parity)); then
		gate=$COST_PARITY
	else
		gate=$COST_FALLBACK
	fi
	if ge "$mn" "$gate"; then
		v="PASS $name: C/B = $cb (lowest round $mn) >= $gate; C - B = $(instr "$rb" "$rc") guest instructions per packet"
		((parity)) || v+=" (no answer: the hook runs before the stock selection, 1.00 is out of reach; benchmark.md accounts for each instruction)"
	else
		v="FAIL $name: C/B = $cb (lowest round $mn) < $gate: xps_steer needs $(more "$mn")% more guest instructions per packet than the kernel's XPS"
		fail_t=1
	fi
	if ((parity)) && [[ $target == floor ]]; then
		if ge "$mn" "$COST_PARITY"; then
			v+="; parity target $COST_PARITY met"
		else
			v+="; parity target $COST_PARITY MISSED (not gated: XPS_BENCH_TARGET=floor)"
			missed_parity=$((missed_parity + 1))
		fi
	fi
	verdicts+=("$v")
done <<<"$cost_table"
# The counters: C/B of the module as shipped against C/B of the same
# source built to count nothing, in the same boot: at most 0.002, so that
# counting costs no more than a few instructions per packet.
COUNTERS_MAX=0.002
# Their cost in instructions is C - B with counters minus C - B without:
# each build has its own B in its own part of the boot, and the absolute
# rates of two parts differ by more than the counters cost.
while read -r key _ rb rc _ cb _ _ _; do
	path=${key%%:*} devs=${key#*:}
	[[ $devs == 1 ]] || continue
	read -r rbnc rnc cbnc < <(awk -v k="$path:1nc" '$1 == k { print $3, $4, $6 }' <<<"$cost_table")
	if [[ -z ${cbnc:-} ]]; then
		verdicts+=("FAIL counters/$path: no run of the build without counters")
		fail_t=1
		continue
	fi
	d=$(awk -v a="$cb" -v b="$cbnc" 'BEGIN { printf "%.4f", b - a }')
	cost=$(awk -v b="$rb" -v c="$rc" -v bn="$rbnc" -v cn="$rnc" -v n="$INSTR_PER_GUEST_S" \
		'BEGIN { printf "%+.0f", n * ((1 / c - 1 / b) - (1 / cn - 1 / bn)) }')
	v="counters/$path, 1 device: C/B = $cb with counters, $cbnc without: moved by $d; counting costs $cost guest instructions per packet (C - B with counters minus C - B without)"
	if awk -v d="$d" -v m="$COUNTERS_MAX" 'BEGIN { exit !(d <= m && -d <= m) }'; then
		verdicts+=("PASS $v (at most $COUNTERS_MAX)")
	else
		verdicts+=("FAIL $v (more than $COUNTERS_MAX)")
		fail_t=1
	fi
done <<<"$cost_table"
# Guard mode selects nothing: a guarded device is the kernel's XPS with
# the module's masks, so C/B is 1.00 in every round, within what two
# devices of one boot differ by.
GUARD_PARITY_TOL=0.002
while read -r key _ rb rc _ cb _ _ rest; do
	path=${key%%:*} devs=${key#*:}
	[[ $devs == 1g ]] || continue
	read -r lo hi < <(awk -F'|' '{ n = split($1, r, " "); lo = 9; hi = 0
		for (i = 1; i <= n; i++) { if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] } print lo, hi }' <<<"$rest")
	v="guard/$path, 1 guarded device: C/B = $cb (rounds $lo to $hi); C - B = $(instr "$rb" "$rc") guest instructions per packet"
	if awk -v lo="$lo" -v hi="$hi" -v t="$GUARD_PARITY_TOL" 'BEGIN { exit !(lo >= 1 - t && hi <= 1 + t) }'; then
		verdicts+=("PASS $v (every round within 1.00 +- $GUARD_PARITY_TOL)")
	else
		verdicts+=("FAIL $v (a round outside 1.00 +- $GUARD_PARITY_TOL: guard mode must add nothing per packet)")
		fail_t=1
	fi
done <<<"$cost_table"
grep -q ':1g ' <<<"$cost_table" || { verdicts+=("FAIL guard: no per-packet run of a guarded device"); fail_t=1; }

# The periodic check, per (possible CPUs, queues): guest time per check
# with 1 and with 8 guarded devices; per device the difference over 7.
# Under -icount shift=4 one guest instruction is 16 ns of guest time.
gcheck_table=$(awk "$AWKKV"' $2 == "gcheck" { kv(); u[v["cpus"], v["queues"], v["devs"]] = v["us_median"]; k[v["cpus"] " " v["queues"]] = 1; on[v["cpus"]] = v["online"] }
	END { for (x in k) { split(x, a, " "); u1 = u[a[1], a[2], 1]; u8 = u[a[1], a[2], 8]; pd = (u8 - u1) / 7
		printf "%s %s %s %.1f %.1f %.1f %.0f %.0f\n", a[1], a[2], on[a[1]], u1, u8, pd, pd * 1000 / 16, (u1 - pd) * 1000 / 16 } }' "$B" | sort -n -k1,1 -k2,2)
# At the default period (1 s), a device's check may cost at most 0.1% of a
# CPU that retires one instruction per ns.
GCHECK_MAX_INSTR=1000000
if [[ -z $gcheck_table ]]; then
	verdicts+=("FAIL guard check: no measurement of the periodic check")
	fail_t=1
fi
while read -r cpus queues _ _ _ _ pdi _; do
	[[ -n ${cpus:-} ]] || continue
	v="guard check, $cpus possible CPUs, $queues queues: $pdi guest instructions per guarded device and check, each second at the default guard_interval_ms=1000"
	if ((pdi <= GCHECK_MAX_INSTR)); then
		verdicts+=("PASS $v (at most $GCHECK_MAX_INSTR)")
	else
		verdicts+=("FAIL $v (more than $GCHECK_MAX_INSTR)")
		fail_t=1
	fi
done <<<"$gcheck_table"

# bparam KIND KEY: KEY's value in the first "BENCH KIND" line.
bparam() { awk "$AWKKV"' $2 == "'"$1"'" { kv(); print v["'"$2"'"]; exit }' "$B"; }

# Restore windows per trigger: events, window median/p90/max (us), frames
# traced, frames off the map (all, per event, most in one event, events
# with any), frames off the map before the rewrite.
gwin_table=$(awk "$AWKKV"' $2 == "gwin" { kv(); t = v["trigger"]; m = ++n[t]; w[t, m] = v["window_us"] + 0; d[t] = v["dev"]
		f[t] += v["frames"]; o[t] += v["off"]; if (v["off"] + 0 > om[t]) om[t] = v["off"] + 0; if (v["off"] > 0) oe[t]++; e[t] += v["early"] }
	END {
		split("notifier cpu_offline cpu_online periodic", order, " ")
		for (j = 1; j <= 4; j++) {
			t = order[j]; m = n[t]; if (!m) continue
			for (i = 1; i <= m; i++) a[i] = w[t, i]
			for (i = 1; i <= m; i++) for (k = i + 1; k <= m; k++) if (a[k] < a[i]) { x = a[i]; a[i] = a[k]; a[k] = x }
			p = int(0.9 * m); if (p < 0.9 * m) p++
			printf "%s %s %d %d %d %d %d %d %.2f %d %d %d\n", t, d[t], m, a[int((m + 1) / 2)], a[p], a[m], f[t], o[t], o[t] / m, om[t] + 0, oe[t] + 0, e[t] + 0
		}
	}' "$B")
for trig in notifier cpu_offline cpu_online periodic; do
	row=$(awk -v t="$trig" '$1 == t' <<<"$gwin_table")
	if [[ -z $row ]]; then
		verdicts+=("FAIL guard restore, $trig: no event measured")
		fail_t=1
		continue
	fi
	read -r _ dev n med p90 max frames off _ _ _ early <<<"$row"
	v="guard restore, $trig on $dev: $n events, window median $med us, p90 $p90 us, max $max us; $off of $frames frames off the map after a rewrite, $early before one"
	# A rewrite inside ndo_open is restored before the routes return:
	# not one routed frame may leave on it.
	want_off=$off
	[[ $trig != notifier ]] || want_off=0
	if ((n >= ge && early == 0 && off == want_off)); then
		verdicts+=("PASS $v")
	else
		verdicts+=("FAIL $v (want $ge events, every one restored, no frame off the map before a rewrite$([[ $trig != notifier ]] || echo ', and none after one'))")
		fail_t=1
	fi
done

# A fighting driver (bnxlike rewriting every few ms): the restores back
# off to one per 4 s (GUARD_BACKOFF_MAX_MS), 250 ms to 4 s doubling first,
# so at most secs/4 + 8 restores; one per check would be a busy loop.
row=$(grep -m1 '^BENCH gfight ' "$B" || true)
if [[ -z $row ]]; then
	verdicts+=("FAIL guard fight: not measured")
	fail_t=1
else
	read -r fsecs frew fchecks frest ffights fus < <(awk "$AWKKV"'{ kv(); print v["secs"], v["rewrite_ms"], v["checks"], v["restores"], v["fights"], v["check_us_total"] }' <<<"$row")
	v="guard fight: a driver rewriting its map every $frew ms for $fsecs s: $frest restores, $ffights fights, $fchecks checks taking $fus us in all"
	if ((frest >= 1 && frest <= fsecs / 4 + 8 && ffights >= 1)); then
		verdicts+=("PASS $v (restores at most $((fsecs / 4 + 8)): backed off)")
	else
		verdicts+=("FAIL $v (want 1 to $((fsecs / 4 + 8)) restores and a fight counted)")
		fail_t=1
	fi
fi

locs() { awk -v w="$1" -v c="$2" '$1 == w && $2 == c { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' <<<"$loc_table"; }
shared() { awk -v w="$1" -v c="$2" '$1 == w && $2 == c { print $4 "/" $5 }' <<<"$loc_table"; }
# mean distinct CPUs per queue, from "q0=4:0+1+2+3 q1=..."
cpq() { awk '{ for (i = 1; i <= NF; i++) { split($i, a, "[=:]"); s += a[2]; n++ } } END { printf "%.2f", n ? s / n : 0 }' <<<"$1"; }
la=$(locs udp A) lb=$(locs udp B) lc=$(locs udp C)
sa=$(shared udp A) sb=$(shared udp B) sc=$(shared udp C)
if [[ -n $lc && $lc == "$lb" && $sc == "$sb" ]] &&
	awk -v a="$(cpq "$la")" -v c="$(cpq "$lc")" -v sa="$sa" -v sc="$sc" 'BEGIN {
		split(sa, x, "/"); split(sc, y, "/")
		exit !(c > 0 && 2 * c <= a && y[2] < x[2]) }'; then
	verdicts+=("PASS locality: C identical to B (CPUs per queue: $lc; shared 1 ms/10 ms: $sc); A: $(cpq "$la") CPUs per queue, shared $sa")
else
	verdicts+=("FAIL locality: C: '$lc' shared $sc; B: '$lb' shared $sb; A: '$la' shared $sa (want C == B, at most half A's CPUs per queue and less sharing)")
	fail_t=1
fi

# ---------------------------------------------------------------- plot --
plot=$docs/perf.png
awk '{ k = $1; sub(/:/, "/", k); printf "%s %.4f %.4f %.4f\n", k, $2 / $3, 1, $4 / $3 }' <<<"$cost_table" >"$out/plot-cost.dat"
# mean distinct CPUs per queue, per load and configuration
awk '{ t = 0; n = 0; for (i = 6; i <= NF; i++) { split($i, a, "[=:]"); t += a[2]; n++ } s[$1, $2] = n ? t / n : 0 }
	END { for (i = 1; i <= 2; i++) { w = i == 1 ? "udp" : "rr"
	printf "%s %s %s %s\n", (w == "udp" ? "UDP-flood" : "TCP-RR"), s[w, "A"] + 0, s[w, "B"] + 0, s[w, "C"] + 0 } }' \
	<<<"$loc_table" >"$out/plot-loc.dat"
term='pngcairo size 1100,450 font ",10"'
gnuplot -e 'set terminal pngcairo' -e 'exit' 2>/dev/null || term='png size 1100,450'
gnuplot <<EOF || { say "FAIL: gnuplot"; exit 1; }
set terminal $term
set output '$plot'
set multiplot layout 1,2
set style data histogram
set style histogram clustered gap 1
set xtics rotate by -30
set style fill solid 0.8 border -1
set key top left
set grid ytics
set title "Per-packet cost: packets per guest-second, relative to B (kernel XPS)"
set yrange [0.8:1.2]
set ylabel "rate / rate(B)"
plot '$out/plot-cost.dat' using 2:xtic(1) title 'A stock', '' using 3 title 'B kernel XPS', '' using 4 title 'C xps\_steer'
set key top right
set title "Locality: distinct transmitting CPUs per TX queue (4 vCPUs)"
set yrange [0:4.5]
set ylabel "CPUs per queue, mean (lower is better)"
plot '$out/plot-loc.dat' using 2:xtic(1) title 'A stock', '' using 3 title 'B kernel XPS', '' using 4 title 'C xps\_steer'
unset multiplot
EOF

# ------------------------------------------------------------ perf.md --
{
	cat <<EOF
# xps_steer performance

Generated by \`make bench\` (test/bench.sh); do not edit. How each number is
measured and how to read it: [benchmark.md](benchmark.md).

- Command: \`XPS_BENCH_COST_ROUNDS=$cr XPS_BENCH_COST_SECS=$cs XPS_BENCH_WALL_ROUNDS=$wr XPS_BENCH_WALL_SECS=$ws XPS_BENCH_TARGET=$target make bench\`
- Date: ${date:-?}; run took ${elapsed:-?} s
- xps_steer $(cat "$top/VERSION" 2>/dev/null || echo '?') (${rev:-$(tree_rev)})
- Guest kernel: Debian $abi; $(qemu-system-x86_64 --version | head -n1); host: $(nproc) CPUs, $(uname -r)

Configurations, in the same boot, each on its own device with the same
addresses and the same flows: **A** stock selection (no XPS), **B** the
kernel's own XPS (\`/sys/class/net/<dev>/queues/tx-N/xps_cpus\`), **C**
xps_steer with the same masks as B, **D** \`tc ... skbedit queue_mapping
hash-type cpuid\`.

EOF
	if grep -q '^BENCH d_unavailable' "$B"; then
		echo "**D is not measured:** $(grep -m1 '^BENCH d_unavailable' "$B" | sed 's/^BENCH d_unavailable //; s/error="/tc said: "/')."
		echo "Debian 6.1's act_skbedit only knows a flow-hash queue range"
		echo "(SKBEDIT_F_TXQ_SKBHASH); the CPU-id hash type was never merged, and"
		echo "iproute2 6.1's tc parses neither."
		echo
	fi
	cat <<EOF
## Targets

Per-packet cost, judged on the lowest per-round C/B: $(if [[ $target == parity ]]; then
		echo "gated at the parity target, C/B >= $COST_PARITY on one and hash with 1 and 32 attached devices, and at the fallback bound $COST_FALLBACK on unmapped and nomask, where xps_steer has no answer and 1.00 is out of reach ([benchmark.md](benchmark.md#where-the-instructions-go) counts every instruction) (\`XPS_BENCH_TARGET=parity\`)."
	else
		echo "gated at C/B >= $COST_FLOOR on every path (\`XPS_BENCH_TARGET=floor\`); the parity target, C/B >= $COST_PARITY on one and hash with 1 and 32 attached devices, is reported but does not fail the run."
	fi)

| verdict |
|---|
$(printf '| %s |\n' "${verdicts[@]}")

## 1. Per-packet cost (QEMU \`-icount shift=4\`, \`-smp 1\`)

Unconnected UDP (\`udpflood -t $cs\`, 64 flows, 18-byte payload) through a
4-queue \`dummy\`, sender on CPU 0; packets per guest-second (median of $cr
rounds; guest time counts executed guest instructions, so a higher rate is
fewer instructions per packet). Paths: **nomask** = no mask written on C
(and none on B: every packet to the stock selection), **one** = masks
1 2 4 8 (CPU 0 has one queue), **hash** = f f f f (CPU 0 chooses among 4
by flow hash), **unmapped** = 2 4 8 0 (CPU 0 in no mask: fallback).
*devices*: xps_steer's attached devices, C's dummy alone (1), or 31 extra
dummies attached first and C's dummy attached last (32); *1, no counters*:
C's dummy alone, with the module built to count nothing
(\`XPS_STEER_BENCH_NO_COUNTERS=y\`), to show what the counters cost.

| path | devices | A | B | C | D | C/B | C/A | lowest C/B |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
$(awk '{ split($1, k, ":"); if (k[2] == "1nc") k[2] = "1, no counters"; if (k[2] == "1g") k[2] = "1, guarded"
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k[1], k[2], $2, $3, $4, $5, $6, $7, $8 }' <<<"$cost_table")

Per-round ratios (rounds alternate the configuration order):

| path | devices | C/B per round | C/A per round |
|---|---:|---|---|
$(awk '{ split($0, h, "|"); n = split(h[1], f, " "); rs = ""; for (i = 9; i <= n; i++) rs = rs f[i] " "; split($1, k, ":"); printf "| %s | %s | %s | %s |\n", k[1], k[2], rs, h[2] }' <<<"$cost_table")

Per-packet check before each path (256 packets traced): queues CPU 0 used

| path | devices | $(grep '^BENCH costq' "$B" | awk "$AWKKV"'{ kv(); if (!(v["cfg"] in s)) { s[v["cfg"]] = 1; printf "%s | ", v["cfg"] } }')
|---|---:|$(grep '^BENCH costq' "$B" | awk "$AWKKV"'{ kv(); if (!(v["cfg"] in s)) { s[v["cfg"]] = 1; printf "---|" } }')
$(grep '^BENCH costq' "$B" | awk "$AWKKV"'{ kv(); d = v["devs"] == "" ? 1 : v["devs"]; if (v["path"] ":" d != p) { if (p != "") print ""; p = v["path"] ":" d; printf "| %s | %s | ", v["path"], d } printf "%s | ", v["queues"] } END { print "" }')

C's per-packet queue sequence equals B's on every path (and A's on
**unmapped** and **nomask**); the guest fails the run otherwise.

## 2. TCP request/response (wall clock, 4 vCPUs)

64 connections (4 \`tcprr\` clients pinned to CPUs 0-3, 16 each), 1-byte
request/response over veth between network namespaces, $ws s per run,
$wr rounds alternating the configuration order. Transactions per second.

| config | median | min | max | spread (max-min)/median | per round |
|---|---:|---:|---:|---:|---|
$(awk '{ r = ""; for (i = 6; i <= NF; i++) r = r $i " "; printf "| %s | %s | %s | %s | %s%% | %s |\n", $1, $2, $3, $4, $5, r }' <<<"$rr_table")

## 3. Bulk: iperf3 (wall clock, 4 vCPUs)

4 iperf3 clients pinned to CPUs 0-3 (iperf3 3.12 is single-threaded, so one
\`iperf3 -P 4\` would send all 4 streams from one CPU), one stream each, over
veth, $ws s per run, $wr rounds. Mbit/s, sum of the 4 senders.

| config | median | min | max | spread (max-min)/median | per round |
|---|---:|---:|---:|---:|---|
$(awk '{ r = ""; for (i = 6; i <= NF; i++) r = r $i " "; printf "| %s | %s | %s | %s | %s%% | %s |\n", $1, $2, $3, $4, $5, r }' <<<"$bulk_table")

## 4. Locality (\`net_dev_start_xmit\` tracepoint, 4 vCPUs)

Masks 1 2 4 8 for B and C. **udp**: 4 pinned unconnected-UDP senders at
once (2000 packets each, 64 flows); **rr**: the request/response load of
section 2 for 2 s. Per queue: number of distinct transmitting CPUs and
which; *shared*: share of packets sent on a queue that another CPU also used
within the same 1 ms (10 ms). TCG runs the 4 vCPUs as host threads in host
time slices, so true overlap is rarer than on hardware; the CPU sets per
queue are the robust measure.

| load | config | packets | shared (1 ms) | shared (10 ms) | queue=CPUs:which |
|---|---|---:|---:|---:|---|
$(awk '{ q = ""; for (i = 6; i <= NF; i++) q = q $i " "; printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, q }' <<<"$loc_table")

## 5. Control path

Time per write of one \`xps_cpus\` mask on a 64-queue dummy (\`mwrite\`,
2000 writes alternating two masks, guest time under icount):

| possible CPUs | xps_steer (µs) | kernel's own xps_cpus (µs) |
|---|---:|---:|
$(awk "$AWKKV"' $2 == "ctl" { kv(); t[v["cpus"], v["who"]] = v["us_per_write"]; c[v["cpus"]] = 1 }
	END { for (k in c) printf "| %s | %s | %s |\n", k, t[k, "xps_steer"], t[k, "kernel"] }' "$B" | sort -t'|' -k2,2n)

Memory per attached device, measured: bytes_alloc of the slab/kmalloc
objects (kmem tracepoints) allocated and not freed while a dummy is renamed
to a name xps_steer attaches, minus a rename to a name it does not (median
of 3 devices); this includes the sysfs kobjects and kernfs nodes. "Largest
map" adds the map when every queue's mask names every possible CPU.

| possible CPUs | tx queues | attached, masks empty (bytes) | largest map (bytes) | total with largest map (bytes) |
|---|---:|---:|---:|---:|
$(awk "$AWKKV"' $2 == "mem" { kv(); printf "| %s | %s | %s | %s | %s |\n", v["cpus"], v["queues"], v["per_dev_b"], v["full_map_b"], v["per_dev_full_b"] }' "$B" | sort -t'|' -k2,2n -k3,3n)

## 6. Guard mode

**Per packet.** The cost guest's paths again with C's dummy guarded
(\`dev=dumC:guard\`): the module writes the kernel's own map and selects
nothing, so C is the kernel's XPS with the module's masks, and the
periodic check runs every second meanwhile.

| path | A | B | C guarded | C/B | C/B per round |
|---|---:|---:|---:|---:|---|
$(awk '{ split($1, k, ":"); if (k[2] != "1g") next; split($0, h, "|"); n = split(h[1], f, " "); rs = ""; for (i = 9; i <= n; i++) rs = rs f[i] " "
	printf "| %s | %s | %s | %s | %s | %s |\n", k[1], $2, $3, $4, $6, rs }' <<<"$cost_table")

**The periodic check** (\`check_all\`, the work item that compares every
guarded device's map with its masks; the map intact, as nearly always):
guest time per check under \`-icount shift=4\` (16 ns per guest
instruction), median of the checks of $(bparam gcparams secs) guest seconds at
\`guard_interval_ms=$(bparam gcparams interval_ms)\`, every queue's mask naming every possible CPU.
Per device: the difference between 8 and 1 guarded devices, over 7; at the
default \`guard_interval_ms=1000\` that many instructions a second, per
device (a CPU retiring one instruction per ns spends that many ns).

| possible CPUs | online | tx queues | 1 device (µs/check) | 8 devices (µs/check) | per device (guest instructions/check) | fixed (guest instructions/check) |
|---:|---:|---:|---:|---:|---:|---:|
$(awk '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $2, $4, $5, $7, $8 }' <<<"$gcheck_table")

**Restore windows** (4 vCPUs, wall clock, $ge events per trigger): from
the first write of the kernel's map by another writer to xps_steer's last
write of the restore, both seen by kprobes on \`netif_set_xps_queue\` and
\`__netif_set_xps_queue\` with their callers, in the same trace as every
frame (\`net_dev_start_xmit\`) of the senders running meanwhile (one per
CPU, pinned, 2000 datagrams a second each, 64 flows; a frame's size names
its sender's CPU). *notifier*: bnxlike writes its default map inside
\`ndo_open\` (\`map_on_open\`, as mlx4 and gve), NETDEV_UP restores, with the
periodic check off; *cpu_offline*, *cpu_online*: virtio-net rewrites its
map from its own hotplug callbacks, the module's hotplug state queues the
check, senders on CPUs 0-2 while CPU 3 goes and comes; *periodic*: the
kernel's own \`xps_cpus\` file gives queue 0 every CPU (a write with no
event), found by the next check at \`guard_interval_ms=$(bparam gwparams period_ms)\`. Events
$(bparam gwparams gap_s) s apart after each restore, beyond a fight's reach.

| trigger | device | events | median (µs) | p90 (µs) | max (µs) | frames | off the map | per event | most in one event | events with any | before a rewrite |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$(awk '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' <<<"$gwin_table")

A driver that fights (bnxlike's \`fight_ms\`: its default map every
$(bparam gfight rewrite_ms) ms, no event, for $(bparam gfight secs) s, the check every $(bparam gfight period_ms) ms): $(bparam gfight restores)
restores, $(bparam gfight fights) fights, $(bparam gfight checks) checks taking $(bparam gfight check_us_total) µs in all (by the guest's clock).

Fights counted in the windows' runs (none expected: events are spaced beyond a
fight's reach): $(awk "$AWKKV"' $2 == "gwstat" { kv(); printf "%s%s %s (restores %s)", s, v["trigger"], v["fights"], v["restores"]; s = ", " }' "$B").

![cost and locality](perf.png)
EOF
} >"$docs/perf.md"

printf '%s\n' "${verdicts[@]}" >&2
if grep -q '^BENCH d_unavailable' "$B"; then
	say "D (tc skbedit queue_mapping hash-type cpuid) not measured: the guest's tc/kernel refused it (details in perf.md)"
fi
say "wrote $docs/perf.md and $plot; logs in $out; took $elapsed s"
if ((fail_t)); then
	say "FAIL: a target was missed (see above and docs/perf.md)"
	exit 1
fi
if ((missed_parity)); then
	say "PASS: the gated targets are met (XPS_BENCH_TARGET=floor: C/B >= $COST_FLOOR); the parity target C/B >= $COST_PARITY is MISSED on $missed_parity of $parity_rows rows"
else
	say "PASS: all targets met (XPS_BENCH_TARGET=$target)"
fi
