// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifecycle: attach to named devices as they register, follow
 * renames and queue-count changes, detach when they go away or on unload.
 *
 * Attaching copies the device's net_device_ops, sets our
 * ndo_select_queue in the copy and publishes the copy in the device,
 * all under rtnl. Detaching puts the original back, and frees our copy
 * only when no CPU can still be calling through it.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "xps_steer.h"

/* Serialises the control path: device list, masks, maps, tx-<n> dirs. */
DEFINE_MUTEX(xps_steer_lock);
LIST_HEAD(xps_steer_devices);

/* Detached devices waiting for their grace periods; xps_steer_lock. */
static LIST_HEAD(xps_steer_reap_list);
/* Devices whose ops were replaced after we attached: never freed. */
static LIST_HEAD(xps_steer_pinned_list);

static void xps_steer_free_dev(struct xps_steer_dev *xdev)
{
	xps_steer_map_free(rcu_dereference_protected(xdev->map, true));
	kvfree(xdev->masks);
	kvfree(xdev->queue_dirs);
	kfree(xdev);
}

static void xps_steer_reap(struct work_struct *work)
{
	struct xps_steer_dev *xdev, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&xps_steer_lock);
	list_splice_init(&xps_steer_reap_list, &dead);
	mutex_unlock(&xps_steer_lock);
	if (list_empty(&dead))
		return;

	/* The core calls ndo_select_queue, and we walk our list, under RCU. */
	synchronize_net();
	/* Before 4.20 the core's rcu_read_lock_bh() is a flavour of its own. */
	xps_steer_synchronize_bh();
	/*
	 * AF_PACKET's qdisc bypass loads dev->netdev_ops and calls through
	 * it preemptible and outside RCU: wait until every task that may
	 * have been preempted in between has since scheduled voluntarily.
	 */
	synchronize_rcu_tasks();

	list_for_each_entry_safe(xdev, tmp, &dead, reap_node) {
		list_del(&xdev->reap_node);
		xps_steer_free_dev(xdev);
	}
}

static DECLARE_WORK(xps_steer_reap_work, xps_steer_reap);

/* Caller holds rtnl, which every writer of the device list holds. */
static struct xps_steer_dev *xps_steer_lookup_dev(const struct net_device *dev)
{
	struct xps_steer_dev *xdev;

	ASSERT_RTNL();
	list_for_each_entry(xdev, &xps_steer_devices, node)
		if (xdev->dev == dev)
			return xdev;
	return NULL;
}

/* Why dev cannot be attached, logged; false if it can be. */
static bool xps_steer_refuse(const struct net_device *dev)
{
	const char *driver, *why;

	if (dev->num_tx_queues < 2) {
		pr_warn("%s: refused: single-queue device\n", dev->name);
		return true;
	}
	/* Our map stores queue numbers as u16, like the kernel's. */
	if (dev->num_tx_queues > U16_MAX + 1) {
		pr_warn("%s: refused: %u tx queues is more than supported\n",
			dev->name, dev->num_tx_queues);
		return true;
	}
	if (xps_steer_denied(dev, &driver, &why)) {
		pr_warn("%s: refused: driver %s recognises its devices by their netdev_ops pointer (%s)\n",
			dev->name, driver, why);
		return true;
	}
	if (dev->netdev_ops->ndo_select_queue) {
		pr_warn("%s: refused: driver has its own ndo_select_queue\n",
			dev->name);
		return true;
	}
	return false;
}

/*
 * A kernel that cannot wait for a sender preempted inside our hook (see
 * XPS_STEER_CAN_WAIT_FOR_SENDERS) keeps the module once it attached.
 */
static void xps_steer_pin_if_unsafe(void)
{
	static bool pinned;

	if (XPS_STEER_CAN_WAIT_FOR_SENDERS || pinned)
		return;
	pinned = true;
	__module_get(THIS_MODULE);
	pr_notice("preemptible kernel without Tasks RCU: xps_steer cannot be unloaded once attached\n");
}

static struct xps_steer_dev *xps_steer_alloc_dev(struct net_device *dev)
{
	struct xps_steer_dev *xdev;

	xdev = kzalloc(sizeof(*xdev), GFP_KERNEL);
	if (!xdev)
		return NULL;
	xdev->dev = dev;
	strscpy(xdev->name, dev->name, sizeof(xdev->name));
	xdev->max_queues = dev->num_tx_queues;
	xdev->mask_longs = BITS_TO_LONGS(nr_cpu_ids);
	xdev->masks = kvcalloc(array_size(xdev->max_queues, xdev->mask_longs),
			       sizeof(unsigned long), GFP_KERNEL);
	xdev->queue_dirs = kvcalloc(xdev->max_queues,
				    sizeof(*xdev->queue_dirs), GFP_KERNEL);
	if (!xdev->masks || !xdev->queue_dirs) {
		xps_steer_free_dev(xdev);
		return NULL;
	}
	return xdev;
}

