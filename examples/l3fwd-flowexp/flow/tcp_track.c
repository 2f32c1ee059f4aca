/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * TCP connection tracking (flow/tcp_track.h has the rules): the window checks,
 * the handshake, RST and FIN acceptance, on one record and one segment.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>

#include "flow/tcp_track.h"
#include "fwd/parse.h"

/* IV's window before a side advertised one (conntrack's MAXACKWINCONST) */
#define FX_TCP_MAXACKWIN_DEFAULT 66000u

/* a before b, modulo 2^32 */
static inline bool
seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool
seq_after(uint32_t a, uint32_t b)
{
	return seq_before(b, a);
}

/* the sequence number after segment s */
static inline uint32_t
seg_end(const struct fx_tcp_seg *s)
{
	return s->seq + s->len + ((s->flags & FX_TCP_SYN) ? 1 : 0) +
		((s->flags & FX_TCP_FIN) ? 1 : 0);
}

/* where side x keeps the ISN + 1 of its SYN until it is acknowledged */
static inline uint32_t *
syn_mark(struct fx_tcp *t, unsigned int x)
{
	return &t->d[(t->dflags[x] & FX_TCPD_ACKED) ? x ^ 1 : x].ack;
}

/* whether ack acknowledges side x's pending SYN: within (ISN, end] */
static inline bool
acks_syn(struct fx_tcp *t, unsigned int x, uint32_t ack)
{
	return !seq_before(ack, *syn_mark(t, x)) && !seq_after(ack, t->d[x].end);
}

/* side x's SYN s: its end, window, scale option, and its pending mark */
static void
syn_init(struct fx_tcp *t, unsigned int x, const struct fx_tcp_seg *s)
{
	struct fx_tcp_dir *d = &t->d[x];

	d->end = seg_end(s);
	d->maxwin = s->win != 0 ? s->win : 1;
	d->ack = s->seq + 1;   /* the mark, in its own field: no ACK sent yet */
	t->dflags[x] = FX_TCPD_SEEN;
	t->scale[x] = 0;
	if (s->wscale != FX_TCP_WSCALE_NONE) {
		t->dflags[x] |= FX_TCPD_WSCALE;
		t->scale[x] = s->wscale > FX_TCP_WSCALE_MAX ? FX_TCP_WSCALE_MAX : s->wscale;
	}
}

/* both SYNs seen: scaling holds only if both offered it */
static inline void
scale_agree(struct fx_tcp *t)
{
	if (!(t->dflags[0] & t->dflags[1] & FX_TCPD_WSCALE))
		t->scale[0] = t->scale[1] = 0;
}

/* side x sent an ACK of ack (that fits) */
static inline void
ack_note(struct fx_tcp *t, unsigned int x, uint32_t ack)
{
	struct fx_tcp_dir *d = &t->d[x];

	if (!(t->dflags[x] & FX_TCPD_ACKED)) {
		/* a pending SYN's mark moves to the other side's field */
		if (!(t->dflags[x] & FX_TCPD_SYNACK))
			t->d[x ^ 1].ack = d->ack;
		t->dflags[x] |= FX_TCPD_ACKED;
		d->ack = ack;
	} else if (seq_after(ack, d->ack)) {
		d->ack = ack;
	}
}

static inline void
est_note(struct fx_tcp *t)
{
	if (t->dflags[0] & t->dflags[1] & FX_TCPD_SYNACK)
		t->conn |= FX_TCPC_EST;
}

/* the upper bound of what side x may send */
static inline uint32_t
upper_bound(const struct fx_tcp *t, unsigned int x)
{
	const struct fx_tcp_dir *r = &t->d[x ^ 1];

	if (t->dflags[x ^ 1] & FX_TCPD_ACKED)
		return r->ack + r->maxwin;
	return t->d[x].end;
}

/* checks I-IV for a segment of side x (which was seen) */
static inline bool
fits(const struct fx_tcp *t, unsigned int x, const struct fx_tcp_seg *s,
     uint32_t end, bool has_ack)
{
	const struct fx_tcp_dir *snd = &t->d[x], *rcv = &t->d[x ^ 1];
	uint32_t maxack;

	if (seq_after(s->seq, upper_bound(t, x)))
		return false;                                        /* I */
	if (rcv->maxwin != 0 && seq_before(end, snd->end - rcv->maxwin))
		return false;                                        /* II */
	if (!has_ack)
		return true;
	maxack = snd->maxwin != 0 ? snd->maxwin : FX_TCP_MAXACKWIN_DEFAULT;
	return !seq_after(s->ack, rcv->end) &&                     /* III */
		!seq_before(s->ack, rcv->end - maxack);             /* IV */
}

