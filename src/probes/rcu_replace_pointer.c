// SPDX-License-Identifier: GPL-2.0
/*
 * Probe rcu_replace_pointer: rcu_replace_pointer(rcu_ptr, ptr, c).
 * Kind: fallback
 * Upstream: v5.5, "rcu: Upgrade rcu_swap_protected() to rcu_replace_pointer()".
 * Fallback: rcu_dereference_protected() then rcu_assign_pointer(), as the macro
 *   does.
 */
#include <linux/rcupdate.h>

static int __rcu *xps_probe_ptr;

static int __used *xps_probe(int *new)
{
	return rcu_replace_pointer(xps_probe_ptr, new, true);
}
