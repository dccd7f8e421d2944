// SPDX-License-Identifier: GPL-2.0
/*
 * Probe kvfree_rcu: kvfree_rcu(ptr, rhf) for kvmalloc()ed memory.
 * Kind: fallback
 * Upstream: v5.9, "rcu: Introduce kvfree_rcu() interface".
 * Fallback: call_rcu() with a callback that kvfree()s (the writer never
 *   sleeps; module exit waits for the callbacks with rcu_barrier()).
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>

struct xps_probe_obj {
	struct rcu_head rcu;
};

static void __used xps_probe(struct xps_probe_obj *obj)
{
	kvfree_rcu(obj, rcu);
}
