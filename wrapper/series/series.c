/*
 * series: turn the command line into messages.  Argument rules follow
 * git send-email 2.39 (git-send-email.perl, "process the rest of the
 * command line"); decoding is left to git mailsplit and git mailinfo,
 * patch parsing to libgit2's git_diff_from_buffer().
 */
#define _GNU_SOURCE
#include "series/series.h"
#include "lib/gitutil.h"
#include "lib/path.h"
#include "series/revisions.h"
#include "lib/run-command.h"
#include "lib/usage.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_INPUT_BYTES (256u << 20)

static size_t next_index;

int
is_patch_break(const char *line, size_t len)
{
	if (len >= 6 && !strncmp(line, "diff -", 6))
		return 1;
	if (len >= 7 && !strncmp(line, "Index: ", 7))
		return 1;
	if (len < 3 || strncmp(line, "---", 3))
		return 0;
	/* "--- <filename>" starts a patch without headers... */
	if (len > 4 && line[3] == ' ' && !isspace((unsigned char)line[4]))
		return 1;
	/* ...and "---" followed by nothing but blanks is the separator. */
	for (size_t i = 3; i < len; i++)
		if (!isspace((unsigned char)line[i]))
			return 0;
	return 1;
}

/* A directory contributes its regular files, sorted by name as Perl's sort does. */
static int
add_directory(struct strvec *files, const char *dir)
{
	struct strvec names = STRVEC_INIT;

	if (read_dir_sorted(dir, &names))
		return error_errno("Failed to opendir %s", dir);
	for (size_t i = 0; i < names.nr; i++) {
		char *path = xstrfmt("%s/%s", dir, names.v[i]);

		if (is_regular_or_fifo(path) && !is_dir(path))
			strvec_push_nodup(files, path);
		else
			free(path);
	}
	strvec_clear(&names);
	return 0;
}

/* git send-email's is_format_patch_arg(): 1 revision, 0 file, -1 ambiguous. */
static int
is_format_patch_arg(const struct series_options *opts, const char *arg)
{
	if (!opts->repo || !revision_resolves(opts->repo, arg))
		return 0;
	if (opts->format_patch >= 0)
		return opts->format_patch;
	error("File '%s' exists but it could also be the range of commits\n"
	      "to produce patches for.  Please disambiguate by...\n\n"
	      "    * Saying \"./%s\" if you mean a file; or\n"
	      "    * Giving --format-patch option if you mean a range.", arg, arg);
	return -1;
}

int
series_classify(const struct strvec *inputs, const struct series_options *opts,
		struct strvec *files, struct strvec *revs)
{
	for (size_t i = 0; i < inputs->nr; i++) {
		const char *f = inputs->v[i];
		int rev;

		if (!strcmp(f, "--")) {
			for (; i < inputs->nr; i++)
				strvec_push(revs, inputs->v[i]);
			break;
		}
		if (is_dir(f) || is_regular_or_fifo(f)) {
			rev = is_format_patch_arg(opts, f);
			if (rev < 0)
				return -1;
			if (!rev) {
				if (is_dir(f) ? add_directory(files, f) : (strvec_push(files, f), 0))
					return -1;
				continue;
			}
		}
		strvec_push(revs, f);
	}
	return 0;
}

static void
add_header(struct message *msg, const char *name, size_t namelen, const char *value, size_t valuelen)
{
	struct mail_header *h;
	struct strbuf v = STRBUF_INIT;

	ALLOC_GROW(msg->headers, msg->headers_nr + 1, msg->headers_alloc);
	h = &msg->headers[msg->headers_nr++];
	h->name = xstrndup(name, namelen);
	/* Unfold: a line break followed by blanks is just the blanks. */
	for (const char *p = value, *end = value + valuelen, *nl; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		strbuf_add(&v, p, (size_t)(nl - p));
	}
	strbuf_trim(&v);
	h->value = strbuf_detach(&v, NULL);
}

const char *
message_header(const struct message *msg, const char *name)
{
	for (size_t i = 0; i < msg->headers_nr; i++)
		if (!strcasecmp(msg->headers[i].name, name))
			return msg->headers[i].value;
	return NULL;
}

static int
is_header_name_char(int c)
{
	return c > ' ' && c < 127 && c != ':';
}

/*
 * Read the header block of a mail (after an optional mbox "From " line).
 * Returns the offset of the body, or -1 if `text` does not start like a mail.
 */
