// SPDX-License-Identifier: GPL-2.0
/*
 * A device's steering state: the CPU mask of each of its queues, as
 * written to tx-<n>/xps_cpus, and the per-CPU map built from them and
 * published in its slot for the TX path.
 *
 * There is a mask for every queue the device can have (num_tx_queues),
 * and masks survive changes of the active count (real_num_tx_queues,
 * ethtool -L), which no notifier announces: a queue that is removed
 * keeps its mask, the TX path skips it while it is inactive, and it
 * steers again as soon as it is back. Only active queues take new masks.
 *
 * A map write (the map file) replaces every mask at once: the new masks
 * are built aside, the map from them, and both go in with one publish,
 * so that no packet sees a half-applied configuration.
 *
 * Each queue also has a mask of receive queues (tx-<n>/xps_rxqs), from
 * which a second map is built, indexed by receive queue: the TX path
 * tries it first for a socket that recorded its receive queue, as
 * mainline's get_xps_queue() does.
 *
 * Traffic classes (mqprio, taprio, DCB) may change at any time, with no
 * notifier either: masks are kept as written, and the TX path picks
 * among the sending CPU's queues those of the packet's class. Only a
 * write to a queue that is in no class is refused, like the kernel's.
 *
 * In guard mode the masks go into the kernel's own map instead (guard.c),
 * queue by queue as the kernel takes them: no map of ours is published,
 * and a map write is not one atomic change there.
 *
 * Everything here runs under xps_steer_lock, and for a guarded device
 * also under rtnl, which the kernel's map is written under.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "maptext.h"
#include "xps_steer.h"

static unsigned long *queue_mask(struct xps_steer_dev *xdev,
				 unsigned int queue)
{
	return xdev->masks + (size_t)queue * xdev->mask_longs;
}

static unsigned long *rxq_mask(struct xps_steer_dev *xdev, unsigned int queue)
{
	return xdev->rxq_masks + (size_t)queue * xdev->rxq_mask_longs;
}

int xps_steer_model_init(struct xps_steer_dev *xdev)
{
	xdev->nr_queues = xdev->dev->num_tx_queues;
	xdev->mask_longs = BITS_TO_LONGS(nr_cpu_ids);
	xdev->masks = kvcalloc(array_size(xdev->nr_queues, xdev->mask_longs),
			       sizeof(unsigned long), GFP_KERNEL);
	xdev->nr_rxqs = xdev->dev->num_rx_queues;
	xdev->rxq_mask_longs = BITS_TO_LONGS(xdev->nr_rxqs);
	xdev->rxq_masks = kvcalloc(array_size(xdev->nr_queues,
					      xdev->rxq_mask_longs),
				   sizeof(unsigned long), GFP_KERNEL);
	return xdev->masks && xdev->rxq_masks ? 0 : -ENOMEM;
}

/* Also after a failed init. Caller made sure no map is published any more. */
void xps_steer_model_free(struct xps_steer_dev *xdev)
{
	kvfree(xdev->masks);
	xdev->masks = NULL;
	kvfree(xdev->rxq_masks);
	xdev->rxq_masks = NULL;
}

/* Swap in map (NULL: none); the old one goes after a grace period. */
static void replace_map(struct xps_steer_map __rcu **where,
			struct xps_steer_map *map)
{
	struct xps_steer_map *old;

	old = rcu_replace_pointer(*where, map,
				  lockdep_is_held(&xps_steer_lock));
	if (old)
		kvfree_rcu(old, rcu);
}

/*
 * The CPU masks, or with rxqs the xps_rxqs masks, take effect: steer mode
 * builds its map from them and publishes it for the TX path, guard mode
 * writes them into the kernel's map. 0, or why nothing took effect
 * (steer), or why the kernel refused one of queues, the queues the write
 * set (guard): a queue it refuses fails only a write that set that queue.
 */