void
fx_tcp_open(struct fx_tcp *t, unsigned int side, const struct fx_tcp_seg *s)
{
	memset(t, 0, sizeof(*t));
	t->init = (uint8_t)side;
	if (fx_tcp_is_open(s)) {
		syn_init(t, side, s);
		t->conn = FX_TCPC_SYN;
	}
}

/* the first segment from the responder, which has not been seen */
static enum fx_tcp_verdict
responder_first(struct fx_tcp *t, unsigned int x, const struct fx_tcp_seg *s)
{
	unsigned int o = x ^ 1;

	if (s->flags & FX_TCP_RST) {
		/* SYN-SENT: a RST is acceptable if it acknowledges the SYN */
		if ((s->flags & FX_TCP_ACK) && s->ack == t->d[o].end) {
			t->conn |= FX_TCPC_RST;
			return FX_TCP_PASS;
		}
		return FX_TCP_OUT_OF_WINDOW;
	}
	if (!(s->flags & FX_TCP_SYN))
		return FX_TCP_INVALID;
	if (s->flags & FX_TCP_ACK) {
		/* SYN-ACK */
		if (!acks_syn(t, o, s->ack))
			return FX_TCP_OUT_OF_WINDOW;
		t->dflags[o] |= FX_TCPD_SYNACK;
		syn_init(t, x, s);
		ack_note(t, x, s->ack);
	} else {
		/* simultaneous open */
		syn_init(t, x, s);
	}
	scale_agree(t);
	est_note(t);
	return FX_TCP_PASS;
}

enum fx_tcp_verdict
fx_tcp_track(struct fx_tcp *t, unsigned int side, const struct fx_tcp_seg *s)
{
	unsigned int x = side & 1, o = x ^ 1;
	struct fx_tcp_dir *snd = &t->d[x], *rcv = &t->d[o];
	uint8_t fl = s->flags;
	uint32_t end, win, bound;
	bool has_ack;

	if (unlikely(!(t->conn & FX_TCPC_SYN))) {
		/* picked up mid-stream: not checked; a SYN starts tracking */
		if (fx_tcp_is_open(s))
			fx_tcp_open(t, x, s);
		return FX_TCP_PASS;
	}
	if (unlikely(fx_tcp_is_open(s))) {
		if (t->conn & (FX_TCPC_FIN | FX_TCPC_RST))
			return x == t->init ? FX_TCP_REOPEN : FX_TCP_INVALID;
		if (x == t->init && !(t->dflags[o] & FX_TCPD_SEEN)) {
			/* SYN-SENT: the initiator's SYN again, maybe a new ISN */
			syn_init(t, x, s);
			return FX_TCP_PASS;
		}
	}
	if (unlikely(!(t->dflags[x] & FX_TCPD_SEEN)))
		return responder_first(t, x, s);

	end = seg_end(s);
	has_ack = (fl & FX_TCP_ACK) && !((fl & FX_TCP_RST) && s->ack == 0);
	if (unlikely(has_ack && !(t->dflags[o] & FX_TCPD_SEEN)))
		return FX_TCP_INVALID;   /* an ACK of nothing the other side sent */
	if (unlikely(!fits(t, x, s, end, has_ack))) {
		if (fx_tcp_is_open(s) && (t->conn & FX_TCPC_EST))
			return FX_TCP_SYN_IGNORED;
		return FX_TCP_OUT_OF_WINDOW;
	}
	if (unlikely(fl & FX_TCP_RST)) {
		if (s->seq == snd->end ||
		    ((t->dflags[o] & FX_TCPD_ACKED) && s->seq == rcv->ack)) {
			t->conn |= FX_TCPC_RST;
			return FX_TCP_PASS;
		}
		return FX_TCP_RST_IGNORED;
	}
	if (unlikely(has_ack && !(t->dflags[o] & FX_TCPD_SYNACK))) {
		/* the other side's SYN is pending: this ACK must acknowledge it */
		if (!acks_syn(t, o, s->ack))
			return FX_TCP_INVALID;
		t->dflags[o] |= FX_TCPD_SYNACK;
	}

	/* the segment fits: update the sender */
	win = (fl & FX_TCP_SYN) ? s->win : (uint32_t)s->win << t->scale[x];
	if (win > snd->maxwin)
		snd->maxwin = win;
	bound = upper_bound(t, x);
	if ((t->dflags[o] & FX_TCPD_ACKED) && seq_after(end, bound))
		rcv->maxwin += end - bound;   /* it sent past what we thought allowed */
	if (seq_after(end, snd->end))
		snd->end = end;
	if (has_ack)
		ack_note(t, x, s->ack);
	if (fl & FX_TCP_FIN)
		t->conn |= FX_TCPC_FIN;
	est_note(t);
	return FX_TCP_PASS;
}
