// SPDX-License-Identifier: GPL-2.0
/*
 * The per-packet hook: mainline netdev_pick_tx() with our map in place of
 * the kernel's XPS map. No locks, atomics or allocations; the one shared
 * write is the stock one, recording the chosen queue in the socket
 * (sk_tx_queue_set()), which the stock selection does too.
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/sock.h>

#include "xps_steer.h"

/*
 * The slot of dev. We are normally called through our own copy of its
 * ops, so dev->netdev_ops points into the slot table and names the slot.
 * Otherwise someone installed a copy of our copy (see docs/design.md):
 * search the table, which is only a few cache lines.
 */
static __always_inline struct xps_steer_slot *
find_slot(const struct net_device *dev)
{
	struct xps_steer_slot *slots = xps_steer_slots;
	unsigned long off = (unsigned long)READ_ONCE(dev->netdev_ops) -
			    (unsigned long)&slots->ops;
	unsigned int i;

	/* A slot's size is a power of two: no division here. */
	if (likely(off < XPS_STEER_MAX_DEVS * sizeof(*slots) &&
		   off % sizeof(*slots) == 0 &&
		   READ_ONCE(slots[off / sizeof(*slots)].dev) == dev))
		return &slots[off / sizeof(*slots)];
	for (i = 0; i < XPS_STEER_MAX_DEVS; i++)
		if (READ_ONCE(slots[i].dev) == dev)
			return &slots[i];
	return NULL;
}

/*
 * Whether this packet needs an RCU read-side section of our own. The core
 * calls us with BHs off (__dev_queue_xmit() holds rcu_read_lock_bh()),
 * and since v4.20 (no synchronize_rcu_bh()) such a region holds off every
 * grace period: a second section would only cost, on preemptible-RCU
 * kernels, two calls per packet. AF_PACKET's qdisc bypass calls us
 * preemptible and outside RCU. Without CONFIG_PREEMPT_COUNT preemptible()
 * is false, and there rcu_read_lock() is only a compiler barrier anyway.
 */
static bool need_own_reader(void)
{
#ifdef XPS_STEER_HAVE_SYNCHRONIZE_RCU_BH
	return true;
#else
	return preemptible();
#endif
}

/*
 * The queue the map gives this packet from cpu, or -1 for "no answer".
 * The caller is inside an RCU reader (need_own_reader()).
 */
static __always_inline int map_lookup(struct net_device *dev,
				      struct sk_buff *skb, unsigned int cpu)
{
	const struct xps_steer_cpu_queues *entry;
	const struct xps_steer_map *map;
	struct xps_steer_slot *slot;
	unsigned int queue;

	slot = find_slot(dev);
	map = slot ? rcu_dereference_check(slot->map, !need_own_reader()) :
		     NULL;
	if (!map)
		return -1;
	/* A map has an entry for each of nr_cpu_ids CPUs (model.c). */
	entry = &map->cpu[cpu];
	if (entry->len == 1)
		queue = entry->queue;
	else if (entry->len)
		queue = xps_steer_map_queues(map)[entry->first +
			reciprocal_scale(skb_get_hash(skb), entry->len)];
	else
		return -1;
	/* The queue count can shrink under us (ethtool -L). */
	return queue < READ_ONCE(dev->real_num_tx_queues) ? (int)queue : -1;
}

/* The queue our map gives this packet, or -1 for "no answer". */
static int map_queue(struct net_device *dev, struct sk_buff *skb)
{
	unsigned int cpu = xps_steer_sender_cpu(skb);
	int queue;

	/*
	 * sender_cpu is set by the core before it calls us; AF_PACKET with
	 * qdisc bypass sets it too. When it is not a CPU id (it shares
	 * storage with napi_id, and kernels before 4.0 have none), use the
	 * CPU we run on: raw_, because the qdisc bypass path calls us
	 * preemptible and a stale CPU id only costs locality.
	 */
	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();

	if (!need_own_reader())
		return map_lookup(dev, skb, cpu);
	rcu_read_lock();
	queue = map_lookup(dev, skb, cpu);
	rcu_read_unlock();
	return queue;
}

/* Our queue for skb, or -1 to leave the choice to the stock code. */
static int pick_tx(struct net_device *dev, struct sk_buff *skb)
{
	struct sock *sk = skb->sk;
	int queue_index, new_index;

	/* Traffic classes restrict queues by priority: the stock code's job. */
	if (unlikely(dev->num_tc))
		return -1;

	/* Keep the socket's queue unless changing it cannot reorder. */
	queue_index = sk_tx_queue_get(sk);
	if (queue_index >= 0 && !skb->ooo_okay &&
	    queue_index < dev->real_num_tx_queues)
		return queue_index;

	new_index = map_queue(dev, skb);
	if (new_index < 0)
		return -1;

	if (queue_index != new_index && sk && sk_fullsock(sk) &&
	    rcu_access_pointer(sk->sk_dst_cache))
		sk_tx_queue_set(sk, new_index);
	return new_index;
}

/*
 * The hook, in this kernel's ndo_select_queue prototype (found by the
 * probes in src/probes/select_queue_*.c). A subordinate device (macvlan
 * offload: sb_dev, accel_priv) owns its queue range, so its packets and
 * those we have no answer for go to the stock selection.
 */
#if defined(XPS_STEER_HAVE_SELECT_QUEUE_SB_DEV)
/* 5.2 and later: the stock selection is netdev_pick_tx(). */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  struct net_device *sb_dev)
{
	int queue = sb_dev ? -1 : pick_tx(dev, skb);

	return queue >= 0 ? queue : netdev_pick_tx(dev, skb, sb_dev);
}
#elif defined(XPS_STEER_HAVE_SELECT_QUEUE_SB_DEV_FALLBACK)
/* 4.19 to 5.1, RHEL 8: the core hands us the stock selection. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  struct net_device *sb_dev,
				  select_queue_fallback_t fallback)
{
	int queue = sb_dev ? -1 : pick_tx(dev, skb);

	return queue >= 0 ? queue : fallback(dev, skb, sb_dev);
}
#elif defined(XPS_STEER_HAVE_SELECT_QUEUE_ACCEL_FALLBACK)
/* 3.14 to 4.18, RHEL 7.3 and later. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  void *accel_priv,
				  select_queue_fallback_t fallback)
{
	int queue = accel_priv ? -1 : pick_tx(dev, skb);

	return queue >= 0 ? queue : fallback(dev, skb);
}
#elif defined(XPS_STEER_HAVE_SELECT_QUEUE_ACCEL)
/* 3.13: no fallback argument yet; __netdev_pick_tx() is exported. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  void *accel_priv)
{
	int queue = accel_priv ? -1 : pick_tx(dev, skb);

	return queue >= 0 ? queue : __netdev_pick_tx(dev, skb);
}
#else
/* 3.10 to 3.12, RHEL 7.0 to 7.2. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb)
{
	int queue = pick_tx(dev, skb);

	return queue >= 0 ? queue : __netdev_pick_tx(dev, skb);
}
#endif

void xps_steer_hook_ops(struct net_device_ops *ops)
{
	ops->ndo_select_queue = xps_steer_select_queue;
}
