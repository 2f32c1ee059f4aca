/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The mapping reaper on the worker's own wheel (nat/nat.h has the design):
 * a Due LIVE mapping becomes HELD for the hold-down, counted from its
 * deadline, not from when the sweep got to it; a Due HELD one leaves
 * and its port unit and its place in the host's quotas are released (a
 * held mapping still counts against them); a cancelled one (a
 * control-path flush) is held from now. A sweep's records are handled in a
 * pipeline of prefetches (the record, then its key's bucket and its
 * port unit, under eim then a binding that goes away from its home). At
 * exit every mapping ends and every port comes back. Each poll keeps the
 * reaper's maxima: the most records one poll handled (nat_poll_max) and
 * the expiry lag of a live mapping, its deadline to the poll that ended
 * it (nat_lag_*). The log's delete event of a mapping (nat/log/events.h) is its
 * release, at the hold-down's end, or at exit: the time its public tuple
 * is free for reuse. Under eim a session's binding counts its sessions
 * as they are held and leave (nat/eim.h). With port blocks the wheel
 * holds the blocks' entries too (nat/block.h), handed to
 * nat_block_due(), and a mapping's unit changes go through its block
 * (nat_unit(), nat/priv.h).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_prefetch.h>

#include <twheel.h>

#include "base/counter.h"
#include "nat/bib.h"
#include "nat/block.h"
#include "nat/eim.h"
#include "nat/log/events.h"
#include "nat/nat.h"
#include "nat/ports.h"
#include "nat/priv.h"
#include "nat/table.h"

/* a held mapping leaves at `at`: its record and keys, its port unit */
static void
mapping_release(struct fx_nat *nt, struct nat_mapping *m, uint64_t at)
{
	nat_log_released(nt, m, at);
	nat_unit(nt, m, NAT_UNIT_RELEASE, at);
	nat_quota_put(nt, m->in_addr, m->rem_addr, m->rem_port, m->proto);
	nat_eim_session_gone(nt, m, at);
	nat_table_remove(&nt->tbl, m);
	FX_STAT_ADD(&nt->st, nat_released, 1);
	FX_STAT_SET(&nt->st, nat_held, nt->st.nat_held - 1);
}

/* a live mapping ends (expired at, or flushed at) `at`: into hold-down */
static void
mapping_end(struct fx_nat *nt, struct nat_mapping *m, uint64_t at)
{
	uint64_t id;

	m->held_until = at + nt->holddown_cycles;
	nat_unit(nt, m, NAT_UNIT_HOLD, 0);
	FX_STAT_SET(&nt->st, nat_active, nt->st.nat_active - 1);
	FX_STAT_SET(&nt->st, nat_held, nt->st.nat_held + 1);
	id = twheel_schedule(nt->wheel, m->held_until, m);
	nat_table_hold(&nt->tbl, m, m->held_until, id);   /* now HELD */
	if (id == TWHEEL_ID_INVALID)   /* cannot happen: this entry just left */
		mapping_release(nt, m, at);
}

/* start reading Due record m's line */
static inline void
fetch(void *payload)
{
	rte_prefetch0(payload);
}

/* start reading what handling Due record m will touch: the bucket of the
 * key it loses next, its port unit, and when its hold-down ends, its
 * quota slots (its own line was prefetched before) */
static inline void
warm(struct fx_nat *nt, void *payload)
{
	struct nat_mapping *m = payload;

	if (nat_block_of(payload) != NULL)
		return;   /* a block: its line was prefetched */
	nat_table_warm(&nt->tbl, &m, 1);
	nat_ports_prefetch(&nt->ports, m->pool_idx, nat_proto_class(m->proto),
			   rte_be_to_cpu_16(m->pub_port));
	if (m->state == NAT_HELD)
		nat_quota_prefetch(nt, m->in_addr, m->rem_addr, m->rem_port, m->proto);
}

/* eim: once its port unit, and with it its binding's entry, has come, and
 * if session m is its binding's last record and held, so that the binding
 * goes with it, and the binding is away from its home (nat/bib.h), start
 * reading the binding's bucket and its home's line (a live session's end
 * does not touch its binding; one at its home is all in the unit's line) */
