/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Cross-lcore cancel and schedule: messages on a multi-producer,
 * single-consumer rte_ring owned by the wheel.
 *
 * Only the owner changes the wheel. Any other thread (EAL lcore or not)
 * enqueues a fixed-size message and returns; the owner applies the messages
 * at the start of its next sweep or drain, inside that call's budget. A
 * full ring is reported to the producer as -ENOBUFS with nothing enqueued,
 * and counted. The guarantees a producer gets are stated in twheel.h
 * ("Remote calls"); this is how the ring gives them.
 *
 * Sync mode: producers enqueue in RTS (relaxed tail sync) mode. In the
 * default MP mode a producer that is pre-empted between reserving its slot
 * and publishing it makes every later producer spin until it runs again;
 * with RTS the others complete and only the publication of the tail waits
 * for the slow one. RTS bounds how far producers' heads may run ahead of the
 * published tail (capacity / 8 by default, 0 for rings under 8 messages),
 * and a producer past that bound spins: twheel_remote_init() sets the bound
 * to the ring's capacity, which the heads can never exceed, so no producer
 * ever waits: it enqueues or, the ring full (slots reserved by a stalled
 * producer included), gets -ENOBUFS. The consumer never waits either: it
 * takes what has been published. HTS would serialise producers completely
 * and is the worst of the three for pre-emption.
 *
 * Ordering: the ring's tail store has release semantics and the consumer's
 * load of it acquire semantics, so the owner sees a message's contents, and
 * what the producer wrote before it, once it sees the message. Messages from
 * one producer are applied in the order that producer enqueued them;
 * messages of different producers in the order they reserved ring slots. A
 * message is applied at the first sweep or drain that finds it published.
 * At twheel_free() the ring goes with what it holds, unapplied.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "twheel_atomic.h"
#include "twheel_id.h"
#include "twheel_layout.h"
#include "twheel_log.h"
#include "twheel_name.h"
#include "twheel_ops.h"
#include "twheel_remote.h"
#include "twheel_slab.h"

enum twheel_msg_type {
	TWHEEL_MSG_CANCEL = 1,
	TWHEEL_MSG_SCHEDULE = 2,
};

struct twheel_msg {
	uint64_t arg;        /* CANCEL: the id; SCHEDULE: the deadline */
	void *payload;       /* SCHEDULE only */
	uint32_t type;
	uint32_t pad;
};

#define TWHEEL_MSG_BURST 32

/*
 * ThreadSanitizer cannot see the ring's ordering: on x86 Debian's DPDK takes
 * the generic path, whose consumer reads the producer tail with a plain load
 * and a compiler barrier (enough under TSO). Tell it what the ring
 * guarantees: what a producer wrote before enqueueing (the payload) happens
 * before what the owner does after dequeueing. No code in other builds.
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

int
twheel_remote_init(struct twheel *w, uint32_t ring_size)
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

size_t
twheel_remote_bytes(const struct twheel *w)
{
	ssize_t n;

	if (w->ring == NULL)
		return 0;
	/* as rte_ring_create_elem() sized it: the ring's power-of-two slots */
	n = rte_ring_get_memsize_elem(sizeof(struct twheel_msg),
				      rte_ring_get_size(w->ring));
	return n < 0 ? 0 : (size_t)n;
}

void
twheel_remote_free(struct twheel *w)
{
	rte_ring_free(w->ring);
	w->ring = NULL;
}

static int
remote_send(struct twheel *w, struct twheel_msg *m)
{
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

/*
 * Apply up to max_msgs messages, each one unit of the caller's budget. Each
 * writes at most one record to out[*nb_out], so max_msgs records fit where
 * the budget's do. Returns messages applied.
 */
unsigned int
twheel_remote_apply(struct twheel *w, unsigned int max_msgs,
		    struct twheel_fired *out, unsigned int *nb_out)
{
	struct twheel_msg msgs[TWHEEL_MSG_BURST];
	unsigned int applied = 0;
	unsigned int n, i, want;

	while (applied < max_msgs) {
		want = RTE_MIN(max_msgs - applied, (unsigned int)TWHEEL_MSG_BURST);
		n = rte_ring_dequeue_burst_elem(w->ring, msgs, sizeof(msgs[0]),
						want, NULL);
		ring_consumed(w->ring);
		for (i = 0; i < n; i++) {
			if (msgs[i].type == TWHEEL_MSG_CANCEL)
				apply_cancel(w, msgs[i].arg, out, nb_out);
			else
				apply_schedule(w, msgs[i].arg, msgs[i].payload,
					       out, nb_out);
		}
		applied += n;
		if (n < want)
			break;
	}
	return applied;
}
