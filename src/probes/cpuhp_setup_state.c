// SPDX-License-Identifier: GPL-2.0
/*
 * Probe cpuhp_setup_state: cpuhp_setup_state_nocalls() with a dynamic
 *   state, to hear of CPUs coming online and going offline.
 * Kind: fallback
 * Upstream: v4.10, "cpu/hotplug: Add a dynamic state for online CPUs" (and
 *   the state machine of v4.6).
 * Fallback: no hotplug trigger: guard mode's periodic check restores a
 *   map that a hotplug changed.
 */
#include <linux/cpuhotplug.h>

static int xps_probe_online(unsigned int cpu)
{
	return 0;
}

static int __used xps_probe(void)
{
	return cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "xps_probe",
					 xps_probe_online, NULL);
}
