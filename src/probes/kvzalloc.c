// SPDX-License-Identifier: GPL-2.0
/*
 * Probe kvzalloc: kvzalloc(size, flags).
 * Kind: fallback
 * Upstream: v4.12, "mm: introduce kv[mz]alloc helpers".
 * Fallback: kzalloc() with __GFP_NOWARN, then vzalloc().
 */
#include <linux/mm.h>
#include <linux/slab.h>

static void __used *xps_probe(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}
