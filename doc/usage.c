/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The README's usage example as a complete program: flows with lazy
 * deadlines on one lcore's wheel, and at shutdown the flows still live
 * handed back by twheel_drain_more() (experimental: the program opts in).
 * Built against the installed library by scripts/check-install.sh
 * (pkg-config --cflags --libs libtwheel, warnings as errors).
 */

/* twheel_drain_more() is of the experimental tier (doc/guide.md) */
#define TWHEEL_ALLOW_EXPERIMENTAL_API

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>

#include <twheel.h>

#define NB_FLOWS 1000
#define NB_KEPT 10                              /* live at shutdown */

struct flow {
	uint64_t expires;       /* the lazy deadline: refreshed by a store */
	twheel_id_t timer;
};

static uint64_t
flow_deadline(void *p, void *arg)
{
	(void)arg;
	return ((struct flow *)p)->expires;
}

int
main(int argc, char **argv)
{
	static struct flow flows[NB_FLOWS];
	struct twheel_fired out[256];
	struct twheel_config cfg;
	struct twheel *w;
	uint64_t hz, start, ttl, expired = 0, drained = 0;
	unsigned int i, n;
	bool more;

	if (rte_eal_init(argc, argv) < 0)
		return 1;
	hz = rte_get_tsc_hz();
	ttl = hz / 20;                                  /* 50 ms */

	twheel_config_standard(&cfg, "usage", NB_FLOWS, rte_socket_id());
	cfg.deadline_fn = flow_deadline;                /* lazy deadlines */
	w = twheel_create(&cfg);                        /* all memory, once */
	if (w == NULL)
		return 1;

	start = rte_rdtsc();
	for (i = 0; i < NB_FLOWS; i++) {                /* new flows */
		flows[i].expires = start + ttl;
		flows[i].timer = twheel_schedule(w, flows[i].expires, &flows[i]);
	}
	for (i = 0; i < NB_FLOWS; i += 2)               /* packet hits */
		flows[i].expires = start + 2 * ttl;     /* the wheel is untouched */
	for (i = 0; i < NB_KEPT; i++)                   /* busy until shutdown */
		flows[i].expires = UINT64_MAX;

	while (expired < NB_FLOWS - NB_KEPT) {          /* each loop */
		uint64_t now = rte_rdtsc();

		n = twheel_sweep(w, now, 256, out);
		for (i = 0; i < n; i++) {
			struct flow *f = out[i].payload;

			if (out[i].reason != TWHEEL_DUE || f->expires > now)
				return 1;                       /* never early */
			f->timer = TWHEEL_ID_INVALID;   /* delete the flow */
		}
		expired += n;
		if (now - start > 10 * hz)
			return 1;
	}
	printf("usage: %u flows expired after %.0f ms\n", NB_FLOWS - NB_KEPT,
	       (double)(rte_rdtsc() - start) * 1000 / hz);

	do {                                            /* shutdown */
		n = twheel_drain_more(w, 4, out, &more);
		for (i = 0; i < n; i++)
			((struct flow *)out[i].payload)->timer = TWHEEL_ID_INVALID;
		drained += n;
	} while (more);                                 /* stopped at its budget */
	if (drained != NB_KEPT)
		return 1;
	printf("usage: %u flows handed back at shutdown\n", NB_KEPT);
	twheel_free(w);
	rte_eal_cleanup();
	return 0;
}
