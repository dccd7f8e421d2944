// SPDX-License-Identifier: GPL-2.0
/*
 * ops_copier - a test-only module: another component that copies a
 * device's net_device_ops and installs its copy, as xps_steer's tests
 * need one (never packaged, never built by DKMS).
 *
 * It does what DSA did to a switch's master device up to 5.8
 * (net/dsa/master.c): dsa_master_ndo_setup() saved dev->netdev_ops in
 * cpu_dp->orig_ndo_ops, memcpy'd them into a devm_kzalloc'd copy (where
 * it set ndo_get_phys_port_name; ours is left unchanged) and did
 * dev->netdev_ops = copy; dsa_master_ndo_teardown() put the saved pointer
 * back. If the device wore xps_steer's copy at load time, our copy leads
 * to xps_steer's ndo_select_queue; unloading puts xps_steer's copy back
 * on the device, whatever happened to it in between.
 *
 * Usage: modprobe ops_copier dev=NAME (a device of the initial network
 * namespace; absent: -ENODEV). If the device is unregistered first, the
 * teardown is done then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

static char *dev_name_param;
module_param_named(dev, dev_name_param, charp, 0444);
MODULE_PARM_DESC(dev, "device (initial network namespace) whose netdev_ops are copied");

/* All three under rtnl; target is NULL once the teardown is done. */
static struct net_device *target;
static const struct net_device_ops *saved;
static const struct net_device_ops *copy;

/* dsa_master_ndo_teardown(): the saved pointer back, then the copy freed. */
static void teardown(void)
{
	ASSERT_RTNL();
	WRITE_ONCE(target->netdev_ops, saved);
	/* No CPU may still be calling through the copy when it is freed. */
	synchronize_net();
	kfree(copy);
	copy = NULL;
	pr_info("%s: netdev_ops restored (%ps)\n", target->name,
		saved->ndo_select_queue);
	dev_put(target);
	target = NULL;
}

static int netdev_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (event == NETDEV_UNREGISTER && target && dev == target)
		teardown();
	return NOTIFY_DONE;
}

static struct notifier_block notifier = {
	.notifier_call = netdev_event,
};

static int __init ops_copier_init(void)
{
	struct net_device *dev;
	int err;

	if (!dev_name_param || !*dev_name_param) {
		pr_err("no device named; usage: modprobe ops_copier dev=NAME\n");
		return -EINVAL;
	}
	/* Before any copy is installed: the replayed events are ignored. */
	err = register_netdevice_notifier(&notifier);
	if (err)
		return err;

	rtnl_lock();
	dev = __dev_get_by_name(&init_net, dev_name_param);
	if (!dev) {
		rtnl_unlock();
		pr_err("%s: no such device in the initial network namespace (%d)\n",
		       dev_name_param, -ENODEV);
		unregister_netdevice_notifier(&notifier);
		return -ENODEV;
	}
	/* dsa_master_ndo_setup(): save, copy, install the copy. */
	saved = dev->netdev_ops;
	copy = kmemdup(saved, sizeof(*copy), GFP_KERNEL);
	if (!copy) {
		rtnl_unlock();
		unregister_netdevice_notifier(&notifier);
		return -ENOMEM;
	}
	dev_hold(dev);
	target = dev;
	/* The copy's contents before the pointer that publishes it. */
	smp_wmb();
	WRITE_ONCE(dev->netdev_ops, copy);
	pr_info("%s: netdev_ops copied and installed (ndo_select_queue %ps)\n",
		dev->name, copy->ndo_select_queue);
	rtnl_unlock();
	return 0;
}

static void __exit ops_copier_exit(void)
{
	unregister_netdevice_notifier(&notifier);
	rtnl_lock();
	if (target)
		teardown();
	rtnl_unlock();
}

module_init(ops_copier_init);
module_exit(ops_copier_exit);

MODULE_DESCRIPTION("Test only: copies a device's netdev_ops and installs the copy, as DSA did before 5.9");
MODULE_LICENSE("GPL");
