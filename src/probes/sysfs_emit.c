// SPDX-License-Identifier: GPL-2.0
/*
 * Probe sysfs_emit: sysfs_emit(buf, fmt, ...).
 * Kind: fallback
 * Upstream: v5.10, "sysfs: Add sysfs_emit and sysfs_emit_at to format sysfs
 *   output".
 * Fallback: scnprintf() into the PAGE_SIZE sysfs buffer.
 */
#include <linux/sysfs.h>

static int __used xps_probe(char *buf)
{
	return sysfs_emit(buf, "%d\n", 1);
}
