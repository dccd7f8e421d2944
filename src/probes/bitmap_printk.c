// SPDX-License-Identifier: GPL-2.0
/*
 * Probe bitmap_printk: printk prints bitmaps with "%*pb" and CPU lists with
 *   "%*pbl" (a format string compiles either way, so this looks for
 *   cpumask_pr_args(), added in the same series).
 * Kind: legacy-fallback
 * Upstream: v4.0, "lib/vsprintf: implement bitmap printing through
 *   '%*pb[l]'" and "cpumask, nodemask: implement cpumask/nodemask_pr_args()".
 * Legacy fallback: bitmap_scnprintf() with a newline; bitmap_scnlistprintf()
 *   for lists.
 */
#include <linux/cpumask.h>
#include <linux/kernel.h>

static int __used xps_probe(char *buf, const struct cpumask *mask)
{
	return scnprintf(buf, 64, "%*pb\n", cpumask_pr_args(mask));
}
