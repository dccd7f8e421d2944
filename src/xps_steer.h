/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xps_steer: Transmit Packet Steering for a stock kernel.
 *
 * Shared declarations. One file per concern:
 *   main.c     module parameters, init and exit
 *   attach.c   device lifecycle: the requested names, notifier, attach
 *              in steer or guard mode, detach, deferred free
 *   denylist.c drivers we must never wrap, and drivers whose queue
 *              selection never consults XPS
 *   guard.c    guard mode: the kernel's own XPS map kept equal to our
 *              masks, checked after events, CPU hotplug and periodically
 *   counters.c per-CPU packet counters, summed on read
 *   slots.c    the table of our net_device_ops copies, in which the TX
 *              path finds a device's map from dev->netdev_ops in O(1)
 *   model.c    a device's state: per-queue CPU masks, the queue count
 *              they apply to, and the map published from them
 *   map.c      building the per-CPU queue map from per-queue CPU masks
 *              (pure logic, see map.h; also built in userspace by the fuzzer)
 *   maptext.c  parsing the map file and CPU lists (pure logic, maptext.h;
 *              also built in userspace by the fuzzer)
 *   names.c    parsing the device list of dev= (pure logic, names.h; also
 *              built in userspace by the fuzzer)
 *   select.c   the per-packet ndo_select_queue hook
 *   sysfs.c    /sys/kernel/xps_steer/<dev>/map, <dev>/tx-<n>/xps_cpus and
 *              xps_cpus_list, /sys/module/xps_steer/features: the files,
 *              their checks and log lines, directories
 *   status.c   /sys/module/xps_steer/status: the state of each name in dev=
 *   events.c   uevents when a device is attached, renamed or detached
 *   compat.h   what differs between kernels (force-included; probes/)
 */
#ifndef XPS_STEER_H
#define XPS_STEER_H

#include <linux/cache.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "map.h"
#include "names.h"

/*
 * A slot's size: a power of two, so that the TX path turns an ops pointer
 * into a slot with a mask instead of a division (select.c).
 */
#define XPS_STEER_SLOT_SIZE \
	(2 * sizeof(void *) + sizeof(struct net_device_ops) <= 1024 ? 1024 : 2048)

/*
 * Why the TX path left a packet to the stock selection (counters.c);
 * steered packets are counted per queue instead.
 */
enum xps_steer_reason {
	XPS_STEER_KEPT_SOCKET_QUEUE,	/* the socket's cached queue */
	XPS_STEER_CPU_IN_NO_MASK,	/* the sending CPU has no queue */
	XPS_STEER_SUBORDINATE_DEVICE,	/* sb_dev/accel_priv: its own range */
	XPS_STEER_TRAFFIC_CLASS,	/* none of the CPU's queues in its class */
	XPS_STEER_QUEUE_INACTIVE,	/* the map's queue >= real_num_tx_queues */
	XPS_STEER_NO_MAP,		/* no mask set on the device */
	XPS_STEER_NR_REASONS
};

/*
 * After the reasons, one more per-CPU counter: steered packets whose
 * queue came from the receive-queue map (xps_rxqs), a part of those
 * counted per queue.
 */
#define XPS_STEER_STEERED_BY_RXQS	XPS_STEER_NR_REASONS
#define XPS_STEER_NR_COUNTERS		(XPS_STEER_NR_REASONS + 1)

/* Queues per per-CPU allocation: 32 KiB of counters. */
#define XPS_STEER_QUEUE_CHUNK	4096

/* Per-CPU packet counters of one device (counters.c). */
struct xps_steer_counters {
	unsigned long __percpu *reasons;	/* [XPS_STEER_NR_COUNTERS] */
	unsigned long __percpu *queues[];	/* steered, per queue chunk */
};

/*
 * Everything the TX path reads for one attached device, and nothing
 * else: our copy of its net_device_ops (dev->netdev_ops points at .ops)
 * with the device and its map on the same cache line as the start of
 * the copy, which the core reads for every packet anyway.
 */
struct xps_steer_slot {
	union {
		struct {
			struct xps_steer_map __rcu *map; /* NULL: no mask */
			struct net_device *dev;		 /* NULL: free */
			/* By receive queue (xps_rxqs); NULL: no mask. */
			struct xps_steer_map __rcu *rxq_map;
			/* The device's counters, and two shortcuts into them. */
			struct xps_steer_counters *counters;
			unsigned long __percpu *reason_counters;
			unsigned long __percpu *queue_counters;
			struct net_device_ops ops;
		};
		u8 size[XPS_STEER_SLOT_SIZE];
	};
};

/* How an attached device is served. */
enum xps_steer_mode {
	XPS_STEER_MODE_STEER,	/* our ndo_select_queue in a copy of its ops */
	XPS_STEER_MODE_GUARD,	/* our masks kept in the kernel's XPS map */
};

/*
 * How a device named in dev= is served, and why, or why not at all: one
 * row each in verdicts.c, with its log line, status words and errno.
 */
