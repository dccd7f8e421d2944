/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compat: every difference between the kernels xps_steer builds on, from
 * RHEL 7's 3.10 to mainline 7.x, in one place. Kbuild force-includes this
 * file into every object.
 *
 * What this kernel has was found by compiling the probes in src/probes/
 * against its headers (xps_steer_config.h, generated at build time; each
 * probe names the upstream change it detects). A missing API is supplied
 * here under its upstream name, so the rest of the code reads like
 * upstream code. Version checks are used only for the hard minimum.
 *
 * A fallback is #undef-then-#define, so that one build on a current
 * kernel can force and compile all of them (XPS_STEER_FORCE_FALLBACKS=1).
 */
#ifndef XPS_STEER_COMPAT_H
#define XPS_STEER_COMPAT_H

/* The probes themselves are compiled against the bare kernel headers. */
#ifndef XPS_STEER_PROBE

#include <linux/version.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(3, 10, 0)
#error "xps_steer needs Linux 3.10 (RHEL 7) or later"
#endif

/*
 * Every header that declares something shimmed below comes first, so a
 * fallback never renames a declaration. (linux/overflow.h, 4.13+, comes
 * with linux/slab.h from 4.18 on, when struct_size() appeared.)
 */
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <net/sock.h>

#include "xps_steer_config.h"

#ifdef XPS_STEER_HAVE_SCHED_SIGNAL_H
#include <linux/sched/signal.h>
#endif

/* ndo_select_queue: one of these prototypes (see select.c for each era). */
#if defined(XPS_STEER_HAVE_SELECT_QUEUE_SB_DEV) && \
	!defined(XPS_STEER_HAVE_NETDEV_PICK_TX)
/* Interface: the stock queue selection, to fall back to. */
#error "xps_steer: stock queue selection: ndo_select_queue has sb_dev, no netdev_pick_tx()"
#endif
#if !defined(XPS_STEER_HAVE_SELECT_QUEUE_SB_DEV) && \
	!defined(XPS_STEER_HAVE_SELECT_QUEUE_SB_DEV_FALLBACK) && \
	!defined(XPS_STEER_HAVE_SELECT_QUEUE_ACCEL_FALLBACK) && \
	!defined(XPS_STEER_HAVE_LEGACY_NETDEV_PICK_TX)
#error "xps_steer: stock queue selection: no fallback argument, no __netdev_pick_tx()"
#endif

/* 3.14 and 3.19: ordered and one-time accesses. */
#ifndef READ_ONCE
#define READ_ONCE(x)		ACCESS_ONCE(x)
#define WRITE_ONCE(x, val)	(ACCESS_ONCE(x) = (val))
#endif
#ifndef smp_store_release
/* A full barrier orders everything before the store, as release must. */
#define smp_store_release(p, v)	do { smp_mb(); ACCESS_ONCE(*(p)) = (v); } while (0)
#endif
#ifndef __ATTR_RW
#define __ATTR_RW(name)		__ATTR(name, 0644, name##_show, name##_store)
#endif
#ifndef U16_MAX
#define U16_MAX			((u16)~0U)
#endif

/* The CPU the core recorded as the sender; >= nr_cpu_ids if none. */
#ifdef XPS_STEER_HAVE_SKB_SENDER_CPU
#define xps_steer_sender_cpu(skb)	((unsigned int)(skb)->sender_cpu - 1)
#else
#define xps_steer_sender_cpu(skb)	UINT_MAX
#endif

/*
 * The receive queue a socket last heard from, or -1; the xps_rxqs map
 * is only read, and only written, where sockets record it.
 */
#if defined(XPS_STEER_HAVE_SK_RX_QUEUE_GET) && IS_ENABLED(CONFIG_XPS)
#define XPS_STEER_SOCKETS_RECORD_RX_QUEUE	1
#define xps_steer_sk_rx_queue(sk)		sk_rx_queue_get(sk)
#else
#define XPS_STEER_SOCKETS_RECORD_RX_QUEUE	0
#define xps_steer_sk_rx_queue(sk)		(-1)
#endif

#ifndef XPS_STEER_HAVE_SK_FULLSOCK
#undef sk_fullsock
#define sk_fullsock(sk)		((sk)->sk_state != TCP_TIME_WAIT)
#endif

#ifndef XPS_STEER_HAVE_SKB_GET_HASH
#define skb_get_hash(skb)	skb_get_rxhash(skb)
#endif

#ifndef XPS_STEER_HAVE_RECIPROCAL_SCALE
#undef reciprocal_scale
#define reciprocal_scale(val, ep_ro) \
	((u32)(((u64)(u32)(val) * (u32)(ep_ro)) >> 32))
