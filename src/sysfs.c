// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/xps_steer/<dev>/tx-<n>/xps_cpus: read and written exactly
 * like the kernel's /sys/class/net/<dev>/queues/tx-<n>/xps_cpus; and
 * /sys/kernel/xps_steer/features: the compat probe results.
 *
 * The directories are plain kobject_create_and_add() kobjects: their
 * release code lives in the kernel, not in this module, so a late
 * kobject release can never run after the module is gone. Attribute
 * handlers find their queue by looking the kobject up under
 * xps_steer_lock, which also tells them when the device has gone.
 *
 * Handlers never take rtnl: removal happens under rtnl and waits for
 * running handlers, so a handler waiting for rtnl would deadlock.
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/kobject.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "xps_steer.h"

static struct kobject *xps_steer_root;

/* The device and queue behind a tx-<n> kobject; NULL once it is gone. */
static struct xps_steer_dev *xps_steer_find_queue(struct kobject *kobj,
						  unsigned int *queue)
{
	struct xps_steer_dev *xdev;
	unsigned int i;

	lockdep_assert_held(&xps_steer_lock);

	list_for_each_entry(xdev, &xps_steer_devices, node)
		for (i = 0; i < xdev->nr_queues; i++)
			if (xdev->queue_dirs[i] == kobj) {
				*queue = i;
				return xdev;
			}
	return NULL;
}

static ssize_t xps_cpus_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct xps_steer_dev *xdev;
	unsigned int queue;
	ssize_t ret;

	mutex_lock(&xps_steer_lock);
	xdev = xps_steer_find_queue(kobj, &queue);
	if (xdev)
		ret = xps_steer_emit_mask(buf,
					  xps_steer_queue_mask(xdev, queue),
					  nr_cpu_ids);
	else
		ret = -ENODEV;
	mutex_unlock(&xps_steer_lock);
	return ret;
}

/* Replace one queue's mask and republish the map; all or nothing. */
static int xps_steer_set_mask(struct xps_steer_dev *xdev, unsigned int queue,
			      const struct cpumask *mask)
{
	unsigned long *requested = xps_steer_queue_mask(xdev, queue);
	unsigned long *saved;
	int err;

	saved = bitmap_alloc(nr_cpu_ids, GFP_KERNEL);
	if (!saved)
		return -ENOMEM;
	bitmap_copy(saved, requested, nr_cpu_ids);
	bitmap_copy(requested, cpumask_bits(mask), nr_cpu_ids);
	err = xps_steer_publish_map(xdev);
	if (err)
		bitmap_copy(requested, saved, nr_cpu_ids);
	bitmap_free(saved);
	return err;
}

static ssize_t xps_cpus_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t len)
{
	struct xps_steer_dev *xdev;
	cpumask_var_t mask;
	unsigned int queue;
	int err;

	/*
	 * Same checks, same order and same parser as net-sysfs.c. EPERM is
	 * not logged: callers without privilege must not fill the log.
	 */
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	err = bitmap_parse(buf, len, cpumask_bits(mask), nr_cpumask_bits);

	mutex_lock(&xps_steer_lock);
	xdev = xps_steer_find_queue(kobj, &queue);
	if (!err)
		err = xdev ? xps_steer_set_mask(xdev, queue, mask) : -ENODEV;
	if (err && xdev)
		pr_warn_ratelimited("%s: tx-%u: xps_cpus write rejected (%d)\n",
				    xdev->name, queue, err);
	mutex_unlock(&xps_steer_lock);

	free_cpumask_var(mask);
	return err ? err : len;
}

static struct kobj_attribute xps_cpus_attr = __ATTR_RW(xps_cpus);

/* What the compile probes found in this kernel, for bug reports. */
static ssize_t features_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", XPS_STEER_FEATURES);
}

static struct kobj_attribute features_attr = __ATTR_RO(features);

/* Remove a directory now, whenever its last reference goes. */
static void xps_steer_remove_dir(struct kobject *kobj)
{
	kobject_del(kobj);
	kobject_put(kobj);
}

static struct kobject *xps_steer_add_queue_dir(struct xps_steer_dev *xdev,
					       unsigned int queue)
{
	struct kobject *kobj;
	char name[16];

	snprintf(name, sizeof(name), "tx-%u", queue);
	kobj = kobject_create_and_add(name, xdev->dir);
	if (!kobj)
		return NULL;
	if (sysfs_create_file(kobj, &xps_cpus_attr.attr)) {
		xps_steer_remove_dir(kobj);
		return NULL;
	}
	return kobj;
}

/*
 * Make the tx-<n> directories match nr queues. Caller holds rtnl, which
 * serialises all changes to the tree; xps_steer_lock is taken only
 * around the updates the handlers can see, and is not held while
 * directories are removed (removal waits for running handlers).
 */
int xps_steer_sysfs_resize(struct xps_steer_dev *xdev, unsigned int nr)
{
	unsigned int queue, old_nr = xdev->nr_queues;
	int err;

	ASSERT_RTNL();
	nr = min(nr, xdev->max_queues);

	for (queue = old_nr; queue < nr; queue++) {
		struct kobject *kobj = xps_steer_add_queue_dir(xdev, queue);

		if (!kobj) {
			pr_err("%s: cannot create tx-%u in sysfs\n",
			       xdev->name, queue);
			return -ENOMEM;
		}
		mutex_lock(&xps_steer_lock);
		xdev->queue_dirs[queue] = kobj;
		xdev->nr_queues = queue + 1;
		mutex_unlock(&xps_steer_lock);
	}
	if (nr >= old_nr)
		return 0;

	/* Like the kernel, a queue that goes away loses its mask. */
	mutex_lock(&xps_steer_lock);
	for (queue = nr; queue < old_nr; queue++)
		bitmap_zero(xps_steer_queue_mask(xdev, queue), nr_cpu_ids);
	xdev->nr_queues = nr;
	err = xps_steer_publish_map(xdev);
	mutex_unlock(&xps_steer_lock);
	if (err)
		pr_err("%s: cannot rebuild the queue map (%d); queues >= %u stay unused\n",
		       xdev->name, err, nr);

	for (queue = nr; queue < old_nr; queue++) {
		xps_steer_remove_dir(xdev->queue_dirs[queue]);
		xdev->queue_dirs[queue] = NULL;
	}
	return 0;
}

/* On failure the caller removes what was created with sysfs_del_dev(). */
int xps_steer_sysfs_add_dev(struct xps_steer_dev *xdev)
{
	unsigned int want = min(xdev->dev->real_num_tx_queues,
				xdev->max_queues);

	ASSERT_RTNL();
	xdev->dir = kobject_create_and_add(xdev->name, xps_steer_root);
	if (!xdev->dir)
		return -ENOMEM;
	return xps_steer_sysfs_resize(xdev, want);
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
		xps_steer_remove_dir(xdev->queue_dirs[queue]);
		xdev->queue_dirs[queue] = NULL;
	}
	xdev->nr_queues = 0;
	if (xdev->dir)
		xps_steer_remove_dir(xdev->dir);
	xdev->dir = NULL;
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

	xps_steer_root = kobject_create_and_add("xps_steer", kernel_kobj);
	if (!xps_steer_root)
		return -ENOMEM;
	err = sysfs_create_file(xps_steer_root, &features_attr.attr);
	if (err)
		xps_steer_remove_dir(xps_steer_root);
	return err;
}

void xps_steer_sysfs_exit(void)
{
	xps_steer_remove_dir(xps_steer_root);
}
