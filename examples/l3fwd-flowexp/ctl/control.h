/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The control path: what other threads ask of the workers.
 *
 * Requests come from the telemetry thread (ctl/telemetry.c) and are carried
 * out on the main lcore, one at a time:
 *   flush PREFIX        - every flow with an endpoint in PREFIX, and every
 *                         NAT mapping whose inside host is in it, on every
 *                         worker, is invalidated;
 *   route add/del       - the route table is replaced (l3/route.c), then the
 *                         flows with an endpoint in the changed prefix are
 *                         flushed, so they resolve their route again;
 *   routes              - the current rule list;
 *   neigh PORT FROM     - a copy of up to FX_CTL_NEIGH_MAX of the port's
 *                         neighbour entries, from the FROM-th (l3/neigh.c
 *                         owns them).
 * A flush reads each worker's flow slab with ft_snapshot() and its mapping
 * records with nat_table_snapshot() (no lock: rte_seqcount, see
 * flow/table.h) and sends each match to its owner: a flow's (slot, expiry_id)
 * through the back-end (twheel_remote_cancel() for twheel, the table's
 * request ring for the baselines), a mapping's wheel id through
 * twheel_remote_cancel(). A full ring (-ENOBUFS) is counted, and that
 * walk resumes at the same record on a later poll, so nothing is skipped.
 *
 * Two writers need no hand-over, as they only post a value each worker
 * reads at its own pace: a reset of the maxima (a count each worker
 * compares with the last one it acted on, worker/loop.h) and, with --bench, a
 * hold of the expiry polls (a TSC time, worker/bench.h). Any thread may call them.
 */

#ifndef _FX_CONTROL_H_
#define _FX_CONTROL_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_config.h>

#include "base/config.h"
#include "base/counter.h"
#include "l3/neigh.h"

enum fx_ctl_type {
	FX_CTL_FLUSH,
	FX_CTL_ROUTE_ADD,
	FX_CTL_ROUTE_DEL,
	FX_CTL_ROUTES,
	FX_CTL_NEIGH,
};

#define FX_CTL_ROUTES_MAX 64
#define FX_CTL_NEIGH_MAX 64

/** One request and, once done, its result. */
struct fx_ctl_req {
	enum fx_ctl_type type;
	struct fx_route_rule rule;        /**< prefix; port for ROUTE_ADD */
	int rc;                           /**< 0 or a negative errno */
	uint64_t matched[RTE_MAX_LCORE];  /**< flows matched, by worker index */
	uint64_t sent;                    /**< invalidations queued */
	uint64_t enobufs;                 /**< sends that found the ring full */
	uint32_t nb_routes;               /**< ROUTES: rules copied */
	struct fx_route_rule routes[FX_CTL_ROUTES_MAX];
	uint16_t port;                    /**< NEIGH: the port */
	uint32_t from;                    /**< NEIGH: the first entry to copy */
	uint32_t nb_neigh;                /**< NEIGH: entries copied */
	uint32_t neigh_total;             /**< NEIGH: the port's entries */
	struct fx_neigh_snap neigh[FX_CTL_NEIGH_MAX];
	uint32_t state;                   /**< internal: pending, done, abandoned */
};

/** Create the request ring. 0 or -errno. */
int fx_control_init(void);

/** Main lcore: take requests and advance the current one. */
void fx_control_poll(void);

/** Main lcore: whether a request is being carried out (poll sooner). */
bool fx_control_busy(void);

/** Main lcore at shutdown: finish what is queued with -ESHUTDOWN. */
void fx_control_fini(void);

/**
 * Any thread but the main lcore: queue a request and wait (up to 30 s) for
 * its result, which is copied back into *req.
 * @return 0 with req->rc set, -EBUSY if the queue is full, -ETIMEDOUT,
 *   -ESHUTDOWN once the application is stopping.
 */
int fx_control_call(struct fx_ctl_req *req);

/** Add the control-path counters to the statistics. Any thread. */
void fx_control_emit(const struct fx_emitter *e, void *ctx);

/** Ask every worker to reset its maxima and lag figures. Any thread. */
void fx_control_reset_maxima(void);

/**
 * How many reset requests there were, and the TSC of the last one (a
 * worker acts on it at its next loop iteration). Any thread.
 */
void fx_control_reset_info(uint64_t *n, uint64_t *tsc);

/**
 * --bench: make every worker skip its expiry polls for ms milliseconds
 * (forwarding goes on), so that what comes due meanwhile is due all at
 * once when the hold ends: the benchmark's expiry storm. Any thread.
 */
void fx_control_hold_expiry(unsigned int ms);

#endif /* _FX_CONTROL_H_ */
