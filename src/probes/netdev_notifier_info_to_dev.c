// SPDX-License-Identifier: GPL-2.0
/*
 * Probe netdev_notifier_info_to_dev: netdev_notifier_info_to_dev(ptr).
 * Kind: fallback
 * Upstream: v3.11, "net: pass info struct via netdevice notifier".
 * Fallback: the notifier argument is the net_device itself (before v3.11).
 */
#include <linux/netdevice.h>

static struct net_device __used *xps_probe(void *ptr)
{
	return netdev_notifier_info_to_dev(ptr);
}