static int publish(struct xps_steer_dev *xdev, bool rxqs,
		   const unsigned long *queues)
{
	struct xps_steer_map *map;

	if (xdev->mode == XPS_STEER_MODE_GUARD)
		return xps_steer_guard_apply(xdev, rxqs, queues);
	if (rxqs)
		map = xps_steer_map_build(xdev->rxq_masks, xdev->rxq_mask_longs,
					  xdev->nr_queues, xdev->nr_rxqs);
	else
		map = xps_steer_map_build(xdev->masks, xdev->mask_longs,
					  xdev->nr_queues, nr_cpu_ids);
	if (IS_ERR(map))
		return PTR_ERR(map);
	replace_map(rxqs ? &xdev->slot->rxq_map : &xdev->slot->map, map);
	return 0;
}

/* Stop steering: the TX path finds no map from now on. */
void xps_steer_model_unpublish(struct xps_steer_dev *xdev)
{
	lockdep_assert_held(&xps_steer_lock);
	replace_map(&xdev->slot->map, NULL);
	replace_map(&xdev->slot->rxq_map, NULL);
}

/*
 * Why a mask cannot be set on queue, or NULL if it can: with traffic
 * classes, a queue in no class carries no packet (the kernel's
 * netif_set_xps_queue() refuses it with EINVAL), and a subordinate
 * device's queues belong to its lower device. Read without rtnl, as the
 * TX path reads them: a class change racing the check is no different
 * from one just after it, which leaves the masks as they are.
 */
const char *xps_steer_class_refusal(const struct net_device *dev,
				    unsigned int queue)
{
	int num_tc = READ_ONCE(dev->num_tc);
	int tc;

	if (!num_tc)
		return NULL;
	if (num_tc < 0)
		return "subordinate device, steered by its lower device";
	for (tc = 0; tc < num_tc && tc < TC_MAX_QUEUE; tc++)
		if (queue - dev->tc_to_txq[tc].offset < dev->tc_to_txq[tc].count)
			return NULL;
	return "queue in no traffic class";
}

ssize_t xps_steer_model_show_mask(struct xps_steer_dev *xdev,
				  unsigned int queue, char *buf)
{
	lockdep_assert_held(&xps_steer_lock);
	return xps_steer_emit_mask(buf, queue_mask(xdev, queue), nr_cpu_ids);
}

/* xps_rxqs: hex like xps_cpus, one bit per receive queue. */
ssize_t xps_steer_model_show_rxqs(struct xps_steer_dev *xdev,
				  unsigned int queue, char *buf)
{
	lockdep_assert_held(&xps_steer_lock);
	return xps_steer_emit_mask(buf, rxq_mask(xdev, queue), xdev->nr_rxqs);
}

/* A mask as a CPU list ("%*pbl", "0-3,8"), newline-terminated. */
ssize_t xps_steer_model_show_list(struct xps_steer_dev *xdev,
				  unsigned int queue, char *buf)
{
	int len;

	lockdep_assert_held(&xps_steer_lock);
	len = xps_steer_print_list(buf, PAGE_SIZE - 1, queue_mask(xdev, queue),
				   nr_cpu_ids);
	if (len >= PAGE_SIZE - 1)
		return -EFBIG;
	buf[len++] = '\n';
	return len;
}

/*
 * The map file: "tx-<n> <cpulist>" for every queue the device can have,
 * "tx-<n>" alone for an empty mask. EFBIG if that does not fit in the
 * page sysfs gives us: a configuration must never be shown cut short.
 */
ssize_t xps_steer_model_show_map(struct xps_steer_dev *xdev, char *buf)
{
	const unsigned long *mask;
	unsigned int queue;
	size_t len = 0;

	lockdep_assert_held(&xps_steer_lock);
	for (queue = 0; queue < xdev->nr_queues && len < PAGE_SIZE; queue++) {
		mask = queue_mask(xdev, queue);
		len += snprintf(buf + len, PAGE_SIZE - len, "tx-%u", queue);
		if (len < PAGE_SIZE && !bitmap_empty(mask, nr_cpu_ids)) {
			buf[len++] = ' ';
			if (len < PAGE_SIZE)
				len += xps_steer_print_list(buf + len,
							    PAGE_SIZE - len,
							    mask, nr_cpu_ids);
		}
		if (len < PAGE_SIZE)
			buf[len++] = '\n';
	}
	/* sysfs needs room for its terminating NUL. */
	return len < PAGE_SIZE ? (ssize_t)len : -EFBIG;
}

