// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/xps_steer/<dev>/tx-<n>/xps_cpus: read and written exactly
 * like the kernel's /sys/class/net/<dev>/queues/tx-<n>/xps_cpus; beside
 * it xps_cpus_list, the same mask as a CPU list ("0-7,16-23"), and
 * xps_rxqs, like the kernel's, the receive queues mapped to it; the
 * device's whole configuration in <dev>/map, written at once; the
 * counters, <dev>/stats and tx-<n>/packets; and
 * /sys/module/xps_steer/features: the compat probe results. The root
 * holds device directories only, so that any device name fits there.
 *
 * The directories are plain kobject_create_and_add() kobjects: their
 * release code lives in the kernel, not in this module, so a late
 * kobject release can never run after the module is gone. (The root is
 * a kset, released by the kernel too, only so that uevents about device
 * directories have a subsystem: events.c.) Attribute handlers find their
 * device by looking the directory up under xps_steer_lock, which also
 * tells them when the device has gone.
 *
 * Removal happens under rtnl and waits for running handlers, so a
 * handler waiting for rtnl would deadlock: handlers never wait for it.
 * Writes to a guarded device, which go into the kernel's map under rtnl,
 * try it and restart the system call if it is taken, as the kernel's own
 * xps_cpus file does.
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>

#include "maptext.h"
#include "xps_steer.h"

static struct kset *root;

/* The device and queue behind a tx-<n> kobject; NULL once it is gone. */
static struct xps_steer_dev *find_queue(struct kobject *kobj,
					unsigned int *queue)
{
	struct xps_steer_dev *xdev;

	lockdep_assert_held(&xps_steer_lock);
	list_for_each_entry(xdev, &xps_steer_devices, node) {
		if (xdev->dir != kobj->parent)
			continue;
		/* Our own name, "tx-<n>" with n < nr_queues. */
		if (kstrtouint(kobject_name(kobj) + 3, 10, queue) ||
		    *queue >= xdev->nr_queues || xdev->queue_dirs[*queue] != kobj)
			return NULL;
		return xdev;
	}
	return NULL;
}

/* The device behind a <dev> kobject; NULL once it is gone. */
static struct xps_steer_dev *find_dev(struct kobject *kobj)
{
	struct xps_steer_dev *xdev;

	lockdep_assert_held(&xps_steer_lock);
	list_for_each_entry(xdev, &xps_steer_devices, node)
		if (xdev->dir == kobj)
			return xdev;
	return NULL;
}

/*
 * For a write: the device behind a <dev> (queue NULL) or tx-<n> kobject,
 * with xps_steer_lock held, and rtnl too if the device is guarded
 * (*rtnl says so); NULL once it is gone. ERR_PTR(-ERESTARTNOINTR) when
 * rtnl is taken: the write is restarted.
 */
static struct xps_steer_dev *lock_for_write(struct kobject *kobj,
					    unsigned int *queue, bool *rtnl)
{
	struct xps_steer_dev *xdev;

	*rtnl = false;
	mutex_lock(&xps_steer_lock);
	xdev = queue ? find_queue(kobj, queue) : find_dev(kobj);
	if (!xdev || xdev->mode != XPS_STEER_MODE_GUARD)
		return xdev;
	/* rtnl comes before xps_steer_lock. */
	mutex_unlock(&xps_steer_lock);
	if (!rtnl_trylock())
		return ERR_PTR(restart_syscall());
	*rtnl = true;
	mutex_lock(&xps_steer_lock);
	return queue ? find_queue(kobj, queue) : find_dev(kobj);
}

static void unlock_after_write(bool rtnl)
{
	mutex_unlock(&xps_steer_lock);
	if (rtnl)
		rtnl_unlock();
}

static ssize_t show_queue(struct kobject *kobj, char *buf,
			  ssize_t (*show)(struct xps_steer_dev *xdev,
					  unsigned int queue, char *buf))
{
	struct xps_steer_dev *xdev;
	unsigned int queue;
	ssize_t ret = -ENODEV;

	mutex_lock(&xps_steer_lock);
	xdev = find_queue(kobj, &queue);
	if (xdev)
		ret = show(xdev, queue, buf);
	mutex_unlock(&xps_steer_lock);
	return ret;
}

