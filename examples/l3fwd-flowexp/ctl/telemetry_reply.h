/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A telemetry reply that knows its size (ctl/telemetry_reply.c).
 *
 * DPDK's telemetry library turns a reply into JSON in one buffer of
 * FX_TEL_OUTPUT_MAX bytes and leaves out, without a word, every entry that
 * does not fit; a dictionary holds at most RTE_TEL_MAX_DICT_ENTRIES
 * entries and a string value at most RTE_TEL_MAX_STRING_LEN - 1
 * characters. A reply built through fx_tel_reply_emitter counts the JSON
 * each entry will take, exactly as the library writes it, and when it is
 * finished either is whole, or leaves out a named group of objects and
 * says so ("incomplete", "omitted"), or is an error: never a reply with
 * parts silently missing. A string value too long ends in "...".
 */

#ifndef _FX_TELEMETRY_REPLY_H_
#define _FX_TELEMETRY_REPLY_H_

#include <stddef.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "base/counter.h"

/*
 * The library's output buffer (MAX_OUTPUT_LEN in lib/telemetry, 16 KiB
 * from DPDK 22.11 to 25.11; a client reads it as max_output_len from the
 * socket's first message).
 */
#define FX_TEL_OUTPUT_MAX (16 * 1024)

struct fx_tel_reply;

/** The emitter whose context is a struct fx_tel_reply. */
extern const struct fx_emitter fx_tel_reply_emitter;

/**
 * Start the dictionary reply d of command cmd (its name, without the
 * parameters: the library writes {"cmd":reply}). NULL without memory.
 */
struct fx_tel_reply *fx_tel_reply_start(struct rte_tel_data *d, const char *cmd);

/**
 * Finish and free r: attach the objects emitted (emitter open/close) if
 * the whole reply fits; otherwise, if omit is not NULL, leave out every
 * object whose name starts with omit, add "omitted" (how many) and
 * "incomplete" (why, and the command `see` that gives them one at a
 * time); if even that does not fit, or an entry was refused, the reply
 * is {"error": ...}. Returns the JSON length of the reply's dictionary.
 */
size_t fx_tel_reply_finish(struct fx_tel_reply *r, const char *omit, const char *see);

/** Make d the reply {"error": text}. */
void fx_tel_reply_error(struct rte_tel_data *d, const char *fmt, ...)
	__rte_format_printf(2, 3);

#endif /* _FX_TELEMETRY_REPLY_H_ */
