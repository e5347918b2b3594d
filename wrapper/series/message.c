// SPDX-License-Identifier: GPL-2.0-only
/* message: a mail's bytes, its headers, and what git mailinfo makes of it. */
#define _GNU_SOURCE
#include "series/message.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/usage.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_DECODED_BYTES (512u << 20)

int
is_patch_break(const char *line, size_t len)
{
	if (len >= 6 && !memcmp(line, "diff -", 6))
		return 1;
	if (len >= 7 && !memcmp(line, "Index: ", 7))
		return 1;
	if (len < 4 || memcmp(line, "---", 3))
		return 0;
	/* "--- <filename>" starts a patch without headers... */
	if (line[3] == ' ' && !isspace((unsigned char)(len > 4 ? line[4] : '\0')))
		return 1;
	/* ...and "---" followed by nothing but blanks up to the newline is the separator. */
	for (size_t i = 3; i < len; i++) {
		if (line[i] == '\n')
			return 1;
		if (!isspace((unsigned char)line[i]))
			break;
	}
	return 0;
}

static int
starts_line(const char *buf, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = buf, *end = buf + len; p < end; p += mail_line_len(p, end))
		if ((size_t)(end - p) >= n && !strncmp(p, prefix, n))
			return 1;
	return 0;
}

/* Something git apply could take: a git diff, or a plain unified diff. */
static int
looks_like_patch(const char *buf, size_t len)
{
	return starts_line(buf, len, "diff --git ") ||
	       (starts_line(buf, len, "--- ") && starts_line(buf, len, "+++ ") && starts_line(buf, len, "@@ -"));
}

/* A header value as git format-patch writes it: "7bit", "8bit"; "text/plain; charset=UTF-8". */
static int
plain_transfer_encoding(const char *v)
{
	return !strcasecmp(v, "7bit") || !strcasecmp(v, "8bit") || !strcasecmp(v, "binary");
}

static int
plain_content_type(const char *v)
{
	size_t n = strlen("text/plain");
	const char *p;

	if (strncasecmp(v, "text/plain", n))
		return 0;
	p = v + n;
	if (!*p)
		return 1;
	/* Only "; charset=<token>" may follow: no format=flowed, delsp, boundary. */
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != ';')
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncasecmp(p, "charset=", 8))
		return 0;
	p += 8;
	if (*p == '"') {
		const char *q = strchr(p + 1, '"');

		return q && !q[1 + strspn(q + 1, " \t")];
	}
	return !p[strcspn(p, " \t;")];
}

/*
 * Is there nothing for git mailinfo to undo?  Conservative: any
 * Content-Type or Content-Transfer-Encoding line in the body (a MIME
 * part, or something git might take for one), more than one of either
 * in the headers, anything but what git format-patch writes, or an
 * encoded word in the subject or the sender makes the mail "not plain",
 * and git mailinfo reads it.
 */
static int
is_plain(const struct message *msg)
{
	const char *p = msg->raw.buf + msg->headers.body, *end = msg->raw.buf + msg->raw.len;
	const char *ct = mail_header(&msg->headers, "Content-Type");
	const char *cte = mail_header(&msg->headers, "Content-Transfer-Encoding");
	const char *subject = mail_header(&msg->headers, "Subject");
	const char *from = mail_header(&msg->headers, "From");

	if (mail_header_count(&msg->headers, "Content-Type") > 1 ||
	    mail_header_count(&msg->headers, "Content-Transfer-Encoding") > 1 ||
	    (ct && !plain_content_type(ct)) || (cte && !plain_transfer_encoding(cte)) ||
	    (subject && strstr(subject, "=?")) || (from && strstr(from, "=?")))
		return 0;
	for (; p < end; p += mail_line_len(p, end))
		if ((*p == 'c' || *p == 'C') &&
		    (!strncasecmp(p, "content-type", 12) || !strncasecmp(p, "content-transfer-encoding", 25)))
			return 0;
	return 1;
}

