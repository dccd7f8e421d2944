/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the fuzzer: the bitmap helpers src/map.c and
 * src/maptext.c use, with the kernel's semantics (only bits below
 * nbits/size count), a word at a time like lib/find_bit.c and
 * lib/bitmap.c. The fuzzers' reference models test bit by bit, so they
 * check these too.
 *
 * bitmap_parselist() is the kernel's CPU-list parser, which maptext.c
 * only frames: this one follows v6.1's grammar and errnos (comma or
 * space separated regions "a", "a-b", "a-b:used/group", "N" for the last
 * bit, "all"; EINVAL, ERANGE for a bit at or above nbits, EOVERFLOW for a
 * number above UINT_MAX), so that the framing is fuzzed against a parser
 * that accepts and refuses what the kernel's does.
 */
#ifndef XPS_FUZZ_LINUX_BITMAP_H
#define XPS_FUZZ_LINUX_BITMAP_H

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <linux/ctype.h>
#include <linux/types.h>

#define BITS_PER_LONG		(CHAR_BIT * sizeof(long))
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

/* The first set bit at or after offset, or size if there is none. */
static inline unsigned long find_next_bit(const unsigned long *addr,
					  unsigned long size,
					  unsigned long offset)
{
	unsigned long idx, word, bit;

	if (offset >= size)
		return size;
	idx = offset / BITS_PER_LONG;
	word = addr[idx] & ~((1UL << (offset % BITS_PER_LONG)) - 1);
	while (!word) {
		if (++idx * BITS_PER_LONG >= size)
			return size;
		word = addr[idx];
	}
	bit = idx * BITS_PER_LONG + (unsigned long)__builtin_ctzl(word);
	return bit < size ? bit : size;
}

/* As in the kernel's <linux/find.h>. */
#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; (bit) = find_next_bit((addr), (size), (bit)), \
	     (bit) < (size); (bit)++)

static inline unsigned int bitmap_weight(const unsigned long *src,
					 unsigned int nbits)
{
	unsigned int i, weight = 0;

	for (i = 0; i < nbits / BITS_PER_LONG; i++)
		weight += (unsigned int)__builtin_popcountl(src[i]);
	if (nbits % BITS_PER_LONG)
		weight += (unsigned int)__builtin_popcountl(src[i] &
			(~0UL >> (BITS_PER_LONG - nbits % BITS_PER_LONG)));
	return weight;
}

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(long));
}

static inline void bitmap_copy(unsigned long *dst, const unsigned long *src,
			       unsigned int nbits)
{
	memcpy(dst, src, BITS_TO_LONGS(nbits) * sizeof(long));
}

static inline bool bitmap_equal(const unsigned long *a, const unsigned long *b,
				unsigned int nbits)
{
	unsigned int i;

	for (i = 0; i < nbits / BITS_PER_LONG; i++)
		if (a[i] != b[i])
			return false;
	if (nbits % BITS_PER_LONG)
		return !((a[i] ^ b[i]) &
			 (~0UL >> (BITS_PER_LONG - nbits % BITS_PER_LONG)));
	return true;
}

/* bitmap_parselist(), v6.1's grammar (see above). */
static inline bool xps_fuzz_end_of_str(char c)
{
	return c == '\0' || c == '\n';
}

static inline bool xps_fuzz_region_sep(char c)
{
	return isspace(c) || c == ',';
}

static inline bool xps_fuzz_end_of_region(char c)
{
	return xps_fuzz_region_sep(c) || xps_fuzz_end_of_str(c);
}

/* A decimal number or "N"; NULL with *err set if there is none. */
static inline const char *xps_fuzz_getnum(const char *s, unsigned int *num,
					  unsigned int lastbit, int *err)
{
	unsigned long long n = 0;
	const char *start = s;
	bool big = false;

	if (*s == 'N') {
		*num = lastbit;
		return s + 1;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (unsigned long long)(*s - '0');
		if (n > UINT_MAX) {
			big = true;
			n = UINT_MAX;	/* no wrap: stays "too big" */
		}
	}
	if (s == start) {
		*err = -EINVAL;
		return NULL;
	}
	if (big) {
		*err = -EOVERFLOW;
		return NULL;
	}
	*num = (unsigned int)n;
	return s;
}

static inline int bitmap_parselist(const char *buf, unsigned long *maskp,
				   int nmaskbits)
{
	unsigned int nbits = (unsigned int)nmaskbits, lastbit = nbits - 1;
	unsigned int start, end, used, group, b;
	int err = 0;

	bitmap_zero(maskp, nbits);
	for (;;) {
		while (xps_fuzz_region_sep(*buf))
			buf++;
		if (xps_fuzz_end_of_str(*buf))
			return 0;
		if (!strncasecmp(buf, "all", 3)) {
			start = 0;
			end = lastbit;
			buf += 3;
		} else {
			buf = xps_fuzz_getnum(buf, &start, lastbit, &err);
			if (!buf)
				return err;
			end = start;
			if (*buf == '-') {
				buf = xps_fuzz_getnum(buf + 1, &end, lastbit, &err);
				if (!buf)
					return err;
			} else if (!xps_fuzz_end_of_region(*buf)) {
				return -EINVAL;
			}
		}
		/* As v6.1: 4294967295 makes a group of 0, hence EINVAL. */
		used = group = end == UINT_MAX ? 0 : end + 1;
		if (!xps_fuzz_end_of_region(*buf)) {
			if (*buf != ':')
				return -EINVAL;
			buf = xps_fuzz_getnum(buf + 1, &used, lastbit, &err);
			if (!buf)
				return err;
			if (*buf != '/')
				return -EINVAL;
			buf = xps_fuzz_getnum(buf + 1, &group, lastbit, &err);
			if (!buf)
				return err;
			/* v6.1 checks nothing after the group length here. */
		}
		if (start > end || group == 0 || used > group)
			return -EINVAL;
		if (end >= nbits)
			return -ERANGE;
		for (b = start; b <= end; b++)
			if ((b - start) % group < used)
				__set_bit(b, maskp);
	}
}

#endif
