/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for the fuzzer: the kernel's ERR_PTR encoding. */
#ifndef XPS_FUZZ_LINUX_ERR_H
#define XPS_FUZZ_LINUX_ERR_H

#include <errno.h>
#include <stdbool.h>

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}

#endif
