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

/* Each entry was found comparing dev->netdev_ops with its own ops (6.x). */
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
	{ "nfp", "nfp_netdev_is_nfp_net() and representor checks" },
	{ "nfp_netvf", "nfp_netdev_is_nfp_net() checks" },
	{ "qlcnic", "is_qlcnic_netdev() checks" },
	{ "am65-cpsw-nuss", "switch port checks" },
	{ "cpsw-switch", "switch port checks" },
	{ "sparx5-switch", "switch port checks" },
	{ "lan966x-switch", "switch port checks" },
	{ "ocelot-switch", "switch port checks" },
	{ "dpaa2-switch", "switch port checks" },
	{ "rocker", "switch port checks" },
	{ "Prestera DX", "switch port checks" },
	{ "ipvlan", "ipvlan devices are recognised by their netdev_ops" },
	{ "ipvtap", "ipvlan devices are recognised by their netdev_ops" },
	{ "openvswitch", "internal ports are recognised by their netdev_ops" },
	{ "dsa", "DSA user ports are recognised by their netdev_ops" },
};

static const struct xps_steer_denied *xps_steer_denied_name(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(xps_steer_denylist); i++)
		if (!strcmp(name, xps_steer_denylist[i].driver))
			return &xps_steer_denylist[i];
	return NULL;
}

/*
 * True if dev must not be wrapped; *driver and *why then say which
 * driver and the reason, for the log line. Both the bus driver and the
 * link kind are checked: a DSA user port has the switch chip's driver
 * as its parent and "dsa" as its kind.
 */
bool xps_steer_denied(const struct net_device *dev, const char **driver,
		      const char **why)
{
	const struct device *parent = dev->dev.parent;
	const struct xps_steer_denied *entry = NULL;

	if (parent && parent->driver)
		entry = xps_steer_denied_name(parent->driver->name);
	if (!entry && dev->rtnl_link_ops)
		entry = xps_steer_denied_name(dev->rtnl_link_ops->kind);
	if (!entry)
		return false;
	*driver = entry->driver;
	*why = entry->why;
	return true;
}
