// SPDX-License-Identifier: GPL-2.0
/*
 * The per-packet hook: mainline netdev_pick_tx() with our map in place of
 * the kernel's XPS map. No locks, atomics, allocations or shared writes.
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/sock.h>

#include "xps_steer.h"

/*
 * Find dev's map. The list is searched rather than container_of() on
 * dev->netdev_ops, because another module may have stacked its own copy
 * of our ops on top of ours.
 */
static const struct xps_steer_map *xps_steer_find_map(const struct net_device *dev)
{
	struct xps_steer_dev *xdev;

	list_for_each_entry_rcu(xdev, &xps_steer_devices, node)
		if (xdev->dev == dev)
			return rcu_dereference(xdev->map);
	return NULL;
}

/* The queue our map gives this packet, or -1 for "no answer". */
static int xps_steer_map_queue(struct net_device *dev, struct sk_buff *skb)
{
	const struct xps_steer_cpu_queues *entry;
	const struct xps_steer_map *map;
	unsigned int cpu = skb->sender_cpu - 1;
	int queue = -1;

	/*
	 * sender_cpu is set by the core before it calls us; AF_PACKET with
	 * qdisc bypass sets it too. When it is not a CPU id (it shares
	 * storage with napi_id), use the CPU we run on: raw_, because the
	 * qdisc bypass path calls us preemptible and a stale CPU id only
	 * costs locality.
	 */
	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();

	/* Our own read-side section: the qdisc bypass caller holds none. */
	rcu_read_lock();
	map = xps_steer_find_map(dev);
	if (map && cpu < map->nr_cpus) {
		const u16 *queues = xps_steer_map_queues(map);

		entry = &map->cpu[cpu];
		if (entry->len == 1)
			queue = queues[entry->first];
		else if (entry->len)
			queue = queues[entry->first +
				       reciprocal_scale(skb_get_hash(skb),
							entry->len)];
		/* The queue count can shrink under us (ethtool -L). */
		if (queue >= (int)READ_ONCE(dev->real_num_tx_queues))
			queue = -1;
	}
	rcu_read_unlock();
	return queue;
}

u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
			   struct net_device *sb_dev)
{
	struct sock *sk = skb->sk;
	int queue_index, new_index;

	/*
	 * Subordinate devices own their queue ranges and traffic classes
	 * restrict queues by priority: both are the stock code's business.
	 */
	if (unlikely(sb_dev || dev->num_tc))
		return netdev_pick_tx(dev, skb, sb_dev);

	/* Keep the socket's queue unless changing it cannot reorder. */
	queue_index = sk_tx_queue_get(sk);
	if (queue_index >= 0 && !skb->ooo_okay &&
	    queue_index < dev->real_num_tx_queues)
		return queue_index;

	new_index = xps_steer_map_queue(dev, skb);
	if (new_index < 0)
		return netdev_pick_tx(dev, skb, sb_dev);

	if (queue_index != new_index && sk && sk_fullsock(sk) &&
	    rcu_access_pointer(sk->sk_dst_cache))
		sk_tx_queue_set(sk, new_index);
	return new_index;
}
