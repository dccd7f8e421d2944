// SPDX-License-Identifier: GPL-2.0
/*
 * Probe sk_fullsock: sk_fullsock(sk).
 * Kind: fallback
 * Upstream: v4.0, "net: add sk_fullsock() helper".
 * Fallback: any socket but a timewait one (before v4.0 request sockets
 *   never reach the TX path).
 */
#include <net/sock.h>

static bool __used xps_probe(const struct sock *sk)
{
	return sk_fullsock(sk);
}
