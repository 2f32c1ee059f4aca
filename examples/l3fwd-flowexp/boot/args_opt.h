/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The command line's ground floor (boot/args_opt.c): what an option row
 * is, and the one error a command line reports. Above it stand the table
 * of options (boot/args_table.c), the checks after EAL
 * (boot/args_check.c), and on top the parser and the usage text made
 * from the table (boot/args.c).
 *
 * One row per option says everything about it: its names, its value's
 * name and kind, the limits or the names it accepts, where the value goes
 * and the help text. The getopt array, the parsing, the errors about a
 * value and the --help text are all made from the rows, so that an option
 * cannot be parsed one way and described another.
 */

#ifndef _FX_ARGS_OPT_H_
#define _FX_ARGS_OPT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What an option's value is: how it is parsed, checked and shown. */
enum fx_opt_kind {
	FX_OPT_TOPIC,     /**< no option: a heading of the usage text */
	FX_OPT_FLAG,      /**< no value: sets the bool at dst (if any) */
	FX_OPT_UINT,      /**< a whole number min..max (base 16: hexadecimal) */
	FX_OPT_BIT,       /**< a whole number min..max: that bit set in a uint32_t mask */
	FX_OPT_SECONDS,   /**< seconds, fractions allowed, min_s..max_s */
	FX_OPT_CHOICE,    /**< one of the names of choices: its value stored */
	FX_OPT_CUSTOM,    /**< a structured value: the row's parse() */
	FX_OPT_HELP,      /**< --help */
	FX_OPT_KINDS
};

/** One accepted name of a choice option and the value it stands for. */
struct fx_choice {
	const char *name;
	int value;
};

/** One option (or, FX_OPT_TOPIC, a heading of the usage). */
struct fx_opt {
	enum fx_opt_kind kind;
	const char *name;          /**< long name, without "--"; NULL: short only */
	char letter;               /**< short name, 0: none */
	const char *metavar;       /**< the value in the usage; NULL: no value, or a
				    *   choice's names joined by '|' */
	const char *help;          /**< what it does, one paragraph (wrapped when
				    *   printed); a topic's heading */
	bool repeat;               /**< may be given again, each adds */
	bool required;
	unsigned long min, max;    /**< FX_OPT_UINT, FX_OPT_BIT */
	int base;                  /**< FX_OPT_UINT: 16 hexadecimal, else decimal */
	double min_s, max_s;       /**< FX_OPT_SECONDS */
	const struct fx_choice *choices;   /**< FX_OPT_CHOICE, ended by a NULL name */
	/** FX_OPT_CUSTOM: parse arg, store it; 0, or -1 with fx_args_err() said */
	int (*parse)(const struct fx_opt *o, const char *arg);
	/** FX_OPT_CUSTOM, optional: the default, from the value before parsing */
	void (*show)(char *buf, size_t len);
	void *dst;                 /**< where the value goes (FLAG: may be NULL) */
	uint8_t dst_size;          /**< sizeof(*dst) for UINT and CHOICE: 1, 2, 4, 8 */
	bool *given;               /**< set to true when the option is given; may be NULL */
	const char *zero;          /**< UINT, SECONDS: what 0 means, if special */
	const char *dflt;          /**< the default in words, where the value would mislead */
};

/** dst and dst_size of a row, from the field the value goes to. */
#define FX_DST(field) .dst = &(field), .dst_size = sizeof(field)

/** Rows at most (fx_opts[] is checked against it), for the getopt array. */
#define FX_OPTS_MAX 96

/** Room for fx_opt_label(): "--" and the longest name. */
#define FX_OPT_LABEL_MAX 48

/**
 * Record a command-line error: the first one only (a parser's own message
 * comes before its caller's); fx_args_report() prints it.
 */
void fx_args_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Print the recorded error and the pointer to --help on stderr; -1. */
int fx_args_report(void);

/** The option as written on a command line: "-p" or "--max-flows". */
const char *fx_opt_label(const struct fx_opt *o, char *buf, size_t len);

#endif /* _FX_ARGS_OPT_H_ */
