/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The checks of the example's unit tests. The counters are statics of the
 * one test source that includes this header, for its main() to sum up and
 * to choose its exit status; both kinds of check count in them:
 *  - check(ok, fmt, ...): a verdict line for every check, "ok   " or
 *    "FAIL " and then the printf-style message; it returns ok, so that a
 *    test goes on to the details only where the outline held
 *    (test/unit/ipfix_test.c, test/unit/telemetry_test.c);
 *  - CHECK(cond, fmt, ...): silent where cond holds, "FAIL function:line: "
 *    and the message where it does not, for tests whose checks run by the
 *    million (the others).
 * A test on EAL starts and ends with test/lib/test_eal.h's helpers.
 */

#ifndef FX_TEST_CHECK_H
#define FX_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static unsigned int failures, checks;

static inline bool
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s", ok ? "ok   " : "FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	checks++;
	if (!ok)
		failures++;
	return ok;
}

#define CHECK(cond, ...) do { \
	checks++; \
	if (!(cond)) { \
		failures++; \
		printf("FAIL %s:%d: ", __func__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

#endif /* FX_TEST_CHECK_H */