static long
parse_headers(struct message *msg, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int any = 0;

	if (len > 5 && !strncmp(p, "From ", 5)) {
		const char *nl = memchr(p, '\n', len);

		if (!nl)
			return -1;
		p = nl + 1;
	}
	while (p < end) {
		const char *line = p, *colon = p, *nl;

		if (*p == '\n')
			return any ? (long)(p + 1 - text) : -1;
		while (colon < end && is_header_name_char((unsigned char)*colon))
			colon++;
		if (colon == line || colon >= end || *colon != ':')
			return -1;
		/* The value runs on over continuation lines that start with a blank. */
		nl = memchr(colon, '\n', (size_t)(end - colon));
		while (nl && nl + 1 < end && (nl[1] == ' ' || nl[1] == '\t'))
			nl = memchr(nl + 1, '\n', (size_t)(end - nl - 1));
		if (!nl)
			nl = end;
		add_header(msg, line, (size_t)(colon - line), colon + 1, (size_t)(nl - colon - 1));
		any = 1;
		p = nl < end ? nl + 1 : end;
	}
	return any ? (long)len : -1;
}

/* "\r\n" -> "\n", as git mailsplit does without --keep-cr. */
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

static int
needs_mailinfo(const struct message *msg)
{
	const char *cte = message_header(msg, "Content-Transfer-Encoding");
	const char *ct = message_header(msg, "Content-Type");
	const char *subject = message_header(msg, "Subject");
	const char *from = message_header(msg, "From");

	if (cte && (strcasestr(cte, "base64") || strcasestr(cte, "quoted-printable")))
		return 1;
	if (ct && !strncasecmp(ct, "multipart/", 10))
		return 1;
	return (subject && strstr(subject, "=?")) || (from && strstr(from, "=?"));
}

/* Split a plain body at the first line where git mailinfo would start the patch. */
static void
split_body(struct message *msg, const char *body, size_t len)
{
	const char *p = body, *end = body + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t linelen = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

		if (is_patch_break(p, linelen))
			break;
		p += linelen;
	}
	strbuf_add(&msg->log, body, (size_t)(p - body));
	strbuf_add(&msg->patch, p, (size_t)(end - p));
}

/* Let git mailinfo undo base64, quoted-printable, multipart and RFC 2047. */
static int
decode_with_mailinfo(struct message *msg, const char *tmpdir)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf info = STRBUF_INIT;
	char *msgfile = xstrfmt("%s/mailinfo-msg", tmpdir);
	char *patchfile = xstrfmt("%s/mailinfo-patch", tmpdir);
	int rc, ret = -1;

	strvec_pushl(&cp.args, "git", "mailinfo", "-k", "--quoted-cr=strip", msgfile, patchfile, NULL);
	strvec_pushl(&cp.env, "GIT_DIR", "GIT_WORK_TREE", NULL);
	cp.dir = tmpdir;
	rc = pipe_command(&cp, msg->raw.buf, msg->raw.len, &info, NULL);
	if (rc) {
		char why[64];

		error("'%s': git mailinfo %s", msg->name, describe_outcome(rc, why, sizeof(why)));
		goto out;
	}
	if (strbuf_read_file(&msg->log, msgfile, MAX_INPUT_BYTES) < 0 ||
	    strbuf_read_file(&msg->patch, patchfile, MAX_INPUT_BYTES) < 0) {
		error_errno("'%s': cannot read what git mailinfo wrote", msg->name);
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
	msg->encoded = 1;
	ret = 0;
out:
	unlink(msgfile);
	unlink(patchfile);
	free(msgfile);
	free(patchfile);
	strbuf_release(&info);
	return ret;
}

static int
has_line(const char *text, const char *prefix)
{
	struct strbuf nl = STRBUF_INIT;
	int found;

	strbuf_addf(&nl, "\n%s", prefix);
	found = starts_with(text, prefix) || strstr(text, nl.buf);
	strbuf_release(&nl);
	return found;
}

static int
is_git_diff(const char *text)
{
	return has_line(text, "diff --git ");
}

/* A plain unified diff (diff -u, quilt): "--- ", "+++ " and "@@ " lines. */
static int
is_plain_diff(const char *text)
{
	return has_line(text, "--- ") && has_line(text, "+++ ") && has_line(text, "@@ -");
}

static int
looks_like_patch(const char *text)
{
	return is_git_diff(text) || is_plain_diff(text);
}

