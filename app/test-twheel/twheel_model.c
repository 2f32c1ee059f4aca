/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The reference model; see twheel_model.h for what it checks.
 *
 * Items are the payloads: an item's address is the payload the wheel hands
 * back, its deadline field is what deadline_fn reads. The model knows
 * nothing of buckets or chunks; the only wheel detail it uses is the tick
 * arithmetic that defines "one tick late" (tick(t) = t / tick_cycles,
 * capped at UINT64_MAX - 1).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include <twheel.h>

#include "twheel_model.h"

#define NONE UINT32_MAX
#define DEAD_IDS 512

struct item {
	uint64_t deadline;     /* what deadline_fn reports (or as last set) */
	twheel_id_t id;
	uint32_t live_pos;     /* index in live[], NONE when not live */
	uint32_t next_free;
};

struct tw_model {
	struct twheel *w;
	struct tw_model_cfg cfg;
	struct item *items;            /* capacity of them */
	uint32_t *live;                /* live item indices */
	uint32_t live_n;
	uint32_t free_head;
	twheel_id_t *slot_last_id;     /* last id seen per slab index */
	uint32_t *slot_item;           /* live item in each slab index, or NONE */
	struct twheel_fired *out;      /* room for max_budget records */
	uint32_t max_budget;
	twheel_id_t dead[DEAD_IDS];    /* recently dead ids */
	uint32_t dead_n, dead_pos;

	/* expected statistics */
	uint64_t scheduled, cancelled, due;

	/* time */
	bool swept;
	uint64_t max_now;
	uint64_t lateness_from;        /* check lateness once limit > this */

	uint64_t steps;
	struct tw_model_tally tally;
	char err[512];
};

static uint64_t
model_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct item *)payload)->deadline;
}

static uint64_t
tick_of(const struct tw_model *m, uint64_t t)
{
	uint64_t tick = t / m->cfg.tick_cycles;

	return tick > UINT64_MAX - 1 ? UINT64_MAX - 1 : tick;
}

/* The first tick not yet elapsed at now. */
static uint64_t
limit_of(const struct tw_model *m, uint64_t now)
{
	return tick_of(m, now) + (now == UINT64_MAX);
}