int
message_set_raw(struct message *msg, const char *name, const char *raw, size_t len)
{
	const char *subject, *from;

	if (!msg->name)
		msg->name = xstrdup(name);
	if (raw != msg->raw.buf) {
		strbuf_reset(&msg->raw);
		strbuf_add(&msg->raw, raw, len);
	}
	if (!msg->raw.len || !msg->raw.buf[strspn(msg->raw.buf, " \t\r\n")])
		return error(_("'%s' is empty, neither a mail nor a patch"), name);
	msg->is_mail = mail_headers_parse(&msg->headers, msg->raw.buf, msg->raw.len);
	if (!msg->is_mail && !looks_like_patch(msg->raw.buf, msg->raw.len)) {
		if (memchr(msg->raw.buf, '\0', msg->raw.len))
			return error(_("'%s' is a binary file, neither a mail nor a patch"), name);
		return error(_("'%s' is neither a mail nor a patch "
			       "(expected the output of git format-patch or git diff)"), name);
	}
	msg->plain = is_plain(msg);
	subject = mail_header(&msg->headers, "Subject");
	from = mail_header(&msg->headers, "From");
	free(msg->subject);
	free(msg->author);
	msg->subject = xstrdup(subject ? subject : msg->is_mail ? "(no subject)" : base_name(name));
	msg->author = from ? xstrdup(from) : NULL;
	/* git format-patch's "From <commit id> Mon Sep 17 00:00:00 2001" */
	if (!msg->commit && starts_with(msg->raw.buf, "From ") &&
	    strspn(msg->raw.buf + 5, "0123456789abcdef") >= 40 && msg->raw.buf[5 + 40] == ' ')
		msg->commit = xstrndup(msg->raw.buf + 5, 40);
	return 0;
}

/* The bytes as git mailsplit hands them to git mailinfo: CR before LF dropped. */
static void
strip_cr(struct strbuf *out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *cr;

	strbuf_grow(out, len);
	while ((cr = memchr(p, '\r', (size_t)(end - p)))) {
		strbuf_add(out, p, (size_t)(cr - p));
		if (cr + 1 == end || cr[1] != '\n')
			strbuf_addch(out, '\r');
		p = cr + 1;
	}
	strbuf_add(out, p, (size_t)(end - p));
}

/* A plain body: the commit message up to the first patch break, the patch from there. */
static void
split_plain(struct message *msg)
{
	struct strbuf text = STRBUF_INIT;
	const char *p, *end, *body;

	strip_cr(&text, msg->raw.buf + msg->headers.body, msg->raw.len - msg->headers.body);
	body = text.buf;
	end = text.buf + text.len;
	for (p = body; p < end; p += mail_line_len(p, end))
		if (is_patch_break(p, mail_line_len(p, end)))
			break;
	strbuf_add(&msg->log, body, (size_t)(p - body));
	strbuf_add(&msg->patch, p, (size_t)(end - p));
	strbuf_release(&text);
}

/* git mailinfo, as git am runs it, on the bytes git mailsplit would give it. */
static int
run_mailinfo(struct message *msg, const char *scratch)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf in = STRBUF_INIT, info = STRBUF_INIT, err = STRBUF_INIT;
	char *msgfile = xstrfmt("%s/mailinfo-msg", scratch);
	char *patchfile = xstrfmt("%s/mailinfo-patch", scratch);
	int rc, ret = -1;

	strip_cr(&in, msg->raw.buf, msg->raw.len);
	/* -k: the subject as it is, brackets and all, for the reports. */
	strvec_pushl(&cp.args, "git", "mailinfo", "-k", "--quoted-cr=nowarn", msgfile, patchfile, NULL);
	strvec_pushl(&cp.env, "GIT_DIR", "GIT_WORK_TREE", NULL);
	cp.dir = scratch;
	rc = pipe_command(&cp, in.buf, in.len, &info, &err);
	if (rc) {
		char why[64];

		strbuf_trim(&err);
		error(_("git mailinfo cannot read '%s' (it %s%s%s)"), msg->name,
		      describe_outcome(rc, why, sizeof(why)), err.len ? ": " : "", err.buf);
		goto out;
	}
	if (strbuf_read_file(&msg->log, msgfile, MAX_DECODED_BYTES) < 0 ||
	    strbuf_read_file(&msg->patch, patchfile, MAX_DECODED_BYTES) < 0) {
		error_errno(_("'%s': cannot read what git mailinfo wrote"), msg->name);
		goto out;
	}
	for (char *line = info.buf; *line;) {
		char *nl = strchrnul(line, '\n');
		int last = !*nl;
		const char *v;

		*nl = '\0';
		if (skip_prefix(line, "Subject: ", &v)) {
			free(msg->subject);
			msg->subject = xstrdup(v);
		} else if (skip_prefix(line, "Author: ", &v)) {
			free(msg->author);
			msg->author = xstrdup(v);
		} else if (skip_prefix(line, "Email: ", &v) && msg->author) {
			char *a = xstrfmt("%s <%s>", msg->author, v);

			free(msg->author);
			msg->author = a;
		}
		if (last)
			break;
		line = nl + 1;
	}
	msg->by_mailinfo = 1;
	ret = 0;