/* "linux.orig/kernel/x.c<TAB>2021-..." -> "kernel/x.c", as git apply -p1 reads it. */
static char *
plain_diff_path(const char *name, size_t len)
{
	const char *end = memchr(name, '\t', len), *slash;

	if (!end)
		end = name + len;
	while (end > name && end[-1] == ' ')
		end--;
	if ((size_t)(end - name) == 9 && !memcmp(name, "/dev/null", 9))
		return NULL;
	slash = memchr(name, '/', (size_t)(end - name));
	if (slash)
		name = slash + 1;
	return xstrndup(name, (size_t)(end - name));
}

/*
 * libgit2 parses only git's own diff format, so give each file of a plain
 * unified diff the "diff --git" header and a/ b/ names git would have
 * written; the hunks stay as they are.  quilt's Index: and === lines go.
 */
static void
plain_diff_to_git(const char *text, struct strbuf *out)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchrnul(p, '\n'), *next = *nl ? nl + 1 : nl;
		const char *nl2 = strchrnul(next, '\n');

		if (starts_with(p, "--- ") && starts_with(next, "+++ ") && starts_with(*nl2 ? nl2 + 1 : nl2, "@@ -")) {
			char *old = plain_diff_path(p + 4, (size_t)(nl - p - 4));
			char *new = plain_diff_path(next + 4, (size_t)(nl2 - next - 4));
			const char *name = new ? new : old ? old : "unknown";

			strbuf_addf(out, "diff --git a/%s b/%s\n", name, name);
			if (!old)
				strbuf_addstr(out, "new file mode 100644\n");
			if (!new)
				strbuf_addstr(out, "deleted file mode 100644\n");
			strbuf_addf(out, old ? "--- a/%s\n" : "--- /dev/null\n", name);
			strbuf_addf(out, new ? "+++ b/%s\n" : "+++ /dev/null\n", name);
			free(old);
			free(new);
			p = *nl2 ? nl2 + 1 : nl2;
			continue;
		}
		if (!starts_with(p, "Index: ") && !starts_with(p, "===="))
			strbuf_add(out, p, (size_t)(next - p));
		p = next;
	}
}

int
message_from_buffer(struct message *msg, const char *name, const char *buf, size_t len,
		    const char *tmpdir)
{
	struct strbuf text = STRBUF_INIT;
	long body;
	int ret = 0;

	if (!msg->name)
		msg->name = xstrdup(name);
	if (msg->raw.buf != buf) {
		strbuf_reset(&msg->raw);
		strbuf_add(&msg->raw, buf, len);
	}
	strip_cr(&text, buf, len);
	if (memchr(text.buf, '\0', text.len)) {
		ret = error("'%s' is a binary file, neither a mail nor a patch", name);
		goto out;
	}
	body = parse_headers(msg, text.buf, text.len);
	if (body >= 0) {
		const char *subject = message_header(msg, "Subject");
		const char *from = message_header(msg, "From");

		msg->is_mail = 1;
		msg->subject = xstrdup(subject ? subject : "(no subject)");
		msg->author = from ? xstrdup(from) : NULL;
		if (needs_mailinfo(msg)) {
			if (!tmpdir)
				BUG("decoding '%s' needs a scratch directory", name);
			ret = decode_with_mailinfo(msg, tmpdir);
		} else {
			split_body(msg, text.buf + body, text.len - (size_t)body);
		}
	} else if (looks_like_patch(text.buf)) {
		/* A bare "git diff" output: no mail around it. */
		msg->subject = xstrdup(base_name(name));
		strbuf_addbuf(&msg->patch, &text);
	} else if (!text.len) {
		ret = error("'%s' is empty, neither a mail nor a patch", name);
	} else {
		ret = error("'%s' is neither a mail nor a patch "
			    "(expected the output of git format-patch or git diff)", name);
	}
out:
	strbuf_release(&text);
	return ret;
}

int
message_from_file(struct message *msg, const char *path, const char *tmpdir)
{
	if (is_dir(path))
		return error("'%s' is a directory, not a patch", path);
	if (strbuf_read_file(&msg->raw, path, MAX_INPUT_BYTES) < 0) {
		if (errno == EFBIG)
			return error("'%s' is too large (more than %u MiB)", path, MAX_INPUT_BYTES >> 20);
		return error_errno("cannot read '%s'", path);
	}
	if (!msg->file)
		msg->file = xstrdup(path);
	return message_from_buffer(msg, path, msg->raw.buf, msg->raw.len, tmpdir);
}

/*
 * A file's header with "rename from" (or to, or copy from/to) twice: git
 * apply takes the last one, but libgit2 1.5 keeps the first and leaks the
 * second (patch_parse.c, parse_header_rename).  No git writes such a
 * header, so refuse it rather than guess.  Returns the repeated line.
 */
