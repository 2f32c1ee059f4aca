/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The worker lcore's loop (worker/worker.c).
 */

#ifndef _FX_WORKER_H_
#define _FX_WORKER_H_

/** rte_eal_mp_remote_launch() entry: runs until fx_force_quit, then drains. */
int fx_worker_main(void *arg);

#endif /* _FX_WORKER_H_ */
