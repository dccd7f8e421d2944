// SPDX-License-Identifier: GPL-2.0
/*
 * Probe netdev_pick_tx: u16 netdev_pick_tx(dev, skb, sb_dev), the exported
 *   XPS-or-hash helper. Before 5.2 a function of that name is the core
 *   selector that calls ndo_select_queue: calling it from the hook would
 *   recurse, so the type is compared, not just the name.
 * Kind: dependency
 * Upstream: v5.2, "packet: rework packet_pick_tx_queue() to use common code
 *   selection".
 * Needed by: select_queue_sb_dev (the stock selection to fall back to)
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>

/* Declared only, to name the expected type. */
u16 xps_probe_pick(struct net_device *dev, struct sk_buff *skb,
		   struct net_device *sb_dev);

static int __used xps_probe(void)
{
	return BUILD_BUG_ON_ZERO(!__same_type(&netdev_pick_tx, &xps_probe_pick));
}
