/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the fuzzer: the bitmap helpers src/map.c uses, with
 * the kernel's semantics (only bits below nbits/size count), a word at a
 * time like lib/find_bit.c and lib/bitmap.c. The fuzzer's reference model
 * tests bit by bit, so it checks these too.
 */
#ifndef XPS_FUZZ_LINUX_BITMAP_H
#define XPS_FUZZ_LINUX_BITMAP_H

#include <limits.h>
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

#endif
