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
 *
 * There are capacity + channels * ring_size + 1 items: at most capacity
 * live in the wheel, at most ring_size in flight in each remote channel's
 * schedule messages, and one for a remote schedule that is refused. The
 * model's own queues mirror the channels (a lane per EAL lcore, the shared
 * ring last), and its own cursor the channel where the wheel's next apply
 * starts; adopt_fn only logs (payload, id) pairs, which the model matches
 * against the messages it applies after the sweep.
 *
 * Producers. A remote call is made in this thread under the producer's
 * lcore id (producer_enter()), so the wheel files it as it would that
 * producer's call, by rte_lcore_id(). The map of lanes is worked out here
 * from the EAL, not read from the wheel: a wheel that routes a call to
 * another channel than its rule says, or drains them in another order,
 * shows in the -ENOBUFS answers and in the order of records and adoptions.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include <twheel.h>

#include "twheel_model.h"

#define NONE UINT32_MAX
#define DEAD_IDS 512
/* at most this many messages of one channel per visit, as the wheel takes */
#define MODEL_MSG_BURST 32

struct item {
	uint64_t deadline;     /* what deadline_fn reports (or as last set) */
	twheel_id_t id;
	uint32_t live_pos;     /* index in live[], NONE when not live */
	uint32_t next_free;
	bool in_flight;        /* in a remote schedule message */
};

/* A message in the model's copy of a remote channel. */
struct msg {
	bool cancel;
	twheel_id_t id;        /* cancel */
	uint64_t deadline;     /* schedule */
	uint32_t item;         /* schedule: the in-flight item */
	bool foreign;          /* cancel: an id of the peer wheel */
};

/* A remote channel as the model expects it: a FIFO of ring_size messages. */
struct chan {
	struct msg *q;
	uint32_t head, len;
};

/* Who sends a remote call, and on which channel the wheel must file it. */
struct producer {
	unsigned int lcore;    /* the lcore id it calls with, or LCORE_ID_ANY */
	unsigned int chan;     /* its lane's index, or nb_lanes: the ring */
	char name[48];
};

struct adoption {
	void *payload;
	twheel_id_t id;
};

struct tw_model {
	struct twheel *w;
	struct tw_model *peer;         /* another wheel, for foreign ids */
	struct tw_model_cfg cfg;
	struct item *items;            /* nb_items of them */
	uint32_t nb_items;             /* capacity + nb_chan * ring_size + 1 */
	uint32_t *live;                /* live item indices */
	uint32_t live_n;
	uint32_t free_head;
	twheel_id_t *slot_last_id;     /* last id seen per slab index */
	uint32_t *slot_item;           /* live item in each slab index, or NONE */
	struct twheel_fired *out;      /* room for max_budget records */
	uint32_t max_budget;
	twheel_id_t dead[DEAD_IDS];    /* recently dead ids */
	uint32_t dead_n, dead_pos;

	/* the remote channels, as the model expects them */
	struct producer *prod;         /* nb_prod of them, the lanes' first */
	unsigned int nb_prod;
	unsigned int nb_lanes;         /* EAL lcores of role RTE or SERVICE */
	unsigned int nb_chan;          /* nb_lanes + 1; 0 without remote calls */
	unsigned int chan_next;        /* where the next apply starts */
	struct chan *chan;             /* nb_chan of them */
	struct msg *msgs;              /* their queues, ring_size each */
	uint32_t q_len;                /* messages in all of them */
	struct adoption *adopt_log;    /* adopt_fn calls of the current step */
	uint32_t adopt_n, adopt_room;
	bool adopt_overflow;

