/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Wheel life cycle: the standard geometry, config validation, create, free.
 *
 * Geometry. One level of `slots` buckets, `tick_cycles` wide. The standard
 * wheel is 8192 x 10 ms = 81.92 s per rotation: flow timeouts of 5 s to
 * 300 s land within one or a few rotations, and the 7440 s TCP-established
 * timeout is revisited 91 times over two hours, which is cheaper than a
 * second level that would cascade every entry once anyway. A 10 ms tick
 * bounds lateness to 10 ms plus the sweep interval, far below any flow
 * timeout, and keeps the current bucket small at 1M new flows per second.
 *
 * Everything the wheel will ever use is allocated here, on the configured
 * socket: the entry slab (an rte_mempool, twheel_slab.c), the bucket lists
 * and chunks (twheel_bucket.c), the remote ring (twheel_remote.c). A failure
 * half-way releases what was taken, so the name can be used again.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_mempool.h>

#include "twheel_atomic.h"
#include "twheel_bucket.h"
#include "twheel_layout.h"
#include "twheel_log.h"
#include "twheel_name.h"
#include "twheel_registry.h"
#include "twheel_remote.h"
#include "twheel_slab.h"
#include "twheel_time.h"

RTE_LOG_REGISTER(twheel_logtype, lib.twheel, INFO);

#define TWHEEL_STD_TICK_HZ 100          /* 10 ms ticks */
#define TWHEEL_STD_SLOTS 8192
#define TWHEEL_STD_RING 4096
#define TWHEEL_RING_SIZE_MAX (1u << 24)

void
twheel_config_standard(struct twheel_config *cfg, const char *name,
		       uint32_t capacity, int socket_id)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = name;
	cfg->socket_id = socket_id;
	cfg->capacity = capacity;
	cfg->slots = TWHEEL_STD_SLOTS;
	cfg->tick_cycles = rte_get_tsc_hz() / TWHEEL_STD_TICK_HZ;
	cfg->remote_ring_size = TWHEEL_STD_RING;
}

