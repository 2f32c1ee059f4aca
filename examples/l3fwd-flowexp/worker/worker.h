/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The worker lcore's loop (worker/worker.c).
 */

#ifndef _FX_WORKER_H_
#define _FX_WORKER_H_

#include <stdint.h>

/** rte_eal_mp_remote_launch() entry: runs until fx_force_quit, then drains. */
int fx_worker_main(void *arg);

/**
 * The TSC of the last packet any worker received (0: none yet). Any
 * thread: the workers' --clock pcap idle check, the main lcore's
 * --exit-when-drained.
 */
uint64_t fx_workers_last_rx(void);

#endif /* _FX_WORKER_H_ */
