// SPDX-License-Identifier: GPL-2.0
/*
 * What the TX path did with each packet of a device, for
 * /sys/kernel/xps_steer/<dev>/stats and tx-<n>/packets. The counters are
 * per CPU, so a packet writes only its own CPU's copy and no cache line
 * is shared between senders; a read sums the copies. Steered packets are
 * counted per queue (their sum is the steered total), the others by the
 * reason they were left to the stock selection.
 *
 * One per-CPU allocation holds at most 32 KiB (PCPU_MIN_UNIT_SIZE), so
 * the per-queue counters come in chunks of XPS_STEER_QUEUE_CHUNK queues.
 */
#include <linux/percpu.h>
#include <linux/slab.h>

#include "xps_steer.h"

static const char *const reason_names[XPS_STEER_NR_REASONS] = {
	[XPS_STEER_KEPT_SOCKET_QUEUE]	= "kept_socket_queue",
	[XPS_STEER_CPU_IN_NO_MASK]	= "cpu_in_no_mask",
	[XPS_STEER_SUBORDINATE_DEVICE]	= "subordinate_device",
	[XPS_STEER_TRAFFIC_CLASS]	= "traffic_class",
	[XPS_STEER_QUEUE_INACTIVE]	= "queue_inactive",
	[XPS_STEER_NO_MAP]		= "no_map",
};

static unsigned int nr_chunks(const struct xps_steer_dev *xdev)
{
	return DIV_ROUND_UP(xdev->nr_queues, XPS_STEER_QUEUE_CHUNK);
}

static unsigned long __percpu *alloc_counters(unsigned int n)
{
	return __alloc_percpu(n * sizeof(unsigned long),
			      __alignof__(unsigned long));
}

int xps_steer_counters_init(struct xps_steer_dev *xdev)
{
	struct xps_steer_counters *ctr;
	unsigned int i, n = nr_chunks(xdev);

	ctr = kzalloc(struct_size(ctr, queues, n), GFP_KERNEL);
	if (!ctr)
		return -ENOMEM;
	xdev->counters = ctr;
	ctr->reasons = alloc_counters(XPS_STEER_NR_COUNTERS);
	if (!ctr->reasons)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ctr->queues[i] = alloc_counters(XPS_STEER_QUEUE_CHUNK);
		if (!ctr->queues[i])
			return -ENOMEM;
	}
	return 0;
}

/* Also after a failed init. Caller made sure no CPU can still count. */
void xps_steer_counters_free(struct xps_steer_dev *xdev)
{
	struct xps_steer_counters *ctr = xdev->counters;
	unsigned int i;

	if (!ctr)
		return;
	for (i = 0; i < nr_chunks(xdev); i++)
		free_percpu(ctr->queues[i]);
	free_percpu(ctr->reasons);
	kfree(ctr);
	xdev->counters = NULL;
}

/* The sum over all CPUs of one per-CPU counter. */
static unsigned long sum(unsigned long __percpu *counter)
{
	unsigned long total = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		total += READ_ONCE(*per_cpu_ptr(counter, cpu));
	return total;
}

static unsigned long __percpu *queue_counter(struct xps_steer_dev *xdev,
					     unsigned int queue)
{
	return xdev->counters->queues[queue / XPS_STEER_QUEUE_CHUNK] +
	       queue % XPS_STEER_QUEUE_CHUNK;
}

unsigned long xps_steer_counters_queue(struct xps_steer_dev *xdev,
				       unsigned int queue)
{
	return sum(queue_counter(xdev, queue));
}

/* tx-<n>/packets. */
ssize_t xps_steer_counters_show_queue(struct xps_steer_dev *xdev,
				      unsigned int queue, char *buf)
{
	return sysfs_emit(buf, "%lu\n", xps_steer_counters_queue(xdev, queue));
}

/*
 * The stats file: "name value" lines, steered first, then the part of
 * them the receive-queue map steered, then the reasons.
 */
ssize_t xps_steer_counters_show(struct xps_steer_dev *xdev, char *buf)
{
	unsigned long steered = 0;
	unsigned int queue, r;
	ssize_t len;

	for (queue = 0; queue < xdev->nr_queues; queue++)
		steered += xps_steer_counters_queue(xdev, queue);
	len = sysfs_emit(buf, "steered %lu\n", steered);
	len += sysfs_emit_at(buf, len, "steered_by_rxqs %lu\n",
			     sum(xdev->counters->reasons +
				 XPS_STEER_STEERED_BY_RXQS));
	for (r = 0; r < XPS_STEER_NR_REASONS; r++)
		len += sysfs_emit_at(buf, len, "%s %lu\n", reason_names[r],
				     sum(xdev->counters->reasons + r));
	return len;
}
