// SPDX-License-Identifier: GPL-2.0
/*
 * Probe xps_cpus_map: the kernel's CPU map in dev->xps_cpus_map, indexed
 *   by CPU and traffic class through attr_map[].
 * Kind: layout
 * Upstream: v4.18, "net: Refactor XPS for CPUs and Rx queues".
 * Layout: guard mode reads dev->xps_cpus_map (compat.h); before it the
 *   single dev->xps_maps with cpu_map[].
 */
#include <linux/netdevice.h>

static bool __used xps_probe(struct net_device *dev)
{
	struct xps_dev_maps *maps = rcu_dereference_raw(dev->xps_cpus_map);

	return rcu_dereference_raw(maps->attr_map[0]);
}
