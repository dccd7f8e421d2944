// SPDX-License-Identifier: GPL-2.0
/*
 * Probe select_queue_sb_dev: ndo_select_queue(dev, skb, sb_dev).
 * Kind: variant
 * Upstream: v5.2, "net: Remove fallback argument from ndo_select_queue()"; RHEL
 *   9, SLES 15 SP2.
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
		     struct net_device *sb_dev);

static int __used xps_probe(const struct net_device_ops *ops)
{
	return BUILD_BUG_ON_ZERO(!__same_type(ops->ndo_select_queue,
					      &xps_probe_select));
}
