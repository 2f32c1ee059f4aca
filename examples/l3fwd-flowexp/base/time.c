/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The packets' capture times (base/time.h): the rx timestamp field net_pcap
 * fills, found at start-up.
 */

#include <rte_cycles.h>
#include <rte_errno.h>

#include "base/time.h"

int fx_clock_ts_offset = -1;
uint64_t fx_clock_ts_flag;
uint64_t fx_clock_hz;

int
fx_clock_init(enum fx_clock_src src)
{
	fx_clock_hz = rte_get_tsc_hz();
	if (src != FX_CLOCK_PCAP)
		return 0;
	/* the same field and flag net_pcap registered at probe */
	if (rte_mbuf_dyn_rx_timestamp_register(&fx_clock_ts_offset,
					       &fx_clock_ts_flag) != 0)
		return -rte_errno;
	return 0;
}
