/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

#ifndef _TWHEEL_H_
#define _TWHEEL_H_

/**
 * @file
 * twheel: a per-lcore timer wheel for flow and NAT-mapping expiry.
 *
 * A wheel is owned by one lcore. Everything that changes it (schedule,
 * cancel, move, sweep, drain) runs on that lcore, so the wheel takes no
 * lock. Other threads reach it only through the remote functions, which
 * leave a message for the owner (each EAL lcore on a lane of its own,
 * other threads on a shared ring), and through twheel_stats_get(), which
 * is safe from any thread.
 *
 * Time is counted in TSC cycles (rte_rdtsc()), as with rte_timer. The wheel
 * has @c slots buckets of @c tick_cycles each; deadlines further out than
 * one rotation (slots * tick_cycles) wrap and are revisited.
 *
 * With a @c deadline_fn the deadline is lazy: when an entry comes due the
 * wheel asks the payload for its current deadline, and re-files the entry
 * if that lies in the future. Extending a deadline is then a plain store in
 * the payload. Shortening one needs twheel_move().
 *
 * Remote calls (twheel_remote_cancel(), twheel_remote_schedule()):
 * - Producers: any thread, EAL lcore or not, the owner included, from
 *   twheel_create() until twheel_free() is called.
 * - Channels: each EAL lcore (role RTE or SERVICE when the wheel was
 *   created) writes to a single-producer lane of its own, chosen by
 *   rte_lcore_id(); every other thread (non-EAL, or registered after the
 *   wheel was created) to one shared multi-producer ring. Each channel
 *   holds @c remote_ring_size messages: that is a producer's room.
 * - Progress: lock-free and non-blocking. No lane has two producers, and
 *   the shared ring enqueues in RTS mode with the producers' head allowed
 *   the whole ring ahead of the tail, so a producer never waits for
 *   another, even one pre-empted in the middle of its call; a full
 *   channel, ring slots reserved by such a producer included, is -ENOBUFS
 *   with nothing enqueued (counted in @c remote_full). The owner never
 *   waits for a producer either: it takes what has been published.
 * - Ordering: a call that returned 0 has published its message with a
 *   store-release of its channel's tail, which the owner load-acquires.
 *   So everything the producer wrote before the call (the payload's
 *   fields, its lazy deadline) is visible to the owner when it applies
 *   the message, in the @c adopt_fn and @c deadline_fn calls included.
 * - Delivery: each message is applied exactly once, by the first
 *   twheel_sweep() or twheel_drain() (or their _more variants) on the
 *   owner that finds it published and has budget left for it, as one
 *   unit of that call's budget, at the start of the call; the owner visits
 *   the channels round-robin, so what the budget leaves, of any producer,
 *   waits for the next call. Messages of one producer are applied in the
 *   order it sent them; those of different producers in no promised
 *   order (two threads on the shared ring: the order they reserved ring
 *   slots), and none against anything else the producers do.
 * - At twheel_free() the messages still in the channels are dropped
 *   unapplied: no record, no @c adopt_fn call, so the payloads of remote
 *   schedules still in flight stay the producers' to free. Stop the
 *   producers first.
 *
 * Guarantees (see doc/guide.md for the proofs and the tests that check them):
 * a Due record is never early; every scheduled entry leaves exactly once;
 * one sweep does at most @c budget units of work; a stale id, or one of
 * another wheel, is inert.
 *
 * API tiers: the functions marked __twheel_experimental are the
 * experimental tier (see there); every other function is stable, versioned
 * TWHEEL_0, and keeps its signature and ABI.
 *
 * Errors, as in DPDK's rte_ring: a function that returns a pointer or an id
 * returns NULL or TWHEEL_ID_INVALID on failure and sets rte_errno; one that
 * returns an int returns 0 or a negative errno value (-ENOENT, -ENOBUFS,
 * ...) and leaves rte_errno alone; the bulk calls return a count and give
 * each element's int result in their @c rc array.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Marks a function of the experimental tier, as DPDK's __rte_experimental
 * does: its name, signature or behaviour may still change in a later
 * release, and the shared library versions it in the EXPERIMENTAL node
 * rather than in the stable TWHEEL_0. A call to one compiles with a
 * deprecation warning unless the program defines, before including this
 * header, TWHEEL_ALLOW_EXPERIMENTAL_API (twheel's experimental functions)
 * or DPDK's ALLOW_EXPERIMENTAL_API (every library's, twheel's included).
 * A program linked to the shared library names the EXPERIMENTAL version
 * for each one it calls (objdump -T shows them); in the library's objects
 * they are in the section .text.experimental.
 */