out:
	unlink(msgfile);
	unlink(patchfile);
	free(msgfile);
	free(patchfile);
	strbuf_release(&in);
	strbuf_release(&info);
	strbuf_release(&err);
	return ret;
}

int
message_decode(struct message *msg, const char *scratch)
{
	if (msg->decoded)
		return 0;
	strbuf_reset(&msg->log);
	strbuf_reset(&msg->patch);
	if (msg->plain) {
		split_plain(msg);
	} else {
		if (!scratch)
			BUG("decoding '%s' needs a scratch directory", msg->name);
		if (run_mailinfo(msg, scratch))
			return -1;
	}
	msg->decoded = 1;
	return 0;
}

int
message_is_cover(const struct message *msg)
{
	const char *subject = mail_header(&msg->headers, "Subject");

	return msg->is_mail && subject && subject_is_cover(subject) &&
	       !starts_line(msg->raw.buf + msg->headers.body, msg->raw.len - msg->headers.body, "diff --git ");
}

int
message_has_patch(const struct message *msg)
{
	const char *text = msg->decoded ? msg->patch.buf : msg->raw.buf;
	size_t len = msg->decoded ? msg->patch.len : msg->raw.len;

	if (msg->diff_read)
		return msg->files_nr > 0;
	return starts_line(text, len, "@@ -") || starts_line(text, len, "GIT binary patch") ||
	       starts_line(text, len, "Binary files ");
}

static char *
base_commit_in(const char *buf, size_t len)
{
	const char *p, *end = buf + len;

	for (p = buf; p < end; p += mail_line_len(p, end)) {
		size_t n = mail_line_len(p, end), hex;

		if (n < 13 + 7 || strncmp(p, "base-commit: ", 13))
			continue;
		hex = strspn(p + 13, "0123456789abcdef");
		if (hex >= 40 && (p + 13 + hex == end || isspace((unsigned char)p[13 + hex])))
			return xstrndup(p + 13, hex);
	}
	return NULL;
}

char *
message_base_commit(const struct message *msg)
{
	char *id;

	if (!msg->decoded)
		return base_commit_in(msg->raw.buf + msg->headers.body, msg->raw.len - msg->headers.body);
	id = base_commit_in(msg->patch.buf, msg->patch.len);
	return id ? id : base_commit_in(msg->log.buf, msg->log.len);
}

void
message_clear_diff(struct message *msg)
{
	for (size_t i = 0; i < msg->files_nr; i++) {
		free(msg->files[i].old_path);
		free(msg->files[i].new_path);
		free(msg->files[i].old_p0);
		free(msg->files[i].new_p0);
	}
	free(msg->files);
	msg->files = NULL;
	msg->files_nr = msg->files_alloc = 0;
	git_diff_free(msg->diff);
	msg->diff = NULL;
	msg->diff_read = 0;
}

void
message_release(struct message *msg)
{
	free(msg->name);
	free(msg->file);
	free(msg->source);
	free(msg->commit);
	free(msg->subject);
	free(msg->author);
	mail_headers_release(&msg->headers);
	strbuf_release(&msg->raw);
	strbuf_release(&msg->log);
	strbuf_release(&msg->patch);
	message_clear_diff(msg);
	memset(msg, 0, sizeof(*msg));
	strbuf_init(&msg->raw, 0);
	strbuf_init(&msg->log, 0);
	strbuf_init(&msg->patch, 0);
}
