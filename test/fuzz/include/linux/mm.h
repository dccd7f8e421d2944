/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for the fuzzer: kvzalloc()/kvfree() live in slab.h. */
#ifndef XPS_FUZZ_LINUX_MM_H
#define XPS_FUZZ_LINUX_MM_H

#include <linux/slab.h>

#endif
