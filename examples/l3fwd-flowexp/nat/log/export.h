/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT event logging, the exporter (--nat-log ipfix:ADDR:PORT): the main
 * lcore drains every worker's ring (nat/log/events.h) and sends the records as
 * IPFIX messages (nat/log/ipfix.h) over UDP to the collector.
 *
 * Who and when. The main lcore, in its loop, which sleeps 1 ms between
 * iterations while logging is on (fx_nat_log_poll()); no other thread
 * and never a worker. A poll takes every record from every ring, at most
 * NAT_LOG_POLL_MAX, packs them into messages of at most IPFIX_MSG_MAX
 * bytes (a message is closed when the next record would not fit, and at
 * the end of the poll, so no record waits for more than a poll) and sends
 * them NAT_LOG_BATCH at a time with one sendmmsg() on a non-blocking UDP
 * socket, opened and connected at start-up. A message the kernel refuses
 * (the collector's port unreachable, a full socket buffer) is counted
 * (nat_log_send_errors, its records nat_log_lost) and never retried in a
 * way that waits; the workers do not notice: their rings are drained as
 * ever. Only when the main lcore itself falls behind do rings fill, and
 * the workers drop and count.
 *
 * The stream. One observation domain (`,domain=N`, default 1), sequence
 * numbers counting the data records of every message sent before (RFC
 * 7011 section 3.1), so a collector sees what was lost; export time from
 * the wall clock. The template set is in the first message, and again
 * (RFC 7011 section 8.1, UDP) in the first message after
 * NAT_LOG_TEMPLATE_S seconds or NAT_LOG_TEMPLATE_MSGS messages, whichever
 * comes first, in a message of its own when nothing else is sent.
 *
 * Time: IE 323 from each record's time in the example's clock (nat/log/ipfix.h):
 * the capture's under --clock pcap, exactly; on the TSC, the wall clock
 * read at start-up plus the cycles since.
 *
 * At exit: fx_nat_log_stop() goes on draining while the workers end
 * their mappings (each pushes a delete for every one, waiting for room,
 * nat/log/events.h), drains once more after every worker has returned, and
 * closes the socket: every record queued is sent or counted lost.
 *
 * Counters: per worker nat_log_queued, nat_log_dropped (ring full),
 * nat_log_suppressed (over the refusal rate), written by the worker
 * (FX_NAT_COUNTERS, nat/nat.h); and the exporter's nat_log_exported (records
 * in messages sent), nat_log_lost, nat_log_messages, nat_log_bytes (IPFIX
 * bytes of the messages sent, UDP payload), nat_log_templates,
 * nat_log_send_errors, written by the main lcore. At exit
 * queued == exported + lost. Shown in telemetry /l3fwd_flowexp/nat_log,
 * the stats file ("nat_log") and the summary.
 */

#ifndef _FX_NAT_LOG_EXPORT_H_
#define _FX_NAT_LOG_EXPORT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/counter.h"
#include "nat/log/events.h"

/** Messages per sendmmsg(). */
#define NAT_LOG_BATCH 32
/** Records one poll takes at most (a bound on the main lcore's time). */
#define NAT_LOG_POLL_MAX (1u << 20)
/** The template set again after this many seconds or messages. */
#define NAT_LOG_TEMPLATE_S 10u
#define NAT_LOG_TEMPLATE_MSGS 4096u

/** --nat-log and --nat-log-ring, read-only once workers run. */
struct nat_log_conf {
	bool enabled;
	uint32_t addr;           /**< collector, network order */
	uint16_t port;           /**< host order */
	uint32_t domain;         /**< observation domain */
	uint32_t ring;           /**< records per worker ring */
	char text[48];           /**< "ADDR:PORT", for people */
};

extern struct nat_log_conf fx_nat_log_conf;

/** Whether NAT events are logged. */
static inline bool
fx_nat_log_enabled(void)
{
	return fx_nat_log_conf.enabled;
}

/** Defaults: off, domain 1, NAT_LOG_RING_DEFAULT records per ring. */
void fx_nat_log_defaults(void);

/**
 * --nat-log ipfix:ADDR:PORT[,domain=N]: an IPv4 address, a port 1..65535.
 * 0, or -EINVAL with the reason in err.
 */
int fx_nat_log_parse(const char *s, char *err, size_t len);

/**
 * Start-up, main lcore, after the workers' NAT, once per worker: the
 * worker's log in *lg (its ring of --nat-log-ring records on the worker's
 * socket), counting into st, drained and counted from then on. 0, or a
 * negative errno with the reason in err.
 */
int fx_nat_log_attach(struct nat_log **lg, struct nat_log_stats *st,
		      unsigned int lcore_id, char *err, size_t len);

/**
 * Start-up, main lcore, after every worker's fx_nat_log_attach(): the
 * socket to the collector, the time base. 0, or a negative errno with the
 * reason in err.
 */
int fx_nat_log_setup(char *err, size_t len);

/** Main lcore, every loop iteration: drain the rings, send. */
void fx_nat_log_poll(void);

/**
 * Main lcore, once the workers were told to stop: drain until every
 * worker has returned, then once more, and close the socket.
 */
void fx_nat_log_stop(void);

/** Free the rings (after the workers and telemetry stopped). */
void fx_nat_log_fini(void);

/** The exporter's counters and the workers' totals, into the open dictionary. */
void fx_nat_log_emit_totals(const struct fx_emitter *e, void *ctx);

/** /l3fwd_flowexp/nat_log: the collector, "totals", one "lcore_N" per worker. */
void fx_nat_log_emit(const struct fx_emitter *e, void *ctx);

/** The log's line of the summary at exit. */
void fx_nat_log_summary(FILE *f);

#endif /* _FX_NAT_LOG_EXPORT_H_ */