	/* expected statistics */
	uint64_t scheduled, cancelled, due;
	uint64_t remote_cancels, remote_schedules, remote_stale, remote_full;
	uint64_t rejected;

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

static void
model_adopt(void *payload, twheel_id_t id, void *arg)
{
	struct tw_model *m = arg;

	if (m->adopt_n == m->adopt_room) {
		m->adopt_overflow = true;
		return;
	}
	m->adopt_log[m->adopt_n++] = (struct adoption){ payload, id };
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

/*
 * The producers and the channels, by the library's rule read from the EAL
 * here: a lane per lcore of role RTE or SERVICE, in lcore order, then the
 * shared ring for LCORE_ID_ANY and for an lcore id without a lane (the
 * highest, if the EAL leaves one). Channels only with remote calls.
 */
static int
remote_init(struct tw_model *m)
{
	unsigned int i, n = 0, laneless = LCORE_ID_ANY;
	uint32_t size = m->cfg.ring_size;

	m->prod = calloc(RTE_MAX_LCORE + 2, sizeof(*m->prod));
	if (m->prod == NULL)
		return -1;
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		enum rte_lcore_role_t role = rte_eal_lcore_role(i);

		if (role != ROLE_RTE && role != ROLE_SERVICE) {
			laneless = i;
			continue;
		}
		m->prod[n].lcore = i;
		m->prod[n].chan = n;
		snprintf(m->prod[n].name, sizeof(m->prod[n].name),
			 "%slcore %u (lane %u)",
			 role == ROLE_SERVICE ? "service " : "", i, n);
		n++;
	}
	m->nb_lanes = n;
	m->prod[n].lcore = LCORE_ID_ANY;
	m->prod[n].chan = m->nb_lanes;
	snprintf(m->prod[n].name, sizeof(m->prod[n].name),
		 "a non-EAL thread (ring)");
	n++;
	if (laneless != LCORE_ID_ANY) {
		m->prod[n].lcore = laneless;
		m->prod[n].chan = m->nb_lanes;
		snprintf(m->prod[n].name, sizeof(m->prod[n].name),
			 "lcore %u, no lane (ring)", laneless);
		n++;
	}
	m->nb_prod = n;
	m->nb_chan = size != 0 ? m->nb_lanes + 1 : 0;
	m->chan = calloc(m->nb_chan + 1, sizeof(*m->chan));
	m->msgs = calloc((size_t)m->nb_chan * size + 1, sizeof(*m->msgs));
	if (m->chan == NULL || m->msgs == NULL)
		return -1;
	for (i = 0; i < m->nb_chan; i++)
		m->chan[i].q = &m->msgs[(size_t)i * size];
	return 0;
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
		.remote_ring_size = cfg->ring_size,
		.deadline_fn = cfg->lazy ? model_deadline : NULL,
		.adopt_fn = model_adopt,
	};
	struct tw_model *m = calloc(1, sizeof(*m));
	uint32_t i;

	if (m == NULL)
		return NULL;
	m->cfg = *cfg;
	if (remote_init(m) != 0) {
		tw_model_free(m);
		return NULL;
	}
	/* live <= capacity, in flight <= what the channels hold, one refused */
	m->nb_items = cfg->capacity + tw_model_remote_room(m) + 1;
	m->items = calloc(m->nb_items, sizeof(*m->items));
	m->live = calloc(cfg->capacity, sizeof(*m->live));
	m->slot_last_id = calloc(cfg->capacity, sizeof(*m->slot_last_id));
	m->slot_item = malloc(cfg->capacity * sizeof(*m->slot_item));
	/* one sweep applies what the channels hold at most; room for one more */
	m->adopt_room = tw_model_remote_room(m) + 1;
	m->adopt_log = calloc(m->adopt_room, sizeof(*m->adopt_log));
	m->max_budget = 4 * cfg->capacity + tw_model_remote_room(m) + 256;
	/* slack past the largest budget, so an overrun is seen, not a crash */
	m->out = malloc((m->max_budget + 64) * sizeof(*m->out));
	if (m->items == NULL || m->live == NULL || m->slot_last_id == NULL ||
	    m->slot_item == NULL || m->adopt_log == NULL || m->out == NULL) {
		tw_model_free(m);
		return NULL;
	}
	for (i = 0; i < cfg->capacity; i++)
		m->slot_item[i] = NONE;
	for (i = 0; i < m->nb_items; i++) {
		m->items[i].live_pos = NONE;
		m->items[i].next_free = (i + 1 < m->nb_items) ? i + 1 : NONE;
	}
	m->free_head = 0;
	wc.adopt_arg = m;
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
	free(m->prod);
	free(m->chan);
	free(m->msgs);
	free(m->adopt_log);
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
	if (st.remote_cancels != m->remote_cancels ||
	    st.remote_schedules != m->remote_schedules ||
	    st.remote_stale != m->remote_stale ||
	    st.remote_full != m->remote_full || st.rejected != m->rejected)
		return fail(m, "after %s: stats remote_cancels %" PRIu64
			    " remote_schedules %" PRIu64 " remote_stale %" PRIu64
			    " remote_full %" PRIu64 " rejected %" PRIu64
			    ", model %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			    " %" PRIu64, after, st.remote_cancels,
			    st.remote_schedules, st.remote_stale, st.remote_full,
			    st.rejected, m->remote_cancels, m->remote_schedules,
			    m->remote_stale, m->remote_full, m->rejected);
	return 0;
}

