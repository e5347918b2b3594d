// SPDX-License-Identifier: GPL-2.0-only
/* parse-options: one table describes a command's options and its help. */
#include "lib/parse-options.h"
#include "lib/strbuf.h"
#include "lib/strvec.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
print_usage(FILE *fp, const char *const *usagestr, const struct option *options)
{
	fprintf(fp, "usage: %s\n", usagestr[0]);
	for (size_t i = 1; usagestr[i]; i++)
		fprintf(fp, "%s%s\n", *usagestr[i] ? "   or: " : "", usagestr[i]);
	fputc('\n', fp);
	for (const struct option *o = options; o->type != OPTION_END; o++) {
		struct strbuf sb = STRBUF_INIT;

		if (o->type == OPTION_GROUP) {
			fprintf(fp, "%s%s\n", o == options ? "" : "\n", o->help);
			continue;
		}
		strbuf_addstr(&sb, "    ");
		if (o->short_name)
			strbuf_addf(&sb, "-%c%s", o->short_name, o->long_name ? ", " : "");
		if (o->long_name)
			strbuf_addf(&sb, "--%s%s", o->type == OPTION_BOOL || o->type == OPTION_COUNTUP ? "[no-]" : "",
				    o->long_name);
		if (o->argh)
			strbuf_addf(&sb, " <%s>", o->argh);
		if (sb.len < 30)
			fprintf(fp, "%-30s%s\n", sb.buf, o->help);
		else
			fprintf(fp, "%s\n%30s%s\n", sb.buf, "", o->help);
		strbuf_release(&sb);
	}
}

void
usage_with_options(const char *const *usagestr, const struct option *options)
{
	print_usage(stderr, usagestr, options);
	exit(EXIT_ERROR);
}

void
usage_msg_opt(const char *const *usagestr, const struct option *options, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s", sb.buf);
	strbuf_release(&sb);
	fputc('\n', stderr);
	usage_with_options(usagestr, options);
}

static void
set_value(const char *const *usagestr, const struct option *all, const struct option *o,
	  const char *arg, int negated)
{
	switch (o->type) {
	case OPTION_BOOL:
		*(int *)o->value = !negated;
		break;
	case OPTION_COUNTUP:
		*(int *)o->value = negated ? 0 : *(int *)o->value + 1;
		break;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		break;
	case OPTION_STRING_LIST:
		strvec_push(o->value, arg);
		break;
	case OPTION_INTEGER: {
		char *end;
		long n;

		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || end == arg || n < 0 || n > 1000000)
			usage_msg_opt(usagestr, all, "option '--%s' expects a non-negative number, not '%s'",
				      o->long_name, arg);
		*(int *)o->value = (int)n;
		break;
	}
	default:
		BUG("bad option type %d", o->type);
	}
}

static const struct option *
find_long(const struct option *options, const char *name, size_t len, int *negated)
{
	*negated = 0;
	for (const struct option *o = options; o->type != OPTION_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	if (len > 3 && !strncmp(name, "no-", 3))
		for (const struct option *o = options; o->type != OPTION_END; o++)
			if ((o->type == OPTION_BOOL || o->type == OPTION_COUNTUP) && o->long_name &&
			    strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*negated = 1;
				return o;
			}
	return NULL;
}

int
parse_options(int argc, const char **argv, const struct option *options,
	      const char *const *usagestr, unsigned flags)
{
	int out = 1, i;
	const struct option *all = options;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			print_usage(stdout, usagestr, options);
			exit(flush_stdout() ? EXIT_ERROR : EXIT_CLEAN);
		}
		if (!strcmp(arg, "--")) {
			if (flags & PARSE_OPT_KEEP_DASHDASH)
				argv[out++] = arg;
			i++;
			break;
		}
		/* "-3" is git format-patch's "the last three commits", never an option of ours. */
		if (arg[0] != '-' || !arg[1] || (arg[1] >= '0' && arg[1] <= '9')) {
			if (flags & PARSE_OPT_STOP_AT_NON_OPTION)
				break;
			argv[out++] = arg;
			continue;
		}
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			int negated;
			const struct option *o = find_long(options, name, len, &negated);

			if (!o) {
				if (flags & PARSE_OPT_KEEP_UNKNOWN) {
					argv[out++] = arg;
					continue;
				}
				usage_msg_opt(usagestr, all, "unknown option '%s'", arg);
			}
			if (o->type == OPTION_BOOL || o->type == OPTION_COUNTUP) {
				if (eq)
					usage_msg_opt(usagestr, all, "option '--%s' takes no value", o->long_name);
				set_value(usagestr, all, o, NULL, negated);
			} else if (eq) {
				set_value(usagestr, all, o, eq + 1, 0);
			} else if (i + 1 < argc) {
				set_value(usagestr, all, o, argv[++i], 0);
			} else {
				usage_msg_opt(usagestr, all, "option '--%s' needs a value", o->long_name);
			}
			continue;
		}
		/* Short options: only single letters, "-pVALUE" or "-p VALUE". */
		{
			const struct option *o;

			for (o = options; o->type != OPTION_END; o++)
				if (o->short_name == arg[1])
					break;
			if (o->type == OPTION_END) {
				if (flags & PARSE_OPT_KEEP_UNKNOWN) {
					argv[out++] = arg;
					continue;
				}
				usage_msg_opt(usagestr, all, "unknown switch '%c'", arg[1]);
			}
			if (o->type == OPTION_COUNTUP && strspn(arg + 1, (char[]){ arg[1], 0 }) == strlen(arg + 1)) {
				for (const char *p = arg + 1; *p; p++)
					set_value(usagestr, all, o, NULL, 0);
			} else if (o->type == OPTION_BOOL || o->type == OPTION_COUNTUP) {
				if (arg[2])
					usage_msg_opt(usagestr, all, "switch '%c' takes no value", arg[1]);
				set_value(usagestr, all, o, NULL, 0);
			} else if (arg[2]) {
				set_value(usagestr, all, o, arg + 2, 0);
			} else if (i + 1 < argc) {
				set_value(usagestr, all, o, argv[++i], 0);
			} else {
				usage_msg_opt(usagestr, all, "switch '%c' needs a value", arg[1]);
			}
		}
	}
	for (; i < argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	return out;
}
