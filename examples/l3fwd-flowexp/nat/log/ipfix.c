/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The IPFIX encoder (nat/log/ipfix.h has the templates and the message layout):
 * the template set written from one table per template, each data record
 * written field by field in its template's order, big-endian.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nat/log/ipfix.h"

/* information element IDs (IANA IPFIX registry) */
enum {
	IE_PROTO = 4,
	IE_SRC_PORT = 7,
	IE_SRC_ADDR = 8,
	IE_DST_PORT = 11,
	IE_DST_ADDR = 12,
	IE_POST_NAT_SRC_ADDR = 225,
	IE_POST_NAPT_SRC_PORT = 227,
	IE_NAT_EVENT = 230,
	IE_NAT_POOL_ID = 283,
	IE_OBS_TIME_MS = 323,
	IE_PORT_RANGE_START = 361,
	IE_PORT_RANGE_END = 362,
	IE_PORT_RANGE_STEP = 363,
	IE_PORT_RANGE_NUM = 364,
	IE_QUOTA_EVENT = 466,
	IE_MAX_SESSIONS = 471,
	IE_MAX_PER_USER = 473,
};

struct field {
	uint16_t ie;
	uint16_t len;
};

struct tmpl {
	uint16_t id;
	uint16_t nb;
	uint16_t rec_len;
	struct field f[12];
};

static const struct tmpl tmpls[] = {
	{ IPFIX_TMPL_SESSION, 9, IPFIX_SESSION_LEN, {
		{ IE_OBS_TIME_MS, 8 }, { IE_NAT_EVENT, 1 },
		{ IE_SRC_ADDR, 4 }, { IE_SRC_PORT, 2 },
		{ IE_POST_NAT_SRC_ADDR, 4 }, { IE_POST_NAPT_SRC_PORT, 2 },
		{ IE_DST_ADDR, 4 }, { IE_DST_PORT, 2 }, { IE_PROTO, 1 } } },
	{ IPFIX_TMPL_BLOCK, 9, IPFIX_BLOCK_LEN, {
		{ IE_OBS_TIME_MS, 8 }, { IE_NAT_EVENT, 1 },
		{ IE_SRC_ADDR, 4 }, { IE_POST_NAT_SRC_ADDR, 4 }, { IE_PROTO, 1 },
		{ IE_PORT_RANGE_START, 2 }, { IE_PORT_RANGE_END, 2 },
		{ IE_PORT_RANGE_STEP, 2 }, { IE_PORT_RANGE_NUM, 2 } } },
	{ IPFIX_TMPL_LIMIT, 12, IPFIX_LIMIT_LEN, {
		{ IE_OBS_TIME_MS, 8 }, { IE_NAT_EVENT, 1 }, { IE_QUOTA_EVENT, 4 },
		{ IE_SRC_ADDR, 4 }, { IE_SRC_PORT, 2 },
		{ IE_POST_NAT_SRC_ADDR, 4 },
		{ IE_DST_ADDR, 4 }, { IE_DST_PORT, 2 }, { IE_PROTO, 1 },
		{ IE_MAX_SESSIONS, 4 }, { IE_MAX_PER_USER, 4 },
		{ IE_NAT_POOL_ID, 4 } } },
	{ IPFIX_TMPL_BIB, 7, IPFIX_BIB_LEN, {
		{ IE_OBS_TIME_MS, 8 }, { IE_NAT_EVENT, 1 },
		{ IE_SRC_ADDR, 4 }, { IE_SRC_PORT, 2 },
		{ IE_POST_NAT_SRC_ADDR, 4 }, { IE_POST_NAPT_SRC_PORT, 2 },
		{ IE_PROTO, 1 } } },
};

#define NB_TMPLS (sizeof(tmpls) / sizeof(tmpls[0]))

/* big-endian writers; each returns the next byte */
static inline uint8_t *
put8(uint8_t *p, uint8_t v)
{
	*p = v;
	return p + 1;
}

static inline uint8_t *
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static inline uint8_t *
put32(uint8_t *p, uint32_t v)
{
	p = put16(p, (uint16_t)(v >> 16));
	return put16(p, (uint16_t)v);
}

static inline uint8_t *
put64(uint8_t *p, uint64_t v)
{
	p = put32(p, (uint32_t)(v >> 32));
	return put32(p, (uint32_t)v);
}

