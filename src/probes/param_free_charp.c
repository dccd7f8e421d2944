// SPDX-License-Identifier: GPL-2.0
/*
 * Probe param_free_charp: the charp parameter type's free function,
 *   callable by modules.
 * Kind: fallback
 * Upstream: v4.2, "module: export param_free_charp()"; static in
 *   kernel/params.c before (RHEL 7).
 * Fallback: the same function through param_ops_charp.free, which every
 *   kernel exports.
 */
#include <linux/moduleparam.h>

static void __used xps_probe(void *arg)
{
	param_free_charp(arg);
}
