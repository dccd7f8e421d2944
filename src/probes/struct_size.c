// SPDX-License-Identifier: GPL-2.0
/*
 * Probe struct_size: struct_size() and array_size() from linux/overflow.h.
 * Kind: fallback
 * Upstream: v4.18, "overflow.h: Add allocation size calculation helpers".
 * Fallback: plain multiplication and addition (our sizes are bounded by NR_CPUS
 *   and 65536 queues).
 */
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/types.h>

struct xps_probe_obj {
	int n;
	u16 items[];
};

static size_t __used xps_probe(const struct xps_probe_obj *obj, size_t n)
{
	return struct_size(obj, items, n) + array_size(n, sizeof(u16));
}