#endif

/*
 * Before 3.11, and on RHEL 7 whatever it declares, the netdevice notifier
 * is called with the device itself.
 */
#if !defined(XPS_STEER_HAVE_NETDEV_NOTIFIER_INFO_TO_DEV) || \
	defined(XPS_STEER_HAVE_REGISTER_NETDEVICE_NOTIFIER_RH)
#undef netdev_notifier_info_to_dev
#define netdev_notifier_info_to_dev(ptr)	((struct net_device *)(ptr))
#endif

#ifndef XPS_STEER_HAVE_RCU_REPLACE_POINTER
#undef rcu_replace_pointer
#define rcu_replace_pointer(rcu_ptr, ptr, c)				\
({									\
	typeof(ptr) __old = rcu_dereference_protected((rcu_ptr), (c));	\
	rcu_assign_pointer((rcu_ptr), (ptr));				\
	__old;								\
})
#endif

/*
 * Before 4.20 the core's rcu_read_lock_bh() around ndo_select_queue is an
 * RCU flavour synchronize_net() does not wait for; from 4.20 it does.
 */
#ifdef XPS_STEER_HAVE_SYNCHRONIZE_RCU_BH
#define xps_steer_synchronize_bh()	synchronize_rcu_bh()
#else
#define xps_steer_synchronize_bh()	do { } while (0)
#endif

/*
 * A preemptible kernel without Tasks RCU (no kprobes, ftrace or BPF) has
 * no way to wait for a qdisc-bypass sender preempted inside our hook:
 * there, detached devices keep their ops copy and the module stays.
 */
#if (IS_ENABLED(CONFIG_PREEMPTION) || IS_ENABLED(CONFIG_PREEMPT)) && \
	!IS_ENABLED(CONFIG_TASKS_RCU)
#define XPS_STEER_CAN_WAIT_FOR_SENDERS	false
#else
#define XPS_STEER_CAN_WAIT_FOR_SENDERS	true
#endif

/*
 * Before 3.18 there is no Tasks RCU. The kernels of that era that run
 * qdisc-bypass senders outside RCU (RHEL 7) are not preemptible, so a
 * sched grace period waits for them.
 */
#ifndef XPS_STEER_HAVE_SYNCHRONIZE_RCU_TASKS
#undef synchronize_rcu_tasks
#ifdef XPS_STEER_HAVE_SYNCHRONIZE_RCU_BH
#define synchronize_rcu_tasks()	synchronize_sched()
#else
#define synchronize_rcu_tasks()	synchronize_rcu()
#endif
#endif

#ifndef XPS_STEER_HAVE_KVFREE
#undef kvfree
#define kvfree(ptr)		xps_steer_kvfree(ptr)
static inline void xps_steer_kvfree(const void *ptr)
{
	if (is_vmalloc_addr(ptr))
		vfree(ptr);
	else
		kfree(ptr);
}
#endif

/*
 * Before 5.9 kfree_rcu() cannot free vmalloc()ed memory: an RCU callback
 * does, without sleeping (callers may hold rtnl). The rcu_head must come
 * first, so the callback needs no offset; module exit runs rcu_barrier()
 * before the callback's text goes.
 */
#ifndef XPS_STEER_HAVE_KVFREE_RCU
#undef kvfree_rcu
static inline void xps_steer_kvfree_head(struct rcu_head *head)
{
	kvfree(head);
}

#define kvfree_rcu(ptr, rhf) do {					\
	BUILD_BUG_ON(offsetof(typeof(*(ptr)), rhf) != 0);		\
	call_rcu(&(ptr)->rhf, xps_steer_kvfree_head);			\
} while (0)
#endif

#ifndef XPS_STEER_HAVE_KVZALLOC
#undef kvzalloc
#define kvzalloc(size, flags)	xps_steer_kvzalloc(size, flags)
static inline void *xps_steer_kvzalloc(size_t size, gfp_t flags)
{
	void *ptr = kzalloc(size, flags | __GFP_NOWARN);

	return ptr ? ptr : vzalloc(size);
}
#endif

#ifndef XPS_STEER_HAVE_KVCALLOC
#undef kvcalloc
#define kvcalloc(n, size, flags)	xps_steer_kvcalloc(n, size, flags)
static inline void *xps_steer_kvcalloc(size_t n, size_t size, gfp_t flags)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kvzalloc(n * size, flags);
}
#endif

#ifndef XPS_STEER_HAVE_BITMAP_ALLOC
#undef bitmap_alloc
#undef bitmap_zalloc
#undef bitmap_free
#define bitmap_alloc(nbits, flags) \
	kmalloc_array(BITS_TO_LONGS(nbits), sizeof(unsigned long), flags)
