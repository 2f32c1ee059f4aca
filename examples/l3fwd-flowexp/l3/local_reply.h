/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Echo replies and time exceeded from the gateway (l3/local_reply.c),
 * built in the question's mbuf, through two token buckets.
 */

#ifndef _FX_LOCAL_REPLY_H_
#define _FX_LOCAL_REPLY_H_

#include <stdint.h>

#include <rte_mbuf.h>

/** The token buckets: rate answers a second, burst at most at once. */
void fx_local_reply_init(uint32_t rate, uint32_t burst);

/** Answer echo request m (to one of the gateway's addresses) received on port at now. */
void fx_local_reply_echo(struct rte_mbuf *m, uint16_t port, uint64_t now);

/** Answer m, whose TTL or hop limit ran out on port, with time exceeded at now. */
void fx_local_reply_ttl(struct rte_mbuf *m, uint16_t port, uint64_t now);

#endif /* _FX_LOCAL_REPLY_H_ */
