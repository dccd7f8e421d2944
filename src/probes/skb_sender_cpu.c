// SPDX-License-Identifier: GPL-2.0
/*
 * Probe skb_sender_cpu: struct sk_buff has sender_cpu (needs CONFIG_XPS or
 *   CONFIG_NET_RX_BUSY_POLL).
 * Kind: fallback
 * Upstream: v4.0, "xps: fix xps for stacked devices".
 * Fallback: use the CPU we run on (raw_smp_processor_id()).
 */
#include <linux/skbuff.h>

static unsigned int __used xps_probe(const struct sk_buff *skb)
{
	return skb->sender_cpu;
}
