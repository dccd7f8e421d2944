// SPDX-License-Identifier: GPL-2.0
/*
 * Probe kvcalloc: kvcalloc(n, size, flags).
 * Kind: fallback
 * Upstream: v4.18, "mm: Introduce kvcalloc()".
 * Fallback: kvzalloc() of n * size, checked for overflow.
 */
#include <linux/mm.h>
#include <linux/slab.h>

static void __used *xps_probe(size_t n)
{
	return kvcalloc(n, sizeof(long), GFP_KERNEL);
}