static ssize_t xps_cpus_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return show_queue(kobj, buf, xps_steer_model_show_mask);
}

static ssize_t xps_cpus_list_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return show_queue(kobj, buf, xps_steer_model_show_list);
}

/*
 * /sys/kernel is not filtered by network namespace as /sys/class/net is:
 * only a writer in the device's own namespace may change its steering.
 */
static bool writer_in_netns_of(const struct xps_steer_dev *xdev)
{
	return net_eq(current->nsproxy->net_ns, dev_net(xdev->dev));
}

/* The kernel's parser of xps_cpus: hex, comma-separated 32-bit groups. */
static int parse_hex(const char *buf, size_t len, unsigned long *mask)
{
	return bitmap_parse(buf, len, mask, nr_cpumask_bits);
}

/*
 * sysfs passes a store at most a page: kernfs cuts a longer write into
 * pieces, sysfs before it (3.14) cut it short. A piece of a list or of a
 * map means something else, so a text that may have been cut is refused
 * whole.
 */
#define MAX_TEXT_LEN	(PAGE_SIZE - 2)

/* A CPU list: sysfs gives us buf[len] == '\0'. */
static int parse_list(const char *buf, size_t len, unsigned long *mask)
{
	if (len > MAX_TEXT_LEN)
		return -E2BIG;
	return xps_steer_parse_cpulist(buf, mask, nr_cpu_ids);
}

static void log_parse_error(const struct xps_steer_dev *xdev,
			    unsigned int queue, const char *file, int err)
{
	pr_warn_ratelimited("%s: tx-%u: %s write rejected (%d)\n",
			    xdev->name, queue, file, err);
}

static ssize_t store_queue(struct kobject *kobj, const char *buf, size_t len,
			   const char *file,
			   int (*parse)(const char *buf, size_t len,
					unsigned long *mask))
{
	struct xps_steer_dev *xdev;
	cpumask_var_t mask;
	unsigned int queue;
	bool rtnl;
	int err;

	/*
	 * Same checks, same order and (for xps_cpus) same parser as
	 * net-sysfs.c. EPERM is not logged: callers without privilege must
	 * not fill the log.
	 */
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;

	xdev = lock_for_write(kobj, &queue, &rtnl);
	if (IS_ERR(xdev)) {
		free_cpumask_var(mask);
		return PTR_ERR(xdev);
	}
	if (!xdev) {
		err = -ENODEV;
	} else if (!writer_in_netns_of(xdev)) {
		err = -EPERM;
		pr_warn_ratelimited("%s: tx-%u: %s write from another network namespace refused (%d)\n",
				    xdev->name, queue, file, err);
	} else {
		err = parse(buf, len, cpumask_bits(mask));
		if (err)
			log_parse_error(xdev, queue, file, err);
		else	/* which logs its own errors */
			err = xps_steer_model_set_mask(xdev, queue,
						       cpumask_bits(mask), file);
	}
	unlock_after_write(rtnl);

	free_cpumask_var(mask);
	return err ? err : len;
}

static ssize_t xps_cpus_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t len)
{
	return store_queue(kobj, buf, len, "xps_cpus", parse_hex);
}

static ssize_t xps_cpus_list_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t len)
{
	return store_queue(kobj, buf, len, "xps_cpus_list", parse_list);
}

static ssize_t xps_rxqs_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return show_queue(kobj, buf, xps_steer_model_show_rxqs);
}

/*
 * Like the kernel's xps_rxqs: hex groups, one bit per receive queue,
 * parsed by bitmap_parse() over num_rx_queues bits.
 */
