// SPDX-License-Identifier: GPL-2.0-only
/*
 * report-checkpatch: scripts/checkpatch.pl's report (of linux 6.1), so a
 * tool that runs checkpatch on each patch can run khsend in its place:
 *
 *   ERROR: <message>                         a block entry
 *   #<line in the input>: FILE: <file>:<line>:
 *   -<the line before>
 *   +<the line after>
 *
 * WARNING for annotate (and an --allow'ed block), CHECK for warn.  The
 * prefix and the shape follow checkpatch's options: --terse keeps the first
 * line only and adds "<input>:<line in the input>: " before it (one more
 * -q); --showfile makes that "<file>:<line>: " and drops the "#...: FILE:"
 * line; --no-summary drops "total: ..."; -q drops the closing words;
 * --mailback prints nothing at all when nothing is found.
 */
#define _GNU_SOURCE
#include "check/report-checkpatch.h"
#include "lib/color.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <string.h>

static const char *
level_name(const struct finding *f)
{
	switch (f->action) {
	case POLICY_BLOCK:
		return "ERROR";
	case POLICY_ANNOTATE:
		return "WARNING";
	case POLICY_WARN:
		return "CHECK";
	}
	return "CHECK";
}

static const char *
level_color(const struct finding *f)
{
	return f->action == POLICY_BLOCK ? COLOR_RED : f->action == POLICY_ANNOTATE ? COLOR_YELLOW : COLOR_GREEN;
}

static size_t
count_lines(const char *s, size_t len)
{
	size_t n = 0;

	for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + len - p))); p++)
		n++;
	return n + (len && s[len - 1] != '\n');
}

/* checkpatch's "lines checked": each hunk's @@ line and the lines of its new side. */
static size_t
count_hunk_lines(const char *raw)
{
	size_t n = 0;
	int in_hunk = 0;

	for (const char *p = raw; *p;) {
		const char *nl = strchrnul(p, '\n');

		if (!strncmp(p, "@@ ", 3))
			in_hunk = 1;
		else if (in_hunk && !strchr(" +-\\", *p))
			in_hunk = 0;
		else if (in_hunk && (!strncmp(p, "--- ", 4) || !strncmp(p, "-- \n", 4)))
			in_hunk = 0;	/* the next file, or the signature */
		n += in_hunk && *p != '-' && *p != '\\';
		p = *nl ? nl + 1 : nl;
	}
	return n;
}

/* Where a line starting with `text` begins in `buf`, at or after `from`; NULL if nowhere. */
static const char *
find_line(const char *buf, const char *from, const char *text)
{
	size_t n = strlen(text);

	for (const char *p = from; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if ((p == buf || p[-1] == '\n') && !strncmp(p, text, n) && (p[n] == '\n' || p[n] == '\r' || !p[n]))
			return p;
	return NULL;
}

/*
 * The line of the input that removes the finding's line, as checkpatch
 * numbers its input (1-based, messages one after the other); 0 if the
 * mail's bytes do not show it (base64, quoted-printable).
 */
static size_t
input_line(const struct checkpatch_input *in, const struct finding *f)
{
	size_t offset = 0;
	struct strbuf want = STRBUF_INIT, header = STRBUF_INIT;
	const char *raw, *from, *at;

	if (!f->index || f->index > in->raws.nr || !f->removed)
		return 0;
	for (size_t i = 0; i + 1 < f->index; i++)
		offset += count_lines(in->raws.v[i], strlen(in->raws.v[i]));
	raw = in->raws.v[f->index - 1];
	/* From the file's own "--- a/<file>" line, if it has one. */
	strbuf_addf(&header, "--- a/%s", f->file);
	from = find_line(raw, raw, header.buf);
	strbuf_addf(&want, "-%s", f->removed);
	at = find_line(raw, from ? from : raw, want.buf);
	strbuf_release(&want);
	strbuf_release(&header);
	return at ? offset + count_lines(raw, (size_t)(at - raw)) + 1 : 0;
}

static void
print_one(FILE *fp, const struct finding *f, const struct checkpatch_options *o, const struct checkpatch_input *in)
{
	struct strbuf prefix = STRBUF_INIT, text = STRBUF_INIT;
	char pattern[1200];
	size_t at = input_line(in, f);

	if (o->showfile)
		strbuf_addf(&prefix, "%s:%d: ", f->file, f->line);
	else if (o->terse)
		strbuf_addf(&prefix, "%s:%zu: ", in->name, at);
	strbuf_addf(&text, " %s is kept on purpose (khsend explain %s)",
		    policy_entry_pattern(f->entry, pattern, sizeof(pattern)), f->entry->id);
	if (f->allowed)
		strbuf_addstr(&text, ", allowed with --allow");
	if (!o->terse) {
		if (!o->showfile)
			strbuf_addf(&text, "\n#%zu: FILE: %s:%d:", at, f->file, f->line);
		strbuf_addf(&text, "\n-%s", f->removed);
		if (f->added)
			strbuf_addf(&text, "\n+%s", f->added);
		strbuf_addch(&text, '\n');
	}
	/* Policy text and patch lines are not trusted with the terminal. */
	sanitize_terminal(prefix.buf);
	sanitize_terminal(text.buf);
	fprintf(fp, "%s%s%s:%s%s\n", prefix.buf, color_code(fileno(fp), level_color(f)), level_name(f),
		color_code(fileno(fp), COLOR_RESET), text.buf);
	strbuf_release(&prefix);
	strbuf_release(&text);
}

int
report_checkpatch(FILE *fp, const struct checker *c, const struct checkpatch_options *o,
		  const struct checkpatch_input *in)
{
	const struct detector *d = &c->det;
	size_t errors = detector_count(d, POLICY_BLOCK), warnings = detector_count(d, POLICY_ANNOTATE);
	size_t checks = detector_count(d, POLICY_WARN), lines = 0;
	int quiet = o->quiet + !!o->terse, clean = !d->nr;

	/* In mailback mode only produce a report in the negative (checkpatch's words). */
	if (o->mailback && clean)
		return 0;
	for (size_t i = 0; i < in->raws.nr; i++)
		lines += count_hunk_lines(in->raws.v[i]);
	for (size_t i = 0; i < d->nr; i++)
		print_one(fp, &d->findings[i], o, in);
	/* "checks" only when there are some, as checkpatch without --strict. */
	if (o->summary && !(clean && quiet == 1)) {
		fprintf(fp, "total: %zu errors, %zu warnings, ", errors, warnings);
		if (checks)
			fprintf(fp, "%zu checks, ", checks);
		fprintf(fp, "%zu lines checked\n", lines);
	}
	if (!quiet) {
		const char *name = !strcmp(in->name, "-") && in->subject ? in->subject : in->name;
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s%s%s %s", name == in->subject ? "\"" : "", name, name == in->subject ? "\"" : "",
			    clean ? "changes no string khsend's policy protects."
				  : "changes text kept on purpose, please review ('khsend check' explains it).");
		sanitize_terminal(sb.buf);
		fprintf(fp, "\n%s\n", sb.buf);
		strbuf_release(&sb);
	}
	return clean ? 0 : 1;
}
