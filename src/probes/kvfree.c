// SPDX-License-Identifier: GPL-2.0
/*
 * Probe kvfree: kvfree(ptr).
 * Kind: fallback
 * Upstream: v3.15, "nick kvfree() from apparmor".
 * Fallback: vfree() or kfree(), by is_vmalloc_addr().
 */
#include <linux/mm.h>
#include <linux/slab.h>

static void __used xps_probe(void *ptr)
{
	kvfree(ptr);
}