static void xps_steer_attach(struct net_device *dev)
{
	struct xps_steer_dev *xdev;
	int err;

	ASSERT_RTNL();
	if (xps_steer_refuse(dev))
		return;

	xdev = xps_steer_alloc_dev(dev);
	if (!xdev) {
		pr_err("%s: not attached: out of memory\n", dev->name);
		return;
	}
	err = xps_steer_sysfs_add_dev(xdev);
	if (err) {
		/* Never published: nobody else can see xdev yet. */
		xps_steer_sysfs_del_dev(xdev);
		xps_steer_free_dev(xdev);
		pr_err("%s: not attached: cannot create its sysfs tree (%d)\n",
		       dev->name, err);
		return;
	}

	xdev->orig_ops = dev->netdev_ops;
	xps_steer_copy_ops(&xdev->ops, dev->netdev_ops);
	xps_steer_hook_ops(&xdev->ops);

	mutex_lock(&xps_steer_lock);
	list_add_tail_rcu(&xdev->node, &xps_steer_devices);
	mutex_unlock(&xps_steer_lock);
	/* The copy is complete and findable before any CPU can call it. */
	smp_store_release(&dev->netdev_ops, &xdev->ops);
	xps_steer_pin_if_unsafe();

	pr_info("%s: attached (%u tx queues)\n", xdev->name, xdev->nr_queues);
}

/* Queue xdev to be freed once no CPU can be using it any more. */
static void xps_steer_reap_later(struct xps_steer_dev *xdev)
{
	mutex_lock(&xps_steer_lock);
	list_add_tail(&xdev->reap_node, &xps_steer_reap_list);
	mutex_unlock(&xps_steer_lock);
	/* Tasks RCU grace periods are long: keep them off system_wq. */
	queue_work(system_long_wq, &xps_steer_reap_work);
}

static void xps_steer_detach(struct xps_steer_dev *xdev)
{
	struct net_device *dev = xdev->dev;
	bool ours = dev->netdev_ops == &xdev->ops;
	bool keep = !ours || !XPS_STEER_CAN_WAIT_FOR_SENDERS;

	ASSERT_RTNL();
	/* Put the original back only if nobody wrapped our copy since. */
	if (ours)
		WRITE_ONCE(dev->netdev_ops, xdev->orig_ops);

	mutex_lock(&xps_steer_lock);
	list_del_rcu(&xdev->node);
	if (keep)
		list_add_tail(&xdev->reap_node, &xps_steer_pinned_list);
	mutex_unlock(&xps_steer_lock);

	xps_steer_sysfs_del_dev(xdev);

	if (!ours) {
		/*
		 * Whoever replaced the ops since (another module stacked on
		 * ours, or the driver) may still call through our copy and
		 * our hook: both must stay for good.
		 */
		if (module_is_live(THIS_MODULE)) {
			__module_get(THIS_MODULE);
			pr_err("%s: netdev_ops were replaced after we attached; keeping our copy, xps_steer can no longer be unloaded\n",
			       xdev->name);
		} else {
			WARN(1, "%s: unloading while netdev_ops that were replaced after we attached may still lead to xps_steer\n",
			     xdev->name);
		}
		return;
	}
	pr_info("%s: detached\n", xdev->name);
	/* Without a way to wait for senders the copy stays (attach pinned us). */
	if (!keep)
		xps_steer_reap_later(xdev);
}

static void xps_steer_rename(struct xps_steer_dev *xdev)
{
	char old[IFNAMSIZ];

	strscpy(old, xdev->name, sizeof(old));
	mutex_lock(&xps_steer_lock);
	strscpy(xdev->name, xdev->dev->name, sizeof(xdev->name));
	mutex_unlock(&xps_steer_lock);
	xps_steer_sysfs_rename(xdev);
	pr_info("%s: renamed to %s\n", old, xdev->name);
}

static int xps_steer_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct xps_steer_dev *xdev;

	/* Names are per namespace; ours are those of the initial one. */
	if (!net_eq(dev_net(dev), &init_net))
		return NOTIFY_DONE;

	xdev = xps_steer_lookup_dev(dev);
	switch (event) {
	case NETDEV_REGISTER:
		if (!xdev && xps_steer_name_requested(dev->name))
			xps_steer_attach(dev);
		break;
	case NETDEV_CHANGENAME:
		if (xdev)
			xps_steer_rename(xdev);
		else if (xps_steer_name_requested(dev->name))
			xps_steer_attach(dev);
		break;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		/* No event tells of ethtool -L: catch up when we can. */
		if (xdev)
			xps_steer_sysfs_resize(xdev, dev->real_num_tx_queues);
		break;
	case NETDEV_UNREGISTER:
		if (xdev)
			xps_steer_detach(xdev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block xps_steer_notifier = {
	.notifier_call = xps_steer_netdev_event,
};

/* Registering replays REGISTER and UP for every existing device. */
int xps_steer_attach_init(void)
{
	int err = register_netdevice_notifier(&xps_steer_notifier);

	/* A failed registration replays UNREGISTER for what it attached. */
	if (err)
		flush_work(&xps_steer_reap_work);
	return err;
}

/* Unregistering replays UNREGISTER for every device: all get detached. */
void xps_steer_attach_exit(void)
{
	unregister_netdevice_notifier(&xps_steer_notifier);
	flush_work(&xps_steer_reap_work);
}