enum xps_steer_verdict {
	XPS_STEER_STEERED,		/* steer mode */
	XPS_STEER_GUARD_REQUESTED,	/* dev=<name>:guard */
	XPS_STEER_GUARD_DENYLISTED,	/* the ops copy would break the driver */
	XPS_STEER_GUARD_OWN_SELECT_QUEUE, /* the copy would bypass its select */
	XPS_STEER_SINGLE_QUEUE,		/* refusals from here on */
	XPS_STEER_TOO_MANY_QUEUES,
	XPS_STEER_IGNORES_XPS,		/* its own selection never uses XPS */
	XPS_STEER_NO_KERNEL_XPS,	/* guard needed, kernel without XPS */
	XPS_STEER_NO_MEMORY,		/* failures, not refusals, from here on */
	XPS_STEER_NO_SYSFS,
	XPS_STEER_NO_SLOT,
	XPS_STEER_NR_VERDICTS
};

/* One verdict's words; its errno is what a refusal or failure stands for. */
struct xps_steer_verdict_row {
	const char *state;	/* the status line's: attached, refused, failed */
	const char *word;	/* its guard= (guarded) or reason= (refused) */
	int err;		/* its error= (refused, failed) */
	const char *log;	/* the log line, after "<device>: " */
};

/* What attach.c found out about a device, for its log and status lines. */
struct xps_steer_facts {
	const char *driver;	/* the denylist's entry that matched */
	const char *why;	/* that entry's reason (log line only) */
	unsigned int queues;	/* its tx queues */
	int err;		/* a failure's own error, else 0: the row's */
};

/* What made guard.c look at the kernel's map (the stats file's names). */
enum xps_steer_trigger {
	XPS_STEER_BY_WRITE,	/* a write to our files, other queues off */
	XPS_STEER_BY_EVENT,	/* a netdev notifier event */
	XPS_STEER_BY_HOTPLUG,	/* a CPU came online or went offline */
	XPS_STEER_BY_POLL,	/* the periodic check */
	XPS_STEER_NR_TRIGGERS	/* also: none */
};

/* The kernel's maps guard mode keeps: by CPU and by receive queue. */
#define XPS_STEER_GUARD_MAPS	2

/* Guard mode's state of one device (guard.c); under xps_steer_lock. */
struct xps_steer_guard {
	/* Scratch: the kernel's mask of a queue, and how ours differs. */
	unsigned long *kernel_mask;
	unsigned long *diff_mask;
	struct cpumask *cpus;		/* scratch: a mask to write */
	unsigned long applied;		/* writes to our files that wrote */
	/* Checks that restored the kernel's map, by trigger. */
	unsigned long restores[XPS_STEER_NR_TRIGGERS];
	/* Drifts found right after our own write, by trigger. */
	unsigned long fights[XPS_STEER_NR_TRIGGERS];
	unsigned long failed;		/* writes the kernel refused */
	unsigned long checks;		/* comparisons made */
	unsigned long last_write;	/* jiffies of our last write */
	unsigned long backoff_until;	/* jiffies: restores wait till then */
	unsigned int backoff_ms;	/* the wait after the next fight */
	u8 recent;			/* last_write may start a fight */
	u8 deferred;			/* trigger of a waiting restore */
	/* Per map (CPUs, rxqs): we wrote it with a mask set. */
	u8 owned[XPS_STEER_GUARD_MAPS];
};

/* One attached device: the control side. */
struct xps_steer_dev {
	struct list_head node;		/* xps_steer_devices */
	struct list_head reap_node;	/* waiting to be freed */
	struct net_device *dev;
	enum xps_steer_mode mode;
	enum xps_steer_verdict verdict;	/* steered, or why guarded */
	const char *guard_driver;	/* denylisted: the entry's driver */
	bool asked_guard;		/* dev= named it with ":guard" */
	struct xps_steer_guard guard;	/* guard mode only */
	struct xps_steer_slot *slot;	/* steer mode only; else NULL */
	const struct net_device_ops *orig_ops;
	char name[IFNAMSIZ];		/* its name now, for log lines */
	char attached_as[IFNAMSIZ];	/* the name dev= found it under */

	/* model.c: requested CPU mask of each queue, nr_cpu_ids bits each. */
	unsigned long *masks;
	unsigned int mask_longs;	/* longs per mask */
	unsigned int nr_queues;		/* dev->num_tx_queues: a tx-<n> each */
	/* Receive queues of each queue (xps_rxqs), nr_rxqs bits each. */
	unsigned long *rxq_masks;
	unsigned int rxq_mask_longs;
	unsigned int nr_rxqs;		/* dev->num_rx_queues */

	struct xps_steer_counters *counters;

	struct kobject *dir;		/* /sys/kernel/xps_steer/<dev> */
	struct kobject **queue_dirs;	/* [nr_queues], tx-<n> */
};

/*
 * Serialises the control path: the device list, masks, maps and slots.
 * Changes to the list and to directories also hold rtnl; sysfs handlers
 * take only this lock, and it is never held while directories go.
 */
extern struct mutex xps_steer_lock;
extern struct list_head xps_steer_devices;