static struct item *
live_pick(struct tw_model *m, uint64_t pick)
{
	if (m->live_n == 0)
		return NULL;
	return &m->items[m->live[pick % m->live_n]];
}

static uint32_t
item_alloc(struct tw_model *m)
{
	uint32_t idx = m->free_head;

	if (idx != NONE)
		m->free_head = m->items[idx].next_free;
	return idx;
}

static void
item_release(struct tw_model *m, uint32_t idx)
{
	m->items[idx].next_free = m->free_head;
	m->free_head = idx;
}

/* The item a record's payload points to, or NULL if it is none of ours. */
static struct item *
item_of_payload(struct tw_model *m, void *payload)
{
	uintptr_t p = (uintptr_t)payload, base = (uintptr_t)m->items;

	if (p < base || (p - base) % sizeof(struct item) != 0 ||
	    (p - base) / sizeof(struct item) >= m->nb_items)
		return NULL;
	return payload;
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
	item_release(m, idx);
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

/* Item idx entered the wheel with this id (schedule or adoption). */
static int
item_enter(struct tw_model *m, uint32_t idx, twheel_id_t id)
{
	struct item *it = &m->items[idx];
	uint32_t slot = (uint32_t)id;

	if (slot >= m->cfg.capacity || ((id >> 32) & 1) == 0)
		return fail(m, "schedule returned a malformed id %#" PRIx64, id);
	/*
	 * The high half is the generation plus a salt the model does not
	 * know: from one use of a slot to the next it moves on by an even,
	 * non-zero step.
	 */
	if (m->slot_last_id[slot] != 0 &&
	    ((uint32_t)((id >> 32) - (m->slot_last_id[slot] >> 32)) == 0 ||
	     ((id >> 32) - (m->slot_last_id[slot] >> 32)) % 2 != 0))
		return fail(m, "slot %u reused with id %#" PRIx64 " after %#" PRIx64
			    ": the generation did not move on", slot, id,
			    m->slot_last_id[slot]);
	if (m->slot_item[slot] != NONE)
		return fail(m, "slot %u handed out while live (id %#" PRIx64 ")",
			    slot, id);
	m->slot_last_id[slot] = id;
	m->slot_item[slot] = idx;
	it->id = id;
	it->live_pos = m->live_n;
	m->live[m->live_n++] = idx;
	m->scheduled++;
	return 0;
}

int
tw_model_schedule(struct tw_model *m, uint64_t deadline)
{
	twheel_id_t id;
	uint32_t idx;

	m->steps++;
	m->tally.schedules++;
	if (m->live_n == m->cfg.capacity) {
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
	idx = item_alloc(m);
	m->items[idx].deadline = deadline;
	id = twheel_schedule(m->w, deadline, &m->items[idx]);
	if (id == TWHEEL_ID_INVALID) {
		item_release(m, idx);
		return fail(m, "schedule with %u of %u live: %s", m->live_n,
			    m->cfg.capacity, rte_strerror(rte_errno));
	}
	if (item_enter(m, idx, id) != 0)
		return -1;
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

/*
 * twheel_cancel_bulk()/twheel_move_bulk() over n ids chosen by picks[]:
 * mostly live ids (duplicates happen), some stale, some forged. The model
 * applies the same calls one by one and expects each result.
 */
int
tw_model_bulk(struct tw_model *m, const uint64_t *picks,
	      const uint64_t *deadlines, unsigned int n)
{
	twheel_id_t ids[TW_MODEL_BULK_MAX];
	int rc[TW_MODEL_BULK_MAX];
	unsigned int i, done, want = 0;

	m->steps++;
	if (n > TW_MODEL_BULK_MAX)
		n = TW_MODEL_BULK_MAX;
	for (i = 0; i < n; i++) {
		struct item *it = live_pick(m, picks[i] >> 4);
		uint32_t k = picks[i] % 10;

		if (k < 7 && it != NULL)
			ids[i] = it->id;
		else if (k < 9 && m->dead_n != 0)
			ids[i] = m->dead[(picks[i] >> 4) % m->dead_n];
		else
			ids[i] = (picks[i] >> 4) | (UINT64_C(1) << 32);
	}
	if (deadlines != NULL) {
		m->tally.moves += n;
		done = twheel_move_bulk(m->w, ids, deadlines, n, rc);
	} else {
		m->tally.cancels += n;
		done = twheel_cancel_bulk(m->w, ids, n, rc);
	}
	for (i = 0; i < n; i++) {
		struct item *it = item_of_id(m, ids[i]);
		int expect = it != NULL ? 0 : -ENOENT;

		if (rc[i] != expect)
			return fail(m, "%s_bulk id %u of %u (%#" PRIx64 "): %d, one by one %d",
				    deadlines != NULL ? "move" : "cancel", i, n,
				    ids[i], rc[i], expect);
		if (it == NULL)
			continue;
		want++;
		if (deadlines != NULL) {
			it->deadline = deadlines[i];
		} else {
			item_leave(m, it);
			m->cancelled++;
		}
	}
	if (done != want)
		return fail(m, "bulk returned %u, %u calls succeeded", done, want);
	return check_stats(m, "bulk");
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

void
tw_model_pair(struct tw_model *a, struct tw_model *b)
{
	a->peer = b;
	b->peer = a;
}

/* An id of the peer wheel: a live one or a dead one; raw when none. */
static twheel_id_t
peer_id(struct tw_model *m, uint64_t raw, bool live)
{
	const struct tw_model *p = m->peer;

	if (p == NULL)
		return raw;
	if (live && p->live_n != 0)
		return p->items[p->live[raw % p->live_n]].id;
	if (!live && p->dead_n != 0)
		return p->dead[raw % p->dead_n];
	return raw;
}

static bool
forge_is_foreign(struct tw_model *m, unsigned int kind)
{
	return m->peer != NULL && kind % TW_MODEL_FORGE_KINDS >= 6;
}

/* A made-up id; kind selects how (see tw_model_forged()). */
static twheel_id_t
forge_id(struct tw_model *m, uint64_t raw, unsigned int kind)
{
	struct item *it = live_pick(m, raw >> 7);
	twheel_id_t id;

	switch (kind % TW_MODEL_FORGE_KINDS) {
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
	case 4:         /* a dead id's next generation: the even, free one */
		id = m->dead_n != 0 ?
			m->dead[raw % m->dead_n] + (UINT64_C(1) << 32) : raw;
		break;
	case 5:
		id = TWHEEL_ID_INVALID;
		break;
	case 6:         /* a live entry's id, of the other wheel */
		id = peer_id(m, raw, true);
		break;
	default:        /* a dead id of the other wheel */
		id = peer_id(m, raw, false);
		break;
	}
	return id;
}

int
tw_model_forged(struct tw_model *m, uint64_t raw, unsigned int kind)
{
	twheel_id_t id = forge_id(m, raw, kind);
	bool foreign = forge_is_foreign(m, kind);

	m->steps++;
	m->tally.forged++;
	m->tally.foreign += foreign;
	/*
	 * Another wheel's id never names an entry here: both wheels start
	 * with the same generations and indices, but ids are wheel-specific
	 * (they meet only when one slot's generations differ by the salts'
	 * difference: some 2^29 reuses for the pair of wheels the driver
	 * creates one after the other, far beyond any run).
	 */
	if (item_of_id(m, id) != NULL) {
		if (foreign)
			return fail(m, "id %#" PRIx64 " of the other wheel names a"
				    " live entry of this one", id);
		return 0;         /* forged a live id after all */
	}
	return expect_inert(m, id, raw, foreign ? "foreign" : "forged");
}

/* Remote calls ---------------------------------------------------------- */

/*
 * Make the next remote call as producer p: this thread takes p's lcore id
 * (LCORE_ID_ANY for a non-EAL thread) until producer_leave() puts its own
 * back. rte_lcore_id() reads that thread-local variable, and it is all the
 * wheel asks of a producer to choose its channel: the choice is what is
 * under test. It is sound because no other thread calls into the wheel
 * while the model runs: the EAL's worker and service lcores are parked in
 * its wait loop (nothing is launched on them), so each lane still has one
 * producer at a time, this thread, and the owner is this thread too,
 * between the calls. A lane's producer side is plain code on its own
 * counters; which thread runs it does not matter, only that one thread
 * does at a time. Nothing on the remote path uses the lcore id otherwise
 * (no mempool cache, no log), so an id the EAL gave no thread is harmless.
 */
static unsigned int
producer_enter(const struct tw_model *m, unsigned int p)
{
	unsigned int own = rte_lcore_id();

	RTE_PER_LCORE(_lcore_id) = m->prod[p].lcore;
	return own;
}

static void
producer_leave(unsigned int own)
{
	RTE_PER_LCORE(_lcore_id) = own;
}

/* The model's answer to producer p's call: queue the message or refuse it. */
static int
remote_call(struct tw_model *m, unsigned int p, const struct msg *msg,
	    int ret, const char *what)
{
	const struct producer *pr = &m->prod[p];
	struct chan *ch = m->nb_chan != 0 ? &m->chan[pr->chan] : NULL;
	bool lane = pr->chan < m->nb_lanes;
	int want;

	if (ch == NULL)
		want = -ENOTSUP;
	else if (ch->len == m->cfg.ring_size)
		want = -ENOBUFS;
	else
		want = 0;
	if (ret != want)
		return fail(m, "%s from %s with %u of %u messages in its channel"
			    " (%u in all) returned %d, want %d", what, pr->name,
			    ch != NULL ? ch->len : 0, m->cfg.ring_size, m->q_len,
			    ret, want);
	m->tally.lane_calls += lane;
	m->tally.ring_calls += !lane;
	if (want == -ENOBUFS) {
		m->remote_full++;
		m->tally.remote_full++;
		m->tally.lane_full += lane;
		m->tally.ring_full += !lane;
	}
	if (want == 0) {
		ch->q[(ch->head + ch->len) % m->cfg.ring_size] = *msg;
		ch->len++;
		m->q_len++;
	}
	/* a refused message changes nothing but remote_full */
	return check_stats(m, what);
}

int
tw_model_remote_schedule(struct tw_model *m, unsigned int producer,
			 uint64_t deadline)
{
	struct msg msg = { .cancel = false, .deadline = deadline };
	unsigned int p = producer % m->nb_prod, own;
	struct item *it;
	uint32_t idx;
	int ret;

	m->steps++;
	m->tally.remote_schedules++;
	idx = item_alloc(m);
	if (idx == NONE)
		return fail(m, "model out of items");
	it = &m->items[idx];
	it->deadline = deadline;
	it->in_flight = true;
	msg.item = idx;
	own = producer_enter(m, p);
	ret = twheel_remote_schedule(m->w, deadline, it);
	producer_leave(own);
	if (remote_call(m, p, &msg, ret, "remote schedule") != 0)
		return -1;
	if (ret != 0) {
		it->in_flight = false;
		item_release(m, idx);
	}
	return 0;
}

int
tw_model_remote_cancel(struct tw_model *m, unsigned int producer,
		       uint64_t raw, unsigned int kind)
{
	struct msg msg = { .cancel = true };
	unsigned int p = producer % m->nb_prod, own;
	struct item *it;
	int ret;

	m->steps++;
	m->tally.remote_cancels++;
	if (kind == 0 && (it = live_pick(m, raw)) != NULL) {
		msg.id = it->id;
	} else if (kind == 1 && m->dead_n != 0) {
		msg.id = m->dead[raw % m->dead_n];
	} else {
		msg.id = forge_id(m, raw, kind >= 2 ? kind - 2 : 0);
		msg.foreign = kind >= 2 && forge_is_foreign(m, kind - 2);
		m->tally.foreign += msg.foreign;
	}
	own = producer_enter(m, p);
	ret = twheel_remote_cancel(m->w, msg.id);
	producer_leave(own);
	return remote_call(m, p, &msg, ret, "remote cancel");
}

/* The record a message should have produced, compared with the wheel's. */
static int
check_record(struct tw_model *m, const struct twheel_fired *rec, unsigned int i,
	     twheel_id_t id, const struct item *it, uint64_t deadline,
	     enum twheel_reason reason)
{
	if (rec->id != id || rec->payload != it || rec->deadline != deadline ||
	    rec->reason != reason)
		return fail(m, "record %u: id %#" PRIx64 " payload %p deadline %"
			    PRIu64 " reason %d; want %#" PRIx64 " %p %" PRIu64
			    " %d", i, rec->id, rec->payload, rec->deadline,
			    rec->reason, id, (const void *)it, deadline, reason);
	return 0;
}

/*
 * Apply one message as the wheel should have. Checks its record, from
 * out[*pos] on (n records in all), and its adoption, the next of those
 * adopt_fn logged (*adopted of them matched so far). 0, or -1.
 */
static int
apply_one(struct tw_model *m, const struct msg *msg, unsigned int n,
	  unsigned int *pos, unsigned int *adopted)
{
	const struct twheel_fired *out = m->out;
	struct item *it;

	if (msg->cancel) {
		it = item_of_id(m, msg->id);
		m->remote_cancels++;
		if (it != NULL && msg->foreign)
			return fail(m, "remote cancel with id %#" PRIx64
				    " of the other wheel names a live entry of"
				    " this one", msg->id);
		if (it == NULL) {
			m->remote_stale++;
			m->tally.remote_stale++;
			return 0;
		}
		if (*pos >= n)
			return fail(m, "remote cancel of live id %#" PRIx64
				    " handed nothing back", msg->id);
		if (check_record(m, &out[*pos], *pos, it->id, it, it->deadline,
				 TWHEEL_CANCELLED) != 0)
			return -1;
		(*pos)++;
		item_leave(m, it);
		m->cancelled++;
		m->tally.remote_cancelled++;
		return 0;
	}
	it = &m->items[msg->item];
	m->remote_schedules++;
	it->in_flight = false;
	if (m->live_n == m->cfg.capacity) {
		if (*pos >= n)
			return fail(m, "remote schedule into a full wheel handed"
				    " nothing back");
		if (check_record(m, &out[*pos], *pos, TWHEEL_ID_INVALID, it,
				 msg->deadline, TWHEEL_REJECTED) != 0)
			return -1;
		(*pos)++;
		item_release(m, msg->item);
		m->rejected++;
		m->tally.rejected++;
		return 0;
	}
	if (*adopted >= m->adopt_n || m->adopt_log[*adopted].payload != it)
		return fail(m, "remote schedule of item %u: adoption %u of %u is"
			    " %p, want %p", msg->item, *adopted, m->adopt_n,
			    *adopted < m->adopt_n ?
			    m->adopt_log[*adopted].payload : NULL, (void *)it);
	if (item_enter(m, msg->item, m->adopt_log[*adopted].id) != 0)
		return -1;
	(*adopted)++;
	m->tally.adopted++;
	return 0;
}

/* After a mismatch in channel c: which message it was, from where. */
static int
apply_failed(struct tw_model *m, unsigned int c, unsigned int i,
	     unsigned int start)
{
	size_t len = strlen(m->err);

	snprintf(m->err + len, sizeof(m->err) - len,
		 " [message %u of this visit to %s%s, the call's visits from"
		 " channel %u; out of order?]", i,
		 c < m->nb_lanes ? "the lane of " : "the shared ring",
		 c < m->nb_lanes ? m->prod[c].name : "", start);
	return -1;
}

/*
 * Apply queued messages as the wheel should have, at most max_msgs: the
 * channels round-robin from chan_next, up to MODEL_MSG_BURST of one per
 * visit (what the budget leaves of that), until max_msgs are applied or
 * every channel in a row gave nothing; chan_next becomes the channel after
 * the last one visited, for the next sweep or drain. Checks the records
 * from out[*pos] on (n in all) and the adoptions adopt_fn logged; returns
 * messages applied, or -1.
 */
static int
apply_messages(struct tw_model *m, unsigned int max_msgs, unsigned int n,
	       unsigned int *pos)
{
	unsigned int applied = 0, empty = 0, adopted = 0, visited = 0;
	unsigned int c = m->chan_next, start = c, want, take, i;

	while (applied < max_msgs && empty < m->nb_chan) {
		struct chan *ch = &m->chan[c];

		want = RTE_MIN(max_msgs - applied, (unsigned int)MODEL_MSG_BURST);
		take = RTE_MIN(want, ch->len);
		if (take < ch->len) {
			m->tally.visits_cut += want < MODEL_MSG_BURST;
			m->tally.visits_burst += want == MODEL_MSG_BURST;
		}
		for (i = 0; i < take; i++) {
			struct msg msg = ch->q[ch->head];

			ch->head = (ch->head + 1) % m->cfg.ring_size;
			ch->len--;
			m->q_len--;
			if (apply_one(m, &msg, n, pos, &adopted) != 0)
				return apply_failed(m, c, i, start);
		}
		applied += take;
		visited += take != 0;
		empty = take == 0 ? empty + 1 : 0;
		c = c + 1 == m->nb_chan ? 0 : c + 1;
	}
	m->chan_next = c;
	m->tally.mixed += visited > 1;
	if (m->adopt_overflow || adopted != m->adopt_n)
		return fail(m, "adopt_fn called %u times%s, %u adoptions expected"
			    " (%u messages applied, the call's visits from channel"
			    " %u to %u)", m->adopt_n,
			    m->adopt_overflow ? " (and more)" : "", adopted,
			    applied, start, c);
	return (int)applied;
}

/* Sweep and drain ------------------------------------------------------- */

/*
 * The three ways to call a sweep or a drain, taken in turn: the plain
 * call, the _more variant with an answer (checked against budget_exhausted)
 * and the _more variant with more == NULL.
 */
enum { MODEL_CALL_PLAIN, MODEL_CALL_MORE, MODEL_CALL_MORE_NULL };

static unsigned int
call_sweep(struct twheel *w, uint64_t now, unsigned int budget,
	   struct twheel_fired *out, unsigned int how, bool *more)
{
	if (how == MODEL_CALL_PLAIN)
		return twheel_sweep(w, now, budget, out);
	return twheel_sweep_more(w, now, budget, out,
				 how == MODEL_CALL_MORE ? more : NULL);
}

static unsigned int
call_drain(struct twheel *w, unsigned int budget, struct twheel_fired *out,
	   unsigned int how, bool *more)
{
	if (how == MODEL_CALL_PLAIN)
		return twheel_drain(w, budget, out);
	return twheel_drain_more(w, budget, out,
				 how == MODEL_CALL_MORE ? more : NULL);
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

/* Records pos .. n - 1 of a sweep, after the messages': Due, in time. */
static int
check_due(struct tw_model *m, uint64_t now, unsigned int pos, unsigned int n)
{
	const struct twheel_fired *out = m->out;
	unsigned int i;

	for (i = pos; i < n; i++) {
		struct item *it = item_of_payload(m, out[i].payload);

		if (it == NULL)
			return fail(m, "record %u: payload %p is not an item", i,
				    out[i].payload);
		if (out[i].reason != TWHEEL_DUE)
			return fail(m, "record %u: reason %d after the messages' %u"
				    " records", i, out[i].reason, pos);
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
	return 0;
}

int
tw_model_sweep(struct tw_model *m, uint64_t now, unsigned int budget)
{
	struct twheel_fired *out = m->out;
	struct twheel_stats before, after;
	uint64_t revisits, work, exhausted;
	unsigned int n, pos = 0, how;
	bool rebase, more;
	int msgs;

	m->steps++;
	budget = RTE_MIN(budget, m->max_budget);
	m->tally.sweeps++;
	/* a sweep with budget 0 does nothing, time included */
	rebase = budget != 0 && m->swept && now < m->max_now &&
		m->max_now - now > tw_model_rotation(m);
	if (rebase) {
		/*
		 * Back by more than a rotation: the wheel starts time again
		 * from now. What it filed before is found within a rotation.
		 */
		m->tally.rebases++;
		m->lateness_from = tw_sat_add(limit_of(m, now), m->cfg.slots);
	} else if (budget != 0 && m->swept && now < m->max_now) {
		/* entries re-filed now may wait until time is back past max_now */
		if (limit_of(m, m->max_now) > m->lateness_from)
			m->lateness_from = limit_of(m, m->max_now);
	}
	twheel_stats_get(m->w, &before);
	m->adopt_n = 0;
	m->adopt_overflow = false;
	how = (unsigned int)(m->steps % 3);
	more = budget == 0;             /* a value the call must overwrite */
	n = call_sweep(m->w, now, budget, out, how, &more);
	twheel_stats_get(m->w, &after);
	if (budget != 0 && (!m->swept || now > m->max_now || rebase))
		m->max_now = now;
	m->swept |= budget != 0;

	if (n > budget)
		return fail(m, "sweep returned %u records for budget %u", n, budget);
	/* first the channels: min(queued, budget) messages, round-robin */
	msgs = apply_messages(m, budget, n, &pos);
	if (msgs < 0)
		return -1;
	if (check_due(m, now, pos, n) != 0)
		return -1;
	m->tally.due += n - pos;
	revisits = after.revisits - before.revisits;
	m->tally.revisits += revisits;
	work = (uint64_t)msgs + (n - pos) + revisits;
	if (work > budget)
		return fail(m, "budget overrun: %d messages + %u due + %" PRIu64
			    " revisits for budget %u", msgs, n - pos, revisits,
			    budget);
	if (after.sweeps != before.sweeps + 1)
		return fail(m, "sweeps counter moved by %" PRIu64,
			    after.sweeps - before.sweeps);
	if (check_stats(m, "sweep") != 0)
		return -1;
	exhausted = after.budget_exhausted - before.budget_exhausted;
	if (exhausted > 1 || (exhausted == 1 && work < budget))
		return fail(m, "budget_exhausted moved by %" PRIu64 " with %"
			    PRIu64 " of %u budget used", exhausted, work, budget);
	if (how == MODEL_CALL_MORE && more != (exhausted == 1))
		return fail(m, "twheel_sweep_more: more %d, budget_exhausted moved"
			    " by %" PRIu64 " (%" PRIu64 " of %u budget used)", more,
			    exhausted, work, budget);
	if (exhausted == 1)
		m->tally.more++;
	else if (budget != 0 && work == budget)
		m->tally.exact++;
	if (budget != 0 && exhausted == 0) {
		/* the sweep finished, exactly at its budget or within it */
		if (m->q_len != 0)
			return fail(m, "%u messages left in the channels after a sweep"
				    " that finished", m->q_len);
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
	struct twheel_stats before, after;
	unsigned int n, i, pos = 0, how;
	uint64_t work;
	bool left, more;
	int msgs;

	m->steps++;
	budget = RTE_MIN(budget, m->max_budget);
	m->adopt_n = 0;
	m->adopt_overflow = false;
	twheel_stats_get(m->w, &before);
	how = (unsigned int)(m->steps % 3);
	more = budget == 0;
	n = call_drain(m->w, budget, out, how, &more);
	twheel_stats_get(m->w, &after);
	if (n > budget)
		return fail(m, "drain returned %u records for budget %u", n, budget);
	/* the channels first, one unit of the budget per message */
	msgs = apply_messages(m, budget, n, &pos);
	if (msgs < 0)
		return -1;
	for (i = pos; i < n; i++) {
		struct item *it = item_of_payload(m, out[i].payload);

		if (it == NULL || it->live_pos == NONE || out[i].id != it->id)
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
	m->tally.drained += n - pos;
	work = (uint64_t)msgs + (n - pos);
	left = m->live_n != 0 || m->q_len != 0;
	if (work > budget)
		return fail(m, "drain budget overrun: %d messages + %u entries for"
			    " budget %u", msgs, n - pos, budget);
	if (work < budget && left)
		return fail(m, "drain did %" PRIu64 " of %u units with %u live and"
			    " %u queued", work, budget, m->live_n, m->q_len);
	if (after.budget_exhausted - before.budget_exhausted !=
	    (uint64_t)(budget != 0 && work == budget && left))
		return fail(m, "drain of %" PRIu64 " units for budget %u, %s left:"
			    " budget_exhausted moved by %" PRIu64, work, budget,
			    left ? "something" : "nothing",
			    after.budget_exhausted - before.budget_exhausted);
	if (how == MODEL_CALL_MORE &&
	    more != (budget != 0 && work == budget && left))
		return fail(m, "twheel_drain_more: more %d after %" PRIu64
			    " units for budget %u, %s left", more, work, budget,
			    left ? "something" : "nothing");
	return check_stats(m, "drain");
}

int
tw_model_finish(struct tw_model *m)
{
	uint32_t i;

	while (m->live_n != 0 || m->q_len != 0)
		if (tw_model_drain(m, 64) != 0)
			return -1;
	if (tw_model_drain(m, 64) != 0)
		return -1;
	if (m->scheduled != m->cancelled + m->due)
		return fail(m, "scheduled %" PRIu64 " != cancelled %" PRIu64
			    " + due %" PRIu64, m->scheduled, m->cancelled, m->due);
	for (i = 0; i < m->nb_items; i++)
		if (m->items[i].in_flight || m->items[i].live_pos != NONE)
			return fail(m, "item %u still %s after the final drain", i,
				    m->items[i].in_flight ? "in flight" : "live");
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

uint32_t
tw_model_queued(const struct tw_model *m)
{
	return m->q_len;
}

uint32_t
tw_model_queued_by(const struct tw_model *m, unsigned int producer)
{
	if (m->nb_chan == 0)
		return 0;
	return m->chan[m->prod[producer % m->nb_prod].chan].len;
}

unsigned int
tw_model_producers(const struct tw_model *m)
{
	return m->nb_prod;
}

unsigned int
tw_model_lanes(const struct tw_model *m)
{
	return m->nb_lanes;
}

const char *
tw_model_producer_name(const struct tw_model *m, unsigned int producer)
{
	return m->prod[producer % m->nb_prod].name;
}

uint32_t
tw_model_remote_room(const struct tw_model *m)
{
	return m->nb_chan * m->cfg.ring_size;
}

uint32_t
tw_model_capacity(const struct tw_model *m)
{
	return m->cfg.capacity;
}

uint32_t
tw_model_ring_size(const struct tw_model *m)
{
	return m->cfg.ring_size;
}

uint64_t
tw_model_steps(const struct tw_model *m)
{
	return m->steps;
}

uint64_t
tw_model_rotation(const struct tw_model *m)
{
	/* saturated: huge ticks make a rotation longer than time itself */
	if (m->cfg.tick_cycles > UINT64_MAX / m->cfg.slots)
		return UINT64_MAX;
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
