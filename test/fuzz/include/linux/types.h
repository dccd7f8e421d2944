/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the fuzzer: just the types src/map.h and src/map.c
 * use, with the kernel's sizes. Not a general <linux/types.h>.
 */
#ifndef XPS_FUZZ_LINUX_TYPES_H
#define XPS_FUZZ_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint16_t u16;
typedef uint32_t u32;

/* Only embedded in struct xps_steer_map; never used by map.c. */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

#endif
