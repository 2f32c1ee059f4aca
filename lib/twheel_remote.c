/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Cross-lcore cancel and schedule: messages on lanes and a shared ring,
 * applied by the owner.
 *
 * Only the owner changes the wheel. Any other thread (EAL lcore or not)
 * writes a fixed-size message and returns; the owner applies the messages
 * at the start of its next sweep or drain, inside that call's budget. The
 * guarantees a producer gets are stated in twheel.h ("Remote calls"); this
 * is how they are kept.
 *
 * Channels. One producer cache line that every producer writes does not
 * scale: with one multi-producer ring, the compare-and-swap on its head
 * line limits a 16-core owner to about 4M messages/s from any number of
 * producers, against 18.7M/s from one. So each wheel has:
 * - a lane per EAL lcore (role RTE or SERVICE when the wheel is created):
 *   a single-producer, single-consumer queue (twheel_lane.h) that only
 *   that lcore writes. The lane is chosen by rte_lcore_id(), which EAL
 *   gives one thread at a time, so a lane never has two producers and no
 *   producer ever waits for another: a lcore pre-empted in the middle of
 *   its call delays its own messages only.
 * - one shared multi-producer ring (rte_ring, RTS) for every other thread:
 *   non-EAL threads, control threads, threads registered after the wheel.
 * Each channel holds remote_ring_size messages: that is the room of one
 * producer, and a full channel is -ENOBUFS with nothing enqueued, counted
 * in remote_full (per lane by its producer, and for the ring by an atomic
 * add). twheel_stats_get() adds them up.
 *
 * The shared ring's sync mode: producers enqueue in RTS (relaxed tail
 * sync) mode. In the default MP mode a producer that is pre-empted between
 * reserving its slot and publishing it makes every later producer spin
 * until it runs again; with RTS the others complete and only the
 * publication of the tail waits for the slow one. RTS bounds how far
 * producers' heads may run ahead of the published tail (capacity / 8 by
 * default, 0 for rings under 8 messages), and a producer past that bound
 * spins: twheel_remote_init() sets the bound to the ring's capacity, which
 * the heads can never exceed, so no producer ever waits: it enqueues or,
 * the ring full (slots reserved by a stalled producer included), gets
 * -ENOBUFS. HTS would serialise producers completely and is the worst of
 * the three for pre-emption.
 *
 * Draining. The owner visits the channels round-robin: lanes in lcore
 * order, then the shared ring, taking up to TWHEEL_MSG_BURST messages from
 * each in turn, until its budget is spent or it has found every channel
 * empty in a row; the next apply starts at the channel after the last one
 * visited, so under a tight budget no producer starves. Each message is
 * one unit of the budget. Before it drains, a sweep asks
 * twheel_remote_pending(), a tight loop over each lane's tail (a line its
 * producer has not written since: a cache hit) and the ring's two tails,
 * so a sweep with nothing published pays two loads a lane, not a visit
 * per channel: an idle sweep costs 20 to 35 cycles with 2 to 16 lanes
 * (twheel_scale_perf_autotest prints it).
 *
 * Ordering: a lane's tail is store-released after the message and
 * load-acquired by the owner (twheel_lane.h); the ring's tail likewise. So
 * the owner sees a message's contents, and what the producer wrote before
 * it, once it sees the message. Messages from one producer are applied in
 * the order that producer sent them (one channel, FIFO); messages of
 * different producers in no promised order. A message is applied at the
 * first sweep or drain that finds it published and has budget for it. At
 * twheel_free() the channels go with what they hold, unapplied.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "twheel_atomic.h"
#include "twheel_id.h"
#include "twheel_lane.h"
#include "twheel_layout.h"
#include "twheel_log.h"
#include "twheel_name.h"
#include "twheel_ops.h"
#include "twheel_remote.h"
#include "twheel_slab.h"

#define TWHEEL_MSG_BURST 32

/*
 * ThreadSanitizer cannot see the shared ring's ordering: on x86 Debian's
 * DPDK takes the generic path, whose consumer reads the producer tail with
 * a plain load and a compiler barrier (enough under TSO). Tell it what the
 * ring guarantees: what a producer wrote before enqueueing (the payload)
 * happens before what the owner does after dequeueing. No code in other
 * builds. The lanes use C11 atomics, which it sees.
 */
#if defined(__SANITIZE_THREAD__)
#define TWHEEL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TWHEEL_TSAN 1
#endif
#endif
#ifdef TWHEEL_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define ring_published(r) __tsan_release(r)
#define ring_consumed(r) __tsan_acquire(r)
#else
#define ring_published(r) do { } while (0)
#define ring_consumed(r) do { } while (0)
#endif

