/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * check(): the verdict line of the unit tests that print every check
 * (test/ipfix_test.c, test/telemetry_test.c): "ok   " or "FAIL ", then
 * the printf-style message, one line each; it returns ok, so that a test
 * goes on to the details only where the outline held. The counters are
 * statics of the one test source that includes this header, for its
 * main() to sum up and to choose its exit status.
 */

#ifndef FX_TEST_CHECK_H
#define FX_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int failures, passes;

static bool
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s", ok ? "ok   " : "FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		failures++;
	else
		passes++;
	return ok;
}

#endif /* FX_TEST_CHECK_H */
