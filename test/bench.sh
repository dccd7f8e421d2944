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
# cost and ctl64 run in parallel (icount makes their results independent
# of host load); wall runs alone afterwards.
#
# `test/bench.sh --report DIR` only regenerates docs/perf.md and perf.png
# (and the verdict) from the logs a previous run left in DIR.
#
# Environment (defaults in brackets):
#   XPS_BENCH_COST_ROUNDS [5]  XPS_BENCH_COST_SECS [2]   guest seconds per flood
#   XPS_BENCH_WALL_ROUNDS [5]  XPS_BENCH_WALL_SECS [4]
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
fi
for v in "$cr" "$cs" "$wr" "$ws"; do
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
	printf 'cr=%s cs=%s wr=%s ws=%s abi=%s\n' "$cr" "$cs" "$wr" "$ws" "$abi" >"$out/params"

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

	cat "$out"/{cost,ctl64,wall}.log 2>/dev/null | tr -d '\r' | grep -a '^BENCH ' >"$out/bench.txt" || true
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
	[[ $devs != 1nc ]] || continue	# the counters' verdicts, below
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
$(awk '{ split($1, k, ":"); if (k[2] == "1nc") k[2] = "1, no counters"
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
