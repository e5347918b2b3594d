// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-progress: minutes of make are shown as one line that updates in
 * place on a terminal; a log or a CI job gets one line when a stage
 * starts, one every PLAIN_EVERY seconds while it runs (its elapsed time
 * and kbuild's count) and one when it ends, instead of a stream of
 * carriage returns.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* Seconds between two progress lines when stderr is not a terminal. */
#define PLAIN_EVERY 30

static const char *current;
static double started;
static double last_update;
static int line_open;

static int
on_terminal(void)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(2);
	return tty;
}

void
progress_stage(const char *stage)
{
	current = stage;
	started = monotonic_seconds();
	last_update = 0;
	if (!on_terminal())
		note("%s ...", stage);
}

static void
vprogress(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	double elapsed = monotonic_seconds() - started;

	strbuf_vaddf(&sb, fmt, ap);
	sanitize_terminal(sb.buf);
	/* \033[K clears what a longer previous line left behind. */
	fprintf(stderr, "\r%s: %s: %s (%d:%02d)\033[K", program_name, current, sb.buf,
		(int)elapsed / 60, (int)elapsed % 60);
	fflush(stderr);
	line_open = 1;
	strbuf_release(&sb);
}

void
progress_update(const char *fmt, ...)
{
	double now = monotonic_seconds();
	va_list ap;

	if (!on_terminal()) {
		struct strbuf sb = STRBUF_INIT;
		double elapsed = now - started;

		if (now - (last_update ? last_update : started) < PLAIN_EVERY)
			return;
		last_update = now;
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
		note("%s: %s (%d:%02d)", current, sb.buf, (int)elapsed / 60, (int)elapsed % 60);
		strbuf_release(&sb);
		return;
	}
	if (now - last_update < 0.25)
		return;
	last_update = now;
	va_start(ap, fmt);
	vprogress(fmt, ap);
	va_end(ap);
}

void
progress_clear(void)
{
	if (line_open) {
		fputs("\r\033[K", stderr);
		line_open = 0;
	}
}

void
progress_done(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	double elapsed = monotonic_seconds() - started;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	progress_clear();
	note("%s: %s (%.1f s)", current, sb.buf, elapsed);
	strbuf_release(&sb);
}
