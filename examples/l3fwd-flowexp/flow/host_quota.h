/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * --max-flows-per-host: how many tracked flows one host opened on this
 * worker (base/quota.h), checked when a flow would be made and counted from
 * its creation to its removal (expiry, invalidation, eviction, exit).
 *
 * A flow is charged to the endpoint that sent its first packet (the
 * initiator, FX_FLOW_INIT_DIR1): an IPv4 address, or the /64 of an IPv6
 * one (a host picks any address of its /64 at will). A flow the quota
 * refuses is handled as one that found the table full (dropped, or with
 * --table-full forward routed without state) and counted as host_limit;
 * it never evicts. A closed TCP flow reopened by a SYN from the other end
 * changes initiator and is charged to it from then on. Owner only.
 */

#ifndef _FX_FLOW_QUOTA_H_
#define _FX_FLOW_QUOTA_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>

#include "base/config.h"
#include "base/quota.h"
#include "flow/flow.h"
#include "flow/state.h"
#include "flow/table.h"
#include "fwd/parse.h"

/** The quota key of endpoint ep of key k. */
static inline struct fx_quota_key
fx_flow_quota_key(const struct fx_key *k, unsigned int ep)
{
	struct fx_quota_key q = { 0, 0 };
	uint32_t a4;

	if (k->family == FX_FAMILY_V4) {
		memcpy(&a4, k->addr[ep], 4);
		q.k0 = a4;
		q.k1 = (uint32_t)FX_QUOTA_FLOW_V4 << 24;
	} else {
		memcpy(&q.k0, k->addr[ep], 8);
		q.k1 = (uint32_t)FX_QUOTA_FLOW_V6 << 24;
	}
	return q;
}

/** Whether the sender of pk has its quota of flows already. */
static inline bool
fx_flow_quota_full(const struct fx_flows *fl, const struct fx_pkt *pk)
{
	struct fx_quota_key k;

	if (likely(!fx_quota_on(&fl->host_quota)))
		return false;
	k = fx_flow_quota_key(&pk->key, pk->dir);
	return fx_quota_count(&fl->host_quota, &k) >= fx_conf.max_flows_per_host;
}

/**
 * Charge new flow f (its flags set) to its initiator. false: no room in
 * the quota table (the flow is not made).
 */
static inline bool
fx_flow_quota_take(struct fx_flows *fl, const struct fx_flow *f)
{
	struct fx_quota_key k;

	if (likely(!fx_quota_on(&fl->host_quota)))
		return true;
	k = fx_flow_quota_key(&f->key, f->flags & FX_FLOW_INIT_DIR1);
	return fx_quota_take(&fl->host_quota, &k, UINT32_MAX) == 0;
}

/** Flow f leaves: its initiator may open another. */
static inline void
fx_flow_quota_put(struct fx_flows *fl, const struct fx_flow *f)
{
	struct fx_quota_key k;

	if (likely(!fx_quota_on(&fl->host_quota)))
		return;
	k = fx_flow_quota_key(&f->key, f->flags & FX_FLOW_INIT_DIR1);
	fx_quota_put(&fl->host_quota, &k);
}

/**
 * Flow f, reopened, gets flags: charged to the new initiator if it is the
 * other end. The flow exists already, so no limit applies; at load one
 * half the table has a free slot within its probes for it (were there
 * none, the old initiator would keep the charge until the flow leaves).
 */
static inline void
fx_flow_quota_reopen(struct fx_flows *fl, const struct fx_flow *f,
		     uint8_t flags)
{
	struct fx_quota_key k;

	if (likely(!fx_quota_on(&fl->host_quota)) ||
	    (flags & FX_FLOW_INIT_DIR1) == (f->flags & FX_FLOW_INIT_DIR1))
		return;
	k = fx_flow_quota_key(&f->key, flags & FX_FLOW_INIT_DIR1);
	if (fx_quota_take(&fl->host_quota, &k, UINT32_MAX) != 0)
		return;
	fx_flow_quota_put(fl, f);
}

#endif /* _FX_FLOW_QUOTA_H_ */
