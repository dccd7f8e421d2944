// SPDX-License-Identifier: GPL-2.0
/* Aligned plain-text tables. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "table.h"

void table_init(struct table *t, unsigned int ncols)
{
	t->ncols = ncols;
	t->nrows = 0;
	t->cells = NULL;
}

void table_row(struct table *t, const char *const *cols)
{
	t->cells = xrealloc(t->cells,
			    (t->nrows + 1) * t->ncols * sizeof(*t->cells));
	for (unsigned int c = 0; c < t->ncols; c++)
		t->cells[t->nrows * t->ncols + c] =
			xstrdup(cols[c] ? cols[c] : "-");
	t->nrows++;
}

void table_print(const struct table *t, FILE *out, const char *indent)
{
	size_t *width = xcalloc(t->ncols, sizeof(*width));

	for (size_t r = 0; r < t->nrows; r++)
		for (unsigned int c = 0; c < t->ncols; c++) {
			size_t len = strlen(t->cells[r * t->ncols + c]);

			if (len > width[c])
				width[c] = len;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(indent, out);
		for (unsigned int c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];

			/* No trailing blanks after the last column. */
			if (c == t->ncols - 1)
				fprintf(out, "%s\n", cell);
			else
				fprintf(out, "%-*s  ", (int)width[c], cell);
		}
	}
	free(width);
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}
