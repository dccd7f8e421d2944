// SPDX-License-Identifier: GPL-2.0
/*
 * Probe register_cpu_notifier: the CPU notifier chain, CPU_ONLINE and
 *   CPU_DEAD, to hear of CPUs coming online and going offline before the
 *   cpuhp states (3.10).
 * Kind: fallback
 * Upstream: removed once every user had moved to the cpuhp states
 *   (v4.10 era, not checked against a tag); src/probes/cpuhp_setup_state.c
 *   is used wherever it compiles.
 * Fallback: no hotplug trigger where cpuhp_setup_state is missing too:
 *   guard mode's periodic check restores a map that a hotplug changed.
 */
#include <linux/cpu.h>
#include <linux/notifier.h>

static int xps_probe_cpu(struct notifier_block *nb, unsigned long action,
			 void *hcpu)
{
	switch (action & ~CPU_TASKS_FROZEN) {
	case CPU_ONLINE:
	case CPU_DEAD:
		return NOTIFY_OK;
	}
	return NOTIFY_DONE;
}

static struct notifier_block xps_probe_nb = {
	.notifier_call = xps_probe_cpu,
};

static int __used xps_probe(void)
{
	int err = register_cpu_notifier(&xps_probe_nb);

	unregister_cpu_notifier(&xps_probe_nb);
	return err;
}
