/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for the fuzzer: memchr(), memset(), strncmp() from libc. */
#ifndef XPS_FUZZ_LINUX_STRING_H
#define XPS_FUZZ_LINUX_STRING_H

#include <string.h>
#include <strings.h>

#endif
