// SPDX-License-Identifier: GPL-2.0
/*
 * Probe legacy_netdev_pick_tx: u16 __netdev_pick_tx(dev, skb), exported
 *   while ndo_select_queue had no fallback argument.
 * Kind: dependency
 * Upstream: exported in v3.9 to v3.13; the v3.14 fallback argument replaced
 *   it ("netdevice: add queue selection fallback handler for
 *   ndo_select_queue"). RHEL 7.0 to 7.2 declare it.
 * Needed by: select_queue_accel, select_queue_plain
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>

/* Declared only, to name the expected type. */
u16 xps_probe_pick(struct net_device *dev, struct sk_buff *skb);

static int __used xps_probe(void)
{
	return BUILD_BUG_ON_ZERO(!__same_type(&__netdev_pick_tx, &xps_probe_pick));
}