#define bitmap_zalloc(nbits, flags)	bitmap_alloc(nbits, (flags) | __GFP_ZERO)
#define bitmap_free(bitmap)	kfree(bitmap)
#endif

/* Our sizes are bounded by NR_CPUS and 65536 queues: no overflow. */
#ifndef XPS_STEER_HAVE_STRUCT_SIZE
#undef array_size
#undef struct_size
#define array_size(a, b)	((size_t)(a) * (size_t)(b))
#define struct_size(p, member, n) \
	(sizeof(*(p)) + array_size(n, sizeof(*(p)->member)))
#endif
#ifndef XPS_STEER_HAVE_SIZE_ADD
#undef size_add
#define size_add(a, b)		((size_t)(a) + (size_t)(b))
#endif

#ifndef XPS_STEER_HAVE_SYSFS_EMIT
#undef sysfs_emit
#define sysfs_emit(buf, fmt, ...) scnprintf(buf, PAGE_SIZE, fmt, ##__VA_ARGS__)
#undef sysfs_emit_at
#define sysfs_emit_at(buf, at, fmt, ...) \
	scnprintf((buf) + (at), PAGE_SIZE - (at), fmt, ##__VA_ARGS__)
#endif

/* A mask as the kernel's xps_cpus file shows it: hex, comma-separated. */
#ifdef XPS_STEER_HAVE_BITMAP_PRINTK
#define xps_steer_emit_mask(buf, mask, nbits) \
	sysfs_emit(buf, "%*pb\n", (int)(nbits), mask)
#else
/* Before 4.0 printk cannot print bitmaps; bitmap_scnprintf() can. */
static inline ssize_t xps_steer_emit_mask(char *buf, const unsigned long *mask,
					  unsigned int nbits)
{
	int len = bitmap_scnprintf(buf, PAGE_SIZE - 1, mask, nbits);

	return len + scnprintf(buf + len, PAGE_SIZE - len, "\n");
}
#endif

/*
 * A mask as a CPU list ("%*pbl": "0-3,8"), at most size - 1 characters
 * and a NUL; returns the length it needs, as snprintf() does, so that a
 * caller can tell it did not fit.
 */
#ifdef XPS_STEER_HAVE_BITMAP_PRINTK
#define xps_steer_print_list(buf, size, mask, nbits) \
	snprintf(buf, size, "%*pbl", (int)(nbits), mask)
#else
static inline int xps_steer_print_list(char *buf, size_t size,
				       const unsigned long *mask,
				       unsigned int nbits)
{
	int len = bitmap_scnlistprintf(buf, size, mask, nbits);

	/* It cuts short silently: a full buffer may not have been enough. */
	return len + 1 >= (int)size ? (int)size : len;
}
#endif

/* Before 4.2 the charp type's free is reachable only through its ops. */
#ifndef XPS_STEER_HAVE_PARAM_FREE_CHARP
#undef param_free_charp
#define param_free_charp	xps_steer_param_free_charp
static inline void xps_steer_param_free_charp(void *arg)
{
	param_ops_charp.free(arg);
}
#endif

#ifndef XPS_STEER_HAVE_STRSCPY
#undef strscpy
#define strscpy(dest, src, count)	((ssize_t)strlcpy(dest, src, count))
#endif

/*
 * A copy of a driver's net_device_ops, into zeroed memory. On RHEL the
 * table ends in a part that only exists up to the size the driver was
 * built with (an older minor release has a shorter one): copy that much,
 * keep the size field, and leave the rest of the copy zero, so the core
 * sees exactly the operations the original has.
 */
static inline void xps_steer_copy_ops(struct net_device_ops *copy,
				      const struct net_device_ops *ops)
{
#if defined(XPS_STEER_HAVE_NDO_SIZE)
	size_t len = ops->ndo_size ? min_t(size_t, ops->ndo_size, sizeof(*copy)) :
			offsetof(struct net_device_ops, extended);

	memcpy(copy, ops, len);
#elif defined(XPS_STEER_HAVE_NDO_EXTENDED_RH)
	size_t len = offsetof(struct net_device_ops, _rh) +
		     min_t(size_t, ops->net_device_ops_extended_size_rh,
			   sizeof(copy->_rh));

	memcpy(copy, ops, len);
#else
	*copy = *ops;
#endif
}

#ifndef XPS_STEER_HAVE_CPUS_READ_LOCK
#undef cpus_read_lock
#undef cpus_read_unlock
#define cpus_read_lock()	get_online_cpus()
#define cpus_read_unlock()	put_online_cpus()
#endif

/*
 * The kernel's own XPS map of CPUs, for guard mode: the device's map, the
 * number of ids (CPUs) and of traffic classes it is indexed by, and the
 * entry of an index (id * traffic classes + class). The kernel's writers
 * change it under rtnl. Only typed maps carry their own stride and may be
 * read without rtnl, under RCU only, as a hint (XPS_STEER_KERNEL_MAPS_OWN_SIZE);
 * on <= 5.12 the stride is the device's num_tc now, which may not be the
 * one the map was allocated with.
 */
#if IS_ENABLED(CONFIG_XPS)
#if defined(XPS_STEER_HAVE_XPS_MAPS_TYPED)
#define XPS_STEER_KERNEL_MAPS_OWN_SIZE	1
#define xps_steer_kernel_cpu_maps(dev) \
	rcu_dereference_rtnl((dev)->xps_maps[XPS_CPUS])
#define xps_steer_kernel_maps_ids(maps)		((maps)->nr_ids)
#define xps_steer_kernel_maps_tcs(dev, maps)	((maps)->num_tc)
#define xps_steer_kernel_map_at(maps, i) \
	rcu_dereference_rtnl((maps)->attr_map[i])
#elif defined(XPS_STEER_HAVE_XPS_CPUS_MAP)
#define XPS_STEER_KERNEL_MAPS_OWN_SIZE	0
#define xps_steer_kernel_cpu_maps(dev) \
	rcu_dereference_rtnl((dev)->xps_cpus_map)
#define xps_steer_kernel_maps_ids(maps)		nr_cpu_ids
#define xps_steer_kernel_maps_tcs(dev, maps) \
	max_t(int, READ_ONCE((dev)->num_tc), 1)
#define xps_steer_kernel_map_at(maps, i) \
	rcu_dereference_rtnl((maps)->attr_map[i])
#else
#define XPS_STEER_KERNEL_MAPS_OWN_SIZE	0
#define xps_steer_kernel_cpu_maps(dev) rcu_dereference_rtnl((dev)->xps_maps)
#define xps_steer_kernel_maps_ids(maps)		nr_cpu_ids
#ifdef XPS_STEER_HAVE_NETDEV_TXQ_TO_TC
#define xps_steer_kernel_maps_tcs(dev, maps) \
	max_t(int, READ_ONCE((dev)->num_tc), 1)
#else
#define xps_steer_kernel_maps_tcs(dev, maps)	1
#endif
#define xps_steer_kernel_map_at(maps, i) \
	rcu_dereference_rtnl((maps)->cpu_map[i])
#endif

/*
 * The kernel's receive-queue map, guarded where the maps are an array with
 * their own nr_ids: there __netif_set_xps_queue() takes the map's type and
 * wants the CPU hotplug lock, as the kernel's own xps_rxqs file takes it.
 * Before, the rxqs map's size and locking differ by kernel, so guard mode
 * keeps the CPU map only.
 */
#ifdef XPS_STEER_HAVE_XPS_MAPS_TYPED
#define XPS_STEER_KERNEL_RXQS	1
#define xps_steer_kernel_rxqs_maps(dev) \
	rcu_dereference_rtnl((dev)->xps_maps[XPS_RXQS])

static inline int xps_steer_set_kernel_rxqs(struct net_device *dev,
					    const unsigned long *mask,
					    unsigned int queue)
{
	int err;

	cpus_read_lock();
	err = __netif_set_xps_queue(dev, mask, queue, XPS_RXQS);
	cpus_read_unlock();
	return err;
}
#else
#define XPS_STEER_KERNEL_RXQS	0
#define xps_steer_kernel_rxqs_maps(dev)	((struct xps_dev_maps *)NULL)

static inline int xps_steer_set_kernel_rxqs(struct net_device *dev,
					    const unsigned long *mask,
					    unsigned int queue)
{
	return -EOPNOTSUPP;
}
#endif

/* The traffic class of a queue in the kernel's map; -1: in none. */
static inline int xps_steer_kernel_queue_tc(struct net_device *dev,
					    unsigned int queue)
{
#ifdef XPS_STEER_HAVE_NETDEV_TXQ_TO_TC
	return READ_ONCE(dev->num_tc) > 0 ? netdev_txq_to_tc(dev, queue) : 0;
#else
	return 0;
#endif
}
#else
#define XPS_STEER_KERNEL_RXQS	0
#endif /* CONFIG_XPS */

#endif /* XPS_STEER_PROBE */
#endif /* XPS_STEER_COMPAT_H */
