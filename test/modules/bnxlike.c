// SPDX-License-Identifier: GPL-2.0
/*
 * bnxlike - a test-only module: a software multiqueue device shaped like
 * bnx2x, as xps_steer's guard-mode tests need one (never packaged, never
 * built by DKMS).
 *
 * modprobe bnxlike creates "bnx0": BNXLIKE_NQ regular tx queues and one
 * special last queue (real_num_tx_queues = BNXLIKE_NQ + 1), as bnx2x has
 * its FCoE ring. Its own ndo_select_queue does what bnx2x_select_queue()
 * does: frames of one ethertype go to the special last queue, every other
 * frame to netdev_pick_tx(dev, skb, NULL) % (real_num_tx_queues - 1), so
 * the kernel's XPS map still decides the regular queue. The special
 * ethertype is 0x88b5 (IEEE 802 local experimental ethertype 1), which no
 * stack of the guest sends. ndo_start_xmit counts the frame and frees it,
 * as dummy does.
 *
 * Module parameters (/sys/module/bnxlike/parameters/):
 *   reload       write 1: what bnx2x's unload/load does to XPS, under
 *                rtnl: the device closed if up, netdev_reset_tc() (in
 *                6.1 this wipes the whole XPS map), real_num_tx_queues
 *                set to BNXLIKE_NQ - 1 + 1 and back, the device opened
 *                again if it was up. Safe under traffic.
 *   default_map  write 1: the driver's own default map, as mlx4 and gve
 *                write on open: queue q gets CPU q % nr_cpu_ids, for
 *                each regular queue, under rtnl.
 *   map_on_open  write 1: ndo_open writes that default map, as mlx4's
 *                and gve's do, on every open (and so on every reload of
 *                a device that was up); 0 stops it.
 *   fight_ms     write N > 0: a driver's reset loop (gve's resets, mlx4's
 *                restarts): the default map written again every N ms
 *                from a work item, under rtnl and with no event, until
 *                0 is written. Reads N.
 *   special_tx   (read-only) frames transmitted on the special queue.
 *   tx_counts    (read-only) frames transmitted per queue, "n0 n1 ...".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>

#define BNXLIKE_NQ		4	/* regular tx queues */
#define BNXLIKE_TXQ		(BNXLIKE_NQ + 1)
#define BNXLIKE_ETH_P_SPECIAL	0x88b5	/* local experimental ethertype 1 */

static struct net_device *bnx_dev;
static atomic_long_t tx_count[BNXLIKE_TXQ];

static netdev_tx_t bnxlike_xmit(struct sk_buff *skb, struct net_device *dev)
{
	u16 q = skb_get_queue_mapping(skb);

	if (q < BNXLIKE_TXQ)
		atomic_long_inc(&tx_count[q]);
	dev_lstats_add(dev, skb->len);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

/* bnx2x_select_queue()'s shape: the special frames to the last queue. */
static u16 bnxlike_select_queue(struct net_device *dev, struct sk_buff *skb,
				struct net_device *sb_dev)
{
	unsigned int n = dev->real_num_tx_queues;

	if (n > 1 && skb->protocol == htons(BNXLIKE_ETH_P_SPECIAL))
		return n - 1;
	if (n < 2)
		return 0;
	return netdev_pick_tx(dev, skb, NULL) % (n - 1);
}

static void bnxlike_get_stats64(struct net_device *dev,
				struct rtnl_link_stats64 *stats)
{
	dev_lstats_read(dev, &stats->tx_packets, &stats->tx_bytes);
}

static int bnxlike_dev_init(struct net_device *dev)
{
	dev->lstats = netdev_alloc_pcpu_stats(struct pcpu_lstats);
	return dev->lstats ? 0 : -ENOMEM;
}

static void bnxlike_dev_uninit(struct net_device *dev)
{
	free_percpu(dev->lstats);
}

static int write_default_map(struct net_device *dev)
{
	int q, err = 0;

	for (q = 0; q < BNXLIKE_NQ && !err; q++)
		err = netif_set_xps_queue(dev, cpumask_of(q % nr_cpu_ids), q);
	return err;
}

static int bnxlike_default_map(struct net_device *dev)
{
	int err = write_default_map(dev);

	pr_info("%s: default XPS map written (%d)\n", dev->name, err);
	return err;
}

static bool map_on_open;
module_param(map_on_open, bool, 0644);
MODULE_PARM_DESC(map_on_open, "write 1: ndo_open writes the driver's default XPS map, as mlx4 and gve");

/* Under rtnl, before NETDEV_UP: the window guard mode closes. */
static int bnxlike_open(struct net_device *dev)
{
	if (READ_ONCE(map_on_open))
		bnxlike_default_map(dev);
	return 0;
}

static const struct net_device_ops bnxlike_netdev_ops = {
	.ndo_init		= bnxlike_dev_init,
	.ndo_open		= bnxlike_open,
	.ndo_uninit		= bnxlike_dev_uninit,
	.ndo_start_xmit		= bnxlike_xmit,
	.ndo_select_queue	= bnxlike_select_queue,
	.ndo_get_stats64	= bnxlike_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

static void bnxlike_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &bnxlike_netdev_ops;
	dev->needs_free_netdev = true;
	dev->flags |= IFF_NOARP;
	dev->flags &= ~IFF_MULTICAST;
	dev->priv_flags |= IFF_NO_QUEUE;
	eth_hw_addr_random(dev);
}

/* Both actions under rtnl, with bnx_dev checked there (unload clears it). */
static int bnxlike_reload(struct net_device *dev)
{
	bool up;
	int err;

	up = netif_running(dev);
	if (up)
		dev_close(dev);
	netdev_reset_tc(dev);
	err = netif_set_real_num_tx_queues(dev, BNXLIKE_NQ);
	if (!err)
		err = netif_set_real_num_tx_queues(dev, BNXLIKE_TXQ);
	if (up && !err)
		err = dev_open(dev, NULL);
	pr_info("%s: reloaded (%d)\n", dev->name, err);
	return err;
}

/* fight_ms and bnx_dev are read and written under rtnl. */
static unsigned int fight_ms;
static void bnxlike_fight(struct work_struct *work);
static DECLARE_DELAYED_WORK(fight_work, bnxlike_fight);

/* One turn of the reset loop; not logged, it runs every few ms. */
static void bnxlike_fight(struct work_struct *work)
{
	rtnl_lock();
	if (bnx_dev && fight_ms) {
		write_default_map(bnx_dev);
		schedule_delayed_work(&fight_work, msecs_to_jiffies(fight_ms));
	}
	rtnl_unlock();
}

/* The loop stops by itself once fight_ms is 0: no cancel under rtnl. */
static int fight_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int err;

	err = kstrtouint(val, 0, &ms);
	if (err)
		return err;
	rtnl_lock();
	if (bnx_dev) {
		fight_ms = ms;
		if (ms)
			mod_delayed_work(system_wq, &fight_work, 0);
		pr_info("%s: fight_ms %u\n", bnx_dev->name, ms);
	} else {
		err = -ENODEV;
	}
	rtnl_unlock();
	return err;
}

