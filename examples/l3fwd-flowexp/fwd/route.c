/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The route table the workers read (fwd/route.h) and the RCU variable
 * they report their quiescent states on; l3/route.c builds, publishes
 * and frees the tables.
 */

#include "fwd/route.h"

struct fx_route_table *fx_route_cur;
struct rte_rcu_qsbr *fx_route_rcu;
