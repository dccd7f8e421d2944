// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifecycle: the names dev= asked for, attaching to those devices
 * as they register, following renames, detaching when they go away or
 * on unload.
 *
 * Attaching copies the device's net_device_ops into a slot (slots.c),
 * sets our ndo_select_queue in the copy and publishes the copy in the
 * device, all under rtnl. Detaching puts the original back, and gives
 * the slot back only when no CPU can still be calling through it.
 */
#include <linux/kmemleak.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "xps_steer.h"

/* See xps_steer.h: the control path's one lock, and what it guards. */
DEFINE_MUTEX(xps_steer_lock);
LIST_HEAD(xps_steer_devices);

/* The names asked for by dev=, fixed once the module is loaded. */
static char requested[XPS_STEER_MAX_DEVS][IFNAMSIZ];
static unsigned int nr_requested;

/* Detached devices waiting for their grace periods; xps_steer_lock. */
static LIST_HEAD(reap_list);

static bool name_requested(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_requested; i++)
		if (!strcmp(requested[i], name))
			return true;
	return false;
}

/* Check one dev= entry; log and fail on anything we would not act on. */
static int add_name(const char *name)
{
	if (!*name) {
		pr_err("dev=: empty device name in the list\n");
		return -EINVAL;
	}
	if (strlen(name) >= IFNAMSIZ) {
		pr_err("%s: dev=: device name longer than %d characters\n",
		       name, IFNAMSIZ - 1);
		return -EINVAL;
	}
	if (!dev_valid_name(name)) {
		pr_err("%s: dev=: not a valid device name\n", name);
		return -EINVAL;
	}
	if (name_requested(name)) {
		pr_err("%s: dev=: device named twice\n", name);
		return -EINVAL;
	}
	if (nr_requested == XPS_STEER_MAX_DEVS) {
		pr_err("%s: dev=: more than %d devices named\n", name,
		       XPS_STEER_MAX_DEVS);
		return -EINVAL;
	}
	strscpy(requested[nr_requested++], name, IFNAMSIZ);
	return 0;
}

static int parse_names(const char *names)
{
	char *list, *cursor, *name;
	int err = 0;

	if (!names || !*names) {
		pr_err("dev=: no device named; usage: modprobe xps_steer dev=eth0[,eth1...]\n");
		return -EINVAL;
	}
	list = kstrdup(names, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cursor = list;
	while (!err && (name = strsep(&cursor, ",")))
		err = add_name(name);
	kfree(list);
	return err;
}

/* One line for each name that did not find its device at load time. */
static void report_absent(void)
{
	unsigned int i;

	rtnl_lock();
	for (i = 0; i < nr_requested; i++)
		if (!__dev_get_by_name(&init_net, requested[i]))
			pr_info("%s: not present, will attach when it registers\n",
				requested[i]);
	rtnl_unlock();
}

static void free_dev(struct xps_steer_dev *xdev)
{
	xps_steer_model_free(xdev);
	kvfree(xdev->queue_dirs);
	kfree(xdev);
}

static void reap(struct work_struct *work)
{
	struct xps_steer_dev *xdev, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&xps_steer_lock);
	list_splice_init(&reap_list, &dead);
	mutex_unlock(&xps_steer_lock);
	if (list_empty(&dead))
		return;

	/* The core calls ndo_select_queue under RCU. */
	synchronize_net();
	/* Before 4.20 the core's rcu_read_lock_bh() is a flavour of its own. */
	xps_steer_synchronize_bh();
	/*
	 * AF_PACKET's qdisc bypass loads dev->netdev_ops and calls through
	 * it preemptible and outside RCU: wait until every task that may
	 * have been preempted in between has since scheduled voluntarily.
	 * Without Tasks RCU the slots were kept instead (detach()).
	 */
	if (XPS_STEER_CAN_WAIT_FOR_SENDERS)
		synchronize_rcu_tasks();

	mutex_lock(&xps_steer_lock);
	list_for_each_entry_safe(xdev, tmp, &dead, reap_node) {
		list_del(&xdev->reap_node);
		if (xdev->slot)
			xps_steer_slot_put(xdev->slot);
		free_dev(xdev);
	}
	mutex_unlock(&xps_steer_lock);
}