static int fight_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(fight_ms));
}

static const struct kernel_param_ops fight_ops = {
	.set = fight_set,
	.get = fight_get,
};

static int action_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	if (!on)
		return 0;
	rtnl_lock();
	if (!bnx_dev)
		err = -ENODEV;
	else if (kp->arg)
		err = bnxlike_default_map(bnx_dev);
	else
		err = bnxlike_reload(bnx_dev);
	rtnl_unlock();
	return err;
}

static int action_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "0\n");
}

static const struct kernel_param_ops action_ops = {
	.set = action_set,
	.get = action_get,
};

static int special_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n",
			  atomic_long_read(&tx_count[BNXLIKE_TXQ - 1]));
}

static int counts_get(char *buf, const struct kernel_param *kp)
{
	int q, n = 0;

	for (q = 0; q < BNXLIKE_TXQ; q++)
		n += sysfs_emit_at(buf, n, "%s%ld", q ? " " : "",
				   atomic_long_read(&tx_count[q]));
	return n + sysfs_emit_at(buf, n, "\n");
}

static const struct kernel_param_ops special_ops = {
	.get = special_get,
};

static const struct kernel_param_ops counts_ops = {
	.get = counts_get,
};

module_param_cb(reload, &action_ops, NULL, 0644);
MODULE_PARM_DESC(reload, "write 1: reset the tc and XPS state and the queue count, as bnx2x's unload/load");
/* Any non-NULL arg tells default_map from reload. */
module_param_cb(default_map, &action_ops, &bnx_dev, 0644);
MODULE_PARM_DESC(default_map, "write 1: write the driver's default XPS map (queue q: CPU q)");
module_param_cb(fight_ms, &fight_ops, NULL, 0644);
MODULE_PARM_DESC(fight_ms, "write N > 0: write the default XPS map every N ms, with no event, as a driver's reset loop; 0 stops");
module_param_cb(special_tx, &special_ops, NULL, 0444);
MODULE_PARM_DESC(special_tx, "frames transmitted on the special last queue");
module_param_cb(tx_counts, &counts_ops, NULL, 0444);
MODULE_PARM_DESC(tx_counts, "frames transmitted per tx queue");

static int __init bnxlike_init(void)
{
	struct net_device *dev;
	int err;

	dev = alloc_netdev_mqs(0, "bnx0", NET_NAME_ENUM, bnxlike_setup,
			       BNXLIKE_TXQ, 1);
	if (!dev)
		return -ENOMEM;
	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	bnx_dev = dev;
	pr_info("%s: %d tx queues, the last one for ethertype 0x%04x\n",
		dev->name, dev->real_num_tx_queues, BNXLIKE_ETH_P_SPECIAL);
	return 0;
}

static void __exit bnxlike_exit(void)
{
	struct net_device *dev = bnx_dev;

	rtnl_lock();
	bnx_dev = NULL;
	fight_ms = 0;
	unregister_netdevice(dev);
	rtnl_unlock();
	/* After rtnl: the loop takes it. */
	cancel_delayed_work_sync(&fight_work);
}

module_init(bnxlike_init);
module_exit(bnxlike_exit);

MODULE_DESCRIPTION("Test only: a multiqueue software device with bnx2x's queue selection and XPS resets");
MODULE_LICENSE("GPL");
