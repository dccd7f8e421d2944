// SPDX-License-Identifier: GPL-2.0
/*
 * Probe ndo_size: RHEL 7.3+ net_device_ops: ndo_size, the size the driver
 *   was built with, then the "extended" part that only exists up to it.
 * Kind: layout
 * Upstream: none (RHEL 7 kABI: RH_KABI_USE_P(16, size_t ndo_size),
 *   RH_KABI_EXTEND(struct net_device_ops_extended extended)).
 * Layout: copied up to ndo_size (see xps_steer_copy_ops() in compat.h).
 */
#include <linux/netdevice.h>
#include <linux/stddef.h>

static size_t __used xps_probe(const struct net_device_ops *ops)
{
	return ops->ndo_size + offsetof(struct net_device_ops, extended);
}
