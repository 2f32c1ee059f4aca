/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Start-up and shutdown of the workers' state (boot/setup.c): main lcore only,
 * before the workers are launched and after they have stopped.
 */

#ifndef _FX_SETUP_H_
#define _FX_SETUP_H_

/** The tables' hash secret, --hash-secret or getrandom; before any table. */
void fx_setup_secret(void);

/** One context per worker lcore of --config, with its rx queues. */
void fx_setup_lcores(void);

/** NAT's port shares among the workers (fx_check_args() checked them), --clock. */
void fx_setup_nat_and_clock(void);

/** Per worker: flow table, quota, TCP connections, eviction, expiry, NAT. */
void fx_setup_flow_state(void);

/** --nat-log: every worker's event ring, the exporter's socket. */
void fx_setup_nat_log(void);

/** The rings between the workers, for --affinity handoff or auto. */
void fx_setup_handoff(void);

/**
 * With addresses on a port (after fx_neigh_init()): each worker's ring to
 * the main lcore, its pointer in the worker's context.
 */
void fx_setup_slow_path(void);

/** Free the rings to the main lcore and the packets left in them. */
void fx_free_slow_path(void);

/** Free the handoff rings; packets left in them count as dropped. */
void fx_free_handoff(void);

/** Free what fx_setup_flow_state() made. */
void fx_free_flow_state(void);

#endif /* _FX_SETUP_H_ */
