/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Command-line parsing, driven by the option table (boot/args_table.c):
 * the getopt array, the value of each kind of row, the errors getopt
 * finds, and the --help text are all made from the rows.
 *
 * Two passes. Before EAL starts (fx_parse_args()), so that neither needs
 * hugepages: --version anywhere on the command line prints the versions
 * (exit status 0), --help anywhere among the application's options the
 * usage on stdout (exit status 0), and every option is parsed and
 * checked as far as that needs nothing of EAL's. After EAL
 * (fx_check_args(), boot/args_check.c): the lcores and ports against
 * --config, the combinations of options, NAT's worker count.
 *
 * Every value is checked completely (no trailing junk, in range), and a
 * value refused says what was wanted: a number's range, a choice's names.
 * Long options may be abbreviated to any unique prefix (getopt_long); an
 * abbreviation that fits several is refused with their names. An option
 * of the application's given before the "--" that ends EAL's options
 * (which EAL would refuse with its own usage) is refused with where it
 * goes.
 *
 * Errors: the first one found, and only it (a parser's own message wins
 * over its caller's), goes to stderr as one line, followed by a line
 * pointing to --help; main() exits with status 1. The usage text is
 * printed for --help only.
 */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_version.h>

#include "base/config.h"
#include "boot/args.h"
#include "boot/args_opt.h"
#include "boot/args_table.h"

/* getopt's value of a long option: this plus its row's index */
#define OPT_ROW 256
#define ARGS_MAX 4096
#define USAGE_WIDTH 79
#define USAGE_INDENT 6
/* the program's name in the messages, as the line pointing to --help */
#define PRG "dpdk-l3fwd-flowexp"

static bool
takes_value(const struct fx_opt *o)
{
	return o->kind != FX_OPT_FLAG && o->kind != FX_OPT_HELP && o->kind != FX_OPT_TOPIC;
}

/* ---- the kinds of value ---- */

static void
store(const struct fx_opt *o, uint64_t v)
{
	switch (o->dst_size) {
	case 1:
		*(uint8_t *)o->dst = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)o->dst = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)o->dst = (uint32_t)v;
		break;
	default:
		*(uint64_t *)o->dst = v;
		break;
	}
}

static uint64_t
load(const struct fx_opt *o)
{
	switch (o->dst_size) {
	case 1:
		return *(const uint8_t *)o->dst;
	case 2:
		return *(const uint16_t *)o->dst;
	case 4:
		return *(const uint32_t *)o->dst;
	default:
		return *(const uint64_t *)o->dst;
	}
}

/* o's range in words: "64..16777216", "0x1..0xffffffff", "0.001..1000000 s" */
static void
range_text(const struct fx_opt *o, char *buf, size_t len)
{
	if (o->kind == FX_OPT_SECONDS)
		snprintf(buf, len, "%.9g..%.9g s", o->min_s, o->max_s);
	else if (o->base == 16)
		snprintf(buf, len, "0x%lx..0x%lx", o->min, o->max);
	else
		snprintf(buf, len, "%lu..%lu", o->min, o->max);
}

/* the uniform refusal of a number: not one, or out of o's range */
static int
bad_number(const struct fx_opt *o, const char *s, bool is_number)
{
	char label[FX_OPT_LABEL_MAX], range[64], zero[96] = "";

	fx_opt_label(o, label, sizeof(label));
	range_text(o, range, sizeof(range));
	if (o->zero != NULL)
		snprintf(zero, sizeof(zero), " (0: %s)", o->zero);
	if (is_number)
		fx_args_err("%s: %s is out of range %s%s", label, s, range, zero);
	else
		fx_args_err("%s: '%.40s' is not a%s number in %s%s", label, s,
			    o->base == 16 ? " hexadecimal" : o->kind == FX_OPT_SECONDS ?
			    "" : " whole", range, zero);
	return -1;
}

/* a whole number of o's base, first character a digit (a '-' before the
 * digits makes it a number out of range), in o's range */
