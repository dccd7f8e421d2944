// SPDX-License-Identifier: GPL-2.0
/*
 * Probe synchronize_rcu_tasks: synchronize_rcu_tasks(), or its alias when
 *   CONFIG_TASKS_RCU is off.
 * Kind: fallback
 * Upstream: v3.18, "rcu: Add call_rcu_tasks()".
 * Fallback: synchronize_sched() (synchronize_rcu() from v4.20): before v3.18
 *   only non-preemptible kernels run qdisc-bypass senders without RCU.
 */
#include <linux/rcupdate.h>

static void __used xps_probe(void)
{
	synchronize_rcu_tasks();
}