static ssize_t xps_rxqs_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t len)
{
	struct xps_steer_dev *xdev;
	unsigned long *mask = NULL;
	unsigned int queue;
	bool rtnl;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;

	xdev = lock_for_write(kobj, &queue, &rtnl);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	if (!xdev) {
		err = -ENODEV;
	} else if (!writer_in_netns_of(xdev)) {
		err = -EPERM;
		pr_warn_ratelimited("%s: tx-%u: xps_rxqs write from another network namespace refused (%d)\n",
				    xdev->name, queue, err);
	} else {
		mask = bitmap_zalloc(xdev->nr_rxqs, GFP_KERNEL);
		err = mask ? bitmap_parse(buf, len, mask, xdev->nr_rxqs) :
			     -ENOMEM;
		if (err)
			log_parse_error(xdev, queue, "xps_rxqs", err);
		else	/* which logs its own errors */
			err = xps_steer_model_set_rxqs(xdev, queue, mask);
	}
	unlock_after_write(rtnl);

	bitmap_free(mask);
	return err ? err : len;
}

static struct kobj_attribute xps_cpus_attr = __ATTR_RW(xps_cpus);
static struct kobj_attribute xps_rxqs_attr = __ATTR_RW(xps_rxqs);
static struct kobj_attribute xps_cpus_list_attr = __ATTR_RW(xps_cpus_list);

/* tx-<n>/packets: packets the map steered to this queue. */
static ssize_t packets_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return show_queue(kobj, buf, xps_steer_counters_show_queue);
}

static struct kobj_attribute packets_attr = __ATTR_RO(packets);

static struct attribute *queue_attrs[] = {
	&xps_cpus_attr.attr,
	&xps_cpus_list_attr.attr,
	&xps_rxqs_attr.attr,
	NULL
};

static const struct attribute_group queue_group = {
	.attrs = queue_attrs,
};

/* A file of a <dev> directory: show(xdev) unless the device is gone. */
static ssize_t show_dev(struct kobject *kobj, char *buf,
			ssize_t (*show)(struct xps_steer_dev *xdev, char *buf))
{
	struct xps_steer_dev *xdev;
	ssize_t ret = -ENODEV;

	mutex_lock(&xps_steer_lock);
	xdev = find_dev(kobj);
	if (xdev)
		ret = show(xdev, buf);
	mutex_unlock(&xps_steer_lock);
	return ret;
}

/*
 * <dev>/stats: steered packets, and the others by reason (counters.c);
 * in guard mode the kernel's map's writes by trigger (guard.c).
 */
static ssize_t show_stats(struct xps_steer_dev *xdev, char *buf)
{
	if (xdev->mode == XPS_STEER_MODE_GUARD)
		return xps_steer_guard_show_stats(xdev, buf);
	return xps_steer_counters_show(xdev, buf);
}

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return show_dev(kobj, buf, show_stats);
}

static struct kobj_attribute stats_attr = __ATTR_RO(stats);

static ssize_t map_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return show_dev(kobj, buf, xps_steer_model_show_map);
}

static ssize_t map_store(struct kobject *kobj, struct kobj_attribute *attr,
			 const char *buf, size_t len)
{
	struct xps_steer_dev *xdev;
	char *text;
	bool rtnl;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	/* The parser cuts its text into lines in place. */
	text = kmalloc(len + 1, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	memcpy(text, buf, len);
	text[len] = '\0';

	xdev = lock_for_write(kobj, NULL, &rtnl);
	if (IS_ERR(xdev)) {
		kfree(text);
		return PTR_ERR(xdev);
	}
	if (!xdev) {
		err = -ENODEV;
	} else if (!writer_in_netns_of(xdev)) {
		err = -EPERM;
		pr_warn_ratelimited("%s: map write from another network namespace refused (%d)\n",
				    xdev->name, err);
	} else if (len > MAX_TEXT_LEN) {
		err = -E2BIG;
		pr_warn_ratelimited("%s: map write rejected: longer than %lu bytes (%d)\n",
				    xdev->name, MAX_TEXT_LEN, err);
	} else {	/* which logs why it refuses */
		err = xps_steer_model_set_map(xdev, text, len);
	}
	unlock_after_write(rtnl);

	kfree(text);
	return err ? err : len;
}

static struct kobj_attribute map_attr = __ATTR_RW(map);

/* <dev>/mode: steer or guard, fixed while attached. */
static ssize_t show_mode(struct xps_steer_dev *xdev, char *buf)
{
	return sysfs_emit(buf, "%s\n", xdev->mode == XPS_STEER_MODE_GUARD ?
			  "guard" : "steer");
}

static ssize_t mode_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return show_dev(kobj, buf, show_mode);
}

