/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The worker loop's steps one at a time (worker/worker.c), for a caller that
 * brings its own bursts and clock instead of rx queues and the TSC: the
 * packet-path fuzzer (test/fuzz/fuzz_flowexp.c). The worker lcores themselves
 * run fx_worker_main() only. Owner: the calling thread acts as lc's worker.
 */

#ifndef _FX_WORKER_STEPS_H_
#define _FX_WORKER_STEPS_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

struct fx_lcore;
struct fx_route_table;

/**
 * Step 3 for one burst received on in_port at lc->now: parse, keep what
 * this worker owns, translate, track, forward (into the tx buffers).
 */
void fx_worker_rx_burst(struct fx_lcore *lc, const struct fx_route_table *rt,
			uint16_t in_port, struct rte_mbuf **pkts, uint16_t n);

/** Step 4: send what is buffered per port; got: packets this iteration. */
void fx_worker_tx(struct fx_lcore *lc, unsigned int got);

/**
 * Steps 5 to 8 at time tsc (TSC cycles): the expiry poll, the loop's
 * accounting, the quiescent state; all: every queue was polled.
 */
void fx_worker_loop_end(struct fx_lcore *lc, uint64_t tsc, unsigned int got,
			bool all);

/**
 * One expiry poll of the flows and NAT's mappings at lc->now (step 6
 * without its timing). Returns whether more may be due at lc->now.
 */
bool fx_worker_expire(struct fx_lcore *lc);

/** At exit: end every mapping, hand back every flow, send what is left. */
void fx_worker_drain(struct fx_lcore *lc);

#endif /* _FX_WORKER_STEPS_H_ */
