/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the fuzzer: the kernel's <linux/ctype.h> for the
 * characters src/maptext.c asks about. Not libc's: the kernel's isspace()
 * also takes 0xa0 (Latin-1 no-break space), whatever the locale.
 */
#ifndef XPS_FUZZ_LINUX_CTYPE_H
#define XPS_FUZZ_LINUX_CTYPE_H

#include <stdbool.h>

static inline bool xps_fuzz_isspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

#define isspace(c)	xps_fuzz_isspace((unsigned char)(c))
#define isdigit(c)	('0' <= (c) && (c) <= '9')

#endif
