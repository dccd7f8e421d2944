#!/bin/bash
# check-matrix.sh - `make check-matrix`: build, DKMS-install and boot
# xps_steer on every Debian kernel we can reach, each with its own
# distribution's tools, and write the result table to docs/compat.md.
#
# Usage: test/check-matrix.sh [T=name[,name...]] [SUITE...]
#   SUITE: default bullseye bookworm bookworm-backports sid.
#   T= boots just these tests of the functional suite (suite.sh --list);
#   an unknown name is refused (exit 2) before anything is built. A T= run
#   writes its table to $XPS_STEER_OUT/compat.md, not docs/compat.md
#   (which records whole-suite runs only), unless XPS_STEER_COMPAT_MD says.
#
# For each suite, in its cached debootstrap chroot (test/chroot.sh), seen
# through a throw-away overlay so the cache stays clean:
#   1. build: the module with the suite's gcc against its kernel headers;
#      a failed build or any "warning:" in the log fails the step;
#   2. dkms: the shipped files copied to /usr/src/<name>-<version>, then
#      `dkms add`, `dkms build -k ABI`, `dkms install -k ABI`, as a user
#      would; the module must be in /lib/modules/ABI/updates/dkms (.ko or
#      compressed) and `modinfo` must show VERSION; `dkms remove --all` must
#      take it out again (done after the boot);
#   3. boot: the suite's own kernel under QEMU (test/vm.sh --kernel-root),
#      the DKMS-installed module loaded by name, the whole functional suite
#      (test/guest/suite.sh via test/guest/matrix.sh); the KTAP results are
#      counted like test/check.sh does, and every planned test must report.
# Chroots are created/refreshed in parallel (mostly downloads); builds and
# boots run one suite at a time. Timings are printed per step.
#
# Output: docs/compat.md (override: XPS_STEER_COMPAT_MD=FILE), generated:
# the date, the command, the table, the variants the probes detected per
# suite, the probe table (src/probes/describe.sh), then
# docs/compat-eras.md verbatim.
# Logs: XPS_STEER_OUT (default a new /tmp/xps_steer-matrix.*), one
# directory per suite. Exit status: 0 iff every suite passed every step.
# Boots take XPS_STEER_QEMU_LOCK (default /var/cache/xps_steer/qemu.lock,
# shared with check-nics.sh), so only one of their guests runs at a time;
# .ci/run gives the matrix a lock of its own, one guest beside make
# check's. Each boot has a hard limit of XPS_STEER_MATRIX_TIMEOUT seconds
# (default 1500).
# XPS_STEER_MATRIX_BOOT=0 skips the boots (a quick build + DKMS round while
# developing; the boots are then "not run" and the run fails).
# XPS_STEER_MATRIX_SHORT="SUITE..." boots these suites with the short lane
# only (SHORT_TESTS below: attach, steering per packet against the
# kernel's XPS, unload under traffic, the status file, guard mode on a
# dummy and on bnxlike, no warning), not the
# whole suite; .ci/run gives the middle kernels (bookworm, whose whole
# suite `make check` boots, and bookworm-backports) this lane. The table
# says "short" in their boot cell. A T= run ignores it.
# Chroot cache: XPS_STEER_CACHE (see test/chroot.sh).
set -euo pipefail
# The whole script is one block, parsed before it runs: a checkout that
# changes this file during a (long) run does not change the running one.
{

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$TOP
all=(bullseye bookworm bookworm-backports sid)
chroot_sh=$top/test/chroot.sh
cache_root=${XPS_STEER_CACHE:-/var/cache/xps_steer}
compat_md=${XPS_STEER_COMPAT_MD:-$top/docs/compat.md}
boot_timeout=${XPS_STEER_MATRIX_TIMEOUT:-1500}
# Boots use single-threaded TCG (test/vm.sh says why): under multi-threaded
# TCG, Debian's 7.2 kernel once oopsed with "Oops: int3" in
# ttwu_do_activate, a static-key site being live-patched while the suite
# loaded modules (no xps_steer frame).
# Shared by every QEMU user on this machine, whatever their cache dir.
qemu_lock=${XPS_STEER_QEMU_LOCK:-/var/cache/xps_steer/qemu.lock}
# The short lane: build and DKMS as always, then a boot that attaches,
# steers every packet by the map (and as the kernel's XPS would), unloads
# under traffic, reads the status file, and sees no kernel warning.
SHORT_TESTS=load_attach,steer_one_to_one,steer_vs_kernel_xps,rmmod_under_tcp,status_file,guard_attach_requested,guard_event_restore,guard_bnxlike_reload,final_no_warnings
# What a package ships, if scripts/pkg.sh is not there to say it (build
# products are removed from the copy).
ship=(Kbuild Makefile VERSION dkms.conf src)


if [[ -n ${MAKELEVEL:-} ]]; then
	command="make check-matrix"
else
	command="test/check-matrix.sh${*:+ $*}"
fi
spec='' suites=()
for arg in "$@"; do
	case $arg in
	T=*) spec=${arg#T=} ;;
	*) suites+=("$arg") ;;
	esac