static int
shared_ring_init(struct twheel *w, uint32_t ring_size)
{
	char name[RTE_RING_NAMESIZE];

	twheel_object_name(name, sizeof(name), "TWR", w->name);
	w->ring = rte_ring_create_elem(name, sizeof(struct twheel_msg),
				       ring_size, w->socket_id,
				       RING_F_MP_RTS_ENQ | RING_F_SC_DEQ |
				       RING_F_EXACT_SZ);
	if (w->ring == NULL) {
		int ret = -rte_errno;

		TWHEEL_LOG(ERR, "create %s: remote ring %s of %u messages: %s",
			   w->name, name, ring_size, rte_strerror(rte_errno));
		return ret;
	}
	/*
	 * A producer's head may run ahead of the published tail by the whole
	 * ring: it then never waits for a slower producer, and a full ring
	 * (reserved slots included) is -ENOBUFS. Under RTS's default bound,
	 * capacity / 8 (0 below 8), producers would spin behind a pre-empted
	 * one.
	 */
	return rte_ring_set_prod_htd_max(w->ring, rte_ring_get_capacity(w->ring));
}

/* A lane per EAL lcore (RTE or SERVICE role), in lcore order. */
static unsigned int
eal_lcores(uint16_t *lcores)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		enum rte_lcore_role_t role = rte_eal_lcore_role(i);

		if (role == ROLE_RTE || role == ROLE_SERVICE)
			lcores[n++] = (uint16_t)i;
	}
	return n;
}

static int
lanes_init(struct twheel *w, uint32_t lane_size)
{
	uint16_t lcores[RTE_MAX_LCORE];
	uint32_t slots = rte_align32pow2(lane_size);
	size_t slot_bytes = RTE_ALIGN_CEIL(slots * sizeof(struct twheel_msg),
					   RTE_CACHE_LINE_SIZE);
	unsigned int i, n = eal_lcores(lcores);
	uint8_t *mem;

	if (n == 0)
		return 0;
	w->lane_bytes = n * (sizeof(struct twheel_lane) + slot_bytes);
	mem = rte_zmalloc_socket("twheel_lanes", w->lane_bytes,
				 RTE_CACHE_LINE_SIZE, w->socket_id);
	if (mem == NULL) {
		TWHEEL_LOG(ERR, "create %s: no memory for %u lanes of %u messages (%zu bytes) on socket %d",
			   w->name, n, lane_size, w->lane_bytes, w->socket_id);
		w->lane_bytes = 0;
		return -ENOMEM;
	}
	w->lanes = (struct twheel_lane *)mem;
	mem += n * sizeof(struct twheel_lane);
	for (i = 0; i < n; i++) {
		struct twheel_lane *l = &w->lanes[i];

		l->capacity = lane_size;
		l->mask = slots - 1;
		l->mask_c = slots - 1;
		l->slots = (struct twheel_msg *)(mem + i * slot_bytes);
		l->slots_c = l->slots;
		w->lane_of[lcores[i]] = (uint16_t)(i + 1);
	}
	w->nb_lanes = (uint16_t)n;
	return 0;
}

int
twheel_remote_init(struct twheel *w, uint32_t ring_size)
{
	int ret;

	RTE_BUILD_BUG_ON(RTE_MAX_LCORE > UINT16_MAX);
	RTE_BUILD_BUG_ON(sizeof(struct twheel_msg) != 24);
	ret = lanes_init(w, ring_size);
	if (ret != 0)
		return ret;
	ret = shared_ring_init(w, ring_size);
	if (ret != 0)
		return ret;
	w->nb_chan = (uint16_t)(w->nb_lanes + 1);
	return 0;
}

size_t
twheel_remote_bytes(const struct twheel *w)
{
	ssize_t n;

	if (w->ring == NULL)
		return w->lane_bytes;
	/* as rte_ring_create_elem() sized it: the ring's power-of-two slots */
	n = rte_ring_get_memsize_elem(sizeof(struct twheel_msg),
				      rte_ring_get_size(w->ring));
	return w->lane_bytes + (n < 0 ? 0 : (size_t)n);
}

uint64_t
twheel_remote_full(const struct twheel *w)
{
	uint64_t n = twheel_atomic_load(&w->remote_full);
	unsigned int i;

	for (i = 0; i < w->nb_lanes; i++)
		n += twheel_atomic_load(&w->lanes[i].full);
	return n;
}

void
twheel_remote_free(struct twheel *w)
{
	rte_ring_free(w->ring);
	w->ring = NULL;
	rte_free(w->lanes);
	w->lanes = NULL;
	w->nb_lanes = 0;
	w->nb_chan = 0;
}

