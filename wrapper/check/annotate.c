/* annotate: write khsend's note into a mail, at the byte level, leaving the rest alone. */
#define _GNU_SOURCE
#include "check/annotate.h"
#include "series/series.h"
#include "lib/usage.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NOTE_WIDTH 72

/* The mail's own line ending, so a CRLF mail stays CRLF. */
static const char *
eol_of(const char *raw, size_t len)
{
	const char *nl = memchr(raw, '\n', len);

	return nl && nl > raw && nl[-1] == '\r' ? "\r\n" : "\n";
}

static size_t
line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
}

/* Is the line (with its ending) empty? */
static int
is_blank_line(const char *p, size_t len)
{
	return (len == 1 && p[0] == '\n') || (len == 2 && p[0] == '\r' && p[1] == '\n') || !len;
}

/*
 * Where the body starts (after the empty line ending the headers), or 0
 * if `raw` does not start with mail headers (a bare diff).
 */
static size_t
body_offset(const char *raw, size_t len)
{
	const char *p = raw, *end = raw + len;
	int any = 0;

	if (len > 5 && !strncmp(p, "From ", 5))
		p += line_len(p, end);
	while (p < end) {
		size_t n = line_len(p, end);
		const char *c = p;

		if (is_blank_line(p, n))
			return any ? (size_t)(p + n - raw) : 0;
		if (any && (*p == ' ' || *p == '\t')) {
			p += n;
			continue;
		}
		while (c < p + n && *c > ' ' && *c < 127 && *c != ':')
			c++;
		if (c == p || *c != ':')
			return 0;
		any = 1;
		p += n;
	}
	return 0;
}

/* The unfolded value of a header, malloc()ed, or NULL. */
static char *
header_value(const char *raw, size_t body, const char *name)
{
	const char *p = raw, *end = raw + body;
	size_t nlen = strlen(name);

	while (p < end) {
		size_t n = line_len(p, end);

		if (n > nlen && !strncasecmp(p, name, nlen) && p[nlen] == ':') {
			struct strbuf v = STRBUF_INIT;
			const char *q = p + nlen + 1;

			for (;;) {
				for (const char *c = q; c < p + n; c++)
					if (*c != '\r' && *c != '\n')
						strbuf_addch(&v, *c);
				p += n;
				if (p >= end || (*p != ' ' && *p != '\t'))
					break;
				n = line_len(p, end);
				q = p;
			}
			strbuf_trim(&v);
			return strbuf_detach(&v, NULL);
		}
		p += n;
	}
	return NULL;
}

/* NULL if the body can be written as is, else what it is ("base64", "multipart/mixed", ...). */
static char *
body_encoding(const char *raw, size_t body)
{
	char *cte = header_value(raw, body, "Content-Transfer-Encoding");
	char *ct = header_value(raw, body, "Content-Type");
	char *why = NULL;

	if (cte && strcasecmp(cte, "7bit") && strcasecmp(cte, "8bit") && strcasecmp(cte, "binary"))
		why = xstrfmt("%s-encoded", cte);
	else if (ct && !strncasecmp(ct, "multipart/", 10))
		why = xstrfmt("a %.*s mail", (int)strcspn(ct, ";"), ct);
	free(cte);
	free(ct);
	return why;
}

static int
declares_8bit(const char *raw, size_t body)
{
	char *cte = header_value(raw, body, "Content-Transfer-Encoding");
	int yes = cte && (!strcasecmp(cte, "8bit") || !strcasecmp(cte, "binary"));

	free(cte);
	return yes;
}

int
is_cover_letter(const char *raw, size_t len)
{
	size_t body = body_offset(raw, len);
	char *subject = body ? header_value(raw, body, "Subject") : NULL;
	const char *p;
	int yes = 0;

	if (!subject)
		return 0;
	/* "[PATCH 0/3]", "[PATCH v2 00/10]", "[RFC 0/2]", "[0/3]" */
	for (p = strstr(subject, "0/"); p && !yes; p = strstr(p + 1, "0/")) {
		const char *q = p, *d = p + 2;

		while (q > subject && q[-1] == '0')
			q--;
		if (q > subject && q[-1] != ' ' && q[-1] != '[')
			continue;
		if (!isdigit((unsigned char)*d))
			continue;
		while (isdigit((unsigned char)*d))
			d++;
		yes = *d == ']';
	}
	free(subject);
	return yes && !memmem(raw + body, len - body, "\ndiff --git ", 12) &&
	       !(len - body >= 11 && !strncmp(raw + body, "diff --git ", 11));
}

/* Policy text in a mail: no control characters, and ASCII unless the mail says 8bit. */
static void
add_clean(struct strbuf *sb, const char *s, int allow_8bit)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			strbuf_addch(sb, ' ');
		else if (c >= 0x80 && !allow_8bit)
			strbuf_addch(sb, '?');
		else
			strbuf_addch(sb, c);
	}
}

