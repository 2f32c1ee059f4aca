/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The library's log type, lib.twheel (registered in twheel_create.c). Only
 * the control path logs: create failures, one line each saying what was
 * wrong; the owner's functions never do.
 */

#ifndef _TWHEEL_LOG_H_
#define _TWHEEL_LOG_H_

#include <rte_log.h>

extern int twheel_logtype;
#define TWHEEL_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, twheel_logtype, "TWHEEL: " fmt "\n", ## __VA_ARGS__)

#endif /* _TWHEEL_LOG_H_ */
