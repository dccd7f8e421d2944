#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# catalogue.sh - check docs/bad-input.md against a run of the guest suite.
#
# Usage: test/catalogue.sh DOC SUITE_TAP [NAMES]
#        test/catalogue.sh --covers DOC NAMES
#
# Every row of DOC's tables whose first cell is an ID (P01, R03, X12, S03, M01, L01, Q01, C01, G01, ...)
# names the test that covers it, by name (last cell), the result and the
# exact log line(s). The suite prints "# catalogue: ID | RESULT | LOG" for
# each case it checked. This script fails unless, for every row, that line
# is there, inside the test the row names, that test passed (not skipped),
# and RESULT and LOG are the doc's, and unless every ID the suite printed
# is in the doc. So the catalogue cannot drift from the module or the
# suite. NAMES (a comma list; default: every test) restricts the rows that
# must be there to those of the tests that ran (make check T=...).
# Prints one KTAP result line (plus "# " diagnostics).
# --covers: status 0 iff some row of DOC names one of NAMES (prints nothing).
set -euo pipefail

covers=0
if [[ ${1:-} == --covers ]]; then
	covers=1
	shift
fi
(($# >= 2 && $# <= 3)) || { echo "usage: $0 DOC SUITE_TAP [NAMES] | $0 --covers DOC NAMES" >&2; exit 2; }
doc=$1
if ((covers)); then
	awk -v names="$2" '
	BEGIN { n = split(names, a, ","); for (i = 1; i <= n; i++) want[a[i]] = 1 }
	/^\|/ { k = split($0, c, "|"); id = c[2]; gsub(/[ \t]/, "", id); t = c[k - 1]; gsub(/[ \t`]/, "", t)
		if (id ~ /^[CGLMPQRXS][0-9][0-9]$/ && (t in want)) found = 1 }
	END { exit found ? 0 : 1 }' "$doc"
	exit
fi
tap=$2 names=${3:-}
if [ ! -r "$doc" ] || [ ! -r "$tap" ]; then
	echo "catalogue.sh: cannot read $doc or $tap" >&2
	exit 2
fi

awk -v docname="$doc" -v names="$names" '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function unquote(s) { s = trim(s); if (s ~ /^`.*`$/) s = substr(s, 2, length(s) - 2); return s }
FNR == NR {
	if ($0 !~ /^\|/) next
	n = split($0, c, "|")
	id = trim(c[2])
	if (id !~ /^[CGLMPQRXS][0-9][0-9]$/) next
	if (id in dres) { printf "# FAIL: %s: row %s appears twice\n", docname, id; bad++ }
	dres[id] = unquote(c[4]); dlog[id] = unquote(c[5]); dtest[id] = unquote(c[n - 1])
	order[++nrows] = id
	next
}
/^# ----- [a-z0-9_]+: / { cur = $3; sub(/:$/, "", cur); next }
/^# catalogue: / {
	line = substr($0, 14)
	split(line, f, " \\| ")
	id = f[1]
	if (id in sres) { printf "# FAIL: suite printed row %s twice\n", id; bad++ }
	sres[id] = f[2]; slog[id] = substr(line, length(f[1]) + length(f[2]) + 7); stest[id] = cur
	next
}
/^(not )?ok [0-9]+ - / {
	n = ($1 == "not") ? $5 : $4
	status[n] = ($1 == "not") ? "failed" : (($0 ~ /# SKIP/) ? "skipped" : "passed")
}
END {
	if (names != "") { k = split(names, a, ","); for (i = 1; i <= k; i++) ran[a[i]] = 1 }
	for (i = 1; i <= nrows; i++) {
		id = order[i]
		if (names != "" && !(dtest[id] in ran)) { notrun++; continue }
		if (!(id in sres)) { printf "# FAIL: %s: no test printed it (doc names test %s)\n", id, dtest[id]; bad++; continue }
		if (stest[id] != dtest[id]) { printf "# FAIL: %s: checked by test %s, the doc says %s\n", id, stest[id], dtest[id]; bad++; continue }
		if (status[stest[id]] != "passed") { printf "# FAIL: %s: test %s %s\n", id, stest[id], status[stest[id]] ? status[stest[id]] : "has no result"; bad++; continue }
		if (sres[id] != dres[id]) { printf "# FAIL: %s: result \"%s\", the doc says \"%s\"\n", id, sres[id], dres[id]; bad++; continue }
		if (slog[id] != dlog[id]) { printf "# FAIL: %s: log \"%s\", the doc says \"%s\"\n", id, slog[id], dlog[id]; bad++; continue }
		ok++
	}
	for (id in sres)
		if (!(id in dres)) { printf "# FAIL: the suite checked %s, which %s lacks\n", id, docname; bad++ }
	if (!nrows) { print "# FAIL: no catalogue rows in " docname; bad++ }
	if (notrun) printf "# %d rows belong to tests that did not run (T=%s)\n", notrun, names
	if (bad)
		printf "not ok 1 - catalogue: %d of %d rows verified, %d problems\n", ok, nrows - notrun, bad
	else
		printf "ok 1 - catalogue: all %d rows of %s%s verified by the suite run\n", nrows - notrun, docname, notrun ? " whose tests ran" : ""
	exit bad ? 1 : 0
}' "$doc" "$tap"
