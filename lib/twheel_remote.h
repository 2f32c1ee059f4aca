/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The remote ring's life cycle and its consumer side (twheel_remote.c):
 * made by twheel_create(), emptied by the owner at the start of each sweep
 * and drain, inside their budget.
 */

#ifndef _TWHEEL_REMOTE_H_
#define _TWHEEL_REMOTE_H_

#include <stddef.h>
#include <stdint.h>

#include "twheel.h"

int twheel_remote_init(struct twheel *w, uint32_t ring_size);
void twheel_remote_free(struct twheel *w);
size_t twheel_remote_bytes(const struct twheel *w);
/*
 * Apply up to max_msgs messages, each one unit of the caller's budget and
 * at most one record at out[*nb_out]. Returns messages applied.
 */
unsigned int twheel_remote_apply(struct twheel *w, unsigned int max_msgs,
				 struct twheel_fired *out, unsigned int *nb_out);

#endif /* _TWHEEL_REMOTE_H_ */
