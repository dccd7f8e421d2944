// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_maptext - libFuzzer harness for the map file and CPU-list parsers
 * (src/maptext.c, compiled unchanged against the shims in include/linux/,
 * whose bitmap_parselist() follows the kernel's v6.1 grammar).
 *
 * Every input is decoded into a device (nr_queues, active queues,
 * nr_cpus, the masks it has now) and a text written to its map file. The
 * module's parser is compared with a reference model written from the
 * documented rules (docs/usage.md), line by line and too plain to be
 * wrong:
 *
 *   lines are cut at '\n'; a line with a NUL byte is EINVAL; blanks
 *   (space, tab) around it are dropped, and a blank line is skipped;
 *   otherwise it is "tx-" + a decimal queue number without a leading
 *   zero, then the end or blanks and a CPU list (EINVAL otherwise); the
 *   queue must be below nr_queues and named once (EINVAL); a CPU list
 *   that is only white space is empty, anything else is what
 *   bitmap_parselist() makes of it (its errno on error); a queue at or
 *   above active may only be named with the mask it has (ENXIO); the
 *   first bad line decides the errno and the line number reported.
 *   Result: the named masks, every other active queue empty, every
 *   inactive queue as it was.
 *
 * Also checked: the current masks are never modified; a successful
 * result, printed back as a map ("tx-<n> <list>", ascending ranges),
 * parses to itself (read back, written back); the CPU-list parser on the
 * text's first line agrees with the model's. Any difference aborts (a
 * finding); AddressSanitizer catches any access outside the text (len + 1
 * bytes, the NUL included) or the masks, UBSan any overflow.
 *
 * Input layout:
 *   byte 0: nr_queues: 1 + b % 8, or if bit 7 is set 1 + (b & 0x7f)
 *   byte 1: active = b % (nr_queues + 1)
 *   byte 2: nr_cpus: 1 + b % 8, or if bit 7 is set 1 + (b & 0x7f)
 *   byte 3: seed of the current masks (0: all empty)
 *   the rest: the text (at most 8192 bytes)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bitmap.h>

#include "maptext.h"

static unsigned int nr_queues, active, nr_cpus, mask_longs;
static size_t text_len;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_maptext: FAIL: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);			\
			fprintf(stderr, " (nr_queues %u active %u nr_cpus %u, %zu bytes of text)\n", \
				nr_queues, active, nr_cpus, text_len);	\
			abort();					\
		}							\
	} while (0)

static unsigned long *qmask(unsigned long *masks, unsigned int q)
{
	return masks + (size_t)q * mask_longs;
}

/* The model's CPU list: white space alone is empty, else the kernel's. */
static int model_cpulist(const char *list, unsigned long *mask)
{
	const char *p;

	for (p = list; *p && *p != '\n'; p++)
		if (!isspace(*p))
			return bitmap_parselist(list, mask, (int)nr_cpus);
	bitmap_zero(mask, nr_cpus);
	return 0;
}

/* The reference model; returns the errno, *line the line it is for. */
static int model_parse(const char *text, size_t len, const unsigned long *cur,
		       unsigned long *out, unsigned int *line)
{
	unsigned char *seen = calloc(nr_queues, 1);
	char *buf = malloc(len + 1);
	size_t pos = 0, a, b, i;
	unsigned int q, digits;
	int ret = 0;

	CHECK(seen && buf, "out of memory");
	memset(out, 0, (size_t)nr_queues * mask_longs * sizeof(long));
	for (*line = 1; pos < len; (*line)++) {
		/* This line is text[pos .. b), b at its '\n' or at len. */
		for (b = pos; b < len && text[b] != '\n'; b++)
			;
		if (memchr(text + pos, '\0', b - pos)) {
			ret = -EINVAL;
			goto out;
		}
		a = pos;
		pos = b + 1;
		while (a < b && (text[a] == ' ' || text[a] == '\t'))
			a++;
		while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t'))
			b--;
		if (a == b)
			continue;
		memcpy(buf, text + a, b - a);
		buf[b - a] = '\0';

		if (strncmp(buf, "tx-", 3) != 0) {
			ret = -EINVAL;
			goto out;
		}
		q = 0;
		for (i = 3, digits = 0; buf[i] >= '0' && buf[i] <= '9'; i++, digits++)
			if (digits < 9)
				q = q * 10 + (unsigned int)(buf[i] - '0');
		if (!digits || (digits > 1 && buf[3] == '0') ||
		    (buf[i] && buf[i] != ' ' && buf[i] != '\t')) {
			ret = -EINVAL;
			goto out;
		}
		if (digits > 8 || q >= nr_queues || seen[q]) {
			ret = -EINVAL;
			goto out;
		}
		seen[q] = 1;
		while (buf[i] == ' ' || buf[i] == '\t')
			i++;
		ret = model_cpulist(buf + i, qmask(out, q));
		if (ret)
			goto out;
		if (q >= active) {
			for (i = 0; i < nr_cpus; i++)
				if (test_bit(i, qmask(out, q)) !=
				    test_bit(i, cur + (size_t)q * mask_longs)) {
					ret = -ENXIO;
					goto out;
				}
		}
	}
	for (q = active; q < nr_queues; q++)
		memcpy(qmask(out, q), cur + (size_t)q * mask_longs,
		       mask_longs * sizeof(long));
out:
	free(buf);
	free(seen);
	return ret;
}

