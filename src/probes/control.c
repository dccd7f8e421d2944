// SPDX-License-Identifier: GPL-2.0
/*
 * Probe control: kernel headers and this compiler build a trivial module file.
 * Kind: control
 * Upstream: none: guards against a toolchain on which every probe would fail.
 * Control: must compile, or the toolchain cannot build probes at all
 */
#include <linux/module.h>
#include <linux/netdevice.h>

static unsigned int __used xps_probe(const struct net_device *dev)
{
	return dev->num_tx_queues;
}
