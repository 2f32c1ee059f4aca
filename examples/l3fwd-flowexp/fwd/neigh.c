/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The storage of what the workers read of the neighbours and of the
 * gateway's addresses (fwd/neigh.h). It lives beside the workers'
 * code that reads it rather than with the main lcore's that writes it
 * (l3/neigh.c, l3/route.c), so that fwd/ depends on nothing above it.
 * No code here: the writers' orderings are described in the header.
 */

#include "fwd/neigh.h"

struct fx_l3_fast fx_l3;
struct fx_neigh_pub *fx_neigh_pub;