static DECLARE_WORK(reap_work, reap);

/* Caller holds rtnl, which every writer of the device list holds. */
static struct xps_steer_dev *lookup_dev(const struct net_device *dev)
{
	struct xps_steer_dev *xdev;

	ASSERT_RTNL();
	list_for_each_entry(xdev, &xps_steer_devices, node)
		if (xdev->dev == dev)
			return xdev;
	return NULL;
}

/* Why dev cannot be attached, logged; false if it can be. */
static bool refuse(const struct net_device *dev)
{
	const char *driver, *why;

	if (dev->num_tx_queues < 2) {
		pr_warn("%s: refused: single-queue device\n", dev->name);
		return true;
	}
	/* Queue numbers are u16, and U16_MAX means "no queue" to the core. */
	if (dev->num_tx_queues > XPS_STEER_MAX_QUEUES) {
		pr_warn("%s: refused: %u tx queues is more than supported (%u)\n",
			dev->name, dev->num_tx_queues, XPS_STEER_MAX_QUEUES);
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
static void pin_if_unsafe(void)
{
	static bool pinned;

	if (XPS_STEER_CAN_WAIT_FOR_SENDERS || pinned)
		return;
	pinned = true;
	__module_get(THIS_MODULE);
	pr_notice("preemptible kernel without Tasks RCU: xps_steer cannot be unloaded once attached\n");
}

/* A new, unpublished xdev with its masks; NULL if out of memory. */
static struct xps_steer_dev *alloc_dev(struct net_device *dev)
{
	struct xps_steer_dev *xdev;

	xdev = kzalloc(sizeof(*xdev), GFP_KERNEL);
	if (!xdev)
		return NULL;
	xdev->dev = dev;
	strscpy(xdev->name, dev->name, sizeof(xdev->name));
	if (xps_steer_model_init(xdev))
		goto err;
	xdev->queue_dirs = kvcalloc(xdev->nr_queues, sizeof(*xdev->queue_dirs),
				    GFP_KERNEL);
	if (!xdev->queue_dirs)
		goto err;
	return xdev;
err:
	free_dev(xdev);
	return NULL;
}

static void attach(struct net_device *dev)
{
	struct xps_steer_dev *xdev;
	int err;

	ASSERT_RTNL();
	if (refuse(dev))
		return;

	xdev = alloc_dev(dev);
	if (!xdev) {
		pr_err("%s: not attached: out of memory\n", dev->name);
		return;
	}
	err = xps_steer_sysfs_add_dev(xdev);
	if (err) {
		free_dev(xdev);
		pr_err("%s: not attached: cannot create its sysfs tree (%d)\n",
		       dev->name, err);
		return;
	}

	mutex_lock(&xps_steer_lock);
	xdev->slot = xps_steer_slot_get(dev);
	if (xdev->slot) {
		xdev->orig_ops = dev->netdev_ops;
		xps_steer_copy_ops(&xdev->slot->ops, dev->netdev_ops);
		xps_steer_hook_ops(&xdev->slot->ops);
		WRITE_ONCE(xdev->slot->dev, dev);
		list_add_tail(&xdev->node, &xps_steer_devices);
	}
	mutex_unlock(&xps_steer_lock);
	if (!xdev->slot) {
		/* Only when slots were kept (see detach()). */
		xps_steer_sysfs_del_dev(xdev);
		free_dev(xdev);
		pr_err("%s: not attached: all %d slots are in use or kept\n",
		       dev->name, XPS_STEER_MAX_DEVS);
		return;
	}
	/* The copy and its slot are complete before any CPU can call it. */
	smp_store_release(&dev->netdev_ops, &xdev->slot->ops);
	pin_if_unsafe();

	pr_info("%s: attached (%u tx queues)\n", xdev->name, xdev->nr_queues);
}

/* Free xdev (and give its slot back) once no CPU can be using them. */
static void reap_later(struct xps_steer_dev *xdev)
{
	mutex_lock(&xps_steer_lock);
	list_add_tail(&xdev->reap_node, &reap_list);
	mutex_unlock(&xps_steer_lock);
	/* Tasks RCU grace periods are long: keep them off system_wq. */
	queue_work(system_long_wq, &reap_work);
}

/*
 * Detach xdev. If the device no longer wears our copy of its ops, someone
 * replaced them after we attached: the driver with another table of its
 * own, or another module with a copy of our copy, which it may put back
 * later. Our copy is then kept for good, its hook pointed back at the
 * driver's, so that nothing can reach our code through it.
 */
static void detach(struct xps_steer_dev *xdev)
{
	struct net_device *dev = xdev->dev;
	const struct net_device_ops *now = dev->netdev_ops;
	struct xps_steer_slot *slot = xdev->slot;
	bool ours = now == &slot->ops;
	/* A copy of our copy still leads here. */
	bool copied = !ours && now->ndo_select_queue == slot->ops.ndo_select_queue;

	ASSERT_RTNL();
	if (ours)
		WRITE_ONCE(dev->netdev_ops, xdev->orig_ops);

	mutex_lock(&xps_steer_lock);
	list_del(&xdev->node);
	WRITE_ONCE(slot->dev, NULL);
	xps_steer_model_unpublish(xdev);
	if (!ours || !XPS_STEER_CAN_WAIT_FOR_SENDERS) {
		/* We refuse drivers with their own hook: theirs is NULL. */
		WRITE_ONCE(slot->ops.ndo_select_queue, NULL);
		xps_steer_slot_keep(slot);
		xdev->slot = NULL;
	}
	mutex_unlock(&xps_steer_lock);

	xps_steer_sysfs_del_dev(xdev);
	reap_later(xdev);

	if (!copied) {
		if (ours)
			pr_info("%s: detached\n", xdev->name);
		else
			pr_notice("%s: detached; its netdev_ops were replaced after we attached, our copy stays in memory\n",
				  xdev->name);
		return;
	}
	/*
	 * Whoever copied our ops may still call our hook through its copy:
	 * the module must stay. While it is being unloaded that is no longer
	 * possible (see docs/design.md).
	 */
	if (module_is_live(THIS_MODULE)) {
		__module_get(THIS_MODULE);
		pr_err("%s: netdev_ops were copied by someone else after we attached; xps_steer can no longer be unloaded\n",
		       xdev->name);
	} else {
		pr_err("%s: unloading while a copy of our netdev_ops made by someone else may still lead to xps_steer\n",
		       xdev->name);
	}
}

static void follow_rename(struct xps_steer_dev *xdev)
{
	char old[IFNAMSIZ];

	strscpy(old, xdev->name, sizeof(old));
	mutex_lock(&xps_steer_lock);
	strscpy(xdev->name, xdev->dev->name, sizeof(xdev->name));
	mutex_unlock(&xps_steer_lock);
	xps_steer_sysfs_rename(xdev);
	pr_info("%s: renamed to %s\n", old, xdev->name);
}

static int netdev_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct xps_steer_dev *xdev;

	/* Names are per namespace; ours are those of the initial one. */
	if (!net_eq(dev_net(dev), &init_net))
		return NOTIFY_DONE;

	xdev = lookup_dev(dev);
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_CHANGENAME:
		if (xdev && event == NETDEV_CHANGENAME)
			follow_rename(xdev);
		/* Nothing new attaches while the module is going away. */
		else if (!xdev && name_requested(dev->name) &&
			 module_is_live(THIS_MODULE))
			attach(dev);
		break;
	case NETDEV_UNREGISTER:
		if (xdev)
			detach(xdev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block notifier = {
	.notifier_call = netdev_event,
};

/* Registering replays REGISTER for every existing device. */
int xps_steer_attach_init(const char *names)
{
	int err;

	err = parse_names(names);
	if (err)
		return err;
	err = register_netdevice_notifier(&notifier);
	if (err) {
		/* A failed registration replays UNREGISTER for what it attached. */
		flush_work(&reap_work);
		rcu_barrier();
		return err;
	}
	report_absent();
	return 0;
}

/* Unregistering replays UNREGISTER for every device: all get detached. */
void xps_steer_attach_exit(void)
{
	unregister_netdevice_notifier(&notifier);
	flush_work(&reap_work);
	/* kvfree_rcu()'s fallback before 5.9 calls back into this module. */
	rcu_barrier();
}