/* What the finding changed: the protected string, or the text the regex matched. */
static char *
joke_of(const struct finding *f)
{
	const struct policy_entry *e = f->entry;
	regmatch_t m;

	if (!e->regex_src)
		return xstrdup(e->string);
	if (!regexec(&e->regex, f->removed, 1, &m, 0) && m.rm_so >= 0)
		return xstrndup(f->removed + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
	return xstrfmt("/%s/", e->regex_src);
}

/* The explanation's first sentence, on one line, at most ~200 characters. */
static char *
first_sentence(const char *explain)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *s = explain; *s; s++) {
		if (*s == '\n' || *s == '\t') {
			if (sb.len && sb.buf[sb.len - 1] != ' ')
				strbuf_addch(&sb, ' ');
			continue;
		}
		strbuf_addch(&sb, *s);
		if (*s == '.' && (s[1] == ' ' || s[1] == '\n' || !s[1]))
			break;
		if (sb.len >= 200) {
			while (sb.len && sb.buf[sb.len - 1] != ' ')
				sb.len--;
			strbuf_setlen(&sb, sb.len);
			strbuf_rtrim(&sb);
			strbuf_addstr(&sb, "...");
			break;
		}
	}
	strbuf_trim(&sb);
	return strbuf_detach(&sb, NULL);
}

/* Append `text` wrapped at NOTE_WIDTH: the first line starts with `indent`, the others with `more`. */
static void
add_wrapped(struct strbuf *out, const char *indent, const char *more, const char *text, const char *eol)
{
	const char *p = text;

	for (; *p; indent = more) {
		size_t room = NOTE_WIDTH - strlen(indent), n = strlen(p);

		if (n > room) {
			size_t cut = room;

			while (cut && p[cut] != ' ')
				cut--;
			if (!cut)
				cut = strcspn(p, " ");
			n = cut;
		}
		strbuf_addstr(out, indent);
		strbuf_add(out, p, n);
		strbuf_addstr(out, eol);
		p += n;
		while (*p == ' ')
			p++;
	}
}

static int
seen_before(const struct finding *const *f, size_t i, int same_line)
{
	for (size_t j = 0; j < i; j++)
		if (f[j]->entry == f[i]->entry && (!same_line || (!strcmp(f[j]->file, f[i]->file) &&
								   f[j]->line == f[i]->line)))
			return 1;
	return 0;
}

static void
build_note(struct strbuf *note, const struct finding *const *f, size_t nr, int cover, int allow_8bit,
	   const char *eol)
{
	struct strbuf text = STRBUF_INIT;

	if (cover)
		strbuf_addstr(&text, ANNOTATE_MARKER " patches in this series change text that the kernel keeps "
				     "on purpose, and the contributor was told why before sending; each has a "
				     "note below its '---' line:");
	else
		strbuf_addstr(&text, ANNOTATE_MARKER " this patch changes text that the kernel keeps on "
				     "purpose, and the contributor was told why before sending:");
	add_wrapped(note, "", "", text.buf, eol);
	for (size_t i = 0; i < nr; i++) {
		char *joke = joke_of(f[i]);

		if (seen_before(f, i, 1)) {
			free(joke);
			continue;
		}
		strbuf_reset(&text);
		strbuf_addstr(&text, "- ");
		if (cover && f[i]->subject) {
			add_clean(&text, f[i]->subject, allow_8bit);
			strbuf_addstr(&text, ": ");
		}
		strbuf_addch(&text, '"');
		add_clean(&text, joke, allow_8bit);
		strbuf_addstr(&text, "\" (");
		add_clean(&text, f[i]->entry->id, allow_8bit);
		strbuf_addf(&text, "), %s:%d", f[i]->file, f[i]->line);
		free(joke);
		/* The file name comes from the diff: clean it too. */
		{
			char *line = strbuf_detach(&text, NULL);

			add_clean(&text, line, allow_8bit);
			free(line);
		}
		add_wrapped(note, "", "  ", text.buf, eol);
		if (!cover && !seen_before(f, i, 0)) {
			char *why = first_sentence(f[i]->entry->explain);

			strbuf_reset(&text);
			add_clean(&text, why, allow_8bit);
			add_wrapped(note, "  ", "  ", text.buf, eol);
			free(why);
		}
	}
	strbuf_addstr(note, eol);
	strbuf_release(&text);
}

/* Remove an older khsend note (marker line through the next empty line) from [from, to). */
static size_t
strip_old_note(struct strbuf *raw, size_t from, size_t to)
{
	const char *p = raw->buf + from, *end = raw->buf + to;

	while (p < end) {
		size_t n = line_len(p, end);

		if (starts_with(p, ANNOTATE_MARKER)) {
			const char *q = p;

			while (q < end) {
				size_t m = line_len(q, end);

				q += m;
				if (is_blank_line(q - m, m))
					break;
			}
			{
				size_t start = (size_t)(p - raw->buf), cut = (size_t)(q - p);

				memmove(raw->buf + start, q, raw->len - (size_t)(q - raw->buf));
				strbuf_setlen(raw, raw->len - cut);
				return cut;
			}
		}
		p += n;
	}
	return 0;
}