/*
 * A map may name a queue in no traffic class only with an empty list;
 * logs the first queue that breaks this.
 */
static int check_classes(struct xps_steer_dev *xdev, const unsigned long *next)
{
	const char *why;
	unsigned int queue;

	for (queue = 0; queue < xdev->nr_queues; queue++) {
		if (bitmap_empty(next + (size_t)queue * xdev->mask_longs,
				 nr_cpu_ids))
			continue;
		why = xps_steer_class_refusal(xdev->dev, queue);
		if (why) {
			pr_warn_ratelimited("%s: map write rejected: tx-%u: %s (%d)\n",
					    xdev->name, queue, why, -EINVAL);
			return -EINVAL;
		}
	}
	return 0;
}

/* The queues whose CPU masks next changes, into changed. */
static void changed_queues(struct xps_steer_dev *xdev,
			   const unsigned long *next, unsigned long *changed)
{
	unsigned int queue;
	size_t at;

	bitmap_zero(changed, xdev->nr_queues);
	for (queue = 0; queue < xdev->nr_queues; queue++) {
		at = (size_t)queue * xdev->mask_longs;
		if (!bitmap_equal(next + at, xdev->masks + at, nr_cpu_ids))
			__set_bit(queue, changed);
	}
}

/*
 * Replace every mask with those of a map text (maptext.c, which cuts
 * text, text[len] == '\0', in place) and publish the map built from them
 * once; all or nothing. In guard mode that is as far as the kernel's map
 * lets us put back what it took, and only the queues whose masks the
 * text changes can fail it. Logs why it refuses, with the line at fault.
 */
int xps_steer_model_set_map(struct xps_steer_dev *xdev, char *text,
			    size_t len)
{
	unsigned int active = READ_ONCE(xdev->dev->real_num_tx_queues);
	struct xps_steer_maptext_err where = { 0 };
	unsigned long *next, *seen;
	int ret;

	lockdep_assert_held(&xps_steer_lock);
	next = kvcalloc(array_size(xdev->nr_queues, xdev->mask_longs),
			sizeof(unsigned long), GFP_KERNEL);
	seen = bitmap_alloc(xdev->nr_queues, GFP_KERNEL);
	ret = -ENOMEM;
	if (!next || !seen)
		goto out;
	ret = xps_steer_maptext_parse(text, len, xdev->masks, next, seen,
				      xdev->mask_longs, xdev->nr_queues,
				      min(active, xdev->nr_queues), nr_cpu_ids,
				      &where);
	if (ret)
		goto out;
	ret = check_classes(xdev, next);
	if (ret)
		goto out_logged;
	/* From here on seen holds the queues whose masks change. */
	changed_queues(xdev, next, seen);
	swap(xdev->masks, next);
	ret = publish(xdev, false, seen);
	if (ret) {
		/* The old masks back; guard mode logged what the kernel refused. */
		swap(xdev->masks, next);
		if (xdev->mode == XPS_STEER_MODE_GUARD) {
			publish(xdev, false, seen);
			goto out_logged;
		}
	}
out:
	if (ret && where.why)
		pr_warn_ratelimited("%s: map write rejected: line %u: %s (%d)\n",
				    xdev->name, where.line, where.why, ret);
	else if (ret)
		pr_warn_ratelimited("%s: map write rejected (%d)\n",
				    xdev->name, ret);
out_logged:
	bitmap_free(seen);
	kvfree(next);
	return ret;
}

/*
 * Whether a queue's own files may take a mask; logs why not: an inactive
 * queue (ENXIO), a queue in no traffic class (EINVAL, like the kernel).
 */
