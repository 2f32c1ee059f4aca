/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The test commands: the table that REGISTER_TEST_COMMAND() fills before
 * main(), running one by name with its verdict line, and the RTE>> prompt
 * (librte_cmdline): a test's name runs it; "list" shows the tests; "quit"
 * leaves.
 */

#include <stdio.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>

#include "test.h"

static TAILQ_HEAD(, test_command) commands = TAILQ_HEAD_INITIALIZER(commands);

void
add_test_command(struct test_command *t)
{
	TAILQ_INSERT_TAIL(&commands, t, next);
}

struct test_command *
find_test_command(const char *name)
{
	struct test_command *t;

	TAILQ_FOREACH(t, &commands, next)
		if (strcmp(t->command, name) == 0)
			return t;
	return NULL;
}

void
list_test_commands(void)
{
	struct test_command *t;

	TAILQ_FOREACH(t, &commands, next)
		printf("%s\n", t->command);
}

int
run_test_command(const char *name)
{
	struct test_command *t = find_test_command(name);
	int ret;

	if (t == NULL) {
		printf("Error: invalid test command: '%s'\n", name);
		return TEST_FAILED;
	}
	ret = t->callback();
	if (ret == TEST_SUCCESS)
		printf("Test OK\n");
	else if (ret == TEST_SKIPPED)
		printf("Test Skipped\n");
	else
		printf("Test Failed\n");
	fflush(stdout);
	return ret;
}


struct cmd_word_result {
	cmdline_fixed_string_t word;
};

static void
cmd_word_parsed(void *parsed_result, struct cmdline *cl,
		void *data __rte_unused)
{
	struct cmd_word_result *res = parsed_result;

	if (strcmp(res->word, "quit") == 0) {
		cmdline_quit(cl);
		return;
	}
	if (strcmp(res->word, "list") == 0) {
		list_test_commands();
		return;
	}
	run_test_command(res->word);
}

static cmdline_parse_token_string_t cmd_word_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_word_result, word, NULL);

static cmdline_parse_inst_t cmd_word = {
	.f = cmd_word_parsed,
	.data = NULL,
	.help_str = "<test name> | list | quit",
	.tokens = { (void *)&cmd_word_tok, NULL },
};

static cmdline_parse_ctx_t main_ctx[] = {
	(cmdline_parse_inst_t *)&cmd_word,
	NULL,
};

int
test_interactive(void)
{
	struct cmdline *cl = cmdline_stdin_new(main_ctx, "RTE>>");

	if (cl == NULL)
		return 1;
	cmdline_interact(cl);
	cmdline_stdin_exit(cl);
	return 0;
}