/* The "---" separator: three dashes and nothing but blanks. */
static int
is_separator(const char *p, size_t n)
{
	if (n < 3 || strncmp(p, "---", 3))
		return 0;
	for (size_t i = 3; i < n; i++)
		if (!isspace((unsigned char)p[i]))
			return 0;
	return 1;
}

static int
check_plain(const struct strbuf *raw, const char *name, size_t body)
{
	char *why = body_encoding(raw->buf, body);

	if (!why)
		return 0;
	error("cannot add khsend's note for the reviewers to '%s': it is %s, and khsend does not "
	      "re-encode mails (send it 8bit, as git format-patch writes it, or take the change out)",
	      name, why);
	free(why);
	return -1;
}

int
annotate_patch(struct strbuf *raw, const char *name, const struct finding *const *findings, size_t nr)
{
	size_t body = body_offset(raw->buf, raw->len), brk;
	const char *eol = eol_of(raw->buf, raw->len), *p, *end;
	struct strbuf note = STRBUF_INIT;

	if (check_plain(raw, name, body))
		return -1;
	/* The first line where git mailinfo would start the patch. */
	for (p = raw->buf + body, end = raw->buf + raw->len; p < end; p += line_len(p, end))
		if (is_patch_break(p, line_len(p, end)))
			break;
	if (p >= end)
		return error("cannot add khsend's note to '%s': there is no patch in it", name);
	brk = (size_t)(p - raw->buf);
	if (is_separator(p, line_len(p, end))) {
		/* The separator: the note goes right below it, replacing an older one. */
		size_t after = brk + line_len(p, end);

		for (p = raw->buf + after; p < end; p += line_len(p, end))
			if (starts_with(p, "diff ") || starts_with(p, "Index: ") || starts_with(p, "--- "))
				break;
		strip_old_note(raw, after, (size_t)(p - raw->buf));
		build_note(&note, findings, nr, 0, declares_8bit(raw->buf, body), eol);
		strbuf_insert(raw, after, note.buf, note.len);
	} else {
		/* No "---" line: add one, and the note, before the diff. */
		strbuf_addstr(&note, "---");
		strbuf_addstr(&note, eol);
		build_note(&note, findings, nr, 0, declares_8bit(raw->buf, body), eol);
		strbuf_insert(raw, brk, note.buf, note.len);
	}
	strbuf_release(&note);
	return 0;
}

int
annotate_cover(struct strbuf *raw, const char *name, const struct finding *const *findings, size_t nr)
{
	size_t body = body_offset(raw->buf, raw->len), at;
	const char *eol = eol_of(raw->buf, raw->len), *p, *end, *sig = NULL;
	struct strbuf note = STRBUF_INIT;

	if (check_plain(raw, name, body))
		return -1;
	strip_old_note(raw, body, raw->len);
	/* Before the last "-- " signature line, or at the end. */
	for (p = raw->buf + body, end = raw->buf + raw->len; p < end; p += line_len(p, end))
		if (starts_with(p, "-- ") && !strncmp(p + 3, eol, strlen(eol)))
			sig = p;
	if (sig) {
		at = (size_t)(sig - raw->buf);
	} else {
		if (raw->len && raw->buf[raw->len - 1] != '\n')
			strbuf_addstr(raw, eol);
		at = raw->len;
	}
	build_note(&note, findings, nr, 1, declares_8bit(raw->buf, body), eol);
	strbuf_insert(raw, at, note.buf, note.len);
	strbuf_release(&note);
	return 0;
}

int
annotate_strip(struct strbuf *raw)
{
	size_t body = body_offset(raw->buf, raw->len);

	return strip_old_note(raw, body, raw->len) > 0;
}

void
patch_preimage(const char *patch, size_t len, struct strbuf *preimage, struct strbuf *diff)
{
	const char *p = patch, *end = patch + len, *start = NULL;

	for (; p < end; p += line_len(p, end)) {
		size_t n = line_len(p, end);

		if (starts_with(p, "diff ") || starts_with(p, "Index: ")) {
			start = p;
			break;
		}
		if (starts_with(p, "--- ") && p + n < end && starts_with(p + n, "+++ ")) {
			start = p;
			break;
		}
	}
	if (!start)
		return;
	if (diff)
		strbuf_add(diff, start, (size_t)(end - start));
	for (p = start; p < end; p += line_len(p, end)) {
		size_t n = line_len(p, end);

		if (*p == '+' || *p == '\\')
			continue;
		if (starts_with(p, "@@ ")) {
			/* "@@ -a,b +c,d @@": only the old range. */
			size_t old = strcspn(p + 3, " \r\n");

			strbuf_add(preimage, p, 3 + old);
			strbuf_addch(preimage, '\n');
			continue;
		}
		if (starts_with(p, "index ")) {
			/* "index <old>..<new> <mode>": the new id changes with any edit. */
			strbuf_add(preimage, p, strcspn(p, ".\r\n"));
			strbuf_addch(preimage, '\n');
			continue;
		}
		strbuf_add(preimage, p, n);
	}
}