done
names=$(select_names "$top/test/guest/suite.sh" "$spec") || exit
sel=$(paste -sd, <<<"$names")
((${#suites[@]})) || suites=("${all[@]}")
for s in "${suites[@]}"; do
	[[ " ${all[*]} " == *" $s "* ]] || die_usage "unknown suite '$s' (one of: ${all[*]})"
done
short=" ${XPS_STEER_MATRIX_SHORT:-} "
[[ -z $spec || $spec == all ]] || short=' '
for s in $short; do
	[[ " ${all[*]} " == *" $s "* ]] || die_usage "XPS_STEER_MATRIX_SHORT: unknown suite '$s' (one of: ${all[*]})"
done
select_names "$top/test/guest/suite.sh" "$SHORT_TESTS" >/dev/null || die "SHORT_TESTS names a test the suite lacks"
[[ $(id -u) == 0 ]] || die "must run as root (debootstrap, chroot, overlay mounts)"
out=${XPS_STEER_OUT:-$(mktemp -d /tmp/xps_steer-matrix.XXXXXX)}
mkdir -p "$out"
if [[ -n $spec && $spec != all && -z ${XPS_STEER_COMPAT_MD:-} ]]; then
	compat_md=$out/compat.md
fi
t_all=$(now_us)
# The source tested: taken now, not when the (long) run ends.
rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)

"$top/test/deps.sh"
command -v debootstrap >/dev/null || apt-get -o DPkg::Lock::Timeout=600 install -y -qq debootstrap >/dev/null ||
	die "cannot install debootstrap"

version=$(cat "$top/VERSION")
pkgname=$(sed -n 's/^PACKAGE_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$top/dkms.conf")
[[ -n $pkgname ]] || die "no PACKAGE_NAME in dkms.conf"

# Overlays mounted by this run, unmounted whatever happens.
mounts=()
# shellcheck disable=SC2317 # run at exit (on_exit)
umount_all() {
	local m
	for m in ${mounts[@]+"${mounts[@]}"}; do
		mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
		rm -rf "${m%/root}"/{upper,ovl,root}
	done
	return 0
}
on_exit umount_all
trap 'exit 130' INT TERM

# copy_src DEST: the files the packages ship, without build products:
# scripts/pkg.sh install-src (the packaging's own list) when the tree has
# it, else the list above.
copy_src() {
	if [[ -x $top/scripts/pkg.sh ]]; then
		"$top/scripts/pkg.sh" install-src "$1" 2>/dev/null
		return
	fi
	mkdir -p "$1"
	(cd "$top" && cp -a "${ship[@]}" "$1/")
	find "$1" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' \
		-o -name '.tmp_versions' \) -prune -exec rm -rf {} +
}

# --- 1. chroots, in parallel ----------------------------------------------
declare -A R_chroot R_build R_dkms R_boot R_pass R_fail R_skip R_abi R_kver R_gcc R_dkmsv \
	R_feat R_probes R_note R_time
for s in "${suites[@]}"; do
	mkdir -p "$out/$s"
	(
		t=$(now_us)
		rc=0
		"$chroot_sh" ensure "$s" >"$out/$s/chroot.path" 2>"$out/$s/chroot.log" || rc=$?
		echo "$rc $(secs_since "$t")" >"$out/$s/chroot.status"
	) &
done
say "chroots: ensuring ${suites[*]} in parallel (logs $out/<suite>/chroot.log)"
wait
for s in "${suites[@]}"; do
	read -r rc t <"$out/$s/chroot.status"
	sed "s/^/  $s: /" "$out/$s/chroot.log" >&2
	if ((rc == 0)); then
		R_chroot[$s]=PASS
		say "$s: chroot ready in $t s: $(cat "$out/$s/chroot.path")"
	else
		R_chroot[$s]=FAIL
		R_note[$s]="chroot: $(grep -m1 'FAIL' "$out/$s/chroot.log" || tail -n1 "$out/$s/chroot.log")"
		say "$s: FAIL: chroot (after $t s)"
	fi
	R_time[$s]="chroot $t s"
done

note() { # SUITE TEXT: first failure reason of a suite
	[[ -n ${R_note[$1]:-} ]] || R_note[$1]=$2
	say "$1: FAIL: $2"
}

# --- 2. per suite: build, dkms, boot --------------------------------------
run_suite() {
	local s=$1 d=$out/$1 root abi t rc ko modv console plan total line test_kos tests=$sel lane=''
	if [[ $short == *" $s "* ]]; then
		tests=$SHORT_TESTS lane=" (short lane)"
	fi
	exec 8>"$cache_root/chroot-$s.lock"
	flock -s 8 # no refresh of this chroot while it is the overlay's lower dir
	root=$("$chroot_sh" path "$s")
	abi=$(sed -n 's/^ABI=//p' "$root/.xps_steer-info")
	R_abi[$s]=$abi
	R_kver[$s]=$(sed -n 's/^KERNEL_VERSION=//p' "$root/.xps_steer-info")
	R_gcc[$s]=$(sed -n 's/^GCC=//p' "$root/.xps_steer-info")
	R_dkmsv[$s]=$(sed -n 's/^DKMS=//p' "$root/.xps_steer-info")
	mkdir -p "$d"/{upper,ovl,root}
	if ! mount -t overlay overlay -o "lowerdir=$root,upperdir=$d/upper,workdir=$d/ovl" "$d/root"; then
		R_build[$s]="not run" R_dkms[$s]="not run" R_boot[$s]="not run"
		note "$s" "cannot mount an overlay of $root on $d/root"
		exec 8>&-
		return 0
	fi
	mounts+=("$d/root")
	say "$s: kernel $abi (${R_kver[$s]}), gcc ${R_gcc[$s]}, dkms ${R_dkmsv[$s]}"

	# 1. build with the suite's compiler; warnings fail.
	t=$(now_us)
	copy_src "$d/root/root/xps_steer"
	rc=0
	"$chroot_sh" run "$d/root" make -C /root/xps_steer KDIR="/usr/src/linux-headers-$abi" \
		>"$d/build.log" 2>&1 || rc=$?
	R_build[$s]=FAIL
	if ((rc != 0)); then
		note "$s" "build: make exited $rc: $(grep -m1 -E 'error|Error' "$d/build.log" || tail -n1 "$d/build.log")"
	elif grep -q 'warning:' "$d/build.log"; then
		note "$s" "build: $(grep -c 'warning:' "$d/build.log") compiler warning(s), first: $(grep -m1 'warning:' "$d/build.log")"
	elif [[ ! -f $d/root/root/xps_steer/xps_steer.ko ]]; then
		note "$s" "build: no xps_steer.ko"
	else
		R_build[$s]=PASS
	fi
	# The test-only modules (test/modules/, never packaged: ops_copier for
	# the suite's foreign.sh), with the same compiler and headers.
	rm -rf "$d/root/root/test-modules"
	mkdir -p "$d/root/root/test-modules"
	cp "$top"/test/modules/{Kbuild,Makefile} "$top"/test/modules/*.c "$d/root/root/test-modules/"
	rc=0
	"$chroot_sh" run "$d/root" make -C /root/test-modules KDIR="/usr/src/linux-headers-$abi" \
		>"$d/test-modules.log" 2>&1 || rc=$?
	test_kos=()
	if ((rc != 0)); then
		R_build[$s]=FAIL
		note "$s" "build: test modules: make exited $rc: $(grep -m1 -E 'error|Error' "$d/test-modules.log" || tail -n1 "$d/test-modules.log")"
	elif grep -q 'warning:' "$d/test-modules.log"; then
		R_build[$s]=FAIL
		note "$s" "build: test modules: $(grep -c 'warning:' "$d/test-modules.log") compiler warning(s), first: $(grep -m1 'warning:' "$d/test-modules.log")"
	fi
	for ko in "$d"/root/root/test-modules/*.ko; do
		if [[ -f $ko ]]; then test_kos+=(--ko "$ko"); fi
	done
	# The compat probes' verdict, as the build prints it.
	R_probes[$s]=$(sed -n 's/^xps_steer: compat probes: //p' "$d/build.log" | tail -n1)
	say "$s: build ${R_build[$s]} ($(secs_since "$t") s, log $d/build.log)"
	R_time[$s]+=", build $(secs_since "$t") s"

	# 2. DKMS, as a user would.
	t=$(now_us)
	copy_src "$d/root/usr/src/$pkgname-$version"
	R_dkms[$s]=FAIL
	rc=0
	{
		"$chroot_sh" run "$d/root" dkms add -m "$pkgname" -v "$version" &&
			"$chroot_sh" run "$d/root" dkms build -m "$pkgname" -v "$version" -k "$abi" &&
			"$chroot_sh" run "$d/root" dkms install -m "$pkgname" -v "$version" -k "$abi" &&
			"$chroot_sh" run "$d/root" dkms status
	} >"$d/dkms.log" 2>&1 || rc=$?
	ko=$(find "$d/root/lib/modules/$abi/updates/dkms" -name 'xps_steer.ko*' 2>/dev/null | head -n1)
	modv=$("$chroot_sh" run "$d/root" modinfo -k "$abi" -F version xps_steer 2>>"$d/dkms.log" || true)
	if ((rc != 0)); then
		note "$s" "dkms: failed (rc $rc): $(grep -m1 -iE 'error|fail' "$d/dkms.log" || tail -n1 "$d/dkms.log")"
	elif [[ -z $ko ]]; then
		note "$s" "dkms: no xps_steer.ko* under /lib/modules/$abi/updates/dkms"
	elif [[ $modv != "$version" ]]; then
		note "$s" "dkms: modinfo -k $abi shows version '$modv', expected '$version'"
	elif grep -s -q 'warning:' "$d/root/var/lib/dkms/$pkgname/$version/build/make.log"; then
		note "$s" "dkms: warnings in DKMS's make.log"
	else
		R_dkms[$s]=PASS
		echo "installed: ${ko#"$d/root"}, version $modv" >>"$d/dkms.log"
	fi
	say "$s: dkms ${R_dkms[$s]} ($(secs_since "$t") s, log $d/dkms.log)"
	R_time[$s]+=", dkms $(secs_since "$t") s"

	# 3. Boot the suite's kernel with the DKMS-installed module.
	R_boot[$s]=FAIL R_pass[$s]=0 R_fail[$s]=0 R_skip[$s]=0
	if [[ ${XPS_STEER_MATRIX_BOOT:-1} == 0 ]]; then
		note "$s" "boot: not run (XPS_STEER_MATRIX_BOOT=0)"
		R_boot[$s]="not run"
	elif [[ ${R_dkms[$s]} != PASS ]]; then
		note "$s" "boot: not run (no DKMS-installed module)"
		R_boot[$s]="not run"
	else
		# One QEMU guest at a time on this machine, whoever runs it: TCG
		# guests starved of CPU fail timing-dependent checks.
		t=$(now_us)
		say "$s: boot: waiting for $qemu_lock"
		mkdir -p "${qemu_lock%/*}"
		exec 7>"$qemu_lock"
		flock 7
		say "$s: boot: got the QEMU lock after $(secs_since "$t") s"
		t=$(now_us)
		console=$d/console.log
		rc=0
		"$top/test/vm.sh" --kernel-root "$d/root" --abi "$abi" --module xps_steer \
			${test_kos[@]+"${test_kos[@]}"} --script "$top/test/guest/matrix.sh" --smp 4 --timeout "$boot_timeout" \
			--log "$console" -- "T=$tests" >/dev/null 2>"$d/vm.log" || rc=$?
		tr -d '\r' <"$console" >"$d/suite.tap"
		R_skip[$s]=$(grep -cE '^ok [0-9]+ .*# SKIP' "$d/suite.tap" || true)
		R_pass[$s]=$(($(grep -cE '^ok [0-9]+' "$d/suite.tap" || true) - R_skip[$s]))
		R_fail[$s]=$(grep -cE '^not ok [0-9]+' "$d/suite.tap" || true)
		plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$d/suite.tap" | tail -n1)
		total=$((R_pass[$s] + R_fail[$s] + R_skip[$s]))
		line=$(sed -n 's/^# XPS_STEER_FEATURES: //p' "$d/suite.tap" | tail -n1)
		R_feat[$s]=${line:-}
		if ((R_fail[$s] > 0)); then
			note "$s" "boot: failed checks: $(grep -E '^not ok [0-9]+' "$d/suite.tap" | cut -d' ' -f3- | paste -sd';' -)"
		elif ((rc != 0)); then
			note "$s" "boot: $(grep -m1 'FAIL' "$d/vm.log" || tail -n1 "$d/vm.log")"
		elif ((R_pass[$s] == 0)); then
			note "$s" "boot: no check passed"
		elif [[ -z $plan ]] || ((total != plan)); then
			note "$s" "boot: KTAP plan 1..${plan:-?} but $total results"
		elif [[ -n $lane ]]; then
			R_boot[$s]=short
		else
			R_boot[$s]=PASS
		fi
		exec 7>&-
		say "$s: boot${lane} ${R_boot[$s]}: ${R_pass[$s]} passed, ${R_fail[$s]} failed, ${R_skip[$s]} skipped ($(secs_since "$t") s, console $console)"
		R_time[$s]+=", boot $(secs_since "$t") s"
	fi

	# dkms remove must take the module out again.
	if [[ ${R_dkms[$s]} == PASS ]]; then
		rc=0
		"$chroot_sh" run "$d/root" dkms remove -m "$pkgname" -v "$version" --all >>"$d/dkms.log" 2>&1 || rc=$?
		if ((rc != 0)); then
			R_dkms[$s]=FAIL && note "$s" "dkms: remove --all exited $rc"
		elif [[ -n $(find "$d/root/lib/modules/$abi/updates" -name 'xps_steer.ko*' 2>/dev/null) ]]; then
			R_dkms[$s]=FAIL && note "$s" "dkms: remove --all left xps_steer.ko* behind"
		fi
	fi

	umount "$d/root"
	rm -rf "$d"/{upper,ovl,root}
	exec 8>&-
}

for s in "${suites[@]}"; do
	if [[ ${R_chroot[$s]} != PASS ]]; then
		R_build[$s]="not run" R_dkms[$s]="not run" R_boot[$s]="not run"
		continue
	fi
	run_suite "$s"
done

# variants FEATURES PROBES: "have"/"missing" probe lists from the booted
# module's /sys/module/xps_steer/features ("probe yes|no" lines) if given,
# else from the build log ("have: a b; missing: c d"); sets V_have,
# V_missing and V_src (empty if neither says anything).
variants() {
	local words i
	V_have='' V_missing='' V_src=''
	if [[ " $1 " =~ \ (yes|no)\  ]]; then
		V_src="runtime features"
		read -ra words <<<"$1"
		for ((i = 0; i + 1 < ${#words[@]}; i += 2)); do
			if [[ ${words[i + 1]} == yes ]]; then
				V_have+=" ${words[i]}"
			else
				V_missing+=" ${words[i]}"
			fi
		done
	elif [[ -n $2 ]]; then
		V_src="build log"
		V_have=$(sed -n 's/^have: *\([^;]*\);.*/\1/p' <<<"$2")
		V_missing=$(sed -n 's/.*; missing: *//p' <<<"$2")
	fi
	read -ra words <<<"$V_have" && V_have=${words[*]}
	read -ra words <<<"$V_missing" && V_missing=${words[*]}
	[[ $V_missing != none ]] || V_missing=''
}

# The table cell: the ndo_select_queue prototype found, and what is absent.
variant_cell() {
	local sel=() n
	variants "${R_feat[$1]:-}" "${R_probes[$1]:-}"
	[[ -n $V_src ]] || { echo "—" && return; }
	for n in $V_have; do [[ $n == select_queue_* ]] && sel+=("${n#select_queue_}"); done
	echo "select_queue: ${sel[*]:-?}; absent: $(for n in $V_missing; do [[ $n == select_queue_* ]] || printf '%s ' "$n"; done | sed 's/ $//')"
}

# --- 3. docs/compat.md ----------------------------------------------------
failed=()
for s in "${suites[@]}"; do
	[[ ${R_chroot[$s]} == PASS && ${R_build[$s]} == PASS && ${R_dkms[$s]} == PASS &&
		(${R_boot[$s]} == PASS || ${R_boot[$s]} == short) ]] || failed+=("$s")
done
{
	echo "# Compatibility: the Debian kernel matrix"
	echo
	echo "<!-- Generated by test/check-matrix.sh (make check-matrix). Do not edit: re-run it. -->"
	echo
	echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by \`$command\` (source $rev, xps_steer $version),"
	echo "as root on Debian 12 (x86_64), guests under QEMU TCG with 4 vCPUs."
	echo
	echo "Each suite runs in its own \`debootstrap --variant=minbase\` chroot carrying"
	echo "that suite's compiler, kernel headers and dkms (\`test/chroot.sh\`):"
	echo
	echo "- **build**: \`make KDIR=/usr/src/linux-headers-<abi>\` inside the chroot;"
	echo "  any \`warning:\` fails it;"
	echo "- **dkms**: the shipped files in \`/usr/src/$pkgname-$version\`, \`dkms add\`,"
	echo "  \`dkms build -k <abi>\`, \`dkms install -k <abi>\`; the module must be in"
	echo "  \`/lib/modules/<abi>/updates/dkms\` with \`modinfo\` version $version, and"
	echo "  \`dkms remove --all\` must remove it;"
	echo "- **boot**: that suite's own kernel under QEMU, the DKMS-installed module"
	echo "  loaded by name (\`modprobe xps_steer\`), the whole functional suite"
	echo "  (\`test/guest/suite.sh\`, see [testing.md](testing.md)); any kernel"
	echo "  warning, oops or taint fails it. \`short\`: the short lane only"
	echo "  (\`XPS_STEER_MATRIX_SHORT\`: ${SHORT_TESTS//,/, }), all passed."
	echo
	echo "| suite | kernel ABI | kernel package | compiler | dkms | build | dkms | boot | checks passed / failed / skipped | variants detected |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for s in "${suites[@]}"; do
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$s" \
			"${R_abi[$s]:-?}" "${R_kver[$s]:-?}" "${R_gcc[$s]:+gcc }${R_gcc[$s]:-?}" \
			"${R_dkmsv[$s]:-?}" "${R_build[$s]}" "${R_dkms[$s]}" "${R_boot[$s]}" \
			"${R_pass[$s]:-0} / ${R_fail[$s]:-0} / ${R_skip[$s]:-0}" \
			"$(variant_cell "$s" | sed 's/|/\\|/g')"
	done
	echo
	if ((${#failed[@]})); then
		echo "**Result: FAILED** on ${failed[*]}."
		echo
		for s in "${failed[@]}"; do
			echo "- $s: $(printf '%s' "${R_note[$s]:-?}" | sed 's/|/\\|/g')"
		done
	else
		echo "**Result: every suite passed every step.**"
	fi
	echo
	echo "### Variants detected"
	echo
	echo "The compile probes' results (\`src/probes/\`) for each kernel: probes that"
	echo "compiled (\`have\`) and those that did not (\`missing\`; compat.h then"
	echo "uses another variant or its fallback). From the booted module's"
	echo "\`/sys/module/xps_steer/features\` when present, else from the build log."
	echo
	for s in "${suites[@]}"; do
		variants "${R_feat[$s]:-}" "${R_probes[$s]:-}"
		if [[ -z $V_src ]]; then
			echo "- $s: none reported"
			continue
		fi
		echo "- $s ($V_src): have: $V_have; missing: ${V_missing:-none}"
		if [[ $V_src == runtime* && -n ${R_probes[$s]:-} ]]; then
			have_rt=$V_have
			variants '' "${R_probes[$s]}"
			[[ $V_have == "$have_rt" ]] ||
				echo "  (the build log differs: ${R_probes[$s]})"
		fi
	done
	echo
	echo "Run time: $(secs_since "$t_all") s in total; per suite: $(for s in "${suites[@]}"; do printf '%s (%s); ' "$s" "${R_time[$s]}"; done | sed 's/; $//')."
	echo
	if [[ -f $top/src/probes/describe.sh ]]; then
		echo "## Compile probes"
		echo
		sh "$top/src/probes/describe.sh" || { echo "(src/probes/describe.sh failed)" && failed+=(describe.sh); }
		echo
	fi
	if [[ -f $top/docs/compat-eras.md ]]; then
		cat "$top/docs/compat-eras.md"
	fi
} >"$compat_md.tmp"
mv "$compat_md.tmp" "$compat_md"

say "wrote $compat_md (logs in $out)"
# docs/drivers.md names the kernels of docs/compat.md: keep it in step.
if [[ $compat_md == "$top/docs/compat.md" ]]; then
	if (cd "$top" && scripts/drivers-md.sh >docs/drivers.md.tmp && mv docs/drivers.md.tmp docs/drivers.md); then
		say "wrote $top/docs/drivers.md"
	else
		failed+=(drivers-md.sh)
	fi
fi
for s in "${suites[@]}"; do
	say "$(printf '%-19s build %-7s dkms %-7s boot %-7s %s passed, %s failed, %s skipped' "$s" \
		"${R_build[$s]}" "${R_dkms[$s]}" "${R_boot[$s]}" "${R_pass[$s]:-0}" "${R_fail[$s]:-0}" "${R_skip[$s]:-0}")"
done
say "total $(secs_since "$t_all") s"
if ((${#failed[@]})); then
	say "FAIL: ${failed[*]}"
	exit 1
fi
say "PASS: ${suites[*]}"
exit 0
}
