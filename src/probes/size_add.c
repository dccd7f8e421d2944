// SPDX-License-Identifier: GPL-2.0
/*
 * Probe size_add: size_add(a, b), saturating at SIZE_MAX.
 * Kind: fallback
 * Upstream: v5.18, "overflow: Implement size_t saturating arithmetic helpers".
 * Fallback: plain addition.
 */
#include <linux/kernel.h>
#include <linux/overflow.h>

static size_t __used xps_probe(size_t a, size_t b)
{
	return size_add(a, b);
}