static int __rte_format_printf(2, 3)
fail(struct tw_model *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(m->err, sizeof(m->err), "step %" PRIu64 ": ", m->steps);
	va_start(ap, fmt);
	vsnprintf(m->err + n, sizeof(m->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

struct tw_model *
tw_model_create(const struct tw_model_cfg *cfg)
{
	struct twheel_config wc = {
		.name = cfg->name,
		.socket_id = SOCKET_ID_ANY,
		.capacity = cfg->capacity,
		.slots = cfg->slots,
		.tick_cycles = cfg->tick_cycles,
		.remote_ring_size = 0,
		.deadline_fn = cfg->lazy ? model_deadline : NULL,
	};
	struct tw_model *m = calloc(1, sizeof(*m));
	uint32_t i;

	if (m == NULL)
		return NULL;
	m->cfg = *cfg;
	m->items = calloc(cfg->capacity, sizeof(*m->items));
	m->live = calloc(cfg->capacity, sizeof(*m->live));
	m->slot_last_id = calloc(cfg->capacity, sizeof(*m->slot_last_id));
	m->slot_item = malloc(cfg->capacity * sizeof(*m->slot_item));
	m->max_budget = 4 * cfg->capacity + 256;
	/* slack past the largest budget, so an overrun is seen, not a crash */
	m->out = malloc((m->max_budget + 64) * sizeof(*m->out));
	if (m->items == NULL || m->live == NULL || m->slot_last_id == NULL ||
	    m->slot_item == NULL || m->out == NULL) {
		tw_model_free(m);
		return NULL;
	}
	for (i = 0; i < cfg->capacity; i++) {
		m->slot_item[i] = NONE;
		m->items[i].live_pos = NONE;
		m->items[i].next_free = (i + 1 < cfg->capacity) ? i + 1 : NONE;
	}
	m->free_head = 0;
	m->w = twheel_create(&wc);
	if (m->w == NULL) {
		printf("model: twheel_create(%s): %s\n", cfg->name,
		       rte_strerror(rte_errno));
		tw_model_free(m);
		return NULL;
	}
	return m;
}

void
tw_model_free(struct tw_model *m)
{
	if (m == NULL)
		return;
	twheel_free(m->w);
	free(m->items);
	free(m->live);
	free(m->slot_last_id);
	free(m->slot_item);
	free(m->out);
	free(m);
}

static int
check_stats(struct tw_model *m, const char *after)
{
	struct twheel_stats st;

	twheel_stats_get(m->w, &st);
	if (st.live != m->live_n || st.scheduled != m->scheduled ||
	    st.cancelled != m->cancelled || st.due != m->due)
		return fail(m, "after %s: stats live %" PRIu64 " scheduled %" PRIu64
			    " cancelled %" PRIu64 " due %" PRIu64 ", model %u %"
			    PRIu64 " %" PRIu64 " %" PRIu64, after, st.live,
			    st.scheduled, st.cancelled, st.due, m->live_n,
			    m->scheduled, m->cancelled, m->due);
	return 0;
}

static struct item *
live_pick(struct tw_model *m, uint64_t pick)
{
	if (m->live_n == 0)
		return NULL;
	return &m->items[m->live[pick % m->live_n]];
}

/* An item leaves the model: off the live set, its id to the dead ones. */
static void
item_leave(struct tw_model *m, struct item *it)
{
	uint32_t idx = (uint32_t)(it - m->items);
	uint32_t last = m->live[--m->live_n];

	m->live[it->live_pos] = last;
	m->items[last].live_pos = it->live_pos;
	it->live_pos = NONE;
	m->slot_item[(uint32_t)it->id] = NONE;
	m->dead[m->dead_pos] = it->id;
	m->dead_pos = (m->dead_pos + 1) % DEAD_IDS;
	if (m->dead_n < DEAD_IDS)
		m->dead_n++;
	it->next_free = m->free_head;
	m->free_head = idx;
}

/* The live item whose id this is, or NULL. */
static struct item *
item_of_id(struct tw_model *m, twheel_id_t id)
{
	uint32_t slot = (uint32_t)id;
	struct item *it;

	if (slot >= m->cfg.capacity || m->slot_item[slot] == NONE)
		return NULL;
	it = &m->items[m->slot_item[slot]];
	return it->id == id ? it : NULL;
}

int
tw_model_schedule(struct tw_model *m, uint64_t deadline)
{
	struct item *it;
	twheel_id_t id;
	uint32_t idx, slot;

	m->steps++;
	m->tally.schedules++;
	if (m->free_head == NONE) {
		struct item scratch = { .deadline = deadline };

		m->tally.enospc++;
		rte_errno = 0;
		id = twheel_schedule(m->w, deadline, &scratch);
		if (id != TWHEEL_ID_INVALID || rte_errno != ENOSPC)
			return fail(m, "schedule at capacity %u: id %#" PRIx64
				    " rte_errno %d, want 0 and ENOSPC",
				    m->cfg.capacity, id, rte_errno);
		return check_stats(m, "ENOSPC");
	}
	idx = m->free_head;
	it = &m->items[idx];
	it->deadline = deadline;
	id = twheel_schedule(m->w, deadline, it);
	if (id == TWHEEL_ID_INVALID)
		return fail(m, "schedule with %u of %u live: %s", m->live_n,
			    m->cfg.capacity, rte_strerror(rte_errno));
	slot = (uint32_t)id;
	if (slot >= m->cfg.capacity || ((id >> 32) & 1) == 0)
		return fail(m, "schedule returned a malformed id %#" PRIx64, id);
	if (id == m->slot_last_id[slot] ||
	    (uint32_t)(id >> 32) <= (uint32_t)(m->slot_last_id[slot] >> 32))
		return fail(m, "slot %u reused with id %#" PRIx64 " after %#" PRIx64
			    ": the generation did not move on", slot, id,
			    m->slot_last_id[slot]);
	if (m->slot_item[slot] != NONE)
		return fail(m, "slot %u handed out while live (id %#" PRIx64 ")",
			    slot, id);
	m->slot_last_id[slot] = id;
	m->slot_item[slot] = idx;
	m->free_head = it->next_free;
	it->id = id;
	it->live_pos = m->live_n;
	m->live[m->live_n++] = idx;
	m->scheduled++;
	return check_stats(m, "schedule");
}

int
tw_model_cancel(struct tw_model *m, uint64_t pick)
{
	struct item *it = live_pick(m, pick);
	int ret;

	m->steps++;
	if (it == NULL)
		return 0;
	m->tally.cancels++;
	ret = twheel_cancel(m->w, it->id);
	if (ret != 0)
		return fail(m, "cancel of live id %#" PRIx64 " returned %d",
			    it->id, ret);
	item_leave(m, it);
	m->cancelled++;
	return check_stats(m, "cancel");
}

int
tw_model_move(struct tw_model *m, uint64_t pick, uint64_t deadline)
{
	struct item *it = live_pick(m, pick);
	int ret;

	m->steps++;
	if (it == NULL)
		return 0;
	m->tally.moves++;
	/* a lazy user shortening a deadline stores it and moves the entry */
	it->deadline = deadline;
	ret = twheel_move(m->w, it->id, deadline);
	if (ret != 0)
		return fail(m, "move of live id %#" PRIx64 " returned %d",
			    it->id, ret);
	return check_stats(m, "move");
}

int
tw_model_refresh(struct tw_model *m, uint64_t pick, uint64_t extend)
{
	struct item *it = live_pick(m, pick);

	m->steps++;
	if (it == NULL || !m->cfg.lazy)
		return 0;
	m->tally.refreshes++;
	/* lazy deadlines may only grow without a move */
	it->deadline = (it->deadline > UINT64_MAX - extend) ?
		UINT64_MAX : it->deadline + extend;
	return 0;
}

/* cancel and move of an id that must not name a live entry */
static int
expect_inert(struct tw_model *m, twheel_id_t id, uint64_t deadline,
	     const char *what)
{
	struct twheel_stats before, after;
	int rc, rm;

	twheel_stats_get(m->w, &before);
	rc = twheel_cancel(m->w, id);
	rm = twheel_move(m->w, id, deadline);
	twheel_stats_get(m->w, &after);
	if (rc != -ENOENT || rm != -ENOENT)
		return fail(m, "%s id %#" PRIx64 ": cancel %d, move %d, want -ENOENT",
			    what, id, rc, rm);
	if (memcmp(&before, &after, sizeof(before)) != 0)
		return fail(m, "%s id %#" PRIx64 " changed the statistics", what, id);
	return 0;
}

int
tw_model_stale(struct tw_model *m, uint64_t pick, uint64_t deadline)
{
	twheel_id_t id;

	m->steps++;
	if (m->dead_n == 0)
		return 0;
	m->tally.stale++;
	id = m->dead[pick % m->dead_n];
	return expect_inert(m, id, deadline, "stale");
}

int
tw_model_forged(struct tw_model *m, uint64_t raw, unsigned int kind)
{
	struct item *it = live_pick(m, raw >> 7);
	twheel_id_t id;

	m->steps++;
	m->tally.forged++;
	switch (kind % 5) {
	case 0:
		id = raw;
		break;
	case 1:         /* a live entry's slot, a later generation */
		id = it != NULL ? it->id + (UINT64_C(2) << 32) : raw;
		break;
	case 2:         /* a live entry's slot, an even (free) generation */
		id = it != NULL ? it->id ^ (UINT64_C(1) << 32) : raw;
		break;
	case 3:         /* an index beyond capacity */
		id = (raw & 0xffffffff00000000ULL) | (UINT64_C(1) << 32) |
			(m->cfg.capacity + (uint32_t)(raw % 1000));
		break;
	default:
		id = TWHEEL_ID_INVALID;
		break;
	}
	if (item_of_id(m, id) != NULL)    /* forged a live id after all */
		return 0;
	return expect_inert(m, id, raw, "forged");
}

static int
check_lateness(struct tw_model *m, uint64_t now)
{
	uint64_t limit = limit_of(m, now);
	uint32_t i;

	if (limit <= m->lateness_from)
		return 0;
	m->tally.lateness_checks++;
	for (i = 0; i < m->live_n; i++) {
		const struct item *it = &m->items[m->live[i]];

		if (tick_of(m, it->deadline) < limit)
			return fail(m, "late: id %#" PRIx64 " deadline %" PRIu64
				    " (tick %" PRIu64 ") still live after a full sweep"
				    " at now %" PRIu64 " (tick %" PRIu64 ")", it->id,
				    it->deadline, tick_of(m, it->deadline), now,
				    tick_of(m, now));
	}
	return 0;
}

int
tw_model_sweep(struct tw_model *m, uint64_t now, unsigned int budget)
{
	struct twheel_fired *out = m->out;
	struct twheel_stats before, after;
	uint64_t revisits, work;
	unsigned int n, i;

	m->steps++;
	budget = RTE_MIN(budget, m->max_budget);
	m->tally.sweeps++;
	if (m->swept && now < m->max_now) {
		/* entries re-filed now may wait until time is back past max_now */
		if (limit_of(m, m->max_now) > m->lateness_from)
			m->lateness_from = limit_of(m, m->max_now);
	}
	twheel_stats_get(m->w, &before);
	n = twheel_sweep(m->w, now, budget, out);
	twheel_stats_get(m->w, &after);
	if (!m->swept || now > m->max_now)
		m->max_now = now;
	m->swept = true;

	if (n > budget)
		return fail(m, "sweep returned %u records for budget %u", n, budget);
	for (i = 0; i < n; i++) {
		struct item *it = out[i].payload;
		uint32_t idx = (uint32_t)(it - m->items);

		if (it < m->items || idx >= m->cfg.capacity)
			return fail(m, "record %u: payload %p is not an item", i,
				    out[i].payload);
		if (out[i].reason != TWHEEL_DUE)
			return fail(m, "record %u: reason %d from a local sweep", i,
				    out[i].reason);
		if (it->live_pos == NONE)
			return fail(m, "record %u: id %#" PRIx64 " is not live "
				    "(fired twice, or after a cancel)", i, out[i].id);
		if (out[i].id != it->id)
			return fail(m, "record %u: id %#" PRIx64 ", item has %#" PRIx64,
				    i, out[i].id, it->id);
		if (out[i].deadline != it->deadline)
			return fail(m, "record %u: deadline %" PRIu64 ", payload says %"
				    PRIu64, i, out[i].deadline, it->deadline);
		if (it->deadline > now)
			return fail(m, "early: id %#" PRIx64 " deadline %" PRIu64
				    " fired at now %" PRIu64, it->id, it->deadline, now);
		item_leave(m, it);
		m->due++;
	}
	m->tally.due += n;
	revisits = after.revisits - before.revisits;
	m->tally.revisits += revisits;
	work = n + revisits;
	if (work > budget)
		return fail(m, "budget overrun: %u records + %" PRIu64
			    " revisits for budget %u", n, revisits, budget);
	if (after.sweeps != before.sweeps + 1)
		return fail(m, "sweeps counter moved by %" PRIu64,
			    after.sweeps - before.sweeps);
	if (check_stats(m, "sweep") != 0)
		return -1;
	if (work < budget) {
		/* the sweep finished: nothing left that was due */
		if (after.budget_exhausted != before.budget_exhausted)
			return fail(m, "budget_exhausted counted with %" PRIu64
				    " of %u budget used", work, budget);
		if (now == UINT64_MAX && m->live_n != 0 &&
		    m->lateness_from < limit_of(m, now))
			return fail(m, "%u entries live after a full sweep at "
				    "UINT64_MAX", m->live_n);
		return check_lateness(m, now);
	}
	return 0;
}

int
tw_model_drain(struct tw_model *m, unsigned int budget)
{
	struct twheel_fired *out = m->out;
	unsigned int n, i;

	m->steps++;
	budget = RTE_MIN(budget, m->max_budget);
	n = twheel_drain(m->w, budget, out);
	if (n > budget)
		return fail(m, "drain returned %u records for budget %u", n, budget);
	for (i = 0; i < n; i++) {
		struct item *it = out[i].payload;
		uint32_t idx = (uint32_t)(it - m->items);

		if (it < m->items || idx >= m->cfg.capacity ||
		    it->live_pos == NONE || out[i].id != it->id)
			return fail(m, "drain record %u: id %#" PRIx64
				    " is not a live item", i, out[i].id);
		if (out[i].reason != TWHEEL_CANCELLED ||
		    out[i].deadline != it->deadline)
			return fail(m, "drain record %u: reason %d deadline %" PRIu64
				    ", want CANCELLED and %" PRIu64, i,
				    out[i].reason, out[i].deadline, it->deadline);
		item_leave(m, it);
		m->cancelled++;
	}
	m->tally.drained += n;
	if (n < budget && m->live_n != 0)
		return fail(m, "drain returned %u < budget %u with %u live", n,
			    budget, m->live_n);
	return check_stats(m, "drain");
}

int
tw_model_finish(struct tw_model *m)
{
	while (m->live_n != 0)
		if (tw_model_drain(m, 64) != 0)
			return -1;
	if (tw_model_drain(m, 64) != 0)
		return -1;
	if (m->scheduled != m->cancelled + m->due)
		return fail(m, "scheduled %" PRIu64 " != cancelled %" PRIu64
			    " + due %" PRIu64, m->scheduled, m->cancelled, m->due);
	return check_stats(m, "finish");
}

uint64_t
tw_model_now(const struct tw_model *m)
{
	return m->max_now;
}

uint32_t
tw_model_live(const struct tw_model *m)
{
	return m->live_n;
}

uint64_t
tw_model_steps(const struct tw_model *m)
{
	return m->steps;
}

uint64_t
tw_model_rotation(const struct tw_model *m)
{
	return m->cfg.tick_cycles * m->cfg.slots;
}

uint64_t
tw_model_tick_cycles(const struct tw_model *m)
{
	return m->cfg.tick_cycles;
}

const char *
tw_model_error(const struct tw_model *m)
{
	return m->err;
}

void
tw_model_tally_get(const struct tw_model *m, struct tw_model_tally *t)
{
	*t = m->tally;
}

void
tw_model_note_time(struct tw_model *m, bool backwards, bool jump)
{
	m->tally.backwards += backwards;
	m->tally.jumps += jump;
}
