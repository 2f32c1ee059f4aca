/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The test app's framework, after dpdk-test's: TEST_ASSERT* macros that
 * print where a case failed and return TEST_FAILED, a unit test suite
 * runner that prints dpdk-test's case and summary lines, and
 * REGISTER_TEST_COMMAND() to add a named command (for DPDK_TEST, the
 * command line and the RTE>> prompt).
 */

#ifndef _TWHEEL_TEST_H_
#define _TWHEEL_TEST_H_

#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>
#include <sys/queue.h>

#include <rte_common.h>

#define TEST_SUCCESS 0
#define TEST_FAILED -1
#define TEST_SKIPPED 77

#define TEST_TRACE_FAILURE(func, line, fmt, ...) \
	printf("TestCase %s() line %d failed: " fmt "\n", func, line, ##__VA_ARGS__)

#define TEST_ASSERT(cond, msg, ...) do {					\
	if (!(cond)) {								\
		TEST_TRACE_FAILURE(__func__, __LINE__, msg, ##__VA_ARGS__);	\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_EQUAL(a, b, msg, ...) do {					\
	if (!((a) == (b))) {							\
		TEST_TRACE_FAILURE(__func__, __LINE__, msg, ##__VA_ARGS__);	\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_NOT_EQUAL(a, b, msg, ...) do {				\
	if (!((a) != (b))) {							\
		TEST_TRACE_FAILURE(__func__, __LINE__, msg, ##__VA_ARGS__);	\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_SUCCESS(val, msg, ...) do {					\
	typeof(val) _val = (val);						\
	if (!(_val == 0)) {							\
		TEST_TRACE_FAILURE(__func__, __LINE__, msg " (returned %d)",	\
			##__VA_ARGS__, (int)_val);				\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_NULL(val, msg, ...) TEST_ASSERT((val) == NULL, msg, ##__VA_ARGS__)
#define TEST_ASSERT_NOT_NULL(val, msg, ...) TEST_ASSERT((val) != NULL, msg, ##__VA_ARGS__)

/* A test case with optional setup and teardown, as in dpdk-test. */
struct unit_test_case {
	int (*setup)(void);
	void (*teardown)(void);
	int (*testcase)(void);
	const char *name;
	int enabled;
};

#define TEST_CASE(fn) { NULL, NULL, fn, RTE_STR(fn), 1 }
#define TEST_CASE_ST(setup, teardown, fn) { setup, teardown, fn, RTE_STR(fn), 1 }
#define TEST_CASES_END() { NULL, NULL, NULL, NULL, 0 }

struct unit_test_suite {
	const char *suite_name;
	int (*setup)(void);
	void (*teardown)(void);
	struct unit_test_case unit_test_cases[];
};

/* Run a suite, print its cases and summary; TEST_SUCCESS/FAILED/SKIPPED. */
int unit_test_suite_runner(struct unit_test_suite *suite);

typedef int (test_callback)(void);

struct test_command {
	TAILQ_ENTRY(test_command) next;
	const char *command;
	test_callback *callback;
};

void add_test_command(struct test_command *t);
struct test_command *find_test_command(const char *name);
void list_test_commands(void);
int run_test_command(const char *name);
/* The RTE>> prompt until "quit" or end of input; 0, or 1 if it could not start. */
int test_interactive(void);

#define REGISTER_TEST_COMMAND(cmd, func)				\
	static struct test_command test_struct_##cmd = {		\
		.command = RTE_STR(cmd),				\
		.callback = func,					\
	};								\
	RTE_INIT(test_register_##cmd)					\
	{								\
		add_test_command(&test_struct_##cmd);			\
	}

/* Run-time knobs shared by tests: an integer from the environment. */
uint64_t test_env_u64(const char *name, uint64_t dflt);

#endif /* _TWHEEL_TEST_H_ */