#if defined(TWHEEL_ALLOW_EXPERIMENTAL_API) || defined(ALLOW_EXPERIMENTAL_API)
#define __twheel_experimental \
	__attribute__((section(".text.experimental")))
#else
#define __twheel_experimental \
	__attribute__((deprecated("twheel experimental API: define TWHEEL_ALLOW_EXPERIMENTAL_API to use it"), \
		       section(".text.experimental")))
#endif

/** Opaque wheel, one per owner lcore. */
struct twheel;

/**
 * Entry id: slab index in the low 32 bits; in the high 32 bits the entry's
 * generation plus a salt of the wheel's own. The high half of a live entry's
 * id is odd, so 0 is never a valid id. Ids belong to one wheel: an id of
 * another wheel, or of an earlier wheel of the same name, is rejected like a
 * stale one.
 */
typedef uint64_t twheel_id_t;

/** The id that is never valid. */
#define TWHEEL_ID_INVALID 0

/** Longest wheel name, without the terminating NUL. */
#define TWHEEL_NAME_MAX_LEN 20

/** Largest capacity a wheel accepts. */
#define TWHEEL_CAPACITY_MAX (1u << 30)

/** Largest number of slots a wheel accepts. */
#define TWHEEL_SLOTS_MAX (1u << 24)

/**
 * Ask a payload for its current deadline (lazy deadlines).
 *
 * Called on the owner lcore during twheel_sweep() and twheel_drain(). It
 * must not call into the same wheel.
 *
 * @param payload
 *   The payload given at schedule time.
 * @param arg
 *   The config's @c deadline_arg.
 * @return
 *   The payload's current deadline in TSC cycles.
 */
typedef uint64_t (*twheel_deadline_fn)(void *payload, void *arg);

/**
 * Tell the owner which id a remote schedule received.
 *
 * Called on the owner lcore during the twheel_sweep() or twheel_drain()
 * that applies a message of twheel_remote_schedule(), once the entry is in
 * the wheel. It sees everything the producer wrote before its call (see
 * "Remote calls" above). It must not call into the same wheel; the id may
 * be stored (in the payload) for a later twheel_cancel() or twheel_move().
 *
 * @param payload
 *   The payload given to twheel_remote_schedule().
 * @param id
 *   The id of the new entry.
 * @param arg
 *   The config's @c adopt_arg.
 */
typedef void (*twheel_adopt_fn)(void *payload, twheel_id_t id, void *arg);

/** Wheel configuration; see twheel_config_standard() for defaults. */
struct twheel_config {
	const char *name;            /**< Unique, without ',' (/twheel/stats,NAME takes it as
				  *   its parameter); names the mempool, ring and
				  *   telemetry entry. */
	int socket_id;               /**< NUMA socket for all memory, or SOCKET_ID_ANY. */
	uint32_t capacity;           /**< Live entries at most, 1..TWHEEL_CAPACITY_MAX. */
	uint32_t slots;              /**< Buckets: a power of two, 2..TWHEEL_SLOTS_MAX. */
	uint64_t tick_cycles;        /**< Bucket width in TSC cycles, > 0. */
	uint32_t remote_ring_size;   /**< Messages each remote producer may have in flight:
				  *   the size of each EAL lcore's lane and of the
				  *   shared ring, up to 2^24; 0: no cross-lcore API.
				  *   Memory: (EAL lcores + 1) channels of the power of
				  *   two above it in 24-byte slots (doc/guide.md). */
	twheel_deadline_fn deadline_fn; /**< NULL: deadlines are fixed at schedule/move. */
	void *deadline_arg;          /**< Passed to @c deadline_fn. */
	twheel_adopt_fn adopt_fn;    /**< May be NULL. */
	void *adopt_arg;             /**< Passed to @c adopt_fn. */
};

/**
 * Fill a configuration with the standard geometry: 10 ms ticks, 8192 slots
 * (a rotation of 81.92 s), remote channels of 4096 messages, fixed
 * deadlines.
 *
 * The tick length comes from rte_get_tsc_hz(), so call it after rte_eal_init().
 *
 * @param cfg
 *   The configuration to fill; every field is written.
 * @param name
 *   The wheel's name; the string must live until twheel_create() returns.
 * @param capacity
 *   Live entries at most.
 * @param socket_id
 *   NUMA socket, or SOCKET_ID_ANY.
 */