static const char *
repeated_rename_header(const char *text)
{
	static const char *const names[] = { "rename from ", "rename to ", "copy from ", "copy to " };
	unsigned seen = 0;
	int in_header = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchrnul(p, '\n');
		size_t i;

		if (starts_with(p, "diff --git ")) {
			in_header = 1;
			seen = 0;
		} else if (starts_with(p, "--- ") || starts_with(p, "@@ ") ||
			   starts_with(p, "Binary files ") || starts_with(p, "GIT binary patch")) {
			in_header = 0;
		} else if (in_header) {
			for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
				if (!starts_with(p, names[i]))
					continue;
				if (seen & (1u << i))
					return p;
				seen |= 1u << i;
			}
		}
		p = *nl ? nl + 1 : nl;
	}
	return NULL;
}

int
message_diff(struct message *msg, git_diff **out)
{
	const char *repeated;
	int rc;

	if (msg->diff_parsed) {
		*out = msg->diff;
		return 0;
	}
	msg->diff_parsed = 1;
	if (!is_git_diff(msg->patch.buf) && is_plain_diff(msg->patch.buf)) {
		struct strbuf git = STRBUF_INIT;

		plain_diff_to_git(msg->patch.buf, &git);
		strbuf_release(&msg->patch);
		msg->patch = git;
	}
	if (!is_git_diff(msg->patch.buf)) {
		*out = NULL;
		return 0;
	}
	if ((repeated = repeated_rename_header(msg->patch.buf)))
		return error("cannot parse the patch in '%s': '%.*s' is repeated in one file's header",
			     msg->name, (int)(strchrnul(repeated, '\n') - repeated), repeated);
	rc = git_diff_from_buffer(&msg->diff, msg->patch.buf, msg->patch.len);
	if (rc < 0) {
		msg->diff = NULL;
		return lg2_error(rc, "cannot parse the patch in", msg->name);
	}
	*out = msg->diff;
	return 0;
}

int
message_body_encoded(const struct message *msg)
{
	const char *cte = message_header(msg, "Content-Transfer-Encoding");
	const char *ct = message_header(msg, "Content-Type");

	return (cte && strcasecmp(cte, "7bit") && strcasecmp(cte, "8bit") && strcasecmp(cte, "binary")) ||
	       (ct && !strncasecmp(ct, "multipart/", 10));
}

long
message_patch_offset(const struct message *msg)
{
	const char *buf = msg->raw.buf, *end = buf + msg->raw.len, *p;

	if (!msg->is_mail || message_body_encoded(msg))
		return -1;
	/* The body starts after the first empty line. */
	for (p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			return -1;
		if (nl == p || (nl == p + 1 && *p == '\r')) {
			p = nl + 1;
			break;
		}
		p = nl + 1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t linelen = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

		if (is_patch_break(p, linelen))
			return (long)(p - buf);
		p += linelen;
	}
	return -1;
}

void
message_release(struct message *msg)
{
	free(msg->name);
	free(msg->file);
	free(msg->commit);
	free(msg->subject);
	free(msg->author);
	for (size_t i = 0; i < msg->headers_nr; i++) {
		free(msg->headers[i].name);
		free(msg->headers[i].value);
	}
	free(msg->headers);
	strbuf_release(&msg->raw);
	strbuf_release(&msg->log);
	strbuf_release(&msg->patch);
	git_diff_free(msg->diff);
	memset(msg, 0, sizeof(*msg));
	strbuf_init(&msg->raw, 0);
	strbuf_init(&msg->log, 0);
	strbuf_init(&msg->patch, 0);
}

static int
deliver(struct message *msg, message_fn fn, void *data)
{
	int ret;

	msg->index = ++next_index;
	ret = fn(msg, data);
	message_release(msg);
	return ret < 0 ? ret : 0;
}

int
mbox_holds_several(const char *buf, size_t len)
{
	return starts_with(buf, "From ") && memmem(buf, len, "\nFrom ", 6);
}

int
mbox_split(const char *path, const char *dir, struct strvec *parts)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf count = STRBUF_INIT;
	char *opt = xstrfmt("-o%s", dir);
	long n;
	int rc, ret = 0;

	if (mkdir_p(dir, 1)) {
		ret = error_errno("cannot create '%s'", dir);
		goto out;
	}
	/* --keep-cr: the parts stay byte for byte what the mbox held. */
	strvec_pushl(&cp.args, "git", "mailsplit", "-b", "--keep-cr", opt, "--", path, NULL);
	strvec_pushl(&cp.env, "GIT_DIR", "GIT_WORK_TREE", NULL);
	rc = capture_command(&cp, &count);
	if (rc) {
		char why[64];

		ret = error("'%s': git mailsplit %s", path, describe_outcome(rc, why, sizeof(why)));
		goto out;
	}
	n = strtol(count.buf, NULL, 10);
	for (long k = 1; k <= n; k++)
		strvec_pushf(parts, "%s/%04ld", dir, k);
