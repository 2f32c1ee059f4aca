/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The start-up decision of NAT's steered port choice (boot/steer.c;
 * nat/steer.h has the design).
 */

#ifndef _FX_BOOT_STEER_H_
#define _FX_BOOT_STEER_H_

/**
 * With NAT on, after fx_affinity_decide(): steer replies where the
 * affinity and the reply ports allow, building every worker's class, and
 * log whether and why. Main lcore, before launch.
 */
void fx_nat_steer_decide(void);

#endif /* _FX_BOOT_STEER_H_ */