void twheel_config_standard(struct twheel_config *cfg, const char *name,
			    uint32_t capacity, int socket_id);

/**
 * Create a wheel. All of its memory is allocated here, on @c cfg->socket_id;
 * nothing is allocated afterwards.
 *
 * @param cfg
 *   The configuration; it is copied.
 * @return
 *   The wheel, or NULL with rte_errno set:
 *   - EINVAL: a field of @p cfg is out of range, or the name holds a ','
 *     (the log says which);
 *   - ENAMETOOLONG: the name is longer than TWHEEL_NAME_MAX_LEN;
 *   - EEXIST: a wheel (or a mempool or ring of ours) has that name already;
 *   - ENOMEM: not enough memory on the socket;
 *   - ENOTSUP: the twheel mempool driver could not be registered.
 */
struct twheel *twheel_create(const struct twheel_config *cfg);

/**
 * Free a wheel and all of its memory. Live entries are forgotten without a
 * record: use twheel_drain_more() first to get their payloads back.
 * Remote messages not yet applied are dropped (no record, no adopt_fn
 * call). NULL is a no-op.
 *
 * No other thread may use the wheel, including its remote functions, once
 * this is called.
 *
 * @param w
 *   The wheel, or NULL.
 */
void twheel_free(struct twheel *w);

/**
 * Schedule an entry. Owner lcore only. O(1), no allocation.
 *
 * A deadline at or before the latest @c now given to twheel_sweep() fires at
 * the next sweep; one beyond the wheel's rotation is revisited every rotation
 * until it comes due.
 *
 * @param w
 *   The wheel.
 * @param deadline
 *   Deadline in TSC cycles; any value, UINT64_MAX included.
 * @param payload
 *   Handed back in the entry's record; may be NULL.
 * @return
 *   The entry's id, or TWHEEL_ID_INVALID with rte_errno set to ENOSPC when
 *   @c capacity entries are live (nothing else changes).
 */
twheel_id_t twheel_schedule(struct twheel *w, uint64_t deadline, void *payload);

/**
 * Cancel an entry. Owner lcore only. O(1). The entry leaves without a record:
 * the caller has its payload.
 *
 * @param w
 *   The wheel.
 * @param id
 *   An id from twheel_schedule() or an adopt callback.
 * @return
 *   0, or -ENOENT if the entry has already left (fired, cancelled, drained)
 *   or the id was never valid, or belongs to another wheel (or to an earlier
 *   wheel of this name). Such an id changes nothing, even after its slot
 *   was reused.
 */
int twheel_cancel(struct twheel *w, twheel_id_t id);

/**
 * Move an entry to a new deadline. Owner lcore only. O(1).
 *
 * The stored deadline becomes @p deadline. An earlier deadline re-files the
 * entry in the bucket of that deadline at once. A later one only stores it,
 * as Linux's mod_timer does: the entry is filed no later than its old
 * deadline's tick, and when the sweep reaches it there it is re-filed for
 * the new one (counted in @c revisits). Either way it comes due at the same
 * time. With a @c deadline_fn the payload still has the last word when the
 * entry comes due; use this to bring a lazy deadline closer.
 *
 * @param w
 *   The wheel.
 * @param id
 *   The entry's id.
 * @param deadline
 *   The new deadline in TSC cycles.
 * @return
 *   0, or -ENOENT as for twheel_cancel().
 */
int twheel_move(struct twheel *w, twheel_id_t id, uint64_t deadline);

/**
 * Cancel a burst of entries. Owner lcore only.
 *
 * The same as calling twheel_cancel() for each id in order (duplicate and
 * stale ids included), but the cache misses of the burst overlap: the
 * entries, their chunks and the lines the unlinking touches are prefetched
 * for the whole burst first. Use it where a burst of ids is at hand (a
 * burst of packets, a flush).
 *
 * @param w
 *   The wheel.
 * @param ids
 *   The ids, @p n of them.
 * @param n
 *   How many.
 * @param rc
 *   If not NULL, filled with each id's twheel_cancel() result (0 or -ENOENT).
 * @return
 *   How many entries were cancelled.
 */
