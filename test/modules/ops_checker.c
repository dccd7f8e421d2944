// SPDX-License-Identifier: GPL-2.0
/*
 * ops_checker - a test-only module: a driver that compares
 * dev->netdev_ops with its own table on an observable path, as some
 * drivers (mlx5, ixgbe, ...) do, which is why those are on xps_steer's
 * denylist for steer mode: the ops copy steer mode installs makes such a
 * comparison false (never packaged, never built by DKMS).
 *
 * modprobe ops_checker creates "opsc0": 4 tx queues, no ndo_select_queue
 * of its own. Its ndo_start_xmit checks that dev->netdev_ops is still
 * &ops_checker_netdev_ops, counts the frames for which it is not (and
 * logs the first), then frees the frame as dummy does.
 *
 * Module parameters (/sys/module/ops_checker/parameters/), read-only:
 *   ops_mismatch  frames transmitted while dev->netdev_ops was not ours.
 *   tx_packets    frames transmitted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#define OPSC_NQ	4

static struct net_device *opsc_dev;
static atomic_long_t mismatches;
static atomic_long_t packets;

static const struct net_device_ops ops_checker_netdev_ops;

static netdev_tx_t ops_checker_xmit(struct sk_buff *skb, struct net_device *dev)
{
	atomic_long_inc(&packets);
	if (READ_ONCE(dev->netdev_ops) != &ops_checker_netdev_ops) {
		atomic_long_inc(&mismatches);
		pr_warn_once("%s: dev->netdev_ops is not this driver's table\n",
			     dev->name);
	}
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops ops_checker_netdev_ops = {
	.ndo_start_xmit		= ops_checker_xmit,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

static int counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = {
	.get = counter_get,
};

module_param_cb(ops_mismatch, &counter_ops, &mismatches, 0444);
MODULE_PARM_DESC(ops_mismatch, "frames transmitted while dev->netdev_ops was not this driver's");
module_param_cb(tx_packets, &counter_ops, &packets, 0444);
MODULE_PARM_DESC(tx_packets, "frames transmitted");

static void ops_checker_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &ops_checker_netdev_ops;
	dev->needs_free_netdev = true;
	dev->flags |= IFF_NOARP;
	dev->flags &= ~IFF_MULTICAST;
	dev->priv_flags |= IFF_NO_QUEUE;
	eth_hw_addr_random(dev);
}

static int __init ops_checker_init(void)
{
	struct net_device *dev;
	int err;

	dev = alloc_netdev_mqs(0, "opsc0", NET_NAME_ENUM, ops_checker_setup,
			       OPSC_NQ, 1);
	if (!dev)
		return -ENOMEM;
	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	opsc_dev = dev;
	return 0;
}

static void __exit ops_checker_exit(void)
{
	rtnl_lock();
	unregister_netdevice(opsc_dev);
	opsc_dev = NULL;
	rtnl_unlock();
}

module_init(ops_checker_init);
module_exit(ops_checker_exit);

MODULE_DESCRIPTION("Test only: a device whose xmit compares dev->netdev_ops with its own table");
MODULE_LICENSE("GPL");
