/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The command line's one error (boot/args_opt.h): the first one found is
 * kept, whoever finds it (a value's parser before its caller), and
 * reported as one line on stderr with a line pointing to --help; and the
 * label of an option as the messages write it.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "boot/args_opt.h"

/* the program's name in the line pointing to --help */
#define PRG "dpdk-l3fwd-flowexp"

static char cli_msg[512];
static bool cli_failed;

void
fx_args_err(const char *fmt, ...)
{
	char buf[sizeof(cli_msg)];
	va_list ap;

	if (cli_failed)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(cli_msg, buf, sizeof(cli_msg));
	cli_failed = true;
}

int
fx_args_report(void)
{
	fprintf(stderr, FX_MSG_PREFIX "%s\nsee --help (" PRG " -- --help)\n", cli_msg);
	return -1;
}

const char *
fx_opt_label(const struct fx_opt *o, char *buf, size_t len)
{
	if (o->name != NULL)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->letter);
	return buf;
}
