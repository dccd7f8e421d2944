// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing the map file and CPU lists into masks. The CPU list syntax is
 * the kernel's own (bitmap_parselist(), the inverse of "%*pbl"); this
 * file only frames it: lines, queue names, blank lists, and the rules
 * that make a map write all or nothing. No locking, allocation or
 * device here: the caller owns every buffer.
 */
#include <linux/bitmap.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "maptext.h"

/*
 * A CPU list, up to its first newline or NUL, into mask (nr_cpus bits).
 * Blank means no CPU: said here, because bitmap_parselist() of 3.x
 * reads an empty list as CPU 0.
 */
int xps_steer_parse_cpulist(const char *list, unsigned long *mask,
			    unsigned int nr_cpus)
{
	const char *p = list;

	while (*p && *p != '\n' && isspace(*p))
		p++;
	if (!*p || *p == '\n') {
		bitmap_zero(mask, nr_cpus);
		return 0;
	}
	return bitmap_parselist(list, mask, (int)nr_cpus);
}

/* Blanks separate and surround fields; a newline ends a line. */
static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * "tx-<n>" as the directory is named (decimal, no sign, no leading
 * zero); returns the text after it, or NULL. Numbers too big for any
 * device saturate: the caller finds no such queue.
 */
static char *parse_queue(char *p, unsigned int *queue)
{
	unsigned int n = 0;

	if (strncmp(p, "tx-", 3))
		return NULL;
	p += 3;
	if (!isdigit(*p) || (*p == '0' && isdigit(p[1])))
		return NULL;
	for (; isdigit(*p); p++)
		if (n < 1000000)
			n = n * 10 + (unsigned int)(*p - '0');
	*queue = n;
	return p;
}

static int refuse(struct xps_steer_maptext_err *err, const char *why, int ret)
{
	err->why = why;
	return ret;
}

/*
 * Parse a map text, text[0..len) with text[len] == '\0' (it is cut into
 * lines in place), into next: the masks of all nr_queues queues, given
 * their masks now in cur (mask_longs longs each, nr_cpus bits used).
 * seen is scratch space for nr_queues bits.
 *
 * One "tx-<n> <cpulist>" per line, blanks around the fields ignored, as
 * are blank lines; "tx-<n>" alone is an empty mask, and so is every queue
 * the text does not name. Queues from active on (out of use: ethtool -L)
 * keep their masks, named or not, and a line may name one only with the
 * mask it has, so that a map read back can be written back.
 *
 * Returns 0, or the errno of the first bad line with err saying which
 * and why: EINVAL for anything but a CPU list, the list parser's errno
 * (EINVAL, ERANGE: a CPU at or above nr_cpus, EOVERFLOW) for a list, and
 * ENXIO for a new mask on a queue out of use. next is then undefined.
 */
int xps_steer_maptext_parse(char *text, size_t len, const unsigned long *cur,
			    unsigned long *next, unsigned long *seen,
			    unsigned int mask_longs, unsigned int nr_queues,
			    unsigned int active, unsigned int nr_cpus,
			    struct xps_steer_maptext_err *err)
{
	char *line, *eol, *p, *nl, *end = text + len;
	unsigned long *mask;
	unsigned int queue;
	int ret;

	memset(next, 0, (size_t)nr_queues * mask_longs * sizeof(*next));
	bitmap_zero(seen, nr_queues);
	err->line = 1;
	err->why = NULL;
	for (line = text; line < end; line = nl + 1, err->line++) {
		nl = memchr(line, '\n', end - line);
		if (!nl)
			nl = end;
		if (memchr(line, '\0', nl - line))
			return refuse(err, "NUL byte", -EINVAL);
		eol = nl;
		while (eol > line && blank(eol[-1]))
			eol--;
		*eol = '\0';
		while (blank(*line))
			line++;
		if (!*line)
			continue;

		p = parse_queue(line, &queue);
		if (!p || (*p && !blank(*p)))
			return refuse(err, "expected tx-<n> and a CPU list",
				      -EINVAL);
		if (queue >= nr_queues)
			return refuse(err, "no such queue", -EINVAL);
		if (test_bit(queue, seen))
			return refuse(err, "queue named twice", -EINVAL);
		__set_bit(queue, seen);
		while (blank(*p))
			p++;

		mask = next + (size_t)queue * mask_longs;
		ret = xps_steer_parse_cpulist(p, mask, nr_cpus);
		if (ret)
			return refuse(err, "bad CPU list", ret);
		if (queue >= active &&
		    !bitmap_equal(mask, cur + (size_t)queue * mask_longs,
				  nr_cpus))
			return refuse(err, "queue not in use, its mask cannot change",
				      -ENXIO);
	}

	for (queue = active; queue < nr_queues; queue++)
		bitmap_copy(next + (size_t)queue * mask_longs,
			    cur + (size_t)queue * mask_longs, nr_cpus);
	return 0;
}