static int
config_check(const struct twheel_config *cfg)
{
	size_t len;

	if (cfg == NULL) {
		TWHEEL_LOG(ERR, "create: config is NULL");
		return -EINVAL;
	}
	if (cfg->name == NULL || cfg->name[0] == '\0') {
		TWHEEL_LOG(ERR, "create: a wheel needs a non-empty name");
		return -EINVAL;
	}
	len = strnlen(cfg->name, TWHEEL_NAME_MAX_LEN + 1);
	if (len > TWHEEL_NAME_MAX_LEN) {
		TWHEEL_LOG(ERR, "create: name '%.*s...' longer than %d characters",
			   TWHEEL_NAME_MAX_LEN, cfg->name, TWHEEL_NAME_MAX_LEN);
		return -ENAMETOOLONG;
	}
	if (strchr(cfg->name, ',') != NULL) {
		TWHEEL_LOG(ERR, "create %s: a name may not contain ',' (telemetry parameter separator)",
			   cfg->name);
		return -EINVAL;
	}
	if (cfg->capacity == 0 || cfg->capacity > TWHEEL_CAPACITY_MAX) {
		TWHEEL_LOG(ERR, "create %s: capacity %u not in 1..%u",
			   cfg->name, cfg->capacity, TWHEEL_CAPACITY_MAX);
		return -EINVAL;
	}
	if (cfg->slots < 2 || cfg->slots > TWHEEL_SLOTS_MAX ||
	    !rte_is_power_of_2(cfg->slots)) {
		TWHEEL_LOG(ERR, "create %s: slots %u must be a power of two in 2..%u",
			   cfg->name, cfg->slots, TWHEEL_SLOTS_MAX);
		return -EINVAL;
	}
	if (cfg->tick_cycles == 0) {
		TWHEEL_LOG(ERR, "create %s: tick_cycles must be > 0 (was rte_get_tsc_hz() 0, before EAL init?)",
			   cfg->name);
		return -EINVAL;
	}
	if (cfg->remote_ring_size > TWHEEL_RING_SIZE_MAX) {
		TWHEEL_LOG(ERR, "create %s: remote_ring_size %u larger than %u",
			   cfg->name, cfg->remote_ring_size, TWHEEL_RING_SIZE_MAX);
		return -EINVAL;
	}
	if (cfg->socket_id != SOCKET_ID_ANY &&
	    (cfg->socket_id < 0 || cfg->socket_id >= RTE_MAX_NUMA_NODES)) {
		TWHEEL_LOG(ERR, "create %s: socket_id %d is neither SOCKET_ID_ANY nor 0..%d",
			   cfg->name, cfg->socket_id, RTE_MAX_NUMA_NODES - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * Id salts: even, so generations keep their parity (twheel_id.h), and
 * different for every wheel this process creates: 2 * (base + k * 2^32/phi)
 * for the k-th wheel. Two wheels' ids only meet where the generations of
 * one slot differ by exactly the salts' difference; the golden-ratio step
 * makes that about 2^30 (2^29 reuses of the slot) for wheels created one
 * after the other, and in the order of 2^31 / n for wheels n creations
 * apart. The base is the TSC at load time, so the wheels of another
 * process, or of this program's next run, get other salts too.
 */
static uint32_t salt_base;
static uint32_t salt_seq;

RTE_INIT(twheel_salt_init)
{
	salt_base = (uint32_t)rte_rdtsc() ^ (uint32_t)(rte_rdtsc() >> 32);
}

static uint32_t
salt_next(void)
{
	uint32_t k = twheel_atomic_add(&salt_seq, 1);

	return 2 * (salt_base + k * UINT32_C(0x9e3779b9));
}

static void
set_tick(struct twheel *w, uint64_t tick_cycles)
{
	w->tick_cycles = tick_cycles;
	w->rotation_cycles = tick_cycles > UINT64_MAX / w->slots ? UINT64_MAX :
		tick_cycles * w->slots;
	if (rte_is_power_of_2(tick_cycles)) {
		w->tick_shift = (uint8_t)__builtin_ctzll(tick_cycles);
	} else {
		w->tick_shift = 0xff;
		w->tick_div = rte_reciprocal_value_u64(tick_cycles);
	}
}

/* Objects must lie back to back from the slab's base, in index order. */
struct slab_layout_check {
	const struct twheel_slab *s;
	uint32_t next;
	bool ok;
};

static void
slab_layout_check_obj(struct rte_mempool *mp __rte_unused, void *arg,
		      void *obj, unsigned int idx __rte_unused)
{
	struct slab_layout_check *c = arg;

	if ((uint8_t *)obj != c->s->base + (size_t)c->next * c->s->stride)
		c->ok = false;
	c->next++;
}

static int
slab_create(struct twheel *w)
{
	char mp_name[RTE_MEMPOOL_NAMESIZE];
	struct slab_layout_check check;
	struct twheel_slab *s;
	struct rte_mempool *mp;
	int ret;

	/* 24 bytes behind the 24-byte object header: a stride of 48 */
	RTE_BUILD_BUG_ON(sizeof(struct twheel_entry) != 24);
	twheel_object_name(mp_name, sizeof(mp_name), "TW", w->name);
	mp = rte_mempool_create_empty(mp_name, w->capacity,
			sizeof(struct twheel_entry), 0, 0, w->socket_id,
			RTE_MEMPOOL_F_NO_CACHE_ALIGN | RTE_MEMPOOL_F_NO_SPREAD |
			RTE_MEMPOOL_F_NO_IOVA_CONTIG |
			RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	if (mp == NULL) {
		ret = -rte_errno;
		TWHEEL_LOG(ERR, "create %s: mempool %s: %s", w->name, mp_name,
			   rte_strerror(rte_errno));
		return ret;
	}
	w->mp = mp;
	ret = rte_mempool_set_ops_byname(mp, twheel_slab_ops_name, NULL);
	if (ret != 0) {
		TWHEEL_LOG(ERR, "create %s: mempool ops %s: %s", w->name,
			   twheel_slab_ops_name, rte_strerror(-ret));
		return ret;
	}
	ret = rte_mempool_populate_default(mp);
	if (ret < 0 || (uint32_t)ret != w->capacity) {
		TWHEEL_LOG(ERR, "create %s: cannot get %zu bytes in one piece on socket %d for %u entries",
			   w->name, (size_t)(mp->header_size + mp->elt_size +
			   mp->trailer_size) * w->capacity, w->socket_id,
			   w->capacity);
		return -ENOMEM;
	}
	s = mp->pool_data;
	check = (struct slab_layout_check){ .s = s, .next = 0, .ok = true };
	rte_mempool_obj_iter(mp, slab_layout_check_obj, &check);
	if (!check.ok || check.next != w->capacity) {
		TWHEEL_LOG(ERR, "create %s: mempool objects are not laid out back to back",
			   w->name);
		return -ENOMEM;
	}

	w->slab = s;
	w->slab_base = s->base;
	w->stride = s->stride;
	return 0;
}

static void
wheel_release(struct twheel *w)
{
	twheel_remote_free(w);
	twheel_slab_disown(w);
	twheel_lists_free(w);
	rte_mempool_free(w->mp);
	rte_free(w);
}

struct twheel *
twheel_create(const struct twheel_config *cfg)
{
	struct twheel *w;
	int socket;
	int ret;

	ret = config_check(cfg);
	if (ret != 0)
		goto fail;
	if (twheel_slab_ops_ready() != 0) {
		TWHEEL_LOG(ERR, "create %s: mempool driver %s is not registered (ops table full?)",
			   cfg->name, twheel_slab_ops_name);
		ret = -ENOTSUP;
		goto fail;
	}
	if (twheel_registry_has(cfg->name)) {
		TWHEEL_LOG(ERR, "create %s: a wheel with this name exists", cfg->name);
		ret = -EEXIST;
		goto fail;
	}

	socket = cfg->socket_id;
	w = rte_zmalloc_socket("twheel", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
	if (w == NULL) {
		TWHEEL_LOG(ERR, "create %s: no memory for the wheel on socket %d",
			   cfg->name, socket);
		ret = -ENOMEM;
		goto fail;
	}
	strlcpy(w->name, cfg->name, sizeof(w->name));
	w->socket_id = socket;
	w->capacity = cfg->capacity;
	w->slots = cfg->slots;
	w->mask = cfg->slots - 1;
	set_tick(w, cfg->tick_cycles);
	w->end_tick = twheel_tick(w, UINT64_MAX) + 1;
	w->deadline_fn = cfg->deadline_fn;
	w->deadline_arg = cfg->deadline_arg;
	w->adopt_fn = cfg->adopt_fn;
	w->adopt_arg = cfg->adopt_arg;
	w->cursor = 0;
	w->now = 0;
	w->salt = salt_next();

	ret = slab_create(w);
	if (ret != 0)
		goto fail_wheel;
	ret = twheel_lists_init(w);
	if (ret != 0) {
		TWHEEL_LOG(ERR, "create %s: no memory for %u buckets on socket %d",
			   w->name, w->slots, socket);
		goto fail_wheel;
	}
	twheel_slab_adopt(w);
	if (cfg->remote_ring_size != 0) {
		ret = twheel_remote_init(w, cfg->remote_ring_size);
		if (ret != 0)
			goto fail_wheel;
	}
	twheel_telemetry_register();
	ret = twheel_registry_add(w);
	if (ret != 0) {
		TWHEEL_LOG(ERR, "create %s: a wheel with this name exists", w->name);
		goto fail_wheel;
	}
	TWHEEL_LOG(DEBUG, "created %s: %u entries, %u slots x %" PRIu64 " cycles, ring %u, socket %d",
		   w->name, w->capacity, w->slots, w->tick_cycles,
		   cfg->remote_ring_size, socket);
	return w;

fail_wheel:
	wheel_release(w);
fail:
	rte_errno = -ret;
	return NULL;
}

void
twheel_free(struct twheel *w)
{
	if (w == NULL)
		return;
	twheel_registry_remove(w);
	if (w->st.live != 0)
		TWHEEL_LOG(DEBUG, "free %s: %" PRIu64 " live entries dropped",
			   w->name, w->st.live);
	wheel_release(w);
}

const char *
twheel_name(const struct twheel *w)
{
	return w->name;
}
