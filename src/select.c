// SPDX-License-Identifier: GPL-2.0
/*
 * The per-packet hook: mainline netdev_pick_tx() with our map in place of
 * the kernel's XPS map. No locks, atomics or allocations; the one shared
 * write is the stock one, recording the chosen queue in the socket
 * (sk_tx_queue_set()), which the stock selection does too. Each packet
 * also bumps one counter of its own CPU (counters.c).
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

/* Off only in the build make bench compares with (see Kbuild). */
#ifdef XPS_STEER_BENCH_NO_COUNTERS
#define COUNTING	false
#else
#define COUNTING	true
#endif

/* A reason (enum xps_steer_reason) or XPS_STEER_STEERED_BY_RXQS. */
static __always_inline void count(struct xps_steer_slot *slot,
				  unsigned int counter)
{
	if (COUNTING)
		this_cpu_inc(slot->reason_counters[counter]);
}

/* Devices with more than one chunk of queues take a longer way. */
static __always_inline void count_steered(struct xps_steer_slot *slot,
					  unsigned int queue)
{
	if (!COUNTING)
		return;
	if (likely(queue < XPS_STEER_QUEUE_CHUNK))
		this_cpu_inc(slot->queue_counters[queue]);
	else
		this_cpu_inc(slot->counters->queues[queue / XPS_STEER_QUEUE_CHUNK]
						   [queue % XPS_STEER_QUEUE_CHUNK]);
}

/*
 * One of a CPU's (or a receive queue's) queues for skb: its only one, or
 * one picked by the flow hash, so that a flow keeps its queue.
 */
static __always_inline unsigned int pick(const struct xps_steer_map *map,
					 const struct xps_steer_cpu_queues *entry,
					 struct sk_buff *skb)
{
	if (entry->len == 1)
		return entry->queue;
	return xps_steer_map_queues(map)[entry->first +
		reciprocal_scale(skb_get_hash(skb), entry->len)];
}

