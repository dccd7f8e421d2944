// SPDX-License-Identifier: GPL-2.0
/*
 * Probe bitmap_alloc: bitmap_alloc(nbits, flags) and bitmap_free(map).
 * Kind: fallback
 * Upstream: v4.19, "bitmap: Add bitmap_alloc(), bitmap_zalloc() and
 *   bitmap_free()".
 * Fallback: kmalloc_array() of BITS_TO_LONGS(nbits) longs, and kfree().
 */
#include <linux/bitmap.h>
#include <linux/slab.h>

static void __used xps_probe(unsigned int nbits)
{
	bitmap_free(bitmap_alloc(nbits, GFP_KERNEL));
}