static struct kobj_attribute mode_attr = __ATTR_RO(mode);

static struct attribute *dev_attrs[] = {
	&map_attr.attr,
	&mode_attr.attr,
	&stats_attr.attr,
	NULL
};

static const struct attribute_group dev_group = {
	.attrs = dev_attrs,
};

/* What the compile probes found in this kernel, for bug reports. */
static ssize_t features_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", XPS_STEER_FEATURES);
}

static struct kobj_attribute features_attr = __ATTR_RO(features);

/* Remove a directory now, whenever its last reference goes. */
static void remove_dir(struct kobject *kobj)
{
	kobject_del(kobj);
	kobject_put(kobj);
}

/* tx-<n> with its files; NULL on failure, with *err. */
static struct kobject *add_queue_dir(struct xps_steer_dev *xdev,
				     unsigned int queue, int *err)
{
	struct kobject *kobj;
	char name[16];

	snprintf(name, sizeof(name), "tx-%u", queue);
	kobj = kobject_create_and_add(name, xdev->dir);
	if (!kobj) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = sysfs_create_group(kobj, &queue_group);
	/* Per-queue counters come from the hook: steer mode only. */
	if (!*err && xdev->mode == XPS_STEER_MODE_STEER)
		*err = sysfs_create_file(kobj, &packets_attr.attr);
	if (*err) {
		remove_dir(kobj);
		return NULL;
	}
	return kobj;
}

/*
 * Caller holds rtnl, and xdev is not (or no longer) on the device list,
 * so no handler can find it while its directories go.
 */
void xps_steer_sysfs_del_dev(struct xps_steer_dev *xdev)
{
	unsigned int queue;

	ASSERT_RTNL();
	for (queue = 0; queue < xdev->nr_queues; queue++) {
		if (xdev->queue_dirs[queue])
			remove_dir(xdev->queue_dirs[queue]);
		xdev->queue_dirs[queue] = NULL;
	}
	if (xdev->dir)
		remove_dir(xdev->dir);
	xdev->dir = NULL;
}

/*
 * <dev>/map, and <dev>/tx-<n> for every queue the device can have: the
 * ones ethtool -L adds later are configurable at once. Creates all or
 * nothing.
 */
int xps_steer_sysfs_add_dev(struct xps_steer_dev *xdev)
{
	unsigned int queue;
	int err = 0;

	ASSERT_RTNL();
	/* NULL is a failed allocation: no name can collide in the root. */
	xdev->dir = kobject_create_and_add(xdev->name, &root->kobj);
	if (!xdev->dir)
		return -ENOMEM;
	err = sysfs_create_group(xdev->dir, &dev_group);
	if (err) {
		xps_steer_sysfs_del_dev(xdev);
		return err;
	}
	for (queue = 0; queue < xdev->nr_queues; queue++) {
		xdev->queue_dirs[queue] = add_queue_dir(xdev, queue, &err);
		if (err) {
			xps_steer_sysfs_del_dev(xdev);
			return err;
		}
	}
	return 0;
}

void xps_steer_sysfs_rename(struct xps_steer_dev *xdev)
{
	int err;

	ASSERT_RTNL();
	err = kobject_rename(xdev->dir, xdev->name);
	if (err)
		pr_err("%s: cannot rename its sysfs directory (%d)\n",
		       xdev->name, err);
}

int xps_steer_sysfs_init(void)
{
	int err;

	/* No uevent_ops: the subsystem is the kset's name, xps_steer. */
	root = kset_create_and_add("xps_steer", NULL, kernel_kobj);
	if (!root)
		return -ENOMEM;
	err = sysfs_create_file(&THIS_MODULE->mkobj.kobj, &features_attr.attr);
	if (err)
		kset_unregister(root);
	return err;
}

void xps_steer_sysfs_exit(void)
{
	sysfs_remove_file(&THIS_MODULE->mkobj.kobj, &features_attr.attr);
	kset_unregister(root);
}
