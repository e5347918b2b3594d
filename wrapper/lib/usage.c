// SPDX-License-Identifier: GPL-2.0-only
/* usage: die(), error() and friends; every message goes to stderr, sanitized. */
#include "lib/usage.h"
#include "lib/color.h"
#include "lib/i18n.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *program_name = "khsend";
static void (*die_cleanup)(void);

void
set_die_cleanup(void (*fn)(void))
{
	die_cleanup = fn;
}

void
sanitize_terminal(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			*p = '?';
}

static void
vreport(const char *kind, const char *colour, const char *fmt, va_list ap, int err)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	if (err)
		strbuf_addf(&sb, ": %s", strerror(err));
	sanitize_terminal(sb.buf);
	fflush(stdout);
	if (kind)
		fprintf(stderr, "%s: %s%s%s%s\n", program_name,
			color_code(2, colour), kind, color_code(2, COLOR_RESET), sb.buf);
	else
		fprintf(stderr, "%s: %s\n", program_name, sb.buf);
	strbuf_release(&sb);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(_("fatal: "), COLOR_RED, fmt, ap, 0);
	va_end(ap);
	if (die_cleanup)
		die_cleanup();
	exit(EXIT_ERROR);
}

void
die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(_("fatal: "), COLOR_RED, fmt, ap, err);
	va_end(ap);
	if (die_cleanup)
		die_cleanup();
	exit(EXIT_ERROR);
}

int
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(_("error: "), COLOR_RED, fmt, ap, 0);
	va_end(ap);
	return -1;
}

int
error_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(_("error: "), COLOR_RED, fmt, ap, err);
	va_end(ap);
	return -1;
}

void
warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(_("warning: "), COLOR_YELLOW, fmt, ap, 0);
	va_end(ap);
}

void
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(NULL, NULL, fmt, ap, 0);
	va_end(ap);
}

int
flush_stdout(void)
{
	if (fflush(stdout) || ferror(stdout))
		return error_errno("cannot write to standard output");
	return 0;
}

void
BUG_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: BUG: %s:%d: ", program_name, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