/* Whether an attached device's ops still lead to our hook (status.c). */
enum xps_steer_hook {
	XPS_STEER_HOOK_INSTALLED,	/* dev->netdev_ops is our copy */
	XPS_STEER_HOOK_COPIED,		/* someone's copy of our copy */
	XPS_STEER_HOOK_REPLACED,	/* ops that do not lead to us */
	XPS_STEER_HOOK_NONE,		/* guard mode: no hook at all */
};

/* attach.c */
extern const struct kernel_param_ops xps_steer_dev_param_ops;
int xps_steer_attach_init(const char *names);
void xps_steer_attach_exit(void);
const char *xps_steer_requested_name(unsigned int i);
enum xps_steer_hook xps_steer_hook_state(const struct xps_steer_dev *xdev);

/* denylist.c */
bool xps_steer_denied(const struct net_device *dev, const char **driver,
		      const char **why);
bool xps_steer_ignores_xps(const struct net_device *dev, const char **driver,
			   const char **why);

/* guard.c */
extern const struct kernel_param_ops xps_steer_guard_interval_ops;
int xps_steer_guard_init(void);
void xps_steer_guard_exit(void);
bool xps_steer_guard_supported(void);
int xps_steer_guard_init_dev(struct xps_steer_dev *xdev);
void xps_steer_guard_start(struct xps_steer_dev *xdev);
void xps_steer_guard_stop(struct xps_steer_dev *xdev);
void xps_steer_guard_free(struct xps_steer_dev *xdev);
int xps_steer_guard_apply(struct xps_steer_dev *xdev, bool rxqs,
			  const unsigned long *queues);
void xps_steer_guard_event(struct xps_steer_dev *xdev);
ssize_t xps_steer_guard_show_stats(struct xps_steer_dev *xdev, char *buf);

/* slots.c */
extern struct xps_steer_slot *xps_steer_slots;
int xps_steer_slots_init(void);
void xps_steer_slots_exit(void);
struct xps_steer_slot *xps_steer_slot_get(struct net_device *dev);
void xps_steer_slot_put(struct xps_steer_slot *slot);
void xps_steer_slot_keep(struct xps_steer_slot *slot);

/* model.c */
const char *xps_steer_class_refusal(const struct net_device *dev,
				    unsigned int queue);
int xps_steer_model_init(struct xps_steer_dev *xdev);
void xps_steer_model_free(struct xps_steer_dev *xdev);
void xps_steer_model_unpublish(struct xps_steer_dev *xdev);
ssize_t xps_steer_model_show_mask(struct xps_steer_dev *xdev,
				  unsigned int queue, char *buf);
int xps_steer_model_set_mask(struct xps_steer_dev *xdev, unsigned int queue,
			     const unsigned long *mask, const char *file);
ssize_t xps_steer_model_show_rxqs(struct xps_steer_dev *xdev,
				  unsigned int queue, char *buf);
int xps_steer_model_set_rxqs(struct xps_steer_dev *xdev, unsigned int queue,
			     const unsigned long *mask);
ssize_t xps_steer_model_show_list(struct xps_steer_dev *xdev,
				  unsigned int queue, char *buf);
ssize_t xps_steer_model_show_map(struct xps_steer_dev *xdev, char *buf);
int xps_steer_model_set_map(struct xps_steer_dev *xdev, char *text,
			    size_t len);

/* counters.c */
int xps_steer_counters_init(struct xps_steer_dev *xdev);
void xps_steer_counters_free(struct xps_steer_dev *xdev);
unsigned long xps_steer_counters_queue(struct xps_steer_dev *xdev,
				       unsigned int queue);
ssize_t xps_steer_counters_show(struct xps_steer_dev *xdev, char *buf);
ssize_t xps_steer_counters_show_queue(struct xps_steer_dev *xdev,
				      unsigned int queue, char *buf);

/* select.c */
void xps_steer_hook_ops(struct net_device_ops *ops);

/* status.c */
int xps_steer_status_init(void);
void xps_steer_status_exit(void);
void xps_steer_status_refused(const struct net_device *dev,
			      enum xps_steer_verdict verdict,
			      const struct xps_steer_facts *facts);
void xps_steer_status_forget(const struct net_device *dev);

/* verdicts.c */
extern const struct xps_steer_verdict_row xps_steer_verdicts[];
void xps_steer_log_verdict(const struct net_device *dev,
			   enum xps_steer_verdict verdict,
			   const struct xps_steer_facts *facts);
int xps_steer_verdict_err(enum xps_steer_verdict verdict,
			  const struct xps_steer_facts *facts);

/* events.c */
void xps_steer_event(struct xps_steer_dev *xdev, enum kobject_action action,
		     const char *old_name);

/* sysfs.c */
int xps_steer_sysfs_init(void);
void xps_steer_sysfs_exit(void);
int xps_steer_sysfs_add_dev(struct xps_steer_dev *xdev);
void xps_steer_sysfs_del_dev(struct xps_steer_dev *xdev);
void xps_steer_sysfs_rename(struct xps_steer_dev *xdev);

#endif /* XPS_STEER_H */