unsigned int twheel_cancel_bulk(struct twheel *w, const twheel_id_t *ids,
				unsigned int n, int *rc);

/**
 * Move a burst of entries. Owner lcore only.
 *
 * The same as calling twheel_move(ids[i], deadlines[i]) for each i in order,
 * with the cache misses of the burst overlapped as in twheel_cancel_bulk().
 *
 * @param w
 *   The wheel.
 * @param ids
 *   The ids, @p n of them.
 * @param deadlines
 *   The new deadlines, one per id. NULL is refused: every id's result is
 *   -EINVAL and nothing changes.
 * @param n
 *   How many.
 * @param rc
 *   If not NULL, filled with each id's twheel_move() result (0 or -ENOENT),
 *   or -EINVAL for every id when @p deadlines is NULL.
 * @return
 *   How many entries were moved.
 */
unsigned int twheel_move_bulk(struct twheel *w, const twheel_id_t *ids,
			      const uint64_t *deadlines, unsigned int n, int *rc);

/** Why a record was handed back. */
enum twheel_reason {
	TWHEEL_DUE,       /**< The deadline passed; the entry has left. */
	TWHEEL_CANCELLED, /**< Cancelled by a remote cancel, or drained; the entry has left. */
	TWHEEL_REJECTED,  /**< A remote schedule found the wheel full; never entered. */
};

/** One record handed back by twheel_sweep() or twheel_drain(). */
struct twheel_fired {
	twheel_id_t id;              /**< TWHEEL_ID_INVALID for REJECTED. */
	void *payload;               /**< The entry's payload. */
	uint64_t deadline;           /**< The deadline it fired or was cancelled at. */
	enum twheel_reason reason;   /**< Why it was handed back. */
};

/**
 * Advance the wheel to @p now and hand back what is due. Owner lcore only.
 *
 * In order: remote messages are applied; entries whose
 * deadline is at or before @p now are handed back as TWHEEL_DUE; entries
 * whose (lazy) deadline lies in the future are re-filed. Each message, each
 * entry handed back and each entry re-filed is one unit of work; the sweep
 * stops after @p budget units and the next call resumes exactly there,
 * in the middle of a bucket if need be.
 *
 * Time that jumps. Nothing ever fires before its deadline, whatever @p now
 * does. @p now may go backwards: by up to one rotation (slots *
 * tick_cycles) the wheel makes no progress until time is back, and entries
 * scheduled meanwhile may wait that long; by more than a rotation (a clock
 * reset, or one absurd value such as UINT64_MAX before sane ones) this
 * sweep re-bases the wheel at @p now, which becomes the wheel's time: what
 * was filed before is found within a rotation, what is filed afterwards
 * fires on time. When @p now jumps ahead by more than a rotation, one pass
 * over every bucket examines each waiting entry once or twice (within the
 * budget, over as many calls as it takes).
 *
 * A sweep that stops at its budget with work left counts in
 * @c budget_exhausted; twheel_sweep_more() also tells the caller.
 *
 * @param w
 *   The wheel.
 * @param now
 *   Current time in TSC cycles; read it once per burst.
 * @param budget
 *   Units of work at most; 0 does nothing.
 * @param out
 *   Room for @p budget records.
 * @return
 *   Records written to @p out, at most @p budget.
 */
unsigned int twheel_sweep(struct twheel *w, uint64_t now, unsigned int budget,
			  struct twheel_fired *out);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * twheel_sweep(), and whether it stopped at its budget with work left.
 * Owner lcore only, like twheel_sweep(), whose work, records and
 * statistics it has in every respect; as rte_ring_dequeue_burst() reports
 * @c available, it adds the answer to "is there more?".
 *
 * @p *more is true exactly when this call counted in @c budget_exhausted:
 * it used its whole budget and something it would have done at @p now is
 * still left (an entry of an elapsed tick not yet examined, the rest of a
 * bucket it stopped in, a published remote message), so a
 * call at the same @p now would do more. It is false when the call did
 * everything due at @p now, also when that took exactly @p budget units
 * of work, and when @p budget is 0 (such a call does nothing). A call can
 * spend its budget on remote messages that write no record (an adoption, a
 * cancel of an entry already gone) and return 0 with work left, so "until
 * it returns 0" is not the test: "sweep while @p *more" runs the wheel up
 * to @p now, without a twheel_stats_get() around each call.
 *
 * The call has no error: it returns a count and leaves rte_errno alone.
 *
 * @param w
 *   The wheel.
 * @param now
 *   Current time in TSC cycles.
 * @param budget
 *   Units of work at most; 0 does nothing.
 * @param out
 *   Room for @p budget records.
 * @param more
 *   If not NULL, set as above; with NULL the call is twheel_sweep().
 * @return
 *   Records written to @p out, at most @p budget.
 */
