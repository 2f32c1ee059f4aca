/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The affinity decision at start-up (boot/affinity.c): rss where the
 * ports can be made to keep both directions of a flow on one worker,
 * handoff otherwise; fwd/owner.h has what it decides and what the
 * workers read of it.
 */

#ifndef _FX_AFFINITY_H_
#define _FX_AFFINITY_H_

#include "fwd/owner.h"

/**
 * Decide the affinity of the run from --affinity, the workers and the
 * ports (started, with their RSS configured: boot/ports.c); under rss program
 * and verify every port's redirection table. Main lcore, before launch.
 * Exits with the reason when --affinity rss cannot be verified.
 */
void fx_affinity_decide(void);

#endif /* _FX_AFFINITY_H_ */
