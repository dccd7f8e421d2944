/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU queue map: pure data and the function that builds it from
 * per-queue CPU masks. No device, locking or RCU logic here, so the same
 * code also builds in userspace for the fuzzer (test/fuzz/).
 */
#ifndef XPS_STEER_MAP_H
#define XPS_STEER_MAP_H

#include <linux/types.h>

/*
 * The queues one CPU may use: map->queues[first .. first + len - 1]. The
 * first of them is also kept inline, so a CPU with one queue (the common
 * one-to-one map) costs the TX path a single cache line.
 */
struct xps_steer_cpu_queues {
	u32 first;
	u16 len;	/* at most XPS_STEER_MAX_QUEUES */
	u16 queue;	/* queues[first], when len */
};

/* Queue numbers are u16, and U16_MAX means "no queue" to the core. */
#define XPS_STEER_MAX_QUEUES	65535

/*
 * The per-CPU queue map the TX path reads. Built whole by a writer,
 * published with RCU and never modified afterwards. The receive-queue map
 * (xps_rxqs) has the same layout, indexed by receive queue: there,
 * "cpu" reads "receive queue".
 */
struct xps_steer_map {
	struct rcu_head rcu;		/* first: see kvfree_rcu() in compat.h */
	unsigned int nr_cpus;		/* entries in cpu[] */
	struct xps_steer_cpu_queues cpu[];
	/* then u16 queues[]: the per-CPU lists, back to back */
};

static inline u16 *xps_steer_map_queues(const struct xps_steer_map *map)
{
	return (u16 *)&map->cpu[map->nr_cpus];
}

struct xps_steer_map *xps_steer_map_build(const unsigned long *masks,
					  unsigned int mask_longs,
					  unsigned int nr_queues,
					  unsigned int nr_cpus);
void xps_steer_map_free(struct xps_steer_map *map);

#endif /* XPS_STEER_MAP_H */
