// SPDX-License-Identifier: GPL-2.0
/*
 * Probe sched_signal_h: restart_syscall() is declared in
 *   <linux/sched/signal.h>.
 * Kind: layout
 * Upstream: v4.11, "sched/headers: Prepare for new header dependencies
 *   before moving code to <linux/sched/signal.h>".
 * Layout: compat.h includes that header where it exists; before it
 *   <linux/sched.h> declares restart_syscall().
 */
#include <linux/sched/signal.h>

static int __used xps_probe(void)
{
	return restart_syscall();
}
