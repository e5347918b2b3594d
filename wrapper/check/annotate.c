/* annotate: write khsend's note into a mail, at the byte level, leaving the rest alone. */
#define _GNU_SOURCE
#include "check/annotate.h"
#include "series/mail.h"
#include "series/message.h"
#include "series/series.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <ctype.h>
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

/* Is the line (with its ending) empty? */
static int
is_blank_line(const char *p, size_t len)
{
	return (len == 1 && p[0] == '\n') || (len == 2 && p[0] == '\r' && p[1] == '\n') || !len;
}

/* NULL if the body can be written as is, else what it is ("base64-encoded", "a multipart/mixed mail"). */
static char *
body_encoding(const struct mail_headers *h)
{
	const char *cte = mail_header(h, "Content-Transfer-Encoding");
	const char *ct = mail_header(h, "Content-Type");

	if (cte && strcasecmp(cte, "7bit") && strcasecmp(cte, "8bit") && strcasecmp(cte, "binary"))
		return xstrfmt("%s-encoded", cte);
	if (ct && !strncasecmp(ct, "multipart/", 10))
		return xstrfmt("a %.*s mail", (int)strcspn(ct, ";"), ct);
	return NULL;
}

static int
declares_8bit(const struct mail_headers *h)
{
	const char *cte = mail_header(h, "Content-Transfer-Encoding");

	return cte && (!strcasecmp(cte, "8bit") || !strcasecmp(cte, "binary"));
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
		char *joke = xstrdup(f[i]->matched);

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
		size_t n = mail_line_len(p, end);

		if (starts_with(p, ANNOTATE_MARKER)) {
			const char *q = p;

			while (q < end) {
				size_t m = mail_line_len(q, end);

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

/*
 * Read the headers: 0, the body's offset in *body and whether the mail
 * declares 8bit in *eight, if the body can be written as it is.
 */
static int
check_plain(const struct strbuf *raw, const char *name, size_t *body, int *eight)
{
	struct mail_headers h = MAIL_HEADERS_INIT;
	char *why;

	mail_headers_parse(&h, raw->buf, raw->len);
	why = body_encoding(&h);
	*body = h.body;
	*eight = declares_8bit(&h);
	mail_headers_release(&h);
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
	const char *eol = eol_of(raw->buf, raw->len), *p, *end;
	struct strbuf note = STRBUF_INIT;
	size_t body, brk;
	int eight;

	if (check_plain(raw, name, &body, &eight))
		return -1;
	/* The first line where git mailinfo would start the patch. */
	for (p = raw->buf + body, end = raw->buf + raw->len; p < end; p += mail_line_len(p, end))
		if (is_patch_break(p, mail_line_len(p, end)))
			break;
	if (p >= end)
		return error("cannot add khsend's note to '%s': there is no patch in it", name);
	brk = (size_t)(p - raw->buf);
	if (is_separator(p, mail_line_len(p, end))) {
		/* The separator: the note goes right below it, replacing an older one. */
		size_t after = brk + mail_line_len(p, end);

		for (p = raw->buf + after; p < end; p += mail_line_len(p, end))
			if (starts_with(p, "diff ") || starts_with(p, "Index: ") || starts_with(p, "--- "))
				break;
		strip_old_note(raw, after, (size_t)(p - raw->buf));
		build_note(&note, findings, nr, 0, eight, eol);
		strbuf_insert(raw, after, note.buf, note.len);
	} else {
		/* No "---" line: add one, and the note, before the diff. */
		strbuf_addstr(&note, "---");
		strbuf_addstr(&note, eol);
		build_note(&note, findings, nr, 0, eight, eol);
		strbuf_insert(raw, brk, note.buf, note.len);
	}
	strbuf_release(&note);
	return 0;
}

int
annotate_cover(struct strbuf *raw, const char *name, const struct finding *const *findings, size_t nr)
{
	const char *eol = eol_of(raw->buf, raw->len), *p, *end, *sig = NULL;
	struct strbuf note = STRBUF_INIT;
	size_t body, at;
	int eight;

	if (check_plain(raw, name, &body, &eight))
		return -1;
	strip_old_note(raw, body, raw->len);
	/* Before the last "-- " signature line, or at the end. */
	for (p = raw->buf + body, end = raw->buf + raw->len; p < end; p += mail_line_len(p, end))
		if (starts_with(p, "-- ") && !strncmp(p + 3, eol, strlen(eol)))
			sig = p;
	if (sig) {
		at = (size_t)(sig - raw->buf);
	} else {
		if (raw->len && raw->buf[raw->len - 1] != '\n')
			strbuf_addstr(raw, eol);
		at = raw->len;
	}
	build_note(&note, findings, nr, 1, eight, eol);
	strbuf_insert(raw, at, note.buf, note.len);
	strbuf_release(&note);
	return 0;
}

int
annotate_strip(struct strbuf *raw)
{
	struct mail_headers h = MAIL_HEADERS_INIT;
	size_t cut;

	mail_headers_parse(&h, raw->buf, raw->len);
	cut = strip_old_note(raw, h.body, raw->len);
	mail_headers_release(&h);
	return cut > 0;
}

/* A mail git send-email encoded for sending: the note must be in it already (khsend put it there before). */
static int
has_notes(struct message *msg, const struct finding *const *f, size_t nr, const char *scratch)
{
	struct strbuf text = STRBUF_INIT;
	int ok = 1;

	if (message_decode(msg, scratch))
		return 0;
	strbuf_addbuf(&text, &msg->log);
	strbuf_addbuf(&text, &msg->patch);
	ok = strstr(text.buf, ANNOTATE_MARKER) != NULL;
	for (size_t i = 0; i < nr && ok; i++) {
		char *id = xstrfmt("(%s)", f[i]->entry->id);

		ok = strstr(text.buf, id) != NULL;
		free(id);
	}
	strbuf_release(&text);
	return ok;
}

int
annotate_series(const struct series *s, const struct detector *d, const char *scratch)
{
	const struct finding **all = xcalloc(d->nr ? d->nr : 1, sizeof(*all));
	size_t nall = 0;
	int ret = 0;

	for (size_t i = 0; i < d->nr; i++)
		if (d->findings[i].action == POLICY_ANNOTATE)
			all[nall++] = &d->findings[i];
	for (size_t k = 0; k < s->nr && !ret; k++) {
		struct message *msg = s->v[k];
		const struct finding **mine = xcalloc(nall ? nall : 1, sizeof(*mine));
		struct strbuf raw = STRBUF_INIT;
		size_t nmine = 0;

		for (size_t i = 0; i < nall; i++)
			if (all[i]->index == msg->index)
				mine[nmine++] = all[i];
		strbuf_addbuf(&raw, &msg->raw);
		if (!msg->plain && nmine && has_notes(msg, mine, nmine, scratch))
			;	/* noted before it was encoded */
		else if (nmine)
			ret = annotate_patch(&raw, msg->name, mine, nmine);
		else if (nall && message_is_cover(msg) && !(!msg->plain && has_notes(msg, all, 0, scratch)))
			ret = annotate_cover(&raw, msg->name, all, nall);
		else if (msg->plain)
			annotate_strip(&raw);
		if (!ret && (raw.len != msg->raw.len || memcmp(raw.buf, msg->raw.buf, raw.len))) {
			ret = write_file_buf(msg->file, raw.buf, raw.len);
			/* What is kept in memory stays what is in the file. */
			if (!ret) {
				strbuf_reset(&msg->raw);
				strbuf_addbuf(&msg->raw, &raw);
			}
		}
		strbuf_release(&raw);
		free(mine);
	}
	free(all);
	return ret;
}
