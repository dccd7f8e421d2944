// SPDX-License-Identifier: GPL-2.0
/*
 * Probe netdev_txq_to_tc: netdev_txq_to_tc(), and with it an XPS map
 *   indexed by CPU and traffic class.
 * Kind: layout
 * Upstream: v4.10, "net: Add support for XPS with QoS via traffic classes".
 * Layout: without it the kernel's XPS map has one entry per CPU, and guard
 *   mode reads it so (compat.h).
 */
#include <linux/netdevice.h>

static int __used xps_probe(struct net_device *dev)
{
	return netdev_txq_to_tc(dev, 0);
}
