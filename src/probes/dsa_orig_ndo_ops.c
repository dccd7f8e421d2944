// SPDX-License-Identifier: GPL-2.0
/*
 * Probe dsa_orig_ndo_ops: struct dsa_port has orig_ndo_ops: DSA gives
 *   its master a copy of the master's net_device_ops and puts the saved
 *   pointer back at teardown (dsa_master_ndo_setup() and _teardown()).
 * Kind: layout
 * Upstream: from da7b9e9b00d4, "net: dsa: Add ndo_get_phys_port_name() for
 *   CPU port", up to v5.8; v5.9 removed it ("net: dsa: Setup
 *   dsa_netdev_ops").
 * Layout: DSA masters are refused (denylist.c), with CONFIG_NET_DSA: the
 *   two copies would undo each other. Without it masters can be attached.
 */
#include <linux/stddef.h>
#include <net/dsa.h>

static size_t __used xps_probe(void)
{
	return offsetof(struct dsa_port, orig_ndo_ops);
}
