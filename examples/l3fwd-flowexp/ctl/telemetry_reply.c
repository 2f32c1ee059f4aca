/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A telemetry reply that knows its size (ctl/telemetry_reply.h).
 *
 * The library writes a dictionary as {"name":value,...}: no spaces, an
 * unsigned number in decimal, a string between quotes with '"' and '\\'
 * escaped and, of the control characters, \n, \r and \t escaped and the
 * others dropped; a nested object as "name":{...}. The whole reply is
 * {"cmd":dictionary} followed by the terminating NUL in a buffer of
 * FX_TEL_OUTPUT_MAX bytes, so the dictionary may take
 * FX_TEL_OUTPUT_MAX - strlen(cmd) - 6 bytes (telemetry_json.h's writers
 * refuse an entry that would leave no room for the NUL).
 *
 * The scalar entries go into the reply as they are emitted; each object
 * (emitter open ... close) is built in its own rte_tel_data and held
 * until fx_tel_reply_finish() knows the size of the whole, which decides
 * which objects go in. Values are fixed when they are added, so the size
 * counted is the size written.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_config.h>
#include <rte_telemetry.h>

#include "base/compat.h"
#include "base/counter.h"
#include "ctl/telemetry_reply.h"

/* the objects of the largest reply: the statistics walk */
#define FX_TEL_OBJECTS (RTE_MAX_LCORE + RTE_MAX_ETHPORTS + 8)

struct tel_obj {
	struct rte_tel_data *d;    /* NULL: could not be allocated */
	char name[RTE_TEL_MAX_STRING_LEN];
	size_t len;                /* its entries' JSON, a comma each */
	unsigned int n;            /* its entries */
};

struct fx_tel_reply {
	struct rte_tel_data *top;
	size_t limit;              /* bytes the reply's dictionary may take */
	size_t len;                /* the scalar entries' JSON, a comma each */
	unsigned int n;
	struct tel_obj *open;      /* the object being emitted, or NULL */
	unsigned int nb_objs;
	bool refused;              /* an entry was refused or lost */
	struct tel_obj lost;       /* where entries past the objects go: nowhere */
	struct tel_obj objs[FX_TEL_OBJECTS];
};

/* a dictionary's JSON from its entries' (each counted with a comma) */
static size_t
dict_len(size_t len, unsigned int n)
{
	/* "{" + entries joined by commas + "}": the last comma is the "}" */
	return n == 0 ? 2 : len + 1;
}

/* "name": and a comma */
static size_t
entry_len(const char *name)
{
	return strlen(name) + 4;
}

static size_t
u64_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* a string value as the library writes it, quotes included */
static size_t
str_len(const char *s)
{
	size_t n = 2;

	for (; *s != '\0'; s++) {
		if (*s == '\n' || *s == '\r' || *s == '\t' || *s == '"' || *s == '\\')
			n += 2;
		else if ((unsigned char)*s >= 0x20)
			n++;
	}
	return n;
}

/* the open object's data, the reply's, or NULL if the object was lost */
static struct rte_tel_data *
cur(struct fx_tel_reply *r, size_t **len, unsigned int **n)
{
	if (r->open != NULL) {
		*len = &r->open->len;
		*n = &r->open->n;
		return r->open->d;
	}
	*len = &r->len;
	*n = &r->n;
	return r->top;
}

static void
reply_open(void *ctx, const char *name)
{
	struct fx_tel_reply *r = ctx;
	struct tel_obj *o;

	if (r->open != NULL || r->nb_objs == FX_TEL_OBJECTS) {
		/* one level of objects only; the rest is counted as lost */
		r->refused = true;
		r->open = &r->lost;
		return;
	}
	o = &r->objs[r->nb_objs++];
	memset(o, 0, sizeof(*o));
	if (snprintf(o->name, sizeof(o->name), "%s", name) >= (int)sizeof(o->name))
		r->refused = true;
	o->d = rte_tel_data_alloc();
	if (o->d == NULL)
		r->refused = true;
	else
		rte_tel_data_start_dict(o->d);
	r->open = o;
}

static void
reply_close(void *ctx)
{
	struct fx_tel_reply *r = ctx;

	r->open = NULL;
}

static void
reply_u64(void *ctx, const char *name, uint64_t v)
{
	struct fx_tel_reply *r = ctx;
	struct rte_tel_data *d;
	unsigned int *n;
	size_t *len;

	d = cur(r, &len, &n);
	if (d == NULL || fx_tel_dict_u64(d, name, v) != 0) {
		r->refused = true;
		return;
	}
	*len += entry_len(name) + u64_len(v);
	(*n)++;
}

