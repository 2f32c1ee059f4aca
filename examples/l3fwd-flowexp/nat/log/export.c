/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT event logging, the exporter (nat/log/export.h has the design): the
 * options, the socket, the main lcore's drain of the workers' rings into
 * IPFIX messages, the template refresh, the counters and what they show.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "base/config.h"
#include "base/counter.h"
#include "base/time.h"
#include "nat/log/events.h"
#include "nat/log/export.h"
#include "nat/log/ipfix.h"

struct nat_log_conf fx_nat_log_conf;

/* records taken from a ring at a time */
#define TAKE_BURST 256u
/* the socket's send buffer: a poll's worth of messages at a high rate */
#define SNDBUF_BYTES (4 << 20)

/* the exporter's counters: written by the main lcore, read by anyone */
struct exp_stats {
	uint64_t nat_log_exported;
	uint64_t nat_log_lost;
	uint64_t nat_log_messages;
	uint64_t nat_log_bytes;
	uint64_t nat_log_templates;
	uint64_t nat_log_send_errors;
};

#define EXP_COUNTERS(X) X(nat_log_exported) X(nat_log_lost) \
	X(nat_log_messages) X(nat_log_bytes) X(nat_log_templates) \
	X(nat_log_send_errors)

/* the exporter's state, main lcore only */
static struct {
	int fd;
	bool pcap;               /* --clock pcap: record times are capture times */
	uint64_t hz;
	uint64_t tsc0;           /* the TSC and the wall clock read together */
	uint64_t wall_ns0;
	uint32_t seq;            /* data records in the messages before */
	uint32_t export_s;       /* this poll's export time */
	uint64_t tmpl_tsc;       /* when the templates went last */
	uint32_t tmpl_msgs;      /* messages since */
	bool tmpl_due;
	unsigned int nb;         /* messages finished in the batch */
	bool open;               /* msg[nb] is being filled */
	struct ipfix_msg msg[NAT_LOG_BATCH];
	struct mmsghdr hdr[NAT_LOG_BATCH];
	struct iovec iov[NAT_LOG_BATCH];
	uint8_t buf[NAT_LOG_BATCH][IPFIX_MSG_MAX];
	struct exp_stats st;
} ex = { .fd = -1 };

void
fx_nat_log_defaults(void)
{
	memset(&fx_nat_log_conf, 0, sizeof(fx_nat_log_conf));
	fx_nat_log_conf.domain = 1;
	fx_nat_log_conf.ring = NAT_LOG_RING_DEFAULT;
}