static int check_queue(struct xps_steer_dev *xdev, unsigned int queue,
		       const char *file)
{
	unsigned int active = READ_ONCE(xdev->dev->real_num_tx_queues);
	const char *why;

	if (queue >= active) {
		pr_warn_ratelimited("%s: tx-%u: %s write rejected: queue not in use, %u of %u tx queues active (%d)\n",
				    xdev->name, queue, file, active, xdev->nr_queues,
				    -ENXIO);
		return -ENXIO;
	}
	why = xps_steer_class_refusal(xdev->dev, queue);
	if (why) {
		pr_warn_ratelimited("%s: tx-%u: %s write rejected: %s (%d)\n",
				    xdev->name, queue, file, why, -EINVAL);
		return -EINVAL;
	}
	return 0;
}

/*
 * Set one queue's CPU mask, or with rxqs its xps_rxqs mask, and publish
 * them; all or nothing, as far as the kernel's map lets guard mode put
 * back what it refused. Only this queue can fail it: guard mode restores
 * what drifted elsewhere on its own account. Logs a failure, naming file.
 */
static int set_one(struct xps_steer_dev *xdev, unsigned int queue,
		   const unsigned long *mask, bool rxqs, const char *file)
{
	unsigned int longs = rxqs ? xdev->rxq_mask_longs : xdev->mask_longs;
	unsigned int nbits = rxqs ? xdev->nr_rxqs : nr_cpu_ids;
	unsigned long *cur = (rxqs ? xdev->rxq_masks : xdev->masks) +
			     (size_t)queue * longs;
	unsigned long *saved, *queues;
	int err = -ENOMEM;

	saved = bitmap_alloc(nbits, GFP_KERNEL);
	queues = bitmap_zalloc(xdev->nr_queues, GFP_KERNEL);
	if (!saved || !queues)
		goto out_free;
	__set_bit(queue, queues);
	bitmap_copy(saved, cur, nbits);
	bitmap_copy(cur, mask, nbits);
	err = publish(xdev, rxqs, queues);
	if (err) {
		bitmap_copy(cur, saved, nbits);
		if (xdev->mode == XPS_STEER_MODE_GUARD)
			publish(xdev, rxqs, queues);
	}
out_free:
	bitmap_free(queues);
	bitmap_free(saved);
	if (err)
		pr_warn_ratelimited("%s: tx-%u: %s write rejected (%d)\n",
				    xdev->name, queue, file, err);
	return err;
}

/*
 * Set one queue's CPU mask, written to file (for the log line). Logs
 * every error; the caller logs only its parser's.
 */
int xps_steer_model_set_mask(struct xps_steer_dev *xdev, unsigned int queue,
			     const unsigned long *mask, const char *file)
{
	int err;

	lockdep_assert_held(&xps_steer_lock);
	err = check_queue(xdev, queue, file);
	if (err)
		return err;
	return set_one(xdev, queue, mask, false, file);
}

/*
 * Set one queue's receive-queue mask (xps_rxqs). Without sockets that
 * record their receive queue the map would never be read: refused.
 * Logs what it refuses, like xps_steer_model_set_mask().
 */
int xps_steer_model_set_rxqs(struct xps_steer_dev *xdev, unsigned int queue,
			     const unsigned long *mask)
{
	int err;

	lockdep_assert_held(&xps_steer_lock);
	if (xdev->mode == XPS_STEER_MODE_GUARD && !XPS_STEER_KERNEL_RXQS) {
		pr_warn_ratelimited("%s: tx-%u: xps_rxqs write rejected: on this kernel guard mode keeps the kernel's CPU map only (%d)\n",
				    xdev->name, queue, -EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	if (!XPS_STEER_SOCKETS_RECORD_RX_QUEUE) {
		pr_warn_ratelimited("%s: tx-%u: xps_rxqs write rejected: sockets do not record their receive queue on this kernel (before 4.18, or without CONFIG_XPS) (%d)\n",
				    xdev->name, queue, -EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	err = check_queue(xdev, queue, "xps_rxqs");
	if (err)
		return err;
	return set_one(xdev, queue, mask, true, "xps_rxqs");
}
