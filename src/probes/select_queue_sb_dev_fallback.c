// SPDX-License-Identifier: GPL-2.0
/*
 * Probe select_queue_sb_dev_fallback: ndo_select_queue(dev, skb, sb_dev,
 *   fallback), fallback(dev, skb, sb_dev).
 * Kind: variant
 * Upstream: v4.19, "net: allow ndo_select_queue to pass netdev" and "net: allow
 *   fallback function to pass netdev"; RHEL 8.
 * Group: ndo_select_queue (required)
 *
 * A type comparison (BUILD_BUG_ON_ZERO fails to compile even in code that
 * is never emitted), so the answer does not depend on whether this
 * kernel's flags make incompatible pointer assignments an error.
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>

/* Declared only, to name the prototype of this variant. */
u16 xps_probe_select(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev,
		     select_queue_fallback_t fallback);

static int __used xps_probe(const struct net_device_ops *ops)
{
	return BUILD_BUG_ON_ZERO(!__same_type(ops->ndo_select_queue,
					      &xps_probe_select));
}
