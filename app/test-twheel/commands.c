/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The RTE>> prompt (librte_cmdline): a test's name runs it; "list" shows
 * the tests; "quit" leaves.
 */

#include <stdio.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>

#include "test.h"

int test_interactive(void);

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
