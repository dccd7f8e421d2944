// SPDX-License-Identifier: GPL-2.0
/*
 * The slot table: our copies of the attached devices' net_device_ops,
 * each with the device's map, in one array. The TX path finds the slot
 * of a device from dev->netdev_ops with a range check (select.c), in
 * O(1) whatever the number of attached devices.
 *
 * The array is allocated, not static: a slot whose copy may still be
 * reached after we detached (someone copied or saved the pointer) is
 * kept for good, and then the array outlives the module.
 *
 * Slots are taken and given back under xps_steer_lock; a slot is given
 * back only once no CPU can still hold its address (attach.c reaps).
 */
#include <linux/bitmap.h>
#include <linux/kmemleak.h>
#include <linux/slab.h>

#include "xps_steer.h"

struct xps_steer_slot *xps_steer_slots __read_mostly;
static DECLARE_BITMAP(slots_used, XPS_STEER_MAX_DEVS);
static DECLARE_BITMAP(slots_kept, XPS_STEER_MAX_DEVS);

int xps_steer_slots_init(void)
{
	/* Larger means the copy does not fit in XPS_STEER_SLOT_SIZE. */
	BUILD_BUG_ON(sizeof(struct xps_steer_slot) != XPS_STEER_SLOT_SIZE);
	xps_steer_slots = kvcalloc(XPS_STEER_MAX_DEVS, sizeof(*xps_steer_slots),
				   GFP_KERNEL);
	return xps_steer_slots ? 0 : -ENOMEM;
}

void xps_steer_slots_exit(void)
{
	unsigned int kept = bitmap_weight(slots_kept, XPS_STEER_MAX_DEVS);

	if (!kept) {
		kvfree(xps_steer_slots);
		return;
	}
	/* Their copies lead to the driver only (see xps_steer_slot_keep()). */
	kmemleak_not_leak(xps_steer_slots);
	pr_notice("leaving %u copies of netdev_ops behind in memory: they may still be referenced\n",
		  kept);
}

/* A free slot for dev, with a zeroed copy; NULL if all are taken. */
struct xps_steer_slot *xps_steer_slot_get(struct net_device *dev)
{
	struct xps_steer_slot *slot;
	unsigned int i;

	lockdep_assert_held(&xps_steer_lock);
	i = find_first_zero_bit(slots_used, XPS_STEER_MAX_DEVS);
	if (i == XPS_STEER_MAX_DEVS)
		return NULL;
	__set_bit(i, slots_used);
	slot = &xps_steer_slots[i];
	memset(&slot->ops, 0, sizeof(slot->ops));
	RCU_INIT_POINTER(slot->map, NULL);
	return slot;
}

/* The slot is unused and no CPU can still hold its address. */
void xps_steer_slot_put(struct xps_steer_slot *slot)
{
	lockdep_assert_held(&xps_steer_lock);
	__clear_bit(slot - xps_steer_slots, slots_used);
}

/*
 * Never reuse or free this slot: someone may still reach its copy of the
 * ops. The caller has pointed the copy's hook back at the driver's.
 */
void xps_steer_slot_keep(struct xps_steer_slot *slot)
{
	lockdep_assert_held(&xps_steer_lock);
	__set_bit(slot - xps_steer_slots, slots_kept);
}