int
fx_nat_log_parse(const char *s, char *err, size_t len)
{
	char host[INET_ADDRSTRLEN], *end;
	const char *p, *colon, *comma;
	unsigned long v;
	struct in_addr a;
	size_t n;

	if (strncmp(s, "ipfix:", 6) != 0) {
		snprintf(err, len, "--nat-log: '%s': want ipfix:ADDR:PORT[,domain=N]", s);
		return -EINVAL;
	}
	p = s + 6;
	colon = strchr(p, ':');
	n = colon == NULL ? 0 : (size_t)(colon - p);
	if (n == 0 || n >= sizeof(host)) {
		snprintf(err, len, "--nat-log: '%s': want ipfix:ADDR:PORT", s);
		return -EINVAL;
	}
	memcpy(host, p, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, &a) != 1) {
		snprintf(err, len, "--nat-log: '%s' is not an IPv4 address", host);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (errno != 0 || end == colon + 1 || v == 0 || v > 65535 ||
	    (*end != '\0' && *end != ',')) {
		snprintf(err, len, "--nat-log: '%s': the port is 1..65535", s);
		return -EINVAL;
	}
	fx_nat_log_conf.port = (uint16_t)v;
	fx_nat_log_conf.addr = a.s_addr;
	comma = *end == ',' ? end : NULL;
	if (comma != NULL) {
		if (strncmp(comma, ",domain=", 8) != 0) {
			snprintf(err, len, "--nat-log: '%s': after the port only ,domain=N", s);
			return -EINVAL;
		}
		errno = 0;
		v = strtoul(comma + 8, &end, 10);
		if (errno != 0 || end == comma + 8 || *end != '\0' || v > UINT32_MAX) {
			snprintf(err, len, "--nat-log: '%s': the domain is 0..4294967295", s);
			return -EINVAL;
		}
		fx_nat_log_conf.domain = (uint32_t)v;
	}
	snprintf(fx_nat_log_conf.text, sizeof(fx_nat_log_conf.text), "%s:%u", host,
		 fx_nat_log_conf.port);
	fx_nat_log_conf.enabled = true;
	return 0;
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the workers' logs, by worker index, with their lcores and counters */
static struct {
	struct nat_log **log;       /* the worker's pointer to it */
	const struct nat_log_stats *st;
	unsigned int lcore_id;
} workers[RTE_MAX_LCORE];
static unsigned int nb_workers;

int
fx_nat_log_attach(struct nat_log **lg, struct nat_log_stats *st,
		  unsigned int lcore_id, char *err, size_t len)
{
	int rc;

	if (nb_workers == RTE_DIM(workers))
		return -ENOSPC;
	rc = nat_log_init(lg, st, lcore_id, fx_nat_log_conf.ring,
			  (int)rte_lcore_to_socket_id(lcore_id));
	if (rc != 0) {
		snprintf(err, len, "lcore %u: NAT log ring of %u records: %s "
			 "(more memory: -m / --socket-mem)", lcore_id,
			 fx_nat_log_conf.ring, strerror(-rc));
		return rc;
	}
	workers[nb_workers].log = lg;
	workers[nb_workers].st = st;
	workers[nb_workers].lcore_id = lcore_id;
	nb_workers++;
	return 0;
}

int
fx_nat_log_setup(char *err, size_t len)
{
	struct sockaddr_in sa;
	unsigned int i;
	int rc, one = SNDBUF_BYTES;

	ex.fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ex.fd < 0) {
		snprintf(err, len, "--nat-log: socket: %s", strerror(errno));
		return -errno;
	}
	/* best effort: a larger buffer only means fewer losses in bursts */
	(void)setsockopt(ex.fd, SOL_SOCKET, SO_SNDBUF, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = fx_nat_log_conf.addr;
	sa.sin_port = htons(fx_nat_log_conf.port);
	if (connect(ex.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rc = -errno;
		snprintf(err, len, "--nat-log: connect to %s: %s", fx_nat_log_conf.text,
			 strerror(errno));
		close(ex.fd);
		ex.fd = -1;
		return rc;
	}
	for (i = 0; i < NAT_LOG_BATCH; i++) {
		ex.iov[i].iov_base = ex.buf[i];
		ex.hdr[i].msg_hdr.msg_iov = &ex.iov[i];
		ex.hdr[i].msg_hdr.msg_iovlen = 1;
	}
	ex.pcap = fx_conf.clock == FX_CLOCK_PCAP;
	ex.hz = rte_get_tsc_hz();
	ex.tsc0 = rte_rdtsc();
	ex.wall_ns0 = wall_ns();
	ex.tmpl_due = true;   /* the templates lead the stream */
	return 0;
}

/* IE 323 of a record's time */
static inline uint64_t
record_ms(const struct ipfix_nat_event *ev)
{
	return ex.pcap ? ipfix_ms_from_capture(ev->time, fx_clock_hz) :
		ipfix_ms_from_tsc(ev->time, ex.tsc0, ex.wall_ns0, ex.hz);
}

/* the batch's messages to the socket; what the kernel refuses is lost */
static void
send_batch(void)
{
	unsigned int i, done = 0;
	int r;

	for (i = 0; i < ex.nb; i++)
		ex.iov[i].iov_len = ex.msg[i].len;
	while (done < ex.nb) {
		r = sendmmsg(ex.fd, ex.hdr + done, ex.nb - done, MSG_DONTWAIT);
		if (r > 0) {
			for (i = done; i < done + (unsigned int)r; i++) {
				FX_STAT_ADD(&ex.st, nat_log_exported, ex.msg[i].records);
				FX_STAT_ADD(&ex.st, nat_log_messages, 1);
				FX_STAT_ADD(&ex.st, nat_log_bytes, ex.msg[i].len);
			}
			done += (unsigned int)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		/* refused (no room, the collector unreachable): the first one */
		FX_STAT_ADD(&ex.st, nat_log_send_errors, 1);
		FX_STAT_ADD(&ex.st, nat_log_lost, ex.msg[done].records);
		done++;
	}
	ex.nb = 0;
}

/* close the message being filled into the batch, send a full batch */
static void
msg_close(void)
{
	struct ipfix_msg *m = &ex.msg[ex.nb];

	if (!ex.open)
		return;
	ex.open = false;
	ipfix_msg_finish(m, ex.export_s, ex.seq, fx_nat_log_conf.domain);
	ex.seq += m->records;   /* modulo 2^32, as RFC 7011 counts */
	ex.tmpl_msgs++;
	if (++ex.nb == NAT_LOG_BATCH)
		send_batch();
}

/* a new message, led by the templates when they are due */
static void
msg_open(void)
{
	struct ipfix_msg *m = &ex.msg[ex.nb];
	uint64_t now = rte_rdtsc();

	ipfix_msg_start(m, ex.buf[ex.nb], IPFIX_MSG_MAX);
	ex.open = true;
	if (ex.tmpl_due || ex.tmpl_msgs >= NAT_LOG_TEMPLATE_MSGS ||
	    now - ex.tmpl_tsc >= NAT_LOG_TEMPLATE_S * ex.hz) {
		ipfix_msg_add_templates(m);   /* fits in an empty message */
		FX_STAT_ADD(&ex.st, nat_log_templates, 1);
		ex.tmpl_due = false;
		ex.tmpl_tsc = now;
		ex.tmpl_msgs = 0;
	}
}

static void
add_record(const struct ipfix_nat_event *ev)
{
	uint64_t ms = record_ms(ev);
	int rc;

	if (!ex.open)
		msg_open();
	rc = ipfix_msg_add_event(&ex.msg[ex.nb], ev, ms);
	if (rc == -ENOSPC) {
		msg_close();
		msg_open();
		rc = ipfix_msg_add_event(&ex.msg[ex.nb], ev, ms);
	}
	if (rc != 0)   /* an event without a template: never pushed */
		FX_STAT_ADD(&ex.st, nat_log_lost, 1);
}

/* one drain of every ring, at most NAT_LOG_POLL_MAX records; how many */
static unsigned int
drain(void)
{
	struct ipfix_nat_event evs[TAKE_BURST];
	unsigned int w, i, n, got = 0;
	struct nat_log *lg;

	ex.export_s = (uint32_t)(wall_ns() / 1000000000u);
	for (w = 0; w < nb_workers; w++) {
		lg = *workers[w].log;
		while (got < NAT_LOG_POLL_MAX) {
			n = rte_ring_sc_dequeue_burst_elem(lg->ring, evs, sizeof(evs[0]),
				RTE_MIN(TAKE_BURST, NAT_LOG_POLL_MAX - got), NULL);
			if (n == 0)
				break;
			for (i = 0; i < n; i++)
				add_record(&evs[i]);
			got += n;
		}
	}
	/* the templates alone when they are due and nothing carried them */
	if (!ex.open && ex.nb == 0 && (ex.tmpl_due ||
	    rte_rdtsc() - ex.tmpl_tsc >= NAT_LOG_TEMPLATE_S * ex.hz))
		msg_open();
	/* no record waits for the next poll */
	msg_close();
	if (ex.nb != 0)
		send_batch();
	return got;
}

void
fx_nat_log_poll(void)
{
	if (ex.fd >= 0)
		drain();
}

/* whether every worker lcore has returned from its loop and its drain */
static bool
workers_done(void)
{
	unsigned int w;

	for (w = 0; w < nb_workers; w++)
		if (rte_eal_get_lcore_state(workers[w].lcore_id) == RUNNING)
			return false;
	return true;
}

void
fx_nat_log_stop(void)
{
	bool done;

	if (ex.fd < 0)
		return;
	/* the workers push their mappings' deletes meanwhile, waiting for room */
	do {
		done = workers_done();
		if (drain() == 0 && !done)
			rte_delay_us_sleep(1000);
	} while (!done);
	while (drain() != 0)
		;
	close(ex.fd);
	ex.fd = -1;
}

void
fx_nat_log_fini(void)
{
	unsigned int w;

	for (w = 0; w < nb_workers; w++)
		nat_log_fini(workers[w].log);
}

/* the workers' counters of the log, summed */
static void
worker_sums(uint64_t *queued, uint64_t *dropped, uint64_t *suppressed)
{
	unsigned int w;

	*queued = *dropped = *suppressed = 0;
	for (w = 0; w < nb_workers; w++) {
		*queued += FX_STAT_GET(workers[w].st, queued);
		*dropped += FX_STAT_GET(workers[w].st, dropped);
		*suppressed += FX_STAT_GET(workers[w].st, suppressed);
	}
}

void
fx_nat_log_emit_totals(const struct fx_emitter *e, void *ctx)
{
	uint64_t q, d, s;

	worker_sums(&q, &d, &s);
	e->u64(ctx, "nat_log_queued", q);
	e->u64(ctx, "nat_log_dropped", d);
	e->u64(ctx, "nat_log_suppressed", s);
#define EXP_EMIT(n) e->u64(ctx, #n, FX_STAT_GET(&ex.st, n));
	EXP_COUNTERS(EXP_EMIT)
#undef EXP_EMIT
}

void
fx_nat_log_emit(const struct fx_emitter *e, void *ctx)
{
	const struct nat_log_stats *st;
	char name[32];
	unsigned int w;

	e->str(ctx, "collector", fx_nat_log_conf.text);
	e->u64(ctx, "domain", fx_nat_log_conf.domain);
	e->u64(ctx, "ring", fx_nat_log_conf.ring);
	e->open(ctx, "totals");
	fx_nat_log_emit_totals(e, ctx);
	e->close(ctx);
	for (w = 0; w < nb_workers; w++) {
		st = workers[w].st;
		snprintf(name, sizeof(name), "lcore_%u", workers[w].lcore_id);
		e->open(ctx, name);
#define NAT_LOG_EMIT(n) e->u64(ctx, "nat_log_" #n, FX_STAT_GET(st, n));
		NAT_LOG_COUNTERS(NAT_LOG_EMIT)
#undef NAT_LOG_EMIT
		e->close(ctx);
	}
}

void
fx_nat_log_summary(FILE *f)
{
	uint64_t q, d, s;

	worker_sums(&q, &d, &s);
	fprintf(f, "nat log to %s: queued %" PRIu64 ", dropped %" PRIu64
		", suppressed %" PRIu64 "; exported %" PRIu64 ", lost %" PRIu64
		" in %" PRIu64 " messages of %" PRIu64 " bytes (%" PRIu64 " with templates, %"
		PRIu64 " send errors)\n", fx_nat_log_conf.text, q, d, s,
		FX_STAT_GET(&ex.st, nat_log_exported), FX_STAT_GET(&ex.st, nat_log_lost),
		FX_STAT_GET(&ex.st, nat_log_messages), FX_STAT_GET(&ex.st, nat_log_bytes),
		FX_STAT_GET(&ex.st, nat_log_templates),
		FX_STAT_GET(&ex.st, nat_log_send_errors));
}
