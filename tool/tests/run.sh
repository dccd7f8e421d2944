#!/bin/bash
# run.sh - the xps-steer tool's tests, on the host, against fake /sys,
# /proc and /etc trees (XPS_STEER_ROOT) and hwloc XML topologies; TAP
# output. Every test is a function test_<name> in tests/*.sh (not lib.sh)
# and sets up its own fixture; `run.sh T=name,...` runs just those,
# `run.sh --list` lists them. XS= the binary under test (make check builds
# it with ASan and UBSan).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
for f in "$here"/*.sh; do
	case ${f##*/} in lib.sh | run.sh) continue ;; esac
	# shellcheck source=/dev/null
	. "$f"
done
mapfile -t all < <(declare -F | awk '$3 ~ /^test_/ { sub(/^test_/, "", $3); print $3 }')

sel=()
for arg in "$@"; do
	case $arg in
	--list) printf '%s\n' "${all[@]}"; exit 0 ;;
	T=*) IFS=, read -ra sel <<<"${arg#T=}" ;;
	*) echo "run.sh: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done
if ((${#sel[@]})); then
	for n in "${sel[@]}"; do
		declare -F "test_$n" >/dev/null || { echo "run.sh: unknown test '$n' (run.sh --list)" >&2; exit 2; }
	done
else
	sel=("${all[@]}")
fi
[ -x "${XS:-}" ] || { echo "run.sh: XS= must name the xps-steer binary" >&2; exit 2; }

echo "TAP version 13"
echo "1..${#sel[@]}"
i=0 fails=0
for n in "${sel[@]}"; do
	i=$((i + 1))
	T_DIR=$(mktemp -d /tmp/xps-steer-test.XXXXXX)
	export XPS_STEER_ROOT=$T_DIR/root
	mkdir -p "$XPS_STEER_ROOT"
	# Neither in an if's condition nor before || or &&: bash ignores
	# set -e inside those, and a failed check would not stop the test.
	(set -e; cd "$T_DIR" && "test_$n") >"$T_DIR/log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "ok $i - $n"
	else
		echo "not ok $i - $n"
		sed 's/^/# /' "$T_DIR/log"
		fails=$((fails + 1))
	fi
	rm -rf "$T_DIR"
done
echo "# xps-steer tool: $((i - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
