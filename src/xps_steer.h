/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xps_steer: Transmit Packet Steering for a stock kernel.
 *
 * Shared declarations. One file per concern:
 *   main.c     module parameters, init and exit
 *   attach.c   device lifecycle: notifier, attach, detach, deferred free
 *   denylist.c drivers we must never wrap
 *   map.c      building the per-CPU queue map from per-queue CPU masks
 *              (pure logic, see map.h; also built in userspace by the fuzzer)
 *   publish.c  replacing a device's map under RCU
 *   select.c   the per-packet ndo_select_queue hook
 *   sysfs.c    /sys/kernel/xps_steer/<dev>/tx-<n>/xps_cpus, features
 *   compat.h   what differs between kernels (force-included; probes/)
 */
#ifndef XPS_STEER_H
#define XPS_STEER_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "map.h"

/* How many names dev= may list. */
#define XPS_STEER_MAX_NAMES	32

/* One attached device. */
struct xps_steer_dev {
	struct list_head node;		/* xps_steer_devices (RCU) */
	struct list_head reap_node;	/* waiting to be freed */
	struct net_device *dev;
	const struct net_device_ops *orig_ops;
	struct net_device_ops ops;	/* our copy; not const: we fill it */
	struct xps_steer_map __rcu *map;
	char name[IFNAMSIZ];		/* for log lines, kept across renames */

	/* Requested CPU mask of each queue, nr_cpu_ids bits each. */
	unsigned long *masks;
	unsigned int mask_longs;	/* longs per mask */
	unsigned int max_queues;	/* dev->num_tx_queues */
	unsigned int nr_queues;		/* queues with a tx-<n> directory */

	struct kobject *dir;		/* /sys/kernel/xps_steer/<dev> */
	struct kobject **queue_dirs;	/* [max_queues], tx-<n> */
};

/* Serialises all control-path changes; never held while sysfs drains. */
extern struct mutex xps_steer_lock;
/* Attached devices; writers hold rtnl and xps_steer_lock, TX path uses RCU. */
extern struct list_head xps_steer_devices;

static inline unsigned long *xps_steer_queue_mask(struct xps_steer_dev *xdev,
						  unsigned int queue)
{
	return xdev->masks + (size_t)queue * xdev->mask_longs;
}

/* main.c */
bool xps_steer_name_requested(const char *name);

/* attach.c */
int xps_steer_attach_init(void);
void xps_steer_attach_exit(void);

/* denylist.c */
bool xps_steer_denied(const struct net_device *dev, const char **driver,
		      const char **why);

/* publish.c */
int xps_steer_publish_map(struct xps_steer_dev *xdev);

/* select.c */
void xps_steer_hook_ops(struct net_device_ops *ops);

/* sysfs.c */
int xps_steer_sysfs_init(void);
void xps_steer_sysfs_exit(void);
int xps_steer_sysfs_add_dev(struct xps_steer_dev *xdev);
void xps_steer_sysfs_del_dev(struct xps_steer_dev *xdev);
int xps_steer_sysfs_resize(struct xps_steer_dev *xdev, unsigned int nr);
void xps_steer_sysfs_rename(struct xps_steer_dev *xdev);

#endif /* XPS_STEER_H */
