// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU queue map: the inverse of the per-queue CPU masks, so that
 * the TX path finds the queues of the sending CPU with one array index.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/slab.h>	/* kvzalloc(); struct_size() and size_add() */

#include "map.h"

/*
 * Build the map for queues [0, nr_queues) from their masks. Every CPU id
 * below nr_cpus named by a mask gets an entry, online or not, so that a
 * CPU coming online later steers at once without a hotplug callback.
 * Returns NULL when no CPU is mapped (the TX path then has nothing to
 * look at), ERR_PTR(-EINVAL) for more than XPS_STEER_MAX_QUEUES queues
 * and ERR_PTR(-ENOMEM) on allocation failure.
 */
struct xps_steer_map *xps_steer_map_build(const unsigned long *masks,
					  unsigned int mask_longs,
					  unsigned int nr_queues,
					  unsigned int nr_cpus)
{
	struct xps_steer_map *map;
	unsigned int queue, cpu;
	size_t total = 0, size;
	u32 first = 0;
	u16 *queues;

	if (nr_queues > XPS_STEER_MAX_QUEUES)
		return ERR_PTR(-EINVAL);
	for (queue = 0; queue < nr_queues; queue++)
		total += bitmap_weight(masks + (size_t)queue * mask_longs,
				       nr_cpus);
	if (!total)
		return NULL;

	size = size_add(struct_size(map, cpu, nr_cpus),
			array_size(total, sizeof(u16)));
	map = kvzalloc(size, GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);
	map->nr_cpus = nr_cpus;
	queues = xps_steer_map_queues(map);

	/* Count each CPU's queues, then lay the lists out back to back. */
	for (queue = 0; queue < nr_queues; queue++)
		for_each_set_bit(cpu, masks + (size_t)queue * mask_longs,
				 nr_cpus)
			map->cpu[cpu].len++;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		map->cpu[cpu].first = first;
		first += map->cpu[cpu].len;
		map->cpu[cpu].len = 0;
	}
	/*
	 * Fill in ascending queue order. The kernel's own XPS keeps the order
	 * in which masks were written; a fixed order makes the flow-to-queue
	 * choice depend on the masks alone, not on their history.
	 */
	for (queue = 0; queue < nr_queues; queue++)
		for_each_set_bit(cpu, masks + (size_t)queue * mask_longs,
				 nr_cpus) {
			struct xps_steer_cpu_queues *entry = &map->cpu[cpu];

			if (!entry->len)
				entry->queue = queue;
			queues[entry->first + entry->len++] = queue;
		}
	return map;
}

void xps_steer_map_free(struct xps_steer_map *map)
{
	kvfree(map);
}
