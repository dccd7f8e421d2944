// SPDX-License-Identifier: GPL-2.0
/*
 * Probe synchronize_rcu_bh: synchronize_rcu_bh() exists: the RCU-bh flavour the
 *   TX path (rcu_read_lock_bh() in __dev_queue_xmit()) holds may be separate.
 * Kind: fallback
 * Upstream: removed after v4.20, "rcu: Consolidate the RCU update functions
 *   invoked by sync.c" made the flavours one.
 * Fallback: not needed: from v4.20 synchronize_rcu() also waits for
 *   rcu_read_lock_bh() readers.
 */
#include <linux/rcupdate.h>

static void __used xps_probe(void)
{
	synchronize_rcu_bh();
}
