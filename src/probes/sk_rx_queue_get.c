// SPDX-License-Identifier: GPL-2.0
/*
 * Probe sk_rx_queue_get: sockets record the receive queue of their last
 *   packet, and sk_rx_queue_get() reads it (needs CONFIG_XPS).
 * Kind: fallback
 * Upstream: v4.18, "net: Record receive queue number for a connection".
 * Fallback: tx-<n>/xps_rxqs exists but refuses writes with EOPNOTSUPP
 *   and a log line saying why; the TX path uses CPU masks only.
 */
#include <net/sock.h>

static int __used xps_probe(const struct sock *sk)
{
	return sk_rx_queue_get(sk);
}
