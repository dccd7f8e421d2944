// SPDX-License-Identifier: GPL-2.0
/*
 * How a device named in dev= is served, or why it is not: one row per
 * verdict, and the one place its words are written. The log line reads
 * the row's text, the status file its state, word and errno, and
 * scripts/drivers-md.sh the rows themselves for docs/drivers.md. Keep
 * each row's fields in this order, one per line: the script reads them.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "xps_steer.h"

const struct xps_steer_verdict_row xps_steer_verdicts[XPS_STEER_NR_VERDICTS] = {
	[XPS_STEER_STEERED] = {
		.state = "attached",
		.word = "steer",
		.log = "attached",
	},
	[XPS_STEER_GUARD_REQUESTED] = {
		.state = "attached",
		.word = "requested",
		.log = "attached in guard mode, as dev= asks",
	},
	[XPS_STEER_GUARD_DENYLISTED] = {
		.state = "attached",
		.word = "denylisted",
		.log = "attached in guard mode: a copy of its ops would break its driver",
	},
	[XPS_STEER_GUARD_OWN_SELECT_QUEUE] = {
		.state = "attached",
		.word = "own-select-queue",
		.log = "attached in guard mode: its driver has its own ndo_select_queue",
	},
	[XPS_STEER_SINGLE_QUEUE] = {
		.state = "refused",
		.word = "single-queue",
		.err = -EOPNOTSUPP,
		.log = "refused: single-queue device",
	},
	/* Queue numbers are u16, and U16_MAX means "no queue" to the core. */
	[XPS_STEER_TOO_MANY_QUEUES] = {
		.state = "refused",
		.word = "too-many-queues",
		.err = -ERANGE,
		.log = "refused: more tx queues than the 65535 supported",
	},
	[XPS_STEER_IGNORES_XPS] = {
		.state = "refused",
		.word = "select-ignores-xps",
		.err = -EOPNOTSUPP,
		.log = "refused: its driver picks queues without the kernel's XPS map",
	},
	[XPS_STEER_NO_KERNEL_XPS] = {
		.state = "refused",
		.word = "no-kernel-xps",
		.err = -EOPNOTSUPP,
		.log = "refused: only guard mode could serve it, and this kernel has no XPS",
	},
	[XPS_STEER_NO_MEMORY] = {
		.state = "failed",
		.word = "out-of-memory",
		.err = -ENOMEM,
		.log = "not attached: out of memory",
	},
	[XPS_STEER_NO_SYSFS] = {
		.state = "failed",
		.word = "sysfs-error",
		.err = -EIO,
		.log = "not attached: cannot create its sysfs tree",
	},
	[XPS_STEER_NO_SLOT] = {
		.state = "failed",
		.word = "no-free-slot",
		.err = -ENOSPC,
		.log = "not attached: all 32 slots are in use or kept",
	},
};

int xps_steer_verdict_err(enum xps_steer_verdict verdict,
			  const struct xps_steer_facts *facts)
{
	return facts && facts->err ? facts->err : xps_steer_verdicts[verdict].err;
}

/*
 * "<device>: <the row's text> (<what attach.c found>)": the facts in one
 * form for every verdict, at the level its state deserves.
 */
void xps_steer_log_verdict(const struct net_device *dev,
			   enum xps_steer_verdict verdict,
			   const struct xps_steer_facts *facts)
{
	const struct xps_steer_verdict_row *row = &xps_steer_verdicts[verdict];
	char detail[192] = "";
	int at = 0;

	/* The numbers in the rows above. */
	BUILD_BUG_ON(XPS_STEER_MAX_QUEUES != 65535);
	BUILD_BUG_ON(XPS_STEER_MAX_DEVS != 32);
	if (facts && facts->driver)
		at += scnprintf(detail + at, sizeof(detail) - at,
				"%sdriver %s: %s", at ? ", " : " (",
				facts->driver, facts->why);
	if (facts && facts->queues)
		at += scnprintf(detail + at, sizeof(detail) - at,
				"%s%u tx queues", at ? ", " : " (",
				facts->queues);
	if (facts && facts->err)
		at += scnprintf(detail + at, sizeof(detail) - at,
				"%serror %d", at ? ", " : " (", facts->err);
	if (at)
		scnprintf(detail + at, sizeof(detail) - at, ")");

	if (!strcmp(row->state, "attached"))
		pr_info("%s: %s%s\n", dev->name, row->log, detail);
	else if (!strcmp(row->state, "refused"))
		pr_warn("%s: %s%s\n", dev->name, row->log, detail);
	else
		pr_err("%s: %s%s\n", dev->name, row->log, detail);
}