static int
opt_number(const struct fx_opt *o, const char *s, unsigned long *out)
{
	int base = o->base == 16 ? 16 : 10;
	const char *digits = s[0] == '-' ? s + 1 : s;
	unsigned long v;
	char *end;

	if (!(base == 16 ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
		return bad_number(o, s, false);
	errno = 0;
	v = strtoul(digits, &end, base);
	if (*end != '\0')
		return bad_number(o, s, false);
	if (errno != 0 || s != digits || v < o->min || v > o->max)
		return bad_number(o, s, true);
	*out = v;
	return 0;
}

static int
set_flag(const struct fx_opt *o, const char *arg __rte_unused)
{
	if (o->dst != NULL)
		*(bool *)o->dst = true;
	return 0;
}

static int
set_uint(const struct fx_opt *o, const char *arg)
{
	unsigned long v = 0;

	if (opt_number(o, arg, &v) != 0)
		return -1;
	store(o, v);
	return 0;
}

static int
set_bit(const struct fx_opt *o, const char *arg)
{
	unsigned long v = 0;

	if (opt_number(o, arg, &v) != 0)
		return -1;
	*(uint32_t *)o->dst |= UINT32_C(1) << v;
	return 0;
}

static int
set_seconds(const struct fx_opt *o, const char *arg)
{
	char *end;
	double v;

	if (*arg == '\0' || isspace((unsigned char)*arg))
		return bad_number(o, arg, false);
	errno = 0;
	v = strtod(arg, &end);
	if (errno == ERANGE && *end == '\0')
		return bad_number(o, arg, true);
	if (errno != 0 || *end != '\0' || !isfinite(v))
		return bad_number(o, arg, false);
	if (v < o->min_s || v > o->max_s)
		return bad_number(o, arg, true);
	*(double *)o->dst = v;
	return 0;
}

/* the names of o's choices, joined by sep */
static void
choice_names(const struct fx_opt *o, const char *sep, char *buf, size_t len)
{
	const struct fx_choice *c;
	size_t n = 0;

	buf[0] = '\0';
	for (c = o->choices; c->name != NULL && n < len; c++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", c == o->choices ? "" : sep,
				      c->name);
}

static int
set_choice(const struct fx_opt *o, const char *arg)
{
	char label[FX_OPT_LABEL_MAX], names[128];
	const struct fx_choice *c;

	for (c = o->choices; c->name != NULL; c++) {
		if (strcmp(arg, c->name) == 0) {
			store(o, (uint64_t)(uint32_t)c->value);
			return 0;
		}
	}
	choice_names(o, ", ", names, sizeof(names));
	fx_args_err("%s: '%.40s' is not one of %s", fx_opt_label(o, label, sizeof(label)),
		    arg, names);
	return -1;
}

static int
set_custom(const struct fx_opt *o, const char *arg)
{
	return o->parse(o, arg);
}

static int
set_nothing(const struct fx_opt *o __rte_unused, const char *arg __rte_unused)
{
	return 0;
}

static int (*const kind_set[FX_OPT_KINDS])(const struct fx_opt *o, const char *arg) = {
	[FX_OPT_TOPIC] = set_nothing,
	[FX_OPT_FLAG] = set_flag,
	[FX_OPT_UINT] = set_uint,
	[FX_OPT_BIT] = set_bit,
	[FX_OPT_SECONDS] = set_seconds,
	[FX_OPT_CHOICE] = set_choice,
	[FX_OPT_CUSTOM] = set_custom,
	[FX_OPT_HELP] = set_nothing,
};

/* one option's value, where it goes; 0, or -1 with the error said */
static int
set_option(const struct fx_opt *o, const char *arg)
{
	if (kind_set[o->kind](o, arg) != 0)
		return -1;
	if (o->given != NULL)
		*o->given = true;
	return 0;
}

/* ---- the usage text ---- */

/* where the usage text is: its column, the next lines' indent, and
 * whether nothing was written on this line yet */
struct usage_pos {
	unsigned int col;
	unsigned int indent;
	bool fresh;
};

/* w (n bytes) after a space, on the next line (indented) if it does not fit */
static void
put_word(struct usage_pos *u, const char *w, size_t n)
{
	if (!u->fresh && u->col + 1 + n > USAGE_WIDTH) {
		printf("\n%*s", (int)u->indent, "");
		u->col = u->indent;
		u->fresh = true;
	}
	if (!u->fresh) {
		putchar(' ');
		u->col++;
	}
	printf("%.*s", (int)n, w);
	u->col += (unsigned int)n;
	u->fresh = false;
}

/* text's words, wrapped */
static void
put_text(struct usage_pos *u, const char *text)
{
	const char *p = text, *e;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		for (e = p; *e != ' ' && *e != '\0'; e++)
			;
		if (e > p)
			put_word(u, p, (size_t)(e - p));
		p = e;
	}
}

/* o's default in words, from its value before any option is parsed; "" if none */
static void
default_text(const struct fx_opt *o, char *buf, size_t len)
{
	const struct fx_choice *c;

	buf[0] = '\0';
	if (o->dflt != NULL) {
		snprintf(buf, len, "default: %s", o->dflt);
	} else if (o->kind == FX_OPT_CUSTOM && o->show != NULL) {
		snprintf(buf, len, "default ");
		o->show(buf + strlen(buf), len - strlen(buf));
	} else if (o->kind == FX_OPT_UINT && !o->required) {
		snprintf(buf, len, o->base == 16 ? "default 0x%" PRIx64 : "default %" PRIu64,
			 load(o));
	} else if (o->kind == FX_OPT_SECONDS) {
		snprintf(buf, len, "default %.9g", *(const double *)o->dst);
	} else if (o->kind == FX_OPT_CHOICE) {
		for (c = o->choices; c->name != NULL; c++)
			if ((uint32_t)c->value == (uint32_t)load(o))
				snprintf(buf, len, "default %s", c->name);
	}
}

/* fact after the others in buf, "; " between */
static void
add_fact(char *buf, size_t len, size_t *n, const char *fact)
{
	if (fact[0] == '\0' || *n >= len)
		return;
	*n += (size_t)snprintf(buf + *n, len - *n, "%s%s", *n ? "; " : "", fact);
}

/* what the row says of itself: range, what 0 means, repeat, default */
static void
facts_text(const struct fx_opt *o, char *buf, size_t len)
{
	char part[160];
	size_t n = 0;

	buf[0] = '\0';
	if (o->kind == FX_OPT_UINT || o->kind == FX_OPT_BIT || o->kind == FX_OPT_SECONDS) {
		range_text(o, part, sizeof(part));
		add_fact(buf, len, &n, part);
	}
	if (o->zero != NULL) {
		snprintf(part, sizeof(part), "0: %s", o->zero);
		add_fact(buf, len, &n, part);
	}
	if (o->repeat)
		add_fact(buf, len, &n, "repeatable");
	if (o->required)
		add_fact(buf, len, &n, "required");
	default_text(o, part, sizeof(part));
	add_fact(buf, len, &n, part);
}

/* "--lookup lpm|em", "-p PORTMASK", "--bench" */
static void
option_head(const struct fx_opt *o, char *buf, size_t len)
{
	char label[FX_OPT_LABEL_MAX], names[128];

	fx_opt_label(o, label, sizeof(label));
	if (o->kind == FX_OPT_CHOICE && o->metavar == NULL) {
		choice_names(o, "|", names, sizeof(names));
		snprintf(buf, len, "%s %s", label, names);
	} else if (takes_value(o)) {
		snprintf(buf, len, "%s %s", label, o->metavar);
	} else {
		snprintf(buf, len, "%s", label);
	}
}

/* one option: its head, its help, its facts in brackets, wrapped */
static void
usage_option(const struct fx_opt *o)
{
	struct usage_pos u = { .col = 2, .indent = USAGE_INDENT, .fresh = true };
	char head[128], facts[512], text[1536];

	option_head(o, head, sizeof(head));
	facts_text(o, facts, sizeof(facts));
	snprintf(text, sizeof(text), "%s: %s%s%s%s", head, o->help, facts[0] ? " (" : "",
		 facts, facts[0] ? ")" : "");
	printf("  ");
	put_text(&u, text);
	putchar('\n');
}

/* the synopsis: the required options, then every other one in brackets */
static void
usage_synopsis(const char *prgname)
{
	struct usage_pos u = { .col = 0, .indent = USAGE_INDENT, .fresh = true };
	char head[160], word[192];
	unsigned int i;
	size_t n;

	n = (size_t)snprintf(word, sizeof(word), "usage: %s [EAL options] --", prgname);
	for (i = 0; i < fx_nb_opts; i++) {
		if (!fx_opts[i].required || n >= sizeof(word))
			continue;
		option_head(&fx_opts[i], head, sizeof(head));
		n += (size_t)snprintf(word + n, sizeof(word) - n, " %s", head);
	}
	put_word(&u, word, strlen(word));
	for (i = 0; i < fx_nb_opts; i++) {
		if (fx_opts[i].kind == FX_OPT_TOPIC || fx_opts[i].required)
			continue;
		option_head(&fx_opts[i], head, sizeof(head));
		snprintf(word, sizeof(word), "[%s]%s", head, fx_opts[i].repeat ? "..." : "");
		put_word(&u, word, strlen(word));
	}
	printf("\n\nEAL's options come before '--', the application's after it.\n");
}

void
fx_usage(const char *prgname)
{
	unsigned int i;

	usage_synopsis(prgname);
	for (i = 0; i < fx_nb_opts; i++) {
		if (fx_opts[i].kind == FX_OPT_TOPIC)
			printf("\n%s\n", fx_opts[i].help);
		else
			usage_option(&fx_opts[i]);
	}
}

/* ---- getopt ---- */

static struct option lgopts[FX_OPTS_MAX + 1];
static char shortopts[2 * FX_OPTS_MAX + 2];

/* the getopt array and the short options, from the table */
static void
build_getopt(void)
{
	unsigned int i, n = 0, s = 0;
	const struct fx_opt *o;

	shortopts[s++] = ':';   /* a missing value is ':', not '?' */
	for (i = 0; i < fx_nb_opts; i++) {
		o = &fx_opts[i];
		if (o->kind == FX_OPT_TOPIC)
			continue;
		if (o->letter != 0) {
			shortopts[s++] = o->letter;
			if (takes_value(o))
				shortopts[s++] = ':';
		}
		if (o->name != NULL)
			lgopts[n++] = (struct option){ o->name,
				takes_value(o) ? required_argument : no_argument,
				NULL, OPT_ROW + (int)i };
	}
	shortopts[s] = '\0';
	lgopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* the row getopt's value stands for; NULL for none */
static const struct fx_opt *
row_of(int opt)
{
	unsigned int i;

	if (opt >= OPT_ROW && opt < OPT_ROW + (int)fx_nb_opts)
		return &fx_opts[opt - OPT_ROW];
	for (i = 0; i < fx_nb_opts; i++)
		if (opt > 0 && fx_opts[i].letter == opt)
			return &fx_opts[i];
	return NULL;
}

/* the long options of which arg ("--nat-p", "--nat-p=...") is a prefix,
 * into buf; how many */
static unsigned int
prefix_matches(const char *arg, char *buf, size_t len)
{
	const char *name = arg + 2;
	size_t n = strcspn(name, "="), w = 0;
	unsigned int i, k = 0;

	buf[0] = '\0';
	for (i = 0; i < fx_nb_opts && n > 0; i++) {
		if (fx_opts[i].name == NULL || strncmp(fx_opts[i].name, name, n) != 0)
			continue;
		if (w < len)
			w += (size_t)snprintf(buf + w, len - w, "%s--%s", k ? ", " : "",
					      fx_opts[i].name);
		k++;
	}
	return k;
}

/* what getopt found wrong with argv[optind - 1] */
static void
getopt_error(int opt, char **argv)
{
	const char *arg = argv[optind - 1];
	char names[512];

	if (opt == ':')
		fx_args_err("option '%s' needs a value", arg);
	else if (optopt > 0 && optopt < OPT_ROW && strncmp(arg, "--", 2) != 0)
		fx_args_err("unknown option '-%c'", optopt);
	else if (optopt >= OPT_ROW)
		fx_args_err("option '%s' takes no value", arg);
	else if (strncmp(arg, "--", 2) == 0 && prefix_matches(arg, names, sizeof(names)) > 1)
		fx_args_err("option '%.*s' is ambiguous: it abbreviates %s",
			    (int)strcspn(arg, "="), arg, names);
	else
		fx_args_err("unknown option '%s'", arg);
}

/* ---- the two parts of the command line ---- */

/* the application's arguments: what follows the first "--" */
static int
app_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i + 1;
	return argc;
}

/* EAL's own --help or -h before "--": rte_eal_init() prints EAL's usage */
static bool
eal_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

/* the row of an application option written as word ("-p", "-p3",
 * "--max-flows", "--max-flows=8"), the long ones in full; NULL if none */
static const struct fx_opt *
app_option_word(const char *word)
{
	unsigned int i;
	size_t n;

	if (word[0] != '-' || word[1] == '\0')
		return NULL;
	if (word[1] != '-')
		return row_of((unsigned char)word[1]);
	n = strcspn(word + 2, "=");
	for (i = 0; i < fx_nb_opts; i++)
		if (fx_opts[i].name != NULL && fx_opts[i].kind != FX_OPT_HELP &&
		    strlen(fx_opts[i].name) == n && strncmp(fx_opts[i].name, word + 2, n) == 0)
			return &fx_opts[i];
	return NULL;
}

/*
 * An application option among EAL's, before the first "--" (or with
 * none): EAL would refuse it with its whole usage and no word of where it
 * goes. 0, or -1 with the error said.
 */
static int
app_option_before_eal_end(int argc, char **argv)
{
	const struct fx_opt *o;
	char example[128];
	const char *w;
	bool value_apart;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		w = argv[i];
		o = app_option_word(w);
		if (o == NULL)
			continue;
		value_apart = takes_value(o) && strchr(w, '=') == NULL &&
			(w[1] == '-' || w[2] == '\0') && i + 1 < argc &&
			strcmp(argv[i + 1], "--") != 0;
		snprintf(example, sizeof(example), "%s%s%.40s", w, value_apart ? " " : "",
			 value_apart ? argv[i + 1] : "");
		fx_args_err("'%s' is an application option, given among EAL's; application "
			    "options go after '--': " PRG " [EAL options] -- %s ...", w, example);
		return -1;
	}
	return 0;
}

