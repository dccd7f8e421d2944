/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One network device as xps-steer sees it, and the two backends
 * that hold its masks: the module's files (/sys/kernel/xps_steer/<dev>/)
 * for attached devices, the kernel's own xps_cpus files for devices the
 * module refuses.
 */
#ifndef XPS_STEER_DEVICE_H
#define XPS_STEER_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <hwloc.h>

/* What the module's status file says of a name. */
enum dev_state {
	DEV_NOT_LISTED,		/* not in dev= (or the module is not loaded) */
	DEV_ATTACHED,
	DEV_ABSENT,		/* listed, no such device yet */
	DEV_REFUSED,
	DEV_FAILED,		/* attaching failed for lack of a resource */
};

/* How an attached device is served (the status file's mode=). */
enum dev_mode {
	MODE_NONE,		/* not attached */
	MODE_STEER,		/* our select_queue (no mode=: older modules) */
	MODE_GUARD,		/* the kernel's own XPS map, kept by the module */
};

enum dev_backend {
	BACKEND_NONE,		/* nothing can hold a mask (no such device) */
	BACKEND_MODULE,		/* /sys/kernel/xps_steer/<dev>/ */
	BACKEND_KERNEL,		/* /sys/class/net/<dev>/queues/tx-<n>/xps_cpus */
};

struct queue_info {
	unsigned int index;
	bool active;			/* below real_num_tx_queues */
	hwloc_bitmap_t cpus;		/* the backend's mask */
	hwloc_bitmap_t kernel_cpus;	/* the kernel's xps_cpus; NULL: none */
	char *rxqs;			/* xps_rxqs as read; NULL: none */
	long long packets;		/* steered here; -1: not counted */
	int irq;			/* its interrupt; -1: not found */
	hwloc_bitmap_t irq_affinity;	/* that IRQ's effective affinity; NULL */
};

struct stat_entry {
	char *name;
	unsigned long long value;
};

struct device {
	char *name;		/* the name asked for (dev= entry or argument) */
	char *ifname;		/* the interface's name now; NULL: absent */
	enum dev_state state;
	char *reason;		/* refused, failed: the status file's reason= */
	char *refused_driver;	/* refused: its driver= */
	char *hook;		/* attached: installed, copied, replaced, none */
	enum dev_mode mode;
	char *guard;		/* guard mode: why (the status file's guard=) */
	char *guard_driver;	/* guard=denylisted: the driver= */
	enum dev_backend backend;
	char *driver;		/* bound driver (virtio_net); NULL: none */
	char *bus_id;		/* PCI address (0000:00:03.0); NULL: none */
	char *mac;		/* address, lower case; NULL: none */
	int numa_node;		/* -1: unknown */
	unsigned int num_queues;	/* tx-<n> directories / num_tx_queues */
	unsigned int active_queues;	/* real_num_tx_queues */
	struct queue_info *queues;	/* num_queues of them */
	struct stat_entry *stats;	/* the module's stats file; NULL */
	size_t nstats;
};

/* Is the module loaded (/sys/module/xps_steer exists)? */
bool module_loaded(void);
/*
 * The status file: one device per line with name, state, reason, hook
 * and ifname filled in; nothing else. 0 or -errno.
 */
int module_status(struct device **devs, size_t *n);
/*
 * dev= entries are "eth0" or "eth0:guard" (guard mode asked for; ':' is
 * never part of a device name). Lists the tool rewrites keep each entry
 * as it is, so a name matches an entry by its name part only.
 */
#define DEV_GUARD_SUFFIX ":guard"
/* The name part's length: up to the ':' of a mode suffix. */
size_t dev_entry_namelen(const char *entry);
/* Same device: the name parts of two entries (or names) are equal. */
bool dev_entry_same(const char *a, const char *b);
/* The entry asks for guard mode. */
bool dev_entry_guard(const char *entry);

/* The dev= list, entries as written; an unloaded module gives -ENOENT. */
int dev_list_read(char ***names, size_t *n);
/*
 * Serialise read-modify-write of the dev= list between xps-steer
 * processes (udev runs one per new device, in parallel; a lost name would
 * be detached): an exclusive flock on /run/xps-steer.lock, held until
 * dev_list_unlock(fd). Returns the fd, or -1 when /run has no room for it
 * (then unlocked).
 */
int dev_list_lock(void);
void dev_list_unlock(int fd);
/* Write the dev= list (comma-separated); -errno is the kernel's answer. */
int dev_list_write(char *const *names, size_t n);
/* Load the module with this list (modprobe xps_steer dev=...). */
int module_load(char *const *names, size_t n);

/*
 * Everything about one device: state from the status file, then the
 * backend (module when attached, kernel when it exists otherwise), its
 * queues and masks, driver, address, NUMA node, IRQs, counters.
 * Returns 0, -ENODEV when neither the module nor /sys/class/net knows
 * the name, or the errno of an attached device's unreadable map file
 * (reported; a map too long to show, EFBIG, is read queue by queue).
 */
int device_load(const char *name, struct device *dev);
void device_free(struct device *dev);
void devices_free(struct device *devs, size_t n);

/*
 * Replace every active queue's mask. masks[] has dev->num_queues entries;
 * inactive queues' entries are ignored (they keep their masks). Module:
 * one write of the map file (atomic), or, for a map longer than the
 * module takes in one write, queue by queue with a warning; kernel: one
 * xps_cpus write per queue. Queue by queue, a write is skipped where the
 * mask is already equal, and when a queue refuses, the queues written
 * before it are put back as they were. 0 or -errno. *failed_queue is the
 * queue that refused, or -1 when the map file did: a refused queue is
 * reported here (and what became of the others), a refused map file is
 * the caller's to report.
 */
int device_write_map(struct device *dev, hwloc_bitmap_t *masks,
		     int *failed_queue);
/*
 * Every active queue's mask names possible CPUs only (the module refuses
 * others, the kernel's hex has no room for them); else say which queue
 * and CPU, naming the device, and return -ERANGE.
 */
int device_check_possible(const struct device *dev, hwloc_bitmap_t *masks);
/*
 * For the kernel backend: the masks less the offline CPUs, which the
 * kernel's xps_cpus drops when written; a line in *notes says which.
 * CPUs beyond the possible ones stay, for device_check_possible to refuse.
 */
void device_kernel_can_hold(const struct device *dev, hwloc_bitmap_t *masks,
			    char **notes);
/* One queue's mask, through the backend. 0 or -errno. */
int device_write_queue(struct device *dev, unsigned int queue,
		       hwloc_const_bitmap_t mask);
/* The map file's text for these masks (what device_write_map writes). */
char *map_text(const struct device *dev, hwloc_bitmap_t *masks);

const char *dev_state_name(enum dev_state state);
const char *dev_backend_name(enum dev_backend backend);
/* "steer", "guard"; NULL for MODE_NONE. */
const char *dev_mode_name(enum dev_mode mode);

#endif