__twheel_experimental
unsigned int twheel_sweep_more(struct twheel *w, uint64_t now,
			       unsigned int budget, struct twheel_fired *out,
			       bool *more);

/**
 * Hand back every live entry as TWHEEL_CANCELLED, for shutdown and port
 * reset. Owner lcore only.
 *
 * Remote messages are applied first and count against @p budget as in
 * twheel_sweep(): each message and each entry handed back is one unit of
 * work, and a call does at most @p budget units. A message may write no
 * record (an adoption, whose entry a later call hands back, or a cancel of
 * an entry already gone), so a call can spend its budget and return 0 with
 * work left; such a call, like any drain that stops at its budget with
 * something left, is counted in @c budget_exhausted. To empty a wheel,
 * call twheel_drain_more() until it sets @c *more to false; with a budget
 * larger than the remote messages waiting, calling this until it returns 0
 * does the same.
 *
 * @param w
 *   The wheel.
 * @param budget
 *   Units of work at most; 0 does nothing.
 * @param out
 *   Room for @p budget records.
 * @return
 *   Records written to @p out, at most @p budget.
 */
unsigned int twheel_drain(struct twheel *w, unsigned int budget,
			  struct twheel_fired *out);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * twheel_drain(), and whether it stopped at its budget with work left.
 * Owner lcore only, like twheel_drain(), whose work, records and
 * statistics it has in every respect.
 *
 * @p *more is true exactly when this call counted in @c budget_exhausted:
 * it used its whole budget and, when it finished, the wheel still held an
 * entry or a remote channel a published message. It is false when the
 * wheel is empty and the channels were empty when the call looked at them
 * last,
 * and when @p budget is 0. A call that spent its budget on adoptions or
 * stale cancels returns 0 whether or not work is left, so "drain while
 * @p *more" is the loop that empties the wheel; messages that producers
 * publish after the last call stay in their channels (stop the producers
 * first at shutdown).
 *
 * The call has no error: it returns a count and leaves rte_errno alone.
 *
 * @param w
 *   The wheel.
 * @param budget
 *   Units of work at most; 0 does nothing.
 * @param out
 *   Room for @p budget records.
 * @param more
 *   If not NULL, set as above; with NULL the call is twheel_drain().
 * @return
 *   Records written to @p out, at most @p budget.
 */
__twheel_experimental
unsigned int twheel_drain_more(struct twheel *w, unsigned int budget,
			       struct twheel_fired *out, bool *more);

/**
 * Ask the owner to cancel an entry. Any lcore or thread; lock-free and
 * non-blocking, with the ordering and delivery of "Remote calls" above.
 *
 * The owner applies the message at its next sweep or drain: a live entry
 * is handed back as TWHEEL_CANCELLED (the owner frees its payload); an id
 * whose entry has left, in that race with its deadline too, or one never
 * valid is counted in @c remote_stale and changes nothing. The call does
 * not wait for that.
 *
 * @param w
 *   The wheel.
 * @param id
 *   The entry's id.
 * @return
 *   0 once the message is published; -ENOBUFS if the caller's channel
 *   (its lane, or the shared ring with its reserved slots) is full:
 *   nothing was enqueued, @c remote_full counts it; -ENOTSUP if the wheel
 *   was made without remote calls. rte_errno is left alone.
 */
int twheel_remote_cancel(struct twheel *w, twheel_id_t id);

/**
 * Ask the owner to schedule an entry. Any lcore or thread; lock-free and
 * non-blocking, with the ordering and delivery of "Remote calls" above.
 *
 * At its next sweep or drain the owner inserts the entry and calls
 * @c adopt_fn with the new id, or, if the wheel is full, hands the payload
 * back as TWHEEL_REJECTED. Once the call returned 0 the payload is the
 * owner's side: change it (its lazy deadline included) only in step with
 * the owner.
 *
 * @param w
 *   The wheel.
 * @param deadline
 *   Deadline in TSC cycles.
 * @param payload
 *   The entry's payload.
 * @return
 *   0, -ENOBUFS or -ENOTSUP as for twheel_remote_cancel(); after -ENOBUFS
 *   the payload is still the caller's.
 */
