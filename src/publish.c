// SPDX-License-Identifier: GPL-2.0
/*
 * Publishing a device's queue map: build a new map from its masks and
 * swap it in with RCU. The TX path never sees a half-built map.
 */
#include <linux/err.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "xps_steer.h"

/*
 * Rebuild xdev's map from its masks and publish it. Caller holds
 * xps_steer_lock. On failure the old map stays in place.
 */
int xps_steer_publish_map(struct xps_steer_dev *xdev)
{
	struct xps_steer_map *map, *old;

	lockdep_assert_held(&xps_steer_lock);

	map = xps_steer_map_build(xdev->masks, xdev->mask_longs,
				  xdev->nr_queues, nr_cpu_ids);
	if (IS_ERR(map))
		return PTR_ERR(map);

	old = rcu_replace_pointer(xdev->map, map,
				  lockdep_is_held(&xps_steer_lock));
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}
