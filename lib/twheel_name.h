/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The names of a wheel's DPDK objects (mempool, ring): the prefix, the
 * length of the wheel's name, '_', the name ("TW3_x_0" for "x_0"). DPDK
 * derives memzone names by appending ("MP_<pool>", "MP_<pool>_<n>",
 * "RG_<ring>"); with the length up front no two wheel names, of any
 * characters, give the same string, as "TW_x" + "_0" and "TW_x_0" would.
 * twheel_slab_info_get() reports the mempool's name to applications.
 */

#ifndef _TWHEEL_NAME_H_
#define _TWHEEL_NAME_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "twheel.h"

static inline void
twheel_object_name(char *buf, size_t size, const char *prefix,
		   const char *name)
{
	/* the checker caps names at TWHEEL_NAME_MAX_LEN (20): two digits */
	uint8_t len = (uint8_t)strnlen(name, TWHEEL_NAME_MAX_LEN);

	snprintf(buf, size, "%s%u_%.*s", prefix, len, (int)len, name);
}

#endif /* _TWHEEL_NAME_H_ */
