/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Command line: l3fwd's options plus the flow-tracking ones.
 */

#ifndef _FX_ARGS_H_
#define _FX_ARGS_H_

/**
 * Parse the application arguments (after EAL's) into fx_conf and check
 * them against the EAL lcores and the probed ports.
 * @return 0; 1 after --help (usage printed); -1 after printing what is
 *   wrong and the usage text.
 */
int fx_parse_args(int argc, char **argv);

/** Print the usage text. */
void fx_usage(const char *prgname);

#endif /* _FX_ARGS_H_ */