out:
	free(opt);
	strbuf_release(&count);
	return ret;
}

/*
 * Where does the next mail of an mbox start?  This is git mailsplit's own
 * rule (builtin/mailsplit.c:is_from_line): "From " and something that ends
 * in a time and a year.  Splitting here instead of running git mailsplit
 * spares writing one file per mail; decoding is still git mailinfo's.
 */
static int
is_from_line(const char *line, size_t len)
{
	const char *colon;

	/* As in git, len counts the newline and the buffer is NUL-terminated. */
	if (len < 20 || memcmp("From ", line, 5))
		return 0;
	colon = line + len - 2;
	line += 5;
	for (;;) {
		if (colon < line)
			return 0;
		if (*--colon == ':')
			break;
	}
	if (!isdigit((unsigned char)colon[-4]) || !isdigit((unsigned char)colon[-2]) ||
	    !isdigit((unsigned char)colon[-1]) || !isdigit((unsigned char)colon[1]) ||
	    !isdigit((unsigned char)colon[2]))
		return 0;
	return strtol(colon + 3, NULL, 10) > 90;	/* the year */
}

static int
deliver_mail(struct message *msg, const char *path, size_t n, int several, const char *tmpdir,
	     message_fn fn, void *data)
{
	int ret;

	if (several) {
		msg->name = xstrfmt("%s (message %zu)", path, n);
	} else {
		msg->name = xstrdup(path);
		msg->file = xstrdup(path);
	}
	if (message_from_buffer(msg, msg->name, msg->raw.buf, msg->raw.len, tmpdir))
		ret = -1;
	else
		ret = deliver(msg, fn, data);
	message_release(msg);
	return ret;
}

/*
 * Read a file of one mail, or an mbox of many, a mail at a time so that
 * memory does not grow with the series.  Like git mailsplit -b, a file
 * that does not start with a From_ line is a single mail.
 */
static int
read_file(const char *path, const char *tmpdir, message_fn fn, void *data)
{
	struct message msg = MESSAGE_INIT;
	FILE *fp = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, n = 0;
	ssize_t len;
	int mbox = -1, ret = 0;

	if (!fp)
		return error_errno("cannot read '%s'", path);
	while (!ret && (len = getline(&line, &cap, fp)) >= 0) {
		int from = is_from_line(line, (size_t)len);

		if (mbox < 0)
			mbox = from;
		if (mbox && from && msg.raw.len) {
			ret = deliver_mail(&msg, path, ++n, 1, tmpdir, fn, data);
			msg = (struct message)MESSAGE_INIT;
		}
		if (msg.raw.len + (size_t)len > MAX_INPUT_BYTES) {
			ret = error("'%s': a mail larger than %u MiB", path, MAX_INPUT_BYTES >> 20);
			break;
		}
		strbuf_add(&msg.raw, line, (size_t)len);
	}
	if (!ret && ferror(fp))
		ret = error_errno("cannot read '%s'", path);
	else if (!ret && !n && !msg.raw.len)
		ret = error("'%s' is empty, neither a mail nor a patch", path);
	else if (!ret && msg.raw.len)
		ret = deliver_mail(&msg, path, n + 1, n > 0, tmpdir, fn, data);
	message_release(&msg);
	free(line);
	fclose(fp);
	return ret;
}

int
series_read(const struct strvec *inputs, const struct series_options *opts,
	    message_fn fn, void *data)
{
	struct strvec files = STRVEC_INIT, revs = STRVEC_INIT;
	int ret = 0;

	next_index = 0;
	if (series_classify(inputs, opts, &files, &revs)) {
		ret = -1;
		goto out;
	}
	if (!files.nr && !revs.nr) {
		ret = error("no patches given (name patch files, a directory, an mbox or revisions)");
		goto out;
	}
	for (size_t i = 0; i < files.nr && !ret; i++)
		ret = read_file(files.v[i], opts->tmpdir, fn, data);
	if (!ret && revs.nr)
		ret = revisions_read(opts->repo, &revs, &next_index, fn, data);
out:
	strvec_clear(&files);
	strvec_clear(&revs);
	return ret;
}
