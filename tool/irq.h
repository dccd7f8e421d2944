/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device's transmit queue interrupts and where they run,
 * from /proc/interrupts, the device's msi_irqs and /proc/irq/<n>/.
 */
#ifndef XPS_STEER_IRQ_H
#define XPS_STEER_IRQ_H

#include <hwloc.h>

/*
 * For each queue 0 .. nqueues-1 of ifname: irqs[q] = its IRQ (-1: not
 * found), affinity[q] = a new bitmap of that IRQ's effective affinity
 * (NULL when not found). Returns how many queues got an IRQ.
 */
int irq_find_queues(const char *ifname, unsigned int nqueues, int *irqs,
		    hwloc_bitmap_t *affinity);

#endif
