/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT event logging, the worker's side (nat/log/events.h has the design): each
 * worker's ring, the records of its events, the limit on refusal events,
 * and the push that never waits while the worker forwards.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "base/counter.h"
#include "nat/log/events.h"
#include "nat/log/ipfix.h"
#include "nat/table.h"

int
nat_log_init(struct nat_log **out, struct nat_log_stats *st, unsigned int lcore_id,
	     uint32_t size, int socket)
{
	uint64_t hz = rte_get_tsc_hz();
	struct nat_log *lg;
	char name[RTE_RING_NAMESIZE];

	lg = rte_zmalloc_socket("nat_log", sizeof(*lg), RTE_CACHE_LINE_SIZE, socket);
	if (lg == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "natlog%u", lcore_id);
	lg->ring = rte_ring_create_elem(name, sizeof(struct ipfix_nat_event), size,
					socket, RING_F_SP_ENQ | RING_F_SC_DEQ |
					RING_F_EXACT_SZ);
	if (lg->ring == NULL) {
		rte_free(lg);
		return -rte_errno;
	}
	lg->refusal_gap = hz / NAT_LOG_REFUSAL_RATE;
	lg->refusal_slack = (NAT_LOG_REFUSAL_BURST - 1) * lg->refusal_gap;
	lg->exit_wait = hz / 1000 * NAT_LOG_EXIT_WAIT_MS;
	lg->st = st;
	*out = lg;
	return 0;
}

void
nat_log_fini(struct nat_log **lg)
{
	if (*lg == NULL)
		return;
	rte_ring_free((*lg)->ring);
	rte_free(*lg);
	*lg = NULL;
}

void
nat_log_push(struct nat_log *lg, struct ipfix_nat_event *ev)
{
	uint64_t until;

	if (likely(rte_ring_sp_enqueue_elem(lg->ring, ev, sizeof(*ev)) == 0)) {
		FX_STAT_ADD(lg->st, queued, 1);
		return;
	}
	if (unlikely(lg->at_exit)) {
		/* the loop has stopped and the main lcore drains: wait for room */
		until = rte_rdtsc() + lg->exit_wait;
		do {
			rte_pause();
			if (rte_ring_sp_enqueue_elem(lg->ring, ev, sizeof(*ev)) == 0) {
				FX_STAT_ADD(lg->st, queued, 1);
				return;
			}
		} while (rte_rdtsc() < until);
		lg->at_exit = false;   /* nobody drains: drop the rest at once */
	}
	FX_STAT_ADD(lg->st, dropped, 1);
}

/* an event of an inside endpoint and its public one at t, into ev */
static void
endpoints(struct ipfix_nat_event *ev, uint8_t event, uint64_t t, uint32_t in_addr,
	  uint16_t in_port, uint32_t pub_addr, uint16_t pub_port, uint8_t proto)
{
	memset(ev, 0, sizeof(*ev));
	ev->time = t;
	ev->event = event;
	ev->in_addr = in_addr;
	ev->in_port = in_port;
	ev->pub_addr = pub_addr;
	ev->pub_port = pub_port;
	ev->proto = proto;
}

void
nat_log_session(struct nat_log *lg, uint8_t event, const struct nat_mapping *m,
		uint64_t t)
{
	struct ipfix_nat_event ev;

	endpoints(&ev, event, t, m->in_addr, m->in_port, m->pub_addr, m->pub_port,
		  m->proto);
	ev.rem_addr = m->rem_addr;
	/* an echo's identifier takes both port places of the mapping */
	ev.rem_port = m->proto == IPPROTO_ICMP ? 0 : m->rem_port;
	nat_log_push(lg, &ev);
}

void
nat_log_bib(struct nat_log *lg, uint8_t event, const struct nat_mapping *m,
	    uint64_t t)
{
	struct ipfix_nat_event ev;

	/* the binding's endpoints, which its sessions share: no remote */
	endpoints(&ev, event, t, m->in_addr, m->in_port, m->pub_addr, m->pub_port,
		  m->proto);
	nat_log_push(lg, &ev);
}

void
nat_log_refusal(struct nat_log *lg, enum nat_log_refusal why, uint32_t limit,
		const struct nat_key *k, uint32_t pub_addr, uint64_t t)
{
	struct ipfix_nat_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time = t;
	ev.in_addr = k->src;
	ev.in_port = k->sport;
	ev.pub_addr = pub_addr;
	ev.rem_addr = k->dst;
	ev.rem_port = k->proto == IPPROTO_ICMP ? 0 : k->dport;
	ev.proto = k->proto;
	if (why == NAT_LOG_NO_PORT) {
		ev.event = IPFIX_NAT_PORTS_EXHAUSTED;
	} else {
		ev.event = IPFIX_NAT_QUOTA_EXCEEDED;
		ev.quota = why == NAT_LOG_TABLE_FULL ? IPFIX_QUOTA_MAX_SESSIONS :
			IPFIX_QUOTA_MAX_PER_USER;
		ev.limit = limit;
	}
	nat_log_push(lg, &ev);
}

void
nat_log_block(struct nat_log *lg, bool alloc, uint32_t in_addr, uint32_t pub_addr,
	      uint8_t proto, uint16_t lo, uint16_t hi, uint64_t t)
{
	struct ipfix_nat_event ev;

	if (lg == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.time = t;
	ev.event = alloc ? IPFIX_NAT_PORT_BLOCK_ALLOC : IPFIX_NAT_PORT_BLOCK_DEALLOC;
	ev.in_addr = in_addr;
	ev.pub_addr = pub_addr;
	ev.proto = proto;
	ev.port_lo = lo;
	ev.port_hi = hi;
	nat_log_push(lg, &ev);
}
