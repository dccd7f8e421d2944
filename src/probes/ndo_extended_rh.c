// SPDX-License-Identifier: GPL-2.0
/*
 * Probe ndo_extended_rh: RHEL 8+ net_device_ops end with
 *   RH_KABI_AUX_EMBED(net_device_ops_extended): a size field, then an
 *   "_rh" part that only exists up to that size.
 * Kind: layout
 * Upstream: none (RHEL 8 kABI, include/linux/rh_kabi.h).
 * Layout: copied up to the size field's value (see xps_steer_copy_ops()).
 */
#include <linux/netdevice.h>
#include <linux/stddef.h>

static size_t __used xps_probe(const struct net_device_ops *ops)
{
	return ops->net_device_ops_extended_size_rh +
	       offsetof(struct net_device_ops, _rh);
}
