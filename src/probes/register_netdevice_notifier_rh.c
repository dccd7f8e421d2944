// SPDX-License-Identifier: GPL-2.0
/*
 * Probe register_netdevice_notifier_rh: RHEL 7 keeps the 3.10 notifier
 *   ABI (the callback gets the net_device itself) and offers the info
 *   struct only through register_netdevice_notifier_rh(); it still
 *   declares netdev_notifier_info_to_dev(), which would then misread.
 * Kind: layout
 * Upstream: none (RHEL 7 only); mainline switched in v3.11, "net: pass
 *   info struct via netdevice notifier".
 * Layout: the notifier argument is the device (see compat.h).
 */
#include <linux/netdevice.h>

static int __used xps_probe(struct notifier_block *nb)
{
	return register_netdevice_notifier_rh(nb);
}
