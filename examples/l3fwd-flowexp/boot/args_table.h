/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The option table (boot/args_table.c): every option of the example, one
 * row each (boot/args_opt.h), in the order of the usage text, with the
 * parsers of the structured values and the defaults.
 */

#ifndef _FX_ARGS_TABLE_H_
#define _FX_ARGS_TABLE_H_

#include "boot/args_opt.h"

/** The table, in usage order, and its length (boot/args_table.c). */
extern const struct fx_opt fx_opts[];
extern const unsigned int fx_nb_opts;

/** Set every option's default (before parsing). */
void fx_args_defaults(void);

#endif /* _FX_ARGS_TABLE_H_ */