static inline void
warm_binding(struct fx_nat *nt, void *payload)
{
	const struct nat_mapping *m = payload;
	const struct nat_port_unit *u;
	uint32_t unit, home;

	if (!nat_bib_on(&nt->bib) || nat_block_of(payload) != NULL ||
	    m->state != NAT_HELD)
		return;
	/* at its home (nat_eim_home_at(): its own port, without port blocks)
	 * its public port is its inside port: all in the unit's line */
	if (!nat_blocks_on(&nt->blocks) && m->pub_port == m->in_port)
		return;
	unit = nat_eim_unit(nt, m->pool_idx, m->proto, m->pub_port);
	u = nat_ports_unit_at(&nt->ports, unit);
	if (u->live + u->held != 1)
		return;
	home = nat_eim_home_at(nt, m->pool_idx, m->in_port, m->proto);
	RTE_ASSERT(home != unit);
	nat_bib_prefetch_inside(&nt->bib, m->in_addr, m->in_port, m->proto);
	if (home != NAT_BIB_NO_HOME)
		rte_prefetch0(nat_bib_at(&nt->bib, home));
}

/*
 * The records of a sweep, in a pipeline so that their cache misses
 * overlap: a record's line is prefetched REAP_AHEAD records before what it
 * points to is warmed, that REAP_AHEAD records before it is handled, and
 * under eim the bucket of a binding that goes with it REAP_BIND records
 * before (its unit, which tells, came meanwhile).
 */
#define REAP_AHEAD 8
#define REAP_BIND (REAP_AHEAD / 2)

static void
records(struct fx_nat *nt, const struct twheel_fired *f, unsigned int n,
	uint64_t now)
{
	struct nat_mapping *m;
	unsigned int i;
	uint64_t lag;

	for (i = 0; i < n && i < 2 * REAP_AHEAD; i++)
		fetch(f[i].payload);
	for (i = 0; i < n && i < REAP_AHEAD; i++)
		warm(nt, f[i].payload);
	for (i = 0; i < n && i < REAP_BIND; i++)
		warm_binding(nt, f[i].payload);
	for (i = 0; i < n; i++) {
		if (i + 2 * REAP_AHEAD < n)
			fetch(f[i + 2 * REAP_AHEAD].payload);
		if (i + REAP_AHEAD < n)
			warm(nt, f[i + REAP_AHEAD].payload);
		if (i + REAP_BIND < n)
			warm_binding(nt, f[i + REAP_BIND].payload);
		if (unlikely(nat_block_of(f[i].payload) != NULL)) {
			nat_block_due(nt, nat_block_of(f[i].payload), f[i].deadline);
			continue;
		}
		m = f[i].payload;
		if (m->state == NAT_HELD) {
			mapping_release(nt, m, m->held_until);
			continue;
		}
		if (f[i].reason == TWHEEL_DUE) {
			FX_STAT_ADD(&nt->st, nat_expired, 1);
			FX_STAT_ADD(&nt->st, nat_expired_tmo[m->tmo], 1);
			lag = now > f[i].deadline ? now - f[i].deadline : 0;
			FX_STAT_ADD(&nt->st, nat_lag_sum, lag);
			FX_STAT_ADD(&nt->st, nat_lag_n, 1);
			FX_STAT_MAX(&nt->st, nat_lag_max, lag);
			/* the hold-down counts from the deadline, not from
			 * when the sweep got to it */
			mapping_end(nt, m, RTE_MIN(f[i].deadline, now));
		} else {
			FX_STAT_ADD(&nt->st, nat_flushed, 1);
			mapping_end(nt, m, now);
		}
	}
}

bool
fx_nat_poll(struct fx_nat *nt, uint64_t now)
{
	unsigned int n;
	bool more;

	n = twheel_sweep_more(nt->wheel, now, nt->budget, nt->fired, &more);
	records(nt, nt->fired, n, now);
	FX_STAT_MAX(&nt->st, nat_poll_max, n);
	/* more may be due: the budget ran out, or hold-downs were just
	 * scheduled that may have ended by now already */
	return more || n != 0;
}

void
fx_nat_drain(struct fx_nat *nt, uint64_t now)
{
	struct nat_mapping *m;
	unsigned int n, i;
	bool more;

	nt->blocks.draining = true;   /* a block's last mapping releases it */
	do {
		n = twheel_drain_more(nt->wheel, nt->budget, nt->fired, &more);
		for (i = 0; i < n; i++) {
			if (nat_block_of(nt->fired[i].payload) != NULL) {
				nat_block_due(nt, nat_block_of(nt->fired[i].payload), now);
				continue;
			}
			m = nt->fired[i].payload;
			if (m->state == NAT_LIVE) {
				nat_log_released(nt, m, now);
				nat_unit(nt, m, NAT_UNIT_PUT, now);
				nat_quota_put(nt, m->in_addr, m->rem_addr,
					      m->rem_port, m->proto);
				nat_eim_session_gone(nt, m, now);
				nat_table_remove(&nt->tbl, m);
				FX_STAT_SET(&nt->st, nat_active, nt->st.nat_active - 1);
			} else {
				mapping_release(nt, m, RTE_MIN(m->held_until, now));
			}
		}
	} while (more);
}
