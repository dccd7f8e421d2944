/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the fuzzer: what src/names.c takes from the
 * kernel's <linux/netdevice.h>, IFNAMSIZ and dev_valid_name(), the latter
 * with the rules of the kernel's (v6.1, net/core/dev.c): not empty,
 * shorter than IFNAMSIZ, not "." or "..", no '/', ':' or white space (the
 * kernel's isspace(), see ctype.h).
 */
#ifndef XPS_FUZZ_LINUX_NETDEVICE_H
#define XPS_FUZZ_LINUX_NETDEVICE_H

#include <stdbool.h>
#include <string.h>

#include <linux/ctype.h>

#define IFNAMSIZ	16

static inline bool dev_valid_name(const char *name)
{
	if (*name == '\0')
		return false;
	if (strnlen(name, IFNAMSIZ) == IFNAMSIZ)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (; *name; name++)
		if (*name == '/' || *name == ':' || isspace(*name))
			return false;
	return true;
}

#endif
