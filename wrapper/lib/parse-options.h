/* SPDX-License-Identifier: GPL-2.0-only */
/* parse-options: option tables for khsend's commands (after git's parse-options.h). */
#ifndef KHSEND_PARSE_OPTIONS_H
#define KHSEND_PARSE_OPTIONS_H

enum parse_opt_type {
	OPTION_END,
	OPTION_GROUP,
	OPTION_BOOL,		/* int: 1, 0 with --no-<name>; stays -1 if never given */
	OPTION_STRING,		/* const char * */
	OPTION_STRING_LIST,	/* struct strvec: repeatable */
	OPTION_INTEGER,		/* int, non-negative */
	OPTION_COUNTUP,		/* int: one more each time ("-qq" is two), 0 with --no-<name> */
};

struct option {
	enum parse_opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* the value's name in the help */
	const char *help;
};

#define OPT_END() { OPTION_END, 0, NULL, NULL, NULL, NULL }
#define OPT_GROUP(h) { OPTION_GROUP, 0, NULL, NULL, NULL, (h) }
#define OPT_BOOL(s, l, v, h) { OPTION_BOOL, (s), (l), (v), NULL, (h) }
#define OPT_STRING(s, l, v, a, h) { OPTION_STRING, (s), (l), (v), (a), (h) }
#define OPT_STRING_LIST(s, l, v, a, h) { OPTION_STRING_LIST, (s), (l), (v), (a), (h) }
#define OPT_INTEGER(s, l, v, a, h) { OPTION_INTEGER, (s), (l), (v), (a), (h) }
#define OPT_COUNTUP(s, l, v, h) { OPTION_COUNTUP, (s), (l), (v), NULL, (h) }

enum parse_opt_flags {
	PARSE_OPT_STOP_AT_NON_OPTION = 1 << 0,	/* for subcommand dispatch */
	PARSE_OPT_KEEP_UNKNOWN = 1 << 1,	/* leave unknown options in argv */
	PARSE_OPT_KEEP_DASHDASH = 1 << 2,
};

/*
 * Parse argv[1..argc) against `options`; what is not an option stays in
 * argv, in order, and the new argc is returned.  "-h"/"--help" print the
 * usage on stdout and exit 0; a bad option prints the reason and the usage
 * on stderr and exits 2.
 */
int parse_options(int argc, const char **argv, const struct option *options,
		  const char *const *usagestr, unsigned flags);

__attribute__((noreturn))
void usage_with_options(const char *const *usagestr, const struct option *options);
__attribute__((noreturn, format(printf, 3, 4)))
void usage_msg_opt(const char *const *usagestr, const struct option *options, const char *fmt, ...);

#endif