int twheel_remote_schedule(struct twheel *w, uint64_t deadline, void *payload);

/** Wheel statistics; all counters since twheel_create(). */
struct twheel_stats {
	uint64_t live;             /**< Entries in the wheel now. */
	uint64_t scheduled;        /**< Entries inserted, locally or by adoption. */
	uint64_t cancelled;        /**< Entries that left by cancel (local, remote) or drain. */
	uint64_t due;              /**< TWHEEL_DUE records. */
	uint64_t revisits;         /**< Entries examined but not due, and re-filed. */
	uint64_t remote_cancels;   /**< Remote cancel messages applied. */
	uint64_t remote_schedules; /**< Remote schedule messages applied. */
	uint64_t remote_stale;     /**< Remote cancels whose entry had already left. */
	uint64_t remote_full;      /**< Remote calls that returned -ENOBUFS, all channels. */
	uint64_t rejected;         /**< TWHEEL_REJECTED records. */
	uint64_t sweeps;           /**< Calls to twheel_sweep(). */
	uint64_t budget_exhausted; /**< Sweeps and drains that stopped at the budget with work left (the calls whose *more the _more variants set). */
	uint64_t max_lag_cycles;   /**< Largest (now - deadline) of a Due record. */
};

/**
 * Read a wheel's statistics. Safe from any thread while the owner runs;
 * each counter is read atomically, the set is not a snapshot.
 *
 * @param w
 *   The wheel.
 * @param st
 *   Filled with the counters.
 */
void twheel_stats_get(const struct twheel *w, struct twheel_stats *st);

/** Memory a wheel holds, in bytes, as allocated. */
struct twheel_mem_info {
	size_t slab_bytes;     /**< The entry mempool's memory chunks (objects with headers). */
	size_t bucket_bytes;   /**< Bucket chunks, bucket lists and the occupancy bitmap. */
	size_t ring_bytes;     /**< The remote channels: lanes and shared ring; 0 without them. */
	size_t wheel_bytes;    /**< The wheel structure itself. */
	size_t total_bytes;    /**< The sum of the above. */
	uint32_t capacity;     /**< The configured capacity. */
};

/**
 * Report the memory a wheel holds. Any thread.
 *
 * @param w
 *   The wheel.
 * @param mi
 *   Filled with the sizes.
 */
void twheel_mem_info_get(const struct twheel *w, struct twheel_mem_info *mi);

/**
 * The entry slab as DPDK sees it: the mempool that holds a wheel's entries
 * and the size of each object in it.
 */
struct twheel_slab_info {
	const char *mempool_name; /**< For rte_mempool_lookup(); valid until twheel_free(). */
	uint32_t header_size;     /**< The mempool's object header before each entry, bytes. */
	uint32_t entry_size;      /**< The wheel's state per entry (the mempool's element size), bytes. */
	uint32_t trailer_size;    /**< The mempool's object trailer after each entry, bytes. */
	uint32_t stride;          /**< From one entry to the next: header + entry + trailer, bytes. */
	uint32_t capacity;        /**< Entries in the slab: the configured capacity. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Describe a wheel's entry slab: the name of its rte_mempool (to find it
 * with rte_mempool_lookup(), for rte_mempool_dump() or the /mempool
 * telemetry) and the layout of its objects. Any thread, any time while the
 * wheel exists. It complements twheel_mem_info_get(), whose structure is
 * stable and keeps its layout; slab_bytes there is at least
 * stride * capacity.
 *
 * @param w
 *   The wheel.
 * @param si
 *   Filled with the slab's description.
 * @return
 *   0, or -EINVAL if @p w or @p si is NULL (then nothing is written).
 *   rte_errno is left alone.
 */
__twheel_experimental
int twheel_slab_info_get(const struct twheel *w, struct twheel_slab_info *si);

/**
 * The name a wheel was created with.
 *
 * @param w
 *   The wheel.
 * @return
 *   Its name, valid until twheel_free().
 */
const char *twheel_name(const struct twheel *w);

#ifdef __cplusplus
}
#endif

#endif /* _TWHEEL_H_ */
