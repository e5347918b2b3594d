// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-verdict: read the serial console of a boot.  It passed when our
 * init printed the marker with this boot's nonce and the kernel shut
 * down (init restarts the machine; a power-off counts too); any line the
 * kernel prints when something is wrong (the patterns
 * of KernelCI's logspec and LKP, the common ones) is a problem, unless
 * the base tree's own boot printed it too, timestamps and addresses
 * aside: then it is pre-existing and not the series' fault.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/usage.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const problem_patterns[] = {
	"Kernel panic",
	"BUG:",
	"kernel BUG at",
	"Oops",
	"WARNING:",
	"Call Trace",
	"general protection fault",
	"Unable to handle kernel",
	"UBSAN:",
	"KASAN:",
	"KFENCE:",
	"[ cut here ]",
	"INFO: task",
	"rcu_sched detected stalls",
	"rcu: INFO:",
	"segfault at",
	NULL,
};

#define MARKER "KHSEND-INIT-OK "

/* "[    1.234567] text" -> "text" */
static const char *
strip_timestamp(const char *line)
{
	const char *p = line;

	if (*p != '[')
		return line;
	p++;
	while (*p == ' ')
		p++;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (*p != ']')
		return line;
	p++;
	return *p == ' ' ? p + 1 : p;
}

/*
 * The same complaint from the base boot differs in what moves when code
 * moves: hex values and line numbers.  Replace both for the comparison.
 */
static char *
normalize_problem(const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = text; *p;) {
		if (p[0] == '0' && p[1] == 'x') {
			strbuf_addstr(&sb, "0x?");
			for (p += 2; isxdigit((unsigned char)*p); p++)
				;
		} else if (*p == ':' && isdigit((unsigned char)p[1]) && sb.len >= 2 &&
			   sb.buf[sb.len - 2] == '.') {
			strbuf_addstr(&sb, ":?");
			for (p++; isdigit((unsigned char)*p); p++)
				;
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	return strbuf_detach(&sb, NULL);
}

static int
is_problem(const char *text)
{
	for (size_t i = 0; problem_patterns[i]; i++)
		if (strstr(text, problem_patterns[i]))
			return 1;
	return 0;
}

/* Call fn on each line (its timestamp stripped) with its number; NUL-splits a copy. */
static void
each_line(const struct strbuf *log, void (*fn)(const char *text, size_t nr, void *data), void *data)
{
	char *copy = xstrndup(log->buf, log->len);
	size_t nr = 0;

	for (char *p = copy; *p; nr++) {
		char *nl = strchrnul(p, '\n');
		int more = *nl != '\0';

		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		fn(strip_timestamp(p), nr, data);
		p = more ? nl + 1 : nl;
	}
	free(copy);
}

struct scan {
	struct verdict *v;
	const char *marker;
};

static void
scan_line(const char *text, size_t nr, void *data)
{
	struct scan *s = data;
	struct verdict *v = s->v;

	if (strstr(text, s->marker))
		v->marker = 1;
	/* kernel_restart() and kernel_power_off() say so; a panic's restart does not. */
	if (strstr(text, "reboot: Restarting system") || strstr(text, "reboot: Power down"))
		v->shut_down = 1;
	if (strstr(text, "Kernel panic"))
		v->panicked = 1;
	if (is_problem(text)) {
		ALLOC_GROW(v->problems, v->nr + 1, v->alloc);
		v->problems[v->nr].line = nr;
		v->problems[v->nr].text = xstrdup(text);
		v->problems[v->nr].preexisting = 0;
		v->nr++;
	}
}

void
verdict_scan(struct verdict *v, const struct strbuf *log, const char *nonce)
{
	char *marker = xstrfmt(MARKER "%s", nonce);
	struct scan s = { v, marker };

	each_line(log, scan_line, &s);
	free(marker);
}

struct base_lines {
	char **v;
	size_t nr, alloc;
};

static void
collect_base_problem(const char *text, size_t nr, void *data)
{
	struct base_lines *b = data;

	(void)nr;
	if (!is_problem(text))
		return;
	ALLOC_GROW(b->v, b->nr + 1, b->alloc);
	b->v[b->nr++] = normalize_problem(text);
}

void
verdict_compare_base(struct verdict *v, const struct strbuf *base_log)
{
	struct base_lines base = { NULL, 0, 0 };

	each_line(base_log, collect_base_problem, &base);
	for (size_t i = 0; i < v->nr; i++) {
		char *mine = normalize_problem(v->problems[i].text);

		for (size_t j = 0; j < base.nr; j++)
			if (!strcmp(mine, base.v[j]))
				v->problems[i].preexisting = 1;
		free(mine);
	}
	for (size_t j = 0; j < base.nr; j++)
		free(base.v[j]);
	free(base.v);
}

size_t
verdict_new_problems(const struct verdict *v)
{
	size_t n = 0;

	for (size_t i = 0; i < v->nr; i++)
		n += !v->problems[i].preexisting;
	return n;
}

struct excerpt {
	size_t from, to;
	struct strbuf *out;
};

static void
copy_line(const char *text, size_t nr, void *data)
{
	struct excerpt *e = data;

	if (nr >= e->from && nr < e->to)
		strbuf_addf(e->out, "    %s\n", text);
}

static void
count_line(const char *text, size_t nr, void *data)
{
	(void)text;
	*(size_t *)data = nr + 1;
}

void
verdict_excerpt(const struct verdict *v, const struct strbuf *log, struct strbuf *out)
{
	struct excerpt e = { 0, 0, out };
	size_t lines = 0, first = (size_t)-1;

	each_line(log, count_line, &lines);
	for (size_t i = 0; i < v->nr && first == (size_t)-1; i++)
		if (!v->problems[i].preexisting)
			first = v->problems[i].line;
	if (first != (size_t)-1) {
		/* A few lines of lead-in ("[ cut here ]" and the like), then the trace. */
		e.from = first > 3 ? first - 3 : 0;
		e.to = first + 30;
	} else {
		/* No complaint: how far it got is the story. */
		e.from = lines > 20 ? lines - 20 : 0;
		e.to = lines;
	}
	each_line(log, copy_line, &e);
}

void
verdict_release(struct verdict *v)
{
	for (size_t i = 0; i < v->nr; i++)
		free(v->problems[i].text);
	free(v->problems);
	*v = (struct verdict)VERDICT_INIT;
}
