// SPDX-License-Identifier: GPL-2.0
/*
 * Probe xps_maps_typed: the kernel's XPS maps in dev->xps_maps[XPS_CPUS],
 *   each carrying the number of ids and traffic classes it was built for.
 * Kind: layout
 * Upstream: v5.13, "net: move the xps maps to an array" and "net: embed
 *   num_tc in the xps maps".
 * Layout: guard mode reads the map's own nr_ids and num_tc (compat.h);
 *   without it dev->xps_cpus_map or the single dev->xps_maps.
 */
#include <linux/netdevice.h>

static unsigned int __used xps_probe(struct net_device *dev)
{
	struct xps_dev_maps *maps = rcu_dereference_raw(dev->xps_maps[XPS_CPUS]);

	return maps->nr_ids + maps->num_tc +
	       !!rcu_dereference_raw(maps->attr_map[0]);
}
