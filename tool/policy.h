/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Automatic maps (xps-steer auto, and policy= in the
 * configuration): which CPUs send on which queue.
 */
#ifndef XPS_STEER_POLICY_H
#define XPS_STEER_POLICY_H

#include <hwloc.h>

enum policy {
	POLICY_ONE_TO_ONE,	/* CPU k -> queue k mod n */
	POLICY_CACHE,		/* a queue's CPUs share the nearest cache */
	POLICY_NUMA,		/* the NIC's node's CPUs first */
	POLICY_IRQ,		/* a queue's CPUs are its IRQ's affinity */
};

struct policy_input {
	hwloc_topology_t topo;
	const char *ifname;		/* to place the NIC (numa) */
	unsigned int nqueues;		/* queues to fill: 0 .. nqueues-1 */
	hwloc_const_bitmap_t exclude;	/* isolcpus, nohz_full: never mapped */
	hwloc_bitmap_t *irq_affinity;	/* irq: per queue, NULL = unknown */
};

/* "one-to-one", "cache", "numa", "irq"; 0 or -EINVAL. */
int policy_parse(const char *name, enum policy *policy);
const char *policy_name(enum policy policy);

/*
 * Fill masks[0 .. nqueues-1] (allocated by the caller, zeroed here).
 * Returns 0 or -errno (-ENOENT: irq with no IRQ found for any queue).
 * *notes gets a malloc'd text of lines that explain compromises (a queue
 * whose CPUs share no cache, CPUs left unmapped, ...), or NULL.
 */
int policy_compute(enum policy policy, const struct policy_input *in,
		   hwloc_bitmap_t *masks, char **notes);

struct device;
/*
 * policy_compute for a device's active queues, with the excluded CPUs and
 * the IRQ affinities device_load found; a failure is reported, naming the
 * device. 0 or -errno. (auto.c)
 */
int policy_device_map(enum policy policy, hwloc_topology_t topo,
		      const struct device *dev, hwloc_bitmap_t *masks,
		      char **notes);

/* The CPUs never mapped: /sys/devices/system/cpu/{isolated,nohz_full}. */
void policy_excluded_cpus(hwloc_bitmap_t set);

#endif
