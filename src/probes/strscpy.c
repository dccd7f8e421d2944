// SPDX-License-Identifier: GPL-2.0
/*
 * Probe strscpy: strscpy(dest, src, count).
 * Kind: fallback
 * Upstream: v4.3, "string: provide strscpy()".
 * Fallback: strlcpy().
 */
#include <linux/string.h>

static ssize_t __used xps_probe(char *dst, const char *src)
{
	return strscpy(dst, src, 16);
}