/* masks printed as the module's map file prints them. */
static size_t print_map(char *buf, const unsigned long *masks)
{
	size_t len = 0;
	unsigned int q, c, e;

	for (q = 0; q < nr_queues; q++) {
		const unsigned long *m = masks + (size_t)q * mask_longs;
		const char *sep = " ";

		len += (size_t)sprintf(buf + len, "tx-%u", q);
		for (c = 0; c < nr_cpus; c = e + 1) {
			if (!test_bit(c, m)) {
				e = c;
				continue;
			}
			for (e = c; e + 1 < nr_cpus && test_bit(e + 1, m); e++)
				;
			if (e == c)
				len += (size_t)sprintf(buf + len, "%s%u", sep, c);
			else
				len += (size_t)sprintf(buf + len, "%s%u-%u", sep, c, e);
			sep = ",";
		}
		buf[len++] = '\n';
	}
	return len;
}

static void compare(const char *what, const unsigned long *got,
		    const unsigned long *want)
{
	unsigned int q, c;

	for (q = 0; q < nr_queues; q++)
		for (c = 0; c < nr_cpus; c++)
			CHECK(test_bit(c, got + (size_t)q * mask_longs) ==
			      test_bit(c, want + (size_t)q * mask_longs),
			      "%s: tx-%u CPU %u is %d, the model says %d", what, q, c,
			      test_bit(c, got + (size_t)q * mask_longs),
			      test_bit(c, want + (size_t)q * mask_longs));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long *cur, *saved, *next, *want, *seen, *mask1, *want1;
	struct xps_steer_maptext_err err;
	unsigned int line, i;
	uint64_t seed;
	size_t nlongs, plen;
	char *text, *printed;
	int ret, mret;

	if (size < 4 || size > 4 + 8192)
		return -1;	/* not an input: keep it out of the corpus */
	nr_queues = data[0] & 0x80 ? 1 + (data[0] & 0x7fu) : 1 + data[0] % 8u;
	active = data[1] % (nr_queues + 1);
	nr_cpus = data[2] & 0x80 ? 1 + (data[2] & 0x7fu) : 1 + data[2] % 8u;
	seed = data[3];
	mask_longs = (unsigned int)BITS_TO_LONGS(nr_cpus);
	text_len = size - 4;
	nlongs = (size_t)nr_queues * mask_longs;

	cur = calloc(nlongs, sizeof(long));
	saved = calloc(nlongs, sizeof(long));
	next = malloc(nlongs * sizeof(long));
	want = malloc(nlongs * sizeof(long));
	seen = malloc(BITS_TO_LONGS(nr_queues) * sizeof(long));
	mask1 = malloc(mask_longs * sizeof(long));
	want1 = malloc(mask_longs * sizeof(long));
	text = malloc(text_len + 1);	/* exactly: ASan sees any overrun */
	CHECK(cur && saved && next && want && seen && mask1 && want1 && text,
	      "out of memory");
	/* Current masks, bits above nr_cpus included: they must not leak. */
	for (i = 0; seed && i < nlongs * sizeof(long); i++) {
		seed = (seed * 1103515245u + 12345u) & 0xffffffffu;
		((uint8_t *)cur)[i] = (uint8_t)(seed >> 16) & (uint8_t)(seed >> 8);
	}
	memcpy(saved, cur, nlongs * sizeof(long));

	memcpy(text, data + 4, text_len);
	text[text_len] = '\0';
	mret = model_parse(text, text_len, cur, want, &line);
	ret = xps_steer_maptext_parse(text, text_len, cur, next, seen, mask_longs,
				      nr_queues, active, nr_cpus, &err);
	CHECK(memcmp(cur, saved, nlongs * sizeof(long)) == 0,
	      "the current masks were modified");
	CHECK(ret == mret, "returned %d, the model says %d (line %u)", ret, mret,
	      line);
	if (ret) {
		CHECK(err.line == line && err.why,
		      "error %d on line %u (%s), the model says line %u", ret,
		      err.line, err.why ? err.why : "no reason", line);
	} else {
		compare("map", next, want);

		/* Read back and written back: the same masks, no error. */
		printed = malloc((size_t)nr_queues * (16 + 12 * (size_t)nr_cpus) + 1);
		CHECK(printed, "out of memory");
		plen = print_map(printed, next);
		printed[plen] = '\0';
		ret = xps_steer_maptext_parse(printed, plen, next, want, seen,
					      mask_longs, nr_queues, active,
					      nr_cpus, &err);
		CHECK(ret == 0, "its own map printed back fails with %d on line %u (%s)",
		      ret, err.line, err.why ? err.why : "");
		compare("map written back", want, next);
		free(printed);
	}

	/* The CPU-list parser alone, on the original text. */
	memcpy(text, data + 4, text_len);
	text[text_len] = '\0';
	ret = xps_steer_parse_cpulist(text, mask1, nr_cpus);
	mret = model_cpulist(text, want1);
	CHECK(ret == mret, "cpulist: returned %d, the model says %d", ret, mret);
	if (!ret)
		for (i = 0; i < nr_cpus; i++)
			CHECK(test_bit(i, mask1) == test_bit(i, want1),
			      "cpulist: CPU %u is %d, the model says %d", i,
			      test_bit(i, mask1), test_bit(i, want1));

	free(text);
	free(want1);
	free(mask1);
	free(seen);
	free(want);
	free(next);
	free(saved);
	free(cur);
	return 0;
}
