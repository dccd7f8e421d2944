// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifecycle: the names dev= asks for (at load and at runtime),
 * attaching to those devices as they register, following renames,
 * detaching when they go away or leave the list.
 *
 * A device is served in one of two modes. Steer: attaching copies the
 * device's net_device_ops into a slot (slots.c), sets our
 * ndo_select_queue in the copy and publishes the copy in the device, all
 * under rtnl; detaching puts the original back, and gives the slot back
 * only when no CPU can still be calling through it. Guard, for devices
 * whose ops we must leave alone but whose packets the kernel's XPS map
 * steers: our masks are kept in that map (guard.c); nothing of the
 * device is changed but its map.
 *
 * Each attached device holds a reference on the module, so the module
 * cannot be unloaded while its code may be reached through a device: it
 * is detached first, by removing the name from dev= (which refuses while
 * someone else's copy of our ops still leads here) or by the device's
 * removal.
 */
#include <linux/capability.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "xps_steer.h"

/* See xps_steer.h: the control path's one lock, and what it guards. */
DEFINE_MUTEX(xps_steer_lock);
LIST_HEAD(xps_steer_devices);

/*
 * The names asked for: read under rtnl or xps_steer_lock, changed under
 * both. Until ready (module init has parsed the load-time dev=), writes
 * to the parameter only replace the load-time string.
 */
static struct xps_steer_names requested;
static bool ready;

/* Detached devices waiting for their grace periods; xps_steer_lock. */
static LIST_HEAD(reap_list);

static bool name_requested(const char *name)
{
	return xps_steer_names_has(&requested, name);
}

/* Whether dev= names the device with ":guard". */
static bool guard_requested(const char *name)
{
	return xps_steer_names_guard(&requested, name);
}

/*
 * Comma-separated names into list ("" is no name); on anything we would
 * not act on, logs the first bad entry and fails.
 */
static int parse_names(struct xps_steer_names *list, const char *names)
{
	struct xps_steer_names_err err;
	char *copy;
	int ret;

	copy = kstrdup(names, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	ret = xps_steer_names_parse(list, copy, &err);
	switch (err.fault) {
	case XPS_STEER_NAMES_OK:
		break;
	case XPS_STEER_NAMES_EMPTY:
		pr_err("dev=: empty device name in the list\n");
		break;
	case XPS_STEER_NAMES_TOO_LONG:
		pr_err("%s: dev=: device name longer than %d characters\n",
		       err.entry, IFNAMSIZ - 1);
		break;
	case XPS_STEER_NAMES_INVALID:
		pr_err("%s: dev=: not a valid device name\n", err.entry);
		break;
	case XPS_STEER_NAMES_TWICE:
		pr_err("%s: dev=: device named twice\n", err.entry);
		break;
	case XPS_STEER_NAMES_TOO_MANY:
		pr_err("%s: dev=: more than %d devices named\n", err.entry,
		       XPS_STEER_MAX_DEVS);
		break;
	case XPS_STEER_NAMES_BAD_MODE:
		pr_err("%s: dev=: unknown mode; the one mode a name may ask for is '%s'\n",
		       err.entry, XPS_STEER_GUARD_SUFFIX);
		break;
	}
	kfree(copy);
	return ret;
}

/* One line for each name that did not find its device at load time. */
static void report_absent(void)
{
	unsigned int i;

	rtnl_lock();
	for (i = 0; i < requested.nr; i++)
		if (!__dev_get_by_name(&init_net, requested.name[i]))
			pr_info("%s: not present, will attach when it registers\n",
				requested.name[i]);
	rtnl_unlock();
}

static void free_dev(struct xps_steer_dev *xdev)
{
	xps_steer_model_free(xdev);
	xps_steer_counters_free(xdev);
	xps_steer_guard_free(xdev);
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

/* How a device is to be served: attach()'s choice. */
struct mode_choice {
	enum xps_steer_mode mode;
	enum xps_steer_verdict verdict;
	struct xps_steer_facts facts;
};

/* Log dev's refusal and keep it for status. */
static void refuse(const struct net_device *dev, enum xps_steer_verdict verdict,
		   const struct xps_steer_facts *facts)
{
	xps_steer_log_verdict(dev, verdict, facts);
	xps_steer_status_refused(dev, verdict, facts);
}

/*
 * Choose how to serve dev: steer where our copy of its ops is safe and
 * sees every packet's choice, guard where the driver must keep its ops
 * or its own selection but that selection reads the kernel's XPS map.
 * False, logged and kept for status, if neither can serve it.
 */
static bool choose_mode(const struct net_device *dev, bool asked_guard,
			struct mode_choice *c)
{
	struct xps_steer_facts *f = &c->facts;

	/* Steer unless a reason to guard is found: every field is set. */
	*c = (struct mode_choice){ .mode = XPS_STEER_MODE_STEER,
				   .verdict = XPS_STEER_STEERED };
	if (dev->num_tx_queues < 2) {
		refuse(dev, XPS_STEER_SINGLE_QUEUE, NULL);
		return false;
	}
	if (dev->num_tx_queues > XPS_STEER_MAX_QUEUES) {
		f->queues = dev->num_tx_queues;
		refuse(dev, XPS_STEER_TOO_MANY_QUEUES, f);
		return false;
	}
	if (dev->netdev_ops->ndo_select_queue &&
	    xps_steer_ignores_xps(dev, &f->driver, &f->why)) {
		refuse(dev, XPS_STEER_IGNORES_XPS, f);
		return false;
	}
	if (asked_guard)
		c->verdict = XPS_STEER_GUARD_REQUESTED;
	else if (xps_steer_denied(dev, &f->driver, &f->why))
		c->verdict = XPS_STEER_GUARD_DENYLISTED;
	else if (dev->netdev_ops->ndo_select_queue)
		c->verdict = XPS_STEER_GUARD_OWN_SELECT_QUEUE;
	else
		return true;
	c->mode = XPS_STEER_MODE_GUARD;
	if (!xps_steer_guard_supported()) {
		refuse(dev, XPS_STEER_NO_KERNEL_XPS, NULL);
		return false;
	}
	return true;
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

/*
 * A new, unpublished xdev with its masks and what its mode needs; NULL
 * if out of memory.
 */
static struct xps_steer_dev *alloc_dev(struct net_device *dev,
				       const struct mode_choice *c,
				       bool asked_guard)
{
	struct xps_steer_dev *xdev;
	int err;

	xdev = kzalloc(sizeof(*xdev), GFP_KERNEL);
	if (!xdev)
		return NULL;
	xdev->dev = dev;
	xdev->mode = c->mode;
	xdev->verdict = c->verdict;
	if (c->verdict == XPS_STEER_GUARD_DENYLISTED)
		xdev->guard_driver = c->facts.driver;
	xdev->asked_guard = asked_guard;
	strscpy(xdev->name, dev->name, sizeof(xdev->name));
	strscpy(xdev->attached_as, dev->name, sizeof(xdev->attached_as));
	if (xps_steer_model_init(xdev))
		goto err;
	if (c->mode == XPS_STEER_MODE_STEER)
		err = xps_steer_counters_init(xdev);
	else
		err = xps_steer_guard_init_dev(xdev);
	if (err)
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

/*
 * Find xdev a slot and fill it with a copy of the device's ops that leads
 * to our hook; false if every slot is in use or kept. Caller holds
 * xps_steer_lock.
 */
static bool fill_slot(struct xps_steer_dev *xdev)
{
	struct net_device *dev = xdev->dev;

	xdev->slot = xps_steer_slot_get(dev);
	if (!xdev->slot) {
		/*
		 * Slots of devices detached within the last grace period come
		 * back when the reaper has run: after a burst of detaches, wait
		 * for it once rather than refuse. It takes no rtnl; the wait
		 * under rtnl is one grace period, and only on this path.
		 */
		mutex_unlock(&xps_steer_lock);
		flush_work(&reap_work);
		mutex_lock(&xps_steer_lock);
		xdev->slot = xps_steer_slot_get(dev);
	}
	if (!xdev->slot)
		return false;
	xdev->orig_ops = dev->netdev_ops;
	xps_steer_copy_ops(&xdev->slot->ops, dev->netdev_ops);
	xps_steer_hook_ops(&xdev->slot->ops);
	xdev->slot->counters = xdev->counters;
	xdev->slot->reason_counters = xdev->counters->reasons;
	xdev->slot->queue_counters = xdev->counters->queues[0];
	/* Counters first: the hook's slot search reads dev first. */
	smp_store_release(&xdev->slot->dev, dev);
	return true;
}

static void attach(struct net_device *dev)
{
	bool asked_guard = guard_requested(dev->name);
	struct xps_steer_dev *xdev;
	struct mode_choice c;
	bool steer;
	int err;

	ASSERT_RTNL();
	if (!choose_mode(dev, asked_guard, &c))
		return;
	steer = c.mode == XPS_STEER_MODE_STEER;
	/* Held while attached; nothing attaches while the module goes away. */
	if (!try_module_get(THIS_MODULE))
		return;

	xdev = alloc_dev(dev, &c, asked_guard);
	if (!xdev) {
		refuse(dev, XPS_STEER_NO_MEMORY, NULL);
		goto err_put;
	}
	err = xps_steer_sysfs_add_dev(xdev);
	if (err) {
		free_dev(xdev);
		refuse(dev, XPS_STEER_NO_SYSFS,
		       &(struct xps_steer_facts){ .err = err });
		goto err_put;
	}

	mutex_lock(&xps_steer_lock);
	if (!steer || fill_slot(xdev))
		list_add_tail(&xdev->node, &xps_steer_devices);
	if (!steer)
		xps_steer_guard_start(xdev);
	mutex_unlock(&xps_steer_lock);
	if (steer && !xdev->slot) {
		/* All in use, or kept for good (see detach()). */
		xps_steer_sysfs_del_dev(xdev);
		free_dev(xdev);
		refuse(dev, XPS_STEER_NO_SLOT, NULL);
		goto err_put;
	}
	if (steer) {
		/* The copy and its slot are complete before any CPU can call it. */
		smp_store_release(&dev->netdev_ops, &xdev->slot->ops);
		pin_if_unsafe();
	}

	c.facts.queues = xdev->nr_queues;
	xps_steer_log_verdict(dev, c.verdict, &c.facts);
	/* Last: a udev rule may write the masks as soon as it hears. */
	xps_steer_event(xdev, KOBJ_ADD, NULL);
	return;

err_put:
	module_put(THIS_MODULE);
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
 * Whether the device still wears our copy of its ops, a copy of our copy
 * (which still leads to our hook), or ops that do not lead to us. Caller
 * holds rtnl, under which ops are replaced; xdev is attached.
 */
enum xps_steer_hook xps_steer_hook_state(const struct xps_steer_dev *xdev)
{
	const struct net_device_ops *now = xdev->dev->netdev_ops;

	ASSERT_RTNL();
	if (!xdev->slot)
		return XPS_STEER_HOOK_NONE;
	if (now == &xdev->slot->ops)
		return XPS_STEER_HOOK_INSTALLED;
	if (now->ndo_select_queue == xdev->slot->ops.ndo_select_queue)
		return XPS_STEER_HOOK_COPIED;
	return XPS_STEER_HOOK_REPLACED;
}

/* dev->netdev_ops is a copy of our copy: it still leads to our hook. */
static bool copied_by_someone(const struct xps_steer_dev *xdev)
{
	return xps_steer_hook_state(xdev) == XPS_STEER_HOOK_COPIED;
}

/*
 * Stop guarding xdev and drop its module reference. The kernel's map
 * stays as it is: the operator's map, unless the driver rewrote it
 * since the last check; the driver may rewrite it from then on.
 */
static void detach_guarded(struct xps_steer_dev *xdev)
{
	ASSERT_RTNL();
	mutex_lock(&xps_steer_lock);
	list_del(&xdev->node);
	xps_steer_guard_stop(xdev);
	mutex_unlock(&xps_steer_lock);

	xps_steer_event(xdev, KOBJ_REMOVE, NULL);
	xps_steer_sysfs_del_dev(xdev);
	/* Logged first: once queued, the reaper may free xdev. */
	pr_info("%s: detached; its kernel XPS map is left as it is\n",
		xdev->name);
	reap_later(xdev);
	module_put(THIS_MODULE);
}

/*
 * Detach xdev and drop its module reference. If the device no longer
 * wears our copy of its ops, someone replaced them after we attached:
 * the driver with another table of its own, or another module with a
 * copy of our copy, which it may put back later. Our copy is then kept
 * for good, its hook pointed back at the driver's, so that nothing can
 * reach our code through it. Only the device's removal detaches a device
 * that wears a copy of our copy (dev= refuses): that copy may still call
 * our hook, so the module keeps the device's reference for good.
 */
static void detach(struct xps_steer_dev *xdev)
{
	struct net_device *dev = xdev->dev;
	struct xps_steer_slot *slot = xdev->slot;
	bool ours, copied;

	ASSERT_RTNL();
	if (xdev->mode == XPS_STEER_MODE_GUARD) {
		detach_guarded(xdev);
		return;
	}
	ours = dev->netdev_ops == &slot->ops;
	copied = copied_by_someone(xdev);
	if (ours)
		WRITE_ONCE(dev->netdev_ops, xdev->orig_ops);

	mutex_lock(&xps_steer_lock);
	list_del(&xdev->node);
	WRITE_ONCE(slot->dev, NULL);
	xps_steer_model_unpublish(xdev);
	if (!ours || !XPS_STEER_CAN_WAIT_FOR_SENDERS) {
		/* Steered drivers have no hook of their own: theirs is NULL. */
		WRITE_ONCE(slot->ops.ndo_select_queue, NULL);
		xps_steer_slot_keep(slot);
		xdev->slot = NULL;
	}
	mutex_unlock(&xps_steer_lock);

	/* While the directory the event names still exists. */
	xps_steer_event(xdev, KOBJ_REMOVE, NULL);
	xps_steer_sysfs_del_dev(xdev);

	/* Logged first: once queued, the reaper may free xdev. */
	if (copied)
		pr_err("%s: netdev_ops were copied by someone else after we attached; xps_steer can no longer be unloaded\n",
		       xdev->name);
	else if (ours)
		pr_info("%s: detached\n", xdev->name);
	else
		pr_notice("%s: detached; its netdev_ops were replaced after we attached, our copy stays in memory\n",
			  xdev->name);
	reap_later(xdev);
	if (!copied)
		module_put(THIS_MODULE);
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
	/* Not if the directory kept its old name (logged by sysfs.c). */
	if (!strcmp(kobject_name(xdev->dir), xdev->name))
		xps_steer_event(xdev, KOBJ_MOVE, old);
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
	/* A refusal is about a device under a name: both may change here. */
	if (!xdev && (event == NETDEV_REGISTER || event == NETDEV_CHANGENAME ||
		      event == NETDEV_UNREGISTER))
		xps_steer_status_forget(dev);
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_CHANGENAME:
		if (xdev && event == NETDEV_CHANGENAME)
			follow_rename(xdev);
		else if (!xdev && name_requested(dev->name))
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

/* Drivers rewrite or wipe their XPS maps as these happen. */
static int guard_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct xps_steer_dev *xdev;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_FEAT_CHANGE:
		break;
	default:
		return NOTIFY_DONE;
	}
	if (!net_eq(dev_net(dev), &init_net))
		return NOTIFY_DONE;
	xdev = lookup_dev(dev);
	if (xdev && xdev->mode == XPS_STEER_MODE_GUARD)
		xps_steer_guard_event(xdev);
	return NOTIFY_DONE;
}

/*
 * Ahead of the stack's own handlers (priority 0): the routes of a device
 * that comes up return in fib's NETDEV_UP, so no routed packet leaves on
 * a map the driver rewrote inside ndo_open before it is restored. Its own
 * block, so that attach and detach keep their place behind the stack's.
 */
static struct notifier_block guard_notifier = {
	.notifier_call = guard_netdev_event,
	.priority = 1,
};

/* The i-th name dev= asks for, NULL past the last; caller holds rtnl. */
const char *xps_steer_requested_name(unsigned int i)
{
	ASSERT_RTNL();
	return i < requested.nr ? requested.name[i] : NULL;
}

/* The list of names as one string, for reading dev=; NULL if no memory. */
static char *names_string(void)
{
	char *str = kzalloc(XPS_STEER_MAX_DEVS *
			    (IFNAMSIZ + sizeof(XPS_STEER_GUARD_SUFFIX)),
			    GFP_KERNEL);
	unsigned int i;

	if (!str)
		return NULL;
	mutex_lock(&xps_steer_lock);
	for (i = 0; i < requested.nr; i++) {
		if (i)
			strcat(str, ",");
		strcat(str, requested.name[i]);
		if (requested.guard[i])
			strcat(str, XPS_STEER_GUARD_SUFFIX);
	}
	mutex_unlock(&xps_steer_lock);
	return str;
}

/*
 * Whether list names xdev (under its name now or the one it was attached
 * under) in the mode it was asked in: a changed mode attaches it anew.
 */
static bool still_listed(const struct xps_steer_names *list,
			 const struct xps_steer_dev *xdev)
{
	const char *name = xdev->name;

	if (!xps_steer_names_has(list, name))
		name = xdev->attached_as;
	return xps_steer_names_has(list, name) &&
	       xps_steer_names_guard(list, name) == xdev->asked_guard;
}

/*
 * dev= written at runtime: the new list replaces the old one. Devices no
 * longer named (under their name now or the one they were attached
 * under), or named in another mode, are detached; named devices that
 * exist are attached now, the others when they register. All or nothing.
 */
static int set_names(const char *val)
{
	struct xps_steer_dev *xdev, *tmp;
	struct xps_steer_names *list;
	char *names;
	unsigned int i;
	int err;

	/* Like xps_cpus: EPERM without privilege is not logged. */
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!net_eq(current->nsproxy->net_ns, &init_net)) {
		pr_warn_ratelimited("dev=: write from another network namespace refused (%d)\n",
				    -EPERM);
		return -EPERM;
	}
	list = kzalloc(sizeof(*list), GFP_KERNEL);
	names = kstrndup(val, strcspn(val, "\n"), GFP_KERNEL);
	err = list && names ? parse_names(list, names) : -ENOMEM;
	if (err)
		goto out;

	rtnl_lock();
	list_for_each_entry(xdev, &xps_steer_devices, node) {
		if (still_listed(list, xdev))
			continue;
		if (copied_by_someone(xdev)) {
			err = -EBUSY;
			pr_err("%s: dev=: cannot detach: its netdev_ops were copied by someone else after we attached; remove that first (%d)\n",
			       xdev->name, err);
			goto out_unlock;
		}
	}
	mutex_lock(&xps_steer_lock);
	requested = *list;
	mutex_unlock(&xps_steer_lock);
	/* Refusals are found again below, for the names still listed. */
	xps_steer_status_forget(NULL);
	list_for_each_entry_safe(xdev, tmp, &xps_steer_devices, node)
		if (!still_listed(list, xdev))
			detach(xdev);
	for (i = 0; i < list->nr; i++) {
		struct net_device *dev = __dev_get_by_name(&init_net,
							   list->name[i]);

		if (!dev)
			pr_info("%s: not present, will attach when it registers\n",
				list->name[i]);
		else if (!lookup_dev(dev))
			attach(dev);
	}
	pr_info("dev=: now '%s'\n", names);
out_unlock:
	rtnl_unlock();
out:
	kfree(names);
	kfree(list);
	return err;
}

/* Before init has read the load-time value, keep it as a string. */
static int dev_param_set(const char *val, const struct kernel_param *kp)
{
	bool running;

	rtnl_lock();
	running = ready;
	rtnl_unlock();
	return running ? set_names(val) : param_set_charp(val, kp);
}

static int dev_param_get(char *buf, const struct kernel_param *kp)
{
	struct kernel_param shown = *kp;
	char *names;
	int ret;

	if (!READ_ONCE(ready))
		return param_get_charp(buf, kp);
	names = names_string();
	if (!names)
		return -ENOMEM;
	/* The kernel's own formatting, which differs across versions. */
	shown.arg = &names;
	ret = param_get_charp(buf, &shown);
	kfree(names);
	return ret;
}

const struct kernel_param_ops xps_steer_dev_param_ops = {
	.set = dev_param_set,
	.get = dev_param_get,
	.free = param_free_charp,
};

/*
 * Parse the load-time dev= and register the notifier, whose registration
 * replays REGISTER for every existing device.
 */
int xps_steer_attach_init(const char *names)
{
	int err;

	if (!names || !*names) {
		pr_err("dev=: no device named; usage: modprobe xps_steer dev=eth0[,eth1...]\n");
		return -EINVAL;
	}
	/* Under rtnl with ready: a dev= write is either before or after. */
	rtnl_lock();
	err = parse_names(&requested, names);
	if (!err)
		WRITE_ONCE(ready, true);
	rtnl_unlock();
	if (err)
		return err;

	err = register_netdevice_notifier(&guard_notifier);
	if (err)
		return err;
	err = register_netdevice_notifier(&notifier);
	if (err) {
		unregister_netdevice_notifier(&guard_notifier);
		/* A failed registration replays UNREGISTER for what it attached. */
		flush_work(&reap_work);
		rcu_barrier();
		return err;
	}
	report_absent();
	return 0;
}

/*
 * Nothing is attached any more: each attached device holds a module
 * reference. Unregistering replays UNREGISTER for every device anyway.
 */
void xps_steer_attach_exit(void)
{
	unregister_netdevice_notifier(&notifier);
	unregister_netdevice_notifier(&guard_notifier);
	flush_work(&reap_work);
	/* kvfree_rcu()'s fallback before 5.9 calls back into this module. */
	rcu_barrier();
}
