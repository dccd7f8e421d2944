/* SPDX-License-Identifier: GPL-2.0 */
/* Plain-text tables with aligned columns, for people to read. */
#ifndef XPS_STEER_TABLE_H
#define XPS_STEER_TABLE_H

#include <stdio.h>

struct table {
	unsigned int ncols;
	size_t nrows;
	char **cells;		/* nrows * ncols, row-major */
};

void table_init(struct table *t, unsigned int ncols);
/* Add a row of ncols strings (copied; NULL prints as "-"). */
void table_row(struct table *t, const char *const *cols);
/* Print with columns separated by two spaces, each line indented. */
void table_print(const struct table *t, FILE *out, const char *indent);
void table_free(struct table *t);

#endif
