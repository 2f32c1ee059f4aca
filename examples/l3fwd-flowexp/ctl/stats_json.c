/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * --stats-file: the statistics walk (fx_stats_emit()) written as JSON,
 * beside the target and renamed over it, so a reader never sees half a
 * file. The main lcore writes it at exit.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "ctl/stats.h"

struct json_ctx {
	FILE *f;
	bool first;
	int depth;
};

static void
json_key(struct json_ctx *j, const char *name)
{
	fprintf(j->f, "%s\n%*s\"%s\": ", j->first ? "" : ",", 2 * j->depth, "", name);
	j->first = false;
}

static void
json_open(void *ctx, const char *name)
{
	struct json_ctx *j = ctx;

	json_key(j, name);
	fputc('{', j->f);
	j->depth++;
	j->first = true;
}

static void
json_close(void *ctx)
{
	struct json_ctx *j = ctx;

	j->depth--;
	fprintf(j->f, "\n%*s}", 2 * j->depth, "");
	j->first = false;
}

static void
json_u64(void *ctx, const char *name, uint64_t v)
{
	struct json_ctx *j = ctx;

	json_key(j, name);
	fprintf(j->f, "%" PRIu64, v);
}

static void
json_str(void *ctx, const char *name, const char *v)
{
	struct json_ctx *j = ctx;

	json_key(j, name);
	fprintf(j->f, "\"%s\"", v);   /* our strings need no escaping */
}

static const struct fx_emitter json_emitter = {
	.open = json_open, .close = json_close, .u64 = json_u64, .str = json_str,
};

int
fx_stats_write_json(const char *path)
{
	struct json_ctx j = { .first = true, .depth = 1 };
	char tmp[4096];
	int rc = 0;

	/* write beside it and rename, so a reader never sees half a file */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	j.f = fopen(tmp, "w");
	if (j.f == NULL)
		return -errno;
	fputc('{', j.f);
	fx_stats_emit(&json_emitter, &j);
	fputs("\n}\n", j.f);
	if (fclose(j.f) != 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	return rc;
}
