/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The affinity the run uses (fwd/owner.h): written once by the decision
 * at start-up (boot/affinity.c), read-only after.
 */

#include <stdbool.h>
#include <stdint.h>

#include "fwd/owner.h"

enum fx_affinity_mode fx_affinity_mode = FX_AFF_SINGLE;
char fx_affinity_reason[224];
bool fx_handoff_active;
uint16_t fx_rss_owner[FX_RSS_RETA_MAX];
uint16_t fx_rss_reta_size = 1;

const char *
fx_affinity_name(enum fx_affinity_mode m)
{
	switch (m) {
	case FX_AFF_SINGLE:
		return "single";
	case FX_AFF_RSS:
		return "rss";
	case FX_AFF_HANDOFF:
		return "handoff";
	}
	return "?";
}
