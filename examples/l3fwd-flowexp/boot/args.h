/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Command line: l3fwd's options plus the flow-tracking, address and NAT
 * ones, parsed before EAL starts (boot/args.c, from the option table of
 * boot/args_table.c) and checked against it after (boot/args_check.c).
 */

#ifndef _FX_ARGS_H_
#define _FX_ARGS_H_

#include <stdbool.h>
#include <stdint.h>

/**
 * Before rte_eal_init(): parse the application's arguments (those after
 * the first "--" of the whole command line) into fx_conf, with the checks
 * that need nothing of EAL's. An application option before that "--"
 * (among EAL's) is an error that says where it goes.
 * @return 0; 1 after --help among them (usage printed on stdout); 2 when
 *   EAL's own --help or -h comes before "--" (rte_eal_init() prints EAL's
 *   usage and exits);
 *   -1 after printing the error (one line, then a pointer to --help) on
 *   stderr.
 */
int fx_parse_args(int argc, char **argv);

/**
 * After rte_eal_init(): the default --config and routes, and the checks
 * against EAL's lcores and the probed ports.
 * @return 0, or -1 after printing the error as fx_parse_args() does.
 */
int fx_check_args(void);

/**
 * Print the usage text (stdout), made from the option table. Each default
 * shown is the value the configuration holds: fx_parse_args() prints it
 * after setting the defaults and before parsing any option.
 */
void fx_usage(const char *prgname);

#endif /* _FX_ARGS_H_ */
