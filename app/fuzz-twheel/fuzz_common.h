/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * What every libFuzzer harness here shares (fuzz_twheel.c,
 * examples/l3fwd-flowexp/fuzz/fuzz_flowexp.c): the libFuzzer entry points,
 * a cursor that decodes an input of any length (past its end every read is
 * 0), and the EAL's release at exit.
 */

#ifndef _FUZZ_COMMON_H_
#define _FUZZ_COMMON_H_

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A cursor over the input; past its end every read is 0. */
struct reader {
	const uint8_t *p;
	size_t left;
};

/* The next `bytes` bytes (at most 8), little-endian. */
static inline uint64_t
take(struct reader *r, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes && r->left != 0; i++, r->left--)
		v |= (uint64_t)*r->p++ << (8 * i);
	return v;
}

/* At exit (atexit): release the EAL and remove this process's (empty)
 * runtime dir. */
static inline void
fuzz_eal_done(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(dir);
}

#endif /* _FUZZ_COMMON_H_ */