static int
remote_send(struct twheel *w, struct twheel_msg *m)
{
	unsigned int lcore = rte_lcore_id();

	if (likely(lcore < RTE_MAX_LCORE && w->lane_of[lcore] != 0))
		return twheel_lane_put(&w->lanes[w->lane_of[lcore] - 1], m);
	if (unlikely(w->ring == NULL))
		return -ENOTSUP;
	ring_published(w->ring);
	if (unlikely(rte_ring_enqueue_elem(w->ring, m, sizeof(*m)) != 0)) {
		twheel_atomic_add(&w->remote_full, 1);
		return -ENOBUFS;
	}
	return 0;
}

int
twheel_remote_cancel(struct twheel *w, twheel_id_t id)
{
	struct twheel_msg m = {
		.arg = id, .payload = NULL, .type = TWHEEL_MSG_CANCEL,
	};

	return remote_send(w, &m);
}

int
twheel_remote_schedule(struct twheel *w, uint64_t deadline, void *payload)
{
	struct twheel_msg m = {
		.arg = deadline, .payload = payload, .type = TWHEEL_MSG_SCHEDULE,
	};

	return remote_send(w, &m);
}

static void
apply_cancel(struct twheel *w, twheel_id_t id, struct twheel_fired *out,
	     unsigned int *nb_out)
{
	struct twheel_entry *e = twheel_entry_of_id(w, id);

	TWHEEL_STAT_ADD(w, remote_cancels, 1);
	if (e == NULL) {
		TWHEEL_STAT_ADD(w, remote_stale, 1);
		return;
	}
	twheel_entry_cancel(w, (uint32_t)id, e, &out[(*nb_out)++]);
}

static void
apply_schedule(struct twheel *w, uint64_t deadline, void *payload,
	       struct twheel_fired *out, unsigned int *nb_out)
{
	twheel_id_t id;

	TWHEEL_STAT_ADD(w, remote_schedules, 1);
	id = twheel_entry_add(w, deadline, payload);
	if (id == TWHEEL_ID_INVALID) {
		out[*nb_out] = (struct twheel_fired){
			.id = TWHEEL_ID_INVALID, .payload = payload,
			.deadline = deadline, .reason = TWHEEL_REJECTED,
		};
		(*nb_out)++;
		TWHEEL_STAT_ADD(w, rejected, 1);
		return;
	}
	if (w->adopt_fn != NULL)
		w->adopt_fn(payload, id, w->adopt_arg);
}

/* Take up to n published messages of channel c (a lane, or the ring). */
static unsigned int
channel_take(struct twheel *w, unsigned int c, struct twheel_msg *msgs,
	     unsigned int n)
{
	unsigned int got;

	if (c < w->nb_lanes)
		return twheel_lane_take(&w->lanes[c], msgs, n);
	/* an empty ring costs a load of its two tails, not a dequeue call */
	if (rte_ring_count(w->ring) == 0)
		return 0;
	got = rte_ring_dequeue_burst_elem(w->ring, msgs, sizeof(msgs[0]), n,
					  NULL);
	ring_consumed(w->ring);
	return got;
}

/*
 * Apply up to max_msgs messages, each one unit of the caller's budget,
 * visiting the channels round-robin from chan_next until the budget is
 * spent or nb_chan channels in a row had nothing. Each message writes at
 * most one record to out[*nb_out], so max_msgs records fit where the
 * budget's do. Returns messages applied.
 */
unsigned int
twheel_remote_apply(struct twheel *w, unsigned int max_msgs,
		    struct twheel_fired *out, unsigned int *nb_out)
{
	struct twheel_msg msgs[TWHEEL_MSG_BURST];
	unsigned int applied = 0, empty = 0, c = w->chan_next;
	unsigned int n, i, want;

	while (applied < max_msgs && empty < w->nb_chan) {
		want = RTE_MIN(max_msgs - applied, (unsigned int)TWHEEL_MSG_BURST);
		n = channel_take(w, c, msgs, want);
		for (i = 0; i < n; i++) {
			if (msgs[i].type == TWHEEL_MSG_CANCEL)
				apply_cancel(w, msgs[i].arg, out, nb_out);
			else
				apply_schedule(w, msgs[i].arg, msgs[i].payload,
					       out, nb_out);
		}
		applied += n;
		empty = n == 0 ? empty + 1 : 0;
		c = c + 1 == w->nb_chan ? 0 : c + 1;
	}
	w->chan_next = (uint16_t)c;
	return applied;
}

bool
twheel_remote_pending(const struct twheel *w)
{
	unsigned int i;

	for (i = 0; i < w->nb_lanes; i++)
		if (twheel_lane_pending(&w->lanes[i]))
			return true;
	return w->ring != NULL && rte_ring_count(w->ring) != 0;
}
