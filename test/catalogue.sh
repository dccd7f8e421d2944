#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# catalogue.sh - check docs/bad-input.md against a run of the guest suite.
#
# Usage: test/catalogue.sh DOC SUITE_TAP
#
# Every row of DOC's tables whose first cell is an ID (P01, X12, S03, ...)
# names the test that covers it (last cell), the result and the exact log
# line(s). The suite prints "# catalogue: ID | RESULT | LOG" for each case
# it checked. This script fails unless, for every row, that line is there,
# inside the test the row names, that test passed (not skipped), and
# RESULT and LOG are the doc's, and unless every ID the suite printed is
# in the doc. So the catalogue cannot drift from the module or the suite.
# Prints one KTAP result line (plus "# " diagnostics).
set -euo pipefail

(($# == 2)) || { echo "usage: $0 DOC SUITE_TAP" >&2; exit 2; }
doc=$1 tap=$2
if [ ! -r "$doc" ] || [ ! -r "$tap" ]; then
	echo "catalogue.sh: cannot read $doc or $tap" >&2
	exit 2
fi

awk -v docname="$doc" '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function unquote(s) { s = trim(s); if (s ~ /^`.*`$/) s = substr(s, 2, length(s) - 2); return s }
FNR == NR {
	if ($0 !~ /^\|/) next
	n = split($0, c, "|")
	id = trim(c[2])
	if (id !~ /^[PXS][0-9][0-9]$/) next
	if (id in dres) { printf "# FAIL: %s: row %s appears twice\n", docname, id; bad++ }
	dres[id] = unquote(c[4]); dlog[id] = unquote(c[5]); dtest[id] = trim(c[n - 1])
	order[++nrows] = id
	next
}
/^# ----- test [0-9]+:/ { cur = $4 + 0; sub(/:$/, "", cur); next }
/^# catalogue: / {
	line = substr($0, 14)
	split(line, f, " \\| ")
	id = f[1]
	if (id in sres) { printf "# FAIL: suite printed row %s twice\n", id; bad++ }
	sres[id] = f[2]; slog[id] = substr(line, length(f[1]) + length(f[2]) + 7); stest[id] = cur
	next
}
/^(not )?ok [0-9]+ / {
	n = ($1 == "not") ? $3 : $2
	status[n] = ($1 == "not") ? "failed" : (($0 ~ /# SKIP/) ? "skipped" : "passed")
}
END {
	for (i = 1; i <= nrows; i++) {
		id = order[i]
		if (!(id in sres)) { printf "# FAIL: %s: no test printed it (doc names test %s)\n", id, dtest[id]; bad++; continue }
		if (stest[id] != dtest[id]) { printf "# FAIL: %s: checked by test %s, the doc says test %s\n", id, stest[id], dtest[id]; bad++; continue }
		if (status[stest[id]] != "passed") { printf "# FAIL: %s: test %s %s\n", id, stest[id], status[stest[id]] ? status[stest[id]] : "has no result"; bad++; continue }
		if (sres[id] != dres[id]) { printf "# FAIL: %s: result \"%s\", the doc says \"%s\"\n", id, sres[id], dres[id]; bad++; continue }
		if (slog[id] != dlog[id]) { printf "# FAIL: %s: log \"%s\", the doc says \"%s\"\n", id, slog[id], dlog[id]; bad++; continue }
		ok++
	}
	for (id in sres)
		if (!(id in dres)) { printf "# FAIL: the suite checked %s, which %s lacks\n", id, docname; bad++ }
	if (!nrows) { print "# FAIL: no catalogue rows in " docname; bad++ }
	if (bad)
		printf "not ok 1 - bad-input catalogue: %d of %d rows verified, %d problems\n", ok, nrows, bad
	else
		printf "ok 1 - bad-input catalogue: all %d rows of %s verified by the suite run\n", nrows, docname
	exit bad ? 1 : 0
}' "$doc" "$tap"
