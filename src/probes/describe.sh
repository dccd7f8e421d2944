#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# describe.sh - print the compile probes as a Markdown table (probe, what
# it detects, the upstream change, what happens without it), read from the
# comment block at the top of each src/probes/<name>.c. docs/compat.md
# includes it, so the documentation cannot drift from the probes.
set -eu
cd "$(dirname "$0")"

# field FILE KEY: the text after " * KEY: " up to the next key, joined.
field() {
	awk -v key="$2" '
		/^ \*\// { exit }
		/^ \* [A-Z][A-Za-z ()]*: / {
			on = index($0, " * " key ": ") == 1
			if (on) { sub("^ \\* " key ": ", ""); out = $0 }
			next
		}
		on && /^ \*   / { sub("^ \\*   ", ""); out = out " " $0 }
		/^ \*$/ { on = 0 }
		END { print out }
	' "$1" | tr '|' '/'
}

echo '| probe | detects | upstream | without it |'
echo '|---|---|---|---|'
for f in *.c; do
	name=${f%.c}
	[ "$name" = control ] && continue
	detects=$(awk -v n="$name" '
		index($0, " * Probe " n ": ") == 1 { sub("^ \\* Probe [^:]*: ", ""); out = $0; on = 1; next }
		on && /^ \*   / { sub("^ \\*   ", ""); out = out " " $0; next }
		{ on = 0 }
		END { print out }' "$f" | tr '|' '/')
	without=$(field "$f" Fallback)
	[ -n "$without" ] || without=$(field "$f" 'Legacy fallback')
	[ -n "$without" ] || without=$(field "$f" Layout)
	[ -n "$without" ] || without=$(field "$f" 'Needed by' | sed 's/^/required by /')
	group=$(field "$f" Group)
	[ -n "$group" ] && without="one variant of ${group% (required)} must compile"
	echo "| \`$name\` | $detects | $(field "$f" Upstream) | $without |"
done
