/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Telemetry commands under /l3fwd_flowexp/ (ctl/telemetry.c lists them).
 */

#ifndef _FX_TELEMETRY_H_
#define _FX_TELEMETRY_H_

/** Register the commands; after rte_eal_init(). */
void fx_telemetry_register(void);

/**
 * Shutdown: wait for a statistics command in progress and make later ones
 * fail, so what they read can be freed. Main lcore.
 */
void fx_telemetry_stop(void);

#endif /* _FX_TELEMETRY_H_ */
