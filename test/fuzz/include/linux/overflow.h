/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the fuzzer: the saturating size helpers of the
 * kernel's <linux/overflow.h>. Any overflow gives SIZE_MAX, which no
 * allocator satisfies.
 */
#ifndef XPS_FUZZ_LINUX_OVERFLOW_H
#define XPS_FUZZ_LINUX_OVERFLOW_H

#include <stddef.h>
#include <stdint.h>

static inline size_t size_add(size_t a, size_t b)
{
	size_t sum;

	return __builtin_add_overflow(a, b, &sum) ? SIZE_MAX : sum;
}

static inline size_t size_mul(size_t a, size_t b)
{
	size_t prod;

	return __builtin_mul_overflow(a, b, &prod) ? SIZE_MAX : prod;
}

#define array_size(a, b)	size_mul(a, b)

/* sizeof(*p) plus count elements of its flexible array member. */
#define struct_size(p, member, count) \
	size_add(sizeof(*(p)), size_mul(count, sizeof(*(p)->member)))

#endif