static void
reply_str(void *ctx, const char *name, const char *v)
{
	char cut[RTE_TEL_MAX_STRING_LEN];
	struct fx_tel_reply *r = ctx;
	struct rte_tel_data *d;
	unsigned int *n;
	size_t *len;

	/* the library would cut a value too long short without a mark */
	if (strlen(v) >= sizeof(cut)) {
		snprintf(cut, sizeof(cut), "%.*s...", (int)sizeof(cut) - 4, v);
		v = cut;
	}
	d = cur(r, &len, &n);
	if (d == NULL || rte_tel_data_add_dict_string(d, name, v) != 0) {
		r->refused = true;
		return;
	}
	*len += entry_len(name) + str_len(v);
	(*n)++;
}

const struct fx_emitter fx_tel_reply_emitter = {
	.open = reply_open, .close = reply_close, .u64 = reply_u64, .str = reply_str,
};

struct fx_tel_reply *
fx_tel_reply_start(struct rte_tel_data *d, const char *cmd)
{
	struct fx_tel_reply *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->top = d;
	r->limit = FX_TEL_OUTPUT_MAX - strlen(cmd) - 6;
	rte_tel_data_start_dict(d);
	return r;
}

void
fx_tel_reply_error(struct rte_tel_data *d, const char *fmt, ...)
{
	char text[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", text);
}

static bool
left_out(const struct tel_obj *o, const char *omit)
{
	return omit != NULL && strncmp(o->name, omit, strlen(omit)) == 0;
}

/* the reply's entries with the objects, those named omit left out or not */
static void
count(const struct fx_tel_reply *r, const char *omit, size_t *len,
      unsigned int *n, unsigned int *nb_omitted)
{
	const struct tel_obj *o;
	unsigned int i;

	*len = r->len;
	*n = r->n;
	*nb_omitted = 0;
	for (i = 0; i < r->nb_objs; i++) {
		o = &r->objs[i];
		if (left_out(o, omit)) {
			(*nb_omitted)++;
			continue;
		}
		*len += entry_len(o->name) + dict_len(o->len, o->n);
		(*n)++;
	}
}

static bool
fits(const struct fx_tel_reply *r, size_t len, unsigned int n)
{
	return n <= RTE_TEL_MAX_DICT_ENTRIES && dict_len(len, n) <= r->limit;
}

size_t
fx_tel_reply_finish(struct fx_tel_reply *r, const char *omit, const char *see)
{
	char why[RTE_TEL_MAX_STRING_LEN];
	unsigned int i, n, whole_n, nb_omitted;
	size_t len, whole;
	struct tel_obj *o;
	bool keep = false;

	count(r, NULL, &whole, &whole_n, &nb_omitted);
	len = whole;
	n = whole_n;
	if (!r->refused && fits(r, whole, whole_n)) {
		keep = true;
		omit = NULL;
	} else if (!r->refused && omit != NULL) {
		count(r, omit, &len, &n, &nb_omitted);
		snprintf(why, sizeof(why), "%sN objects left out: the reply would take %zu bytes "
			 "of %d; see %s", omit, dict_len(whole, whole_n), FX_TEL_OUTPUT_MAX, see);
		len += entry_len("omitted") + u64_len(nb_omitted) +
			entry_len("incomplete") + str_len(why);
		n += 2;
		keep = fits(r, len, n);
	}
	for (i = 0; i < r->nb_objs; i++) {
		o = &r->objs[i];
		if (o->d == NULL)
			continue;
		if (!keep || left_out(o, omit) ||
		    rte_tel_data_add_dict_container(r->top, o->name, o->d, 0) != 0)
			rte_tel_data_free(o->d);
	}
	if (keep && omit != NULL) {
		fx_tel_dict_u64(r->top, "omitted", nb_omitted);
		rte_tel_data_add_dict_string(r->top, "incomplete", why);
	} else if (!keep) {
		if (r->refused)
			fx_tel_reply_error(r->top, "an entry was refused (too many entries, a "
					   "name or value too long, or no memory)");
		else
			fx_tel_reply_error(r->top, "the reply would take %zu bytes of %d",
					   dict_len(whole, whole_n), FX_TEL_OUTPUT_MAX);
	}
	free(r);
	return keep ? dict_len(len, n) : 0;
}
