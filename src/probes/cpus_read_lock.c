// SPDX-License-Identifier: GPL-2.0
/*
 * Probe cpus_read_lock: cpus_read_lock() and cpus_read_unlock().
 * Kind: legacy-fallback
 * Upstream: v4.13, "cpu/hotplug: Provide cpus_read|write_[un]lock()".
 * Legacy fallback: get_online_cpus() and put_online_cpus().
 */
#include <linux/cpu.h>

static void __used xps_probe(void)
{
	cpus_read_lock();
	cpus_read_unlock();
}
