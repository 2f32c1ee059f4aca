/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The units of the statistics' outputs (base/counter.h): cycles shown as
 * microseconds, and numbers short enough for a table column.
 */

#include <stdio.h>

#include <rte_cycles.h>

#include "base/counter.h"

uint64_t
fx_cycles_us(uint64_t cycles)
{
	return (uint64_t)((double)cycles * 1e6 / (double)rte_get_tsc_hz());
}

const char *
fx_human(double v, char *buf, size_t len)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}
