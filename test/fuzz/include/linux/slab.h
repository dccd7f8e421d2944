/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the fuzzer: kvzalloc()/kvfree() on calloc()/free(),
 * with the kernel's refusal of sizes above INT_MAX (a WARN there, an
 * abort here) and allocation failure injection, so the ERR_PTR(-ENOMEM)
 * path runs. The harness (fuzz_map.c) defines the state below. Like the
 * kernel's (4.18+), it also provides struct_size() and friends.
 */
#ifndef XPS_FUZZ_LINUX_SLAB_H
#define XPS_FUZZ_LINUX_SLAB_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/overflow.h>

#define GFP_KERNEL	0u

/* Set by the harness: fail the next allocation. */
extern int fuzz_fail_next_alloc;
/* Recorded for the harness: size of the last successful allocation. */
extern size_t fuzz_last_alloc_size;

static inline void *kvzalloc(size_t size, unsigned int flags)
{
	void *p;

	(void)flags;
	if (size > INT_MAX) {
		fprintf(stderr, "kvzalloc(%zu): above INT_MAX, the kernel would WARN\n",
			size);
		abort();
	}
	if (fuzz_fail_next_alloc) {
		fuzz_fail_next_alloc = 0;
		return NULL;
	}
	p = calloc(1, size ? size : 1);
	if (p)
		fuzz_last_alloc_size = size;
	return p;
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

#endif
