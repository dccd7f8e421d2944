// SPDX-License-Identifier: GPL-2.0
/*
 * Probe skb_get_hash: skb_get_hash(skb).
 * Kind: legacy-fallback
 * Upstream: v3.14, "net: Change skb_get_rxhash to skb_get_hash".
 * Legacy fallback: skb_get_rxhash(), its name before v3.14.
 */
#include <linux/skbuff.h>

static u32 __used xps_probe(struct sk_buff *skb)
{
	return skb_get_hash(skb);
}
