// SPDX-License-Identifier: GPL-2.0
/*
 * Drivers whose devices we must never wrap: they recognise their own
 * devices by comparing dev->netdev_ops with their ops table, so a device
 * carrying our copy of the ops stops being theirs, with consequences
 * ranging from lost features to corrupted private data.
 */
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <net/rtnetlink.h>

#include "xps_steer.h"

struct xps_steer_denied {
	const char *driver;	/* bus driver name or rtnl_link_ops kind */
	const char *why;
};

static const struct xps_steer_denied xps_steer_denylist[] = {
	{ "ixgbe", "netif_is_ixgbe() in its RX path would treat the device as a macvlan" },
	{ "hv_netvsc", "VF pairing looks for its own netdev_ops" },
	{ "tun", "TUNSETIFF re-attach checks the netdev_ops pointer" },
	{ "team", "team devices are recognised by their netdev_ops" },
	{ "mlx5_core", "representor and TC tunnel offload checks" },
	{ "ice", "representor and TC offload checks" },
	{ "bnxt_en", "VF representor checks" },
	{ "sfc", "representor and TC offload checks" },
	{ "sfc_ef100", "representor and TC offload checks" },
	{ "mlxsw_spectrum", "switch port checks" },
	{ "mlxsw_spectrum2", "switch port checks" },
	{ "mlxsw_spectrum3", "switch port checks" },
	{ "mlxsw_spectrum4", "switch port checks" },
	{ "ipvlan", "ipvlan devices are recognised by their netdev_ops" },
	{ "ipvtap", "ipvlan devices are recognised by their netdev_ops" },
	{ "openvswitch", "internal ports are recognised by their netdev_ops" },
	{ "dsa", "DSA user ports are recognised by their netdev_ops" },
};

/* The driver name we match on: the bus driver, else the link kind. */
static const char *xps_steer_driver_name(const struct net_device *dev)
{
	const struct device *parent = dev->dev.parent;

	if (parent && parent->driver && parent->driver->name)
		return parent->driver->name;
	if (dev->rtnl_link_ops && dev->rtnl_link_ops->kind)
		return dev->rtnl_link_ops->kind;
	return NULL;
}

/*
 * True if dev must not be wrapped; *driver and *why then say which
 * driver and the reason, for the log line.
 */
bool xps_steer_denied(const struct net_device *dev, const char **driver,
		      const char **why)
{
	const char *name = xps_steer_driver_name(dev);
	unsigned int i;

	if (!name)
		return false;
	for (i = 0; i < ARRAY_SIZE(xps_steer_denylist); i++) {
		if (!strcmp(name, xps_steer_denylist[i].driver)) {
			*driver = xps_steer_denylist[i].driver;
			*why = xps_steer_denylist[i].why;
			return true;
		}
	}
	return false;
}
