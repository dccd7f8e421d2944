// SPDX-License-Identifier: GPL-2.0
/*
 * Probe reciprocal_scale: reciprocal_scale(val, ep_ro).
 * Kind: fallback
 * Upstream: v3.17, "net: introduce reciprocal_scale helper and convert users".
 * Fallback: the same multiply-and-shift, open-coded in compat.h.
 */
#include <linux/kernel.h>

static u32 __used xps_probe(u32 hash, u32 n)
{
	return reciprocal_scale(hash, n);
}