/* The index of the first of n ascending queues that is not below queue. */
static unsigned int first_not_below(const u16 *queues, unsigned int n,
				    unsigned int queue)
{
	unsigned int lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (queues[mid] < queue)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * With traffic classes: one of entry's queues inside the class of skb's
 * priority, which is what mainline's per-class maps give; -1 if none is.
 * A CPU's queues are in ascending order (map.c) and a class is a range
 * of queues, so the class's part of them is found by two binary
 * searches. Classes are read as the core reads them (skb_tx_hash()):
 * without a lock, since a qdisc may change them at any time.
 */
static noinline int pick_in_class(const struct net_device *dev,
				  const struct xps_steer_map *map,
				  const struct xps_steer_cpu_queues *entry,
				  struct sk_buff *skb)
{
	const u16 *queues = xps_steer_map_queues(map) + entry->first;
	int num_tc = READ_ONCE(dev->num_tc);
	unsigned int tc = netdev_get_prio_tc_map(dev, skb->priority);
	unsigned int offset, start, end;

	if (num_tc <= 0 || tc >= (unsigned int)num_tc)
		return -1;
	offset = dev->tc_to_txq[tc].offset;
	start = first_not_below(queues, entry->len, offset);
	end = first_not_below(queues, entry->len,
			      offset + dev->tc_to_txq[tc].count);
	if (start == end)
		return -1;
	if (end - start == 1)
		return queues[start];
	return queues[start + reciprocal_scale(skb_get_hash(skb), end - start)];
}

/* One of entry's queues for skb, inside its class if the device has them. */
static __always_inline int pick_for(const struct net_device *dev,
				    const struct xps_steer_map *map,
				    const struct xps_steer_cpu_queues *entry,
				    struct sk_buff *skb)
{
	if (unlikely(dev->num_tc))
		return pick_in_class(dev, map, entry, skb);
	return pick(map, entry, skb);
}

/*
 * The receive-queue map (xps_rxqs), tried first as in mainline's
 * get_xps_queue(): a queue for a socket that recorded the receive queue
 * it last heard from, or -1, and the CPU map decides.
 */
static noinline int steer_by_rx_queue(struct xps_steer_slot *slot,
				      struct net_device *dev,
				      struct sk_buff *skb)
{
	const struct xps_steer_map *map;
	int rxq = xps_steer_sk_rx_queue(skb->sk);
	int queue;

	map = rcu_dereference_check(slot->rxq_map, !need_own_reader());
	if (!map || rxq < 0 || rxq >= (int)map->nr_cpus ||
	    !map->cpu[rxq].len)
		return -1;
	queue = pick_for(dev, map, &map->cpu[rxq], skb);
	if (queue < 0 || queue >= (int)READ_ONCE(dev->real_num_tx_queues))
		return -1;
	count(slot, XPS_STEER_STEERED_BY_RXQS);
	return queue;
}

/*
 * Our queue for skb, or -1 to leave it to the stock selection; counts
 * the packet either way. The caller is inside an RCU reader.
 */
static __always_inline int steer(struct net_device *dev, struct sk_buff *skb,
				 bool subordinate)
{
	const struct xps_steer_cpu_queues *entry;
	const struct xps_steer_map *map;
	struct xps_steer_slot *slot;
	struct sock *sk = skb->sk;
	int queue_index, queue;
	unsigned int cpu;

	slot = find_slot(dev);
	if (unlikely(!slot))
		return -1;	/* detached since the core read the ops */
	/* A subordinate device (macvlan offload) owns its queue range. */
	if (unlikely(subordinate)) {
		count(slot, XPS_STEER_SUBORDINATE_DEVICE);
		return -1;
	}

	/* Keep the socket's queue unless changing it cannot reorder. */
	queue_index = sk_tx_queue_get(sk);
	if (queue_index >= 0 && !skb->ooo_okay &&
	    queue_index < dev->real_num_tx_queues) {
		count(slot, XPS_STEER_KEPT_SOCKET_QUEUE);
		return queue_index;
	}

	if (XPS_STEER_SOCKETS_RECORD_RX_QUEUE &&
	    unlikely(rcu_access_pointer(slot->rxq_map))) {
		queue = steer_by_rx_queue(slot, dev, skb);
		if (queue >= 0)
			goto steered;
	}

	map = rcu_dereference_check(slot->map, !need_own_reader());
	if (!map) {
		count(slot, XPS_STEER_NO_MAP);
		return -1;
	}

	/*
	 * sender_cpu is set by the core before it calls us; AF_PACKET with
	 * qdisc bypass sets it too. When it is not a CPU id (it shares
	 * storage with napi_id, and kernels before 4.0 have none), use the
	 * CPU we run on: raw_, because the qdisc bypass path calls us
	 * preemptible and a stale CPU id only costs locality.
	 */
	cpu = xps_steer_sender_cpu(skb);
	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();

	/* A map has an entry for each of nr_cpu_ids CPUs (model.c). */
	entry = &map->cpu[cpu];
	if (unlikely(!entry->len)) {
		count(slot, XPS_STEER_CPU_IN_NO_MASK);
		return -1;
	}
	queue = pick_for(dev, map, entry, skb);
	if (unlikely(queue < 0)) {
		count(slot, XPS_STEER_TRAFFIC_CLASS);
		return -1;
	}
	/* The queue count can shrink under us (ethtool -L). */
	if (unlikely(queue >= (int)READ_ONCE(dev->real_num_tx_queues))) {
		count(slot, XPS_STEER_QUEUE_INACTIVE);
		return -1;
	}
steered:
	count_steered(slot, queue);

	if (queue_index != queue && sk && sk_fullsock(sk) &&
	    rcu_access_pointer(sk->sk_dst_cache))
		sk_tx_queue_set(sk, queue);
	return queue;
}

/* steer() inside an RCU reader: the caller's, or our own. */
static int pick_tx(struct net_device *dev, struct sk_buff *skb,
		   bool subordinate)
{
	int queue;

	if (!need_own_reader())
		return steer(dev, skb, subordinate);
	rcu_read_lock();
	queue = steer(dev, skb, subordinate);
	rcu_read_unlock();
	return queue;
}

/*
 * The hook, in this kernel's ndo_select_queue prototype (found by the
 * probes in src/probes/select_queue_*.c). Packets we have no answer for
 * go to the stock selection.
 */
#if defined(XPS_STEER_HAVE_SELECT_QUEUE_SB_DEV)
/* 5.2 and later: the stock selection is netdev_pick_tx(). */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  struct net_device *sb_dev)
{
	int queue = pick_tx(dev, skb, sb_dev);

	return queue >= 0 ? queue : netdev_pick_tx(dev, skb, sb_dev);
}
#elif defined(XPS_STEER_HAVE_SELECT_QUEUE_SB_DEV_FALLBACK)
/* 4.19 to 5.1, RHEL 8: the core hands us the stock selection. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  struct net_device *sb_dev,
				  select_queue_fallback_t fallback)
{
	int queue = pick_tx(dev, skb, sb_dev);

	return queue >= 0 ? queue : fallback(dev, skb, sb_dev);
}
#elif defined(XPS_STEER_HAVE_SELECT_QUEUE_ACCEL_FALLBACK)
/* 3.14 to 4.18, RHEL 7.3 and later. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  void *accel_priv,
				  select_queue_fallback_t fallback)
{
	int queue = pick_tx(dev, skb, accel_priv);

	return queue >= 0 ? queue : fallback(dev, skb);
}
#elif defined(XPS_STEER_HAVE_SELECT_QUEUE_ACCEL)
/* 3.13: no fallback argument yet; __netdev_pick_tx() is exported. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb,
				  void *accel_priv)
{
	int queue = pick_tx(dev, skb, accel_priv);

	return queue >= 0 ? queue : __netdev_pick_tx(dev, skb);
}
#else
/* 3.10 to 3.12, RHEL 7.0 to 7.2. */
static u16 xps_steer_select_queue(struct net_device *dev, struct sk_buff *skb)
{
	int queue = pick_tx(dev, skb, false);

	return queue >= 0 ? queue : __netdev_pick_tx(dev, skb);
}
#endif

void xps_steer_hook_ops(struct net_device_ops *ops)
{
	ops->ndo_select_queue = xps_steer_select_queue;
}