/* a value already in network order, copied as it is */
static inline uint8_t *
put_raw(uint8_t *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

uint16_t
ipfix_template_of(uint8_t event)
{
	switch (event) {
	case IPFIX_NAT44_SESSION_CREATE:
	case IPFIX_NAT44_SESSION_DELETE:
		return IPFIX_TMPL_SESSION;
	case IPFIX_NAT_PORT_BLOCK_ALLOC:
	case IPFIX_NAT_PORT_BLOCK_DEALLOC:
		return IPFIX_TMPL_BLOCK;
	case IPFIX_NAT_ADDRESSES_EXHAUSTED:
	case IPFIX_NAT_PORTS_EXHAUSTED:
	case IPFIX_NAT_QUOTA_EXCEEDED:
		return IPFIX_TMPL_LIMIT;
	case IPFIX_NAT44_BIB_CREATE:
	case IPFIX_NAT44_BIB_DELETE:
		return IPFIX_TMPL_BIB;
	default:
		return 0;
	}
}

void
ipfix_msg_start(struct ipfix_msg *m, uint8_t *buf, uint16_t cap)
{
	m->buf = buf;
	m->cap = cap;
	m->len = IPFIX_HDR_LEN;
	m->set_off = 0;
	m->set_id = 0;
	m->records = 0;
}

static void
set_close(struct ipfix_msg *m)
{
	if (m->set_off == 0)
		return;
	put16(m->buf + m->set_off + 2, (uint16_t)(m->len - m->set_off));
	m->set_off = 0;
	m->set_id = 0;
}

/* open a set of id unless it is the open one, with room for `need` more
 * bytes in it; false if there is no room */
static bool
set_for(struct ipfix_msg *m, uint16_t id, uint16_t need)
{
	if (m->set_off != 0 && m->set_id == id)
		return m->len + need <= m->cap;
	if (m->len + IPFIX_SET_HDR_LEN + need > m->cap)
		return false;
	set_close(m);
	m->set_off = m->len;
	m->set_id = id;
	put16(m->buf + m->len, id);   /* the length when it closes */
	m->len += IPFIX_SET_HDR_LEN;
	return true;
}

int
ipfix_msg_add_templates(struct ipfix_msg *m)
{
	uint16_t need = 0, i, j;
	uint8_t *p;

	for (i = 0; i < NB_TMPLS; i++)
		need += 4 + 4 * tmpls[i].nb;
	/* a template set of its own, even after another template set */
	set_close(m);
	if (!set_for(m, 2, need))
		return -ENOSPC;
	p = m->buf + m->len;
	for (i = 0; i < NB_TMPLS; i++) {
		p = put16(p, tmpls[i].id);
		p = put16(p, tmpls[i].nb);
		for (j = 0; j < tmpls[i].nb; j++) {
			p = put16(p, tmpls[i].f[j].ie);
			p = put16(p, tmpls[i].f[j].len);
		}
	}
	m->len = (uint16_t)(p - m->buf);
	set_close(m);
	return 0;
}

int
ipfix_msg_add_event(struct ipfix_msg *m, const struct ipfix_nat_event *ev,
		    uint64_t ms)
{
	uint16_t id = ipfix_template_of(ev->event), len;
	uint8_t *p;

	if (id == 0)
		return -EINVAL;
	len = tmpls[id - IPFIX_TMPL_SESSION].rec_len;
	if (!set_for(m, id, len))
		return -ENOSPC;
	p = m->buf + m->len;
	p = put64(p, ms);
	p = put8(p, ev->event);
	switch (id) {
	case IPFIX_TMPL_SESSION:
		p = put_raw(p, &ev->in_addr, 4);
		p = put_raw(p, &ev->in_port, 2);
		p = put_raw(p, &ev->pub_addr, 4);
		p = put_raw(p, &ev->pub_port, 2);
		p = put_raw(p, &ev->rem_addr, 4);
		p = put_raw(p, &ev->rem_port, 2);
		p = put8(p, ev->proto);
		break;
	case IPFIX_TMPL_BLOCK:
		p = put_raw(p, &ev->in_addr, 4);
		p = put_raw(p, &ev->pub_addr, 4);
		p = put8(p, ev->proto);
		p = put16(p, ev->port_lo);
		p = put16(p, ev->port_hi);
		p = put16(p, 1);
		p = put16(p, (uint16_t)(ev->port_hi - ev->port_lo + 1));
		break;
	case IPFIX_TMPL_BIB:
		p = put_raw(p, &ev->in_addr, 4);
		p = put_raw(p, &ev->in_port, 2);
		p = put_raw(p, &ev->pub_addr, 4);
		p = put_raw(p, &ev->pub_port, 2);
		p = put8(p, ev->proto);
		break;
	default:
		p = put32(p, ev->quota);
		p = put_raw(p, &ev->in_addr, 4);
		p = put_raw(p, &ev->in_port, 2);
		p = put_raw(p, &ev->pub_addr, 4);
		p = put_raw(p, &ev->rem_addr, 4);
		p = put_raw(p, &ev->rem_port, 2);
		p = put8(p, ev->proto);
		p = put32(p, ev->quota == IPFIX_QUOTA_MAX_SESSIONS ? ev->limit : 0);
		p = put32(p, ev->quota == IPFIX_QUOTA_MAX_PER_USER ? ev->limit : 0);
		p = put32(p, 0);
		break;
	}
	m->len = (uint16_t)(p - m->buf);
	m->records++;
	return 0;
}

uint16_t
ipfix_msg_finish(struct ipfix_msg *m, uint32_t export_time, uint32_t seq,
		 uint32_t domain)
{
	uint8_t *p = m->buf;

	set_close(m);
	p = put16(p, IPFIX_VERSION);
	p = put16(p, m->len);
	p = put32(p, export_time);
	p = put32(p, seq);
	put32(p, domain);
	return m->len;
}
