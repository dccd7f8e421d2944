// SPDX-License-Identifier: GPL-2.0
/*
 * Probe select_queue_plain: ndo_select_queue(dev, skb).
 * Kind: variant
 * Upstream: v2.6.27 to v3.12; RHEL 7.0 to 7.2.
 * Group: ndo_select_queue (required)
 *
 * A type comparison (BUILD_BUG_ON_ZERO fails to compile even in code that
 * is never emitted), so the answer does not depend on whether this
 * kernel's flags make incompatible pointer assignments an error.
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>

/* Declared only, to name the prototype of this variant. */
u16 xps_probe_select(struct net_device *dev, struct sk_buff *skb);

static int __used xps_probe(const struct net_device_ops *ops)
{
	return BUILD_BUG_ON_ZERO(!__same_type(ops->ndo_select_queue,
					      &xps_probe_select));
}
