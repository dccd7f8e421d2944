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
 * Everything here runs under xps_steer_lock.
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

int xps_steer_model_init(struct xps_steer_dev *xdev)
{
	xdev->nr_queues = xdev->dev->num_tx_queues;
	xdev->mask_longs = BITS_TO_LONGS(nr_cpu_ids);
	xdev->masks = kvcalloc(array_size(xdev->nr_queues, xdev->mask_longs),
			       sizeof(unsigned long), GFP_KERNEL);
	return xdev->masks ? 0 : -ENOMEM;
}

/* Caller made sure no map is published any more. */
void xps_steer_model_free(struct xps_steer_dev *xdev)
{
	kvfree(xdev->masks);
	xdev->masks = NULL;
}

/* Swap in map (NULL: none); the old one goes after a grace period. */
static void replace_map(struct xps_steer_dev *xdev, struct xps_steer_map *map)
{
	struct xps_steer_map *old;

	old = rcu_replace_pointer(xdev->slot->map, map,
				  lockdep_is_held(&xps_steer_lock));
	if (old)
		kvfree_rcu(old, rcu);
}

/* Stop steering: the TX path finds no map from now on. */
void xps_steer_model_unpublish(struct xps_steer_dev *xdev)
{
	lockdep_assert_held(&xps_steer_lock);
	replace_map(xdev, NULL);
}

ssize_t xps_steer_model_show_mask(struct xps_steer_dev *xdev,
				  unsigned int queue, char *buf)
{
	lockdep_assert_held(&xps_steer_lock);
	return xps_steer_emit_mask(buf, queue_mask(xdev, queue), nr_cpu_ids);
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
 * Replace every mask with those of a map text (maptext.c, which cuts
 * text, text[len] == '\0', in place) and publish the map built from them
 * once; all or nothing. On a bad line, err says which and why.
 */
int xps_steer_model_set_map(struct xps_steer_dev *xdev, char *text,
			    size_t len, struct xps_steer_maptext_err *err)
{
	unsigned int active = READ_ONCE(xdev->dev->real_num_tx_queues);
	unsigned long *next, *seen;
	struct xps_steer_map *map;
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
				      err);
	if (ret)
		goto out;
	map = xps_steer_map_build(next, xdev->mask_longs, xdev->nr_queues,
				  nr_cpu_ids);
	if (IS_ERR(map)) {
		ret = PTR_ERR(map);
		goto out;
	}
	swap(xdev->masks, next);
	replace_map(xdev, map);
out:
	bitmap_free(seen);
	kvfree(next);
	return ret;
}

/*
 * Set one queue's mask, written to its file (for the log line), and
 * publish the map built from all of them; all or nothing. Logs ENXIO
 * with its reason; the caller logs the rest.
 */
int xps_steer_model_set_mask(struct xps_steer_dev *xdev, unsigned int queue,
			     const unsigned long *mask, const char *file)
{
	unsigned int active = READ_ONCE(xdev->dev->real_num_tx_queues);
	struct xps_steer_map *map;
	unsigned long *saved;
	int err = 0;

	lockdep_assert_held(&xps_steer_lock);
	if (queue >= active) {
		pr_warn_ratelimited("%s: tx-%u: %s write rejected: queue not in use, %u of %u tx queues active (%d)\n",
				    xdev->name, queue, file, active, xdev->nr_queues,
				    -ENXIO);
		return -ENXIO;
	}

	saved = bitmap_alloc(nr_cpu_ids, GFP_KERNEL);
	if (!saved)
		return -ENOMEM;
	bitmap_copy(saved, queue_mask(xdev, queue), nr_cpu_ids);
	bitmap_copy(queue_mask(xdev, queue), mask, nr_cpu_ids);
	map = xps_steer_map_build(xdev->masks, xdev->mask_longs,
				  xdev->nr_queues, nr_cpu_ids);
	if (IS_ERR(map)) {
		bitmap_copy(queue_mask(xdev, queue), saved, nr_cpu_ids);
		err = PTR_ERR(map);
	} else {
		replace_map(xdev, map);
	}
	bitmap_free(saved);
	return err;
}
