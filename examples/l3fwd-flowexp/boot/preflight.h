/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Start-up checks with numbers: memory per socket, NUMA placement, the
 * wheel's rotation against the timeouts, next hops, ARP for the NAT pool
 * (boot/preflight.c).
 */

#ifndef _FX_PREFLIGHT_H_
#define _FX_PREFLIGHT_H_

/** A timeout of more wheel rotations than this is warned about. */
#define FX_REVISIT_WARN 128u

/**
 * After fx_check_args() and the lcores (fx_workers[]), before any table is
 * allocated: warn about placement, timeouts, next hops and ARP for the
 * NAT pool (stderr), print the memory estimate of each socket, and refuse
 * a run that does not fit.
 * argc, argv: the whole command line, for EAL's memory options.
 * @return 0, or -1 after printing on stderr what each socket needs and has.
 */
int fx_preflight(int argc, char **argv);

#endif /* _FX_PREFLIGHT_H_ */