/* getopt over a copy: argv stays as EAL is to see it */
static int
copy_args(int argc, char **argv, int first, char **out, int max)
{
	int n = 0, i;

	out[n++] = argv[0];
	for (i = first; i < argc && n < max - 1; i++)
		out[n++] = argv[i];
	out[n] = NULL;
	return n;
}

/* --version anywhere on the command line: EAL's options need not be valid */
static bool
want_version(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--version") == 0)
			return true;
	return false;
}

/* twheel's version, and DPDK's as built against and as running */
static void
print_version(void)
{
	printf(PRG " (twheel %s)\n", FX_TWHEEL_VERSION);
	printf("DPDK %d.%02d.%d built against, %s running\n", RTE_VER_YEAR, RTE_VER_MONTH,
	       RTE_VER_MINOR, rte_version());
}

/* --help anywhere among the application's options, whatever else is wrong */
static bool
want_help(int argc, char **argv)
{
	const struct fx_opt *o;
	int opt, idx;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, lgopts, &idx)) != EOF) {
		o = row_of(opt);
		if (o != NULL && o->kind == FX_OPT_HELP)
			return true;
	}
	return false;
}

/* every application option in args (n of them, args[0] the program) */
static int
parse_app_options(int n, char **args)
{
	const struct fx_opt *o;
	int opt, idx;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(n, args, shortopts, lgopts, &idx)) != EOF) {
		o = row_of(opt);
		if (opt == '?' || opt == ':' || o == NULL) {
			getopt_error(opt, args);
			return -1;
		}
		if (set_option(o, optarg) != 0)
			return -1;
	}
	if (optind < n) {
		fx_args_err("unexpected argument '%s'", args[optind]);
		return -1;
	}
	if (fx_conf.portmask == 0) {
		fx_args_err("-p PORTMASK is required");
		return -1;
	}
	return 0;
}

int
fx_parse_args(int argc, char **argv)
{
	static char *args[ARGS_MAX];
	int n;

	fx_args_defaults();
	build_getopt();
	if (want_version(argc, argv)) {
		print_version();
		return 1;
	}
	if (eal_help(argc, argv))
		return 2;
	n = copy_args(argc, argv, app_args(argc, argv), args, ARGS_MAX);
	if (want_help(n, args)) {
		fx_usage(argv[0]);
		return 1;
	}
	if (app_option_before_eal_end(argc, argv) != 0)
		return fx_args_report();
	n = copy_args(argc, argv, app_args(argc, argv), args, ARGS_MAX);
	if (parse_app_options(n, args) != 0)
		return fx_args_report();
	return 0;
}
