/*
 * series: files (one read each, mboxes split), standard input, and
 * revisions through git format-patch, into messages.
 */
#define _GNU_SOURCE
#include "series/series.h"
#include "series/input.h"
#include "series/mbox.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/usage.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MAIL_BYTES (256u << 20)

struct reader {
	const struct series_options *opts;
	message_fn fn;
	void *data;
	size_t index;		/* messages delivered so far */
};

struct message *
message_move(struct message *from)
{
	struct message *to = xmalloc(sizeof(*to));

	*to = *from;
	memset(from, 0, sizeof(*from));
	strbuf_init(&from->raw, 0);
	strbuf_init(&from->log, 0);
	strbuf_init(&from->patch, 0);
	return to;
}

/* The private file a message is kept in: NNNN-<the name it had>. */
static char *
keep_path(const struct reader *rd, const char *name)
{
	const char *base = base_name(name);

	return xstrfmt("%s/%04zu-%.200s", rd->opts->keep_dir, rd->index, *base ? base : "stdin");
}

/* `path`: the file the message is all of (NULL for a part of an mbox); `user`: is it the user's? */
static int
deliver(struct reader *rd, struct message *msg, const char *name, const char *path, int user)
{
	int ret;

	rd->index++;
	msg->index = rd->index;
	if (message_set_raw(msg, name, msg->raw.buf, msg->raw.len)) {
		message_release(msg);
		return -1;
	}
	if (path && user)
		msg->source = xstrdup(path);
	msg->from_mbox = !path && user;
	if (rd->opts->keep_dir) {
		msg->file = keep_path(rd, path ? path : name);
		if (write_file_buf(msg->file, msg->raw.buf, msg->raw.len)) {
			message_release(msg);
			return -1;
		}
	} else if (path && user) {
		msg->file = xstrdup(path);
	}
	ret = rd->fn(msg, rd->data);
	message_release(msg);
	return ret < 0 ? ret : 0;
}

static int
is_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)line[i]))
			return 0;
	return 1;
}

/*
 * One file: a mail at a time, so memory does not grow with the series.
 * Like git mailsplit -b, a file whose first line (after blank ones) is
 * not a "From " line is one mail, and so is every file git format-patch
 * wrote (`users` 0: not a file the user named).  A single mail keeps every byte of the file; the
 * mails of an mbox start at their "From " lines.
 */
static int
read_file(struct reader *rd, const char *path, int users, const char *name_for_one)
{
	struct message msg = MESSAGE_INIT;
	struct strbuf held = STRBUF_INIT;	/* a "From " line that may start the next mail */
	const char *shown = strcmp(path, "-") ? path : "<standard input>";
	FILE *fp = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *line = NULL;
	size_t cap = 0, n = 0, lead = 0;
	ssize_t len;
	int mbox = -1, ret = 0;

	if (!fp)
		return error_errno("cannot read '%s'", path);
	while (!ret && (len = getline(&line, &cap, fp)) >= 0) {
		if (mbox < 0) {
			if (is_blank(line, (size_t)len)) {
				lead += (size_t)len;
				strbuf_add(&msg.raw, line, (size_t)len);
				continue;
			}
			mbox = users && mbox_is_from_line(line, (size_t)len);
		}
		/*
		 * A "From " line starts the next mail only if a header follows
		 * it: a commit message may quote one (git format-patch does not
		 * escape it, and git send-email sends the file as one mail).
		 */
		if (held.len) {
			if (mail_is_header_line(line, (size_t)len)) {
				char *name = xstrfmt("%s (message %zu)", shown, ++n);

				/* One of several: what git mailsplit writes, leading blank lines left out. */
				if (lead) {
					memmove(msg.raw.buf, msg.raw.buf + lead, msg.raw.len - lead);
					strbuf_setlen(&msg.raw, msg.raw.len - lead);
					lead = 0;
				}
				ret = deliver(rd, &msg, name, NULL, 1);
				free(name);
				if (ret)
					break;
			}
			strbuf_addbuf(&msg.raw, &held);
			strbuf_reset(&held);
		}
		if (mbox && msg.raw.len > lead && mbox_is_from_line(line, (size_t)len)) {
			strbuf_add(&held, line, (size_t)len);
			continue;
		}
		if (msg.raw.len + (size_t)len > MAX_MAIL_BYTES) {
			ret = error("'%s': a mail larger than %u MiB", shown, MAX_MAIL_BYTES >> 20);
			break;
		}
		strbuf_add(&msg.raw, line, (size_t)len);
	}
	strbuf_addbuf(&msg.raw, &held);
	strbuf_release(&held);
	if (!ret && ferror(fp))
		ret = error_errno("cannot read '%s'", shown);
	else if (!ret && n) {
		char *name = xstrfmt("%s (message %zu)", shown, ++n);

		ret = deliver(rd, &msg, name, NULL, 1);
		free(name);
	} else if (!ret) {
		ret = deliver(rd, &msg, name_for_one ? name_for_one : shown, fp == stdin ? NULL : path, users);
	}
	message_release(&msg);
	free(line);
	if (fp != stdin)
		fclose(fp);
	return ret;
}

/* "0002-foo.patch (commit 1a2b3c4d5e6f)", from git format-patch's "From <id>" line. */
static char *
revision_name(const char *file)
{
	struct strbuf head = STRBUF_INIT;
	char *name;
	const char *id;
	FILE *fp = fopen(file, "re");

	if (fp && strbuf_getline(&head, fp) != EOF && skip_prefix(head.buf, "From ", &id) &&
	    strspn(id, "0123456789abcdef") >= 12)
		name = xstrfmt("%s (commit %.12s)", base_name(file), id);
	else
		name = xstrdup(base_name(file));
	if (fp)
		fclose(fp);
	strbuf_release(&head);
	return name;
}

/*
 * "git format-patch -o <private dir> <revs>", as git send-email runs it
 * (Git.pm's command(): GIT_DIR and GIT_WORK_TREE set, from the current
 * directory); the files it names on stdout, in order.
 */
static int
read_revisions(struct reader *rd, const struct strvec *revs)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	const struct repo *repo = rd->opts->repo;
	char *dir = xstrfmt("%s/format-patch", rd->opts->scratch);
	int rc, ret = 0;

	if (!repo) {
		for (size_t i = 0; i < revs->nr; i++)
			if (strcmp(revs->v[i], "--")) {
				free(dir);
				return error("'%s': no such file or directory (and this is not a git repository, "
					     "so it is not a revision either)", revs->v[i]);
			}
		free(dir);
		return error("no revisions after '--'");
	}
	/*
	 * Name what is neither a file nor a revision, before git format-patch
	 * says less; with options among them (which may take values), git
	 * format-patch is the judge.
	 */
	for (size_t i = 0; i < revs->nr && revs->v[i][0] != '-'; i++)
		if (i + 1 == revs->nr)
			for (size_t k = 0; k < revs->nr; k++)
				if (!repo_names_revisions(repo, revs->v[k])) {
					ret = error("'%s': no such file, and not a revision in this repository",
						    revs->v[k]);
					goto out;
				}
	if (mkdir_p(dir, 1)) {
		ret = error_errno("cannot create '%s'", dir);
		goto out;
	}
	repo_git(repo, &cp);
	strvec_pushl(&cp.args, "format-patch", "-o", dir, NULL);
	strvec_pushv(&cp.args, revs->v);
	cp.no_stdin = 1;
	rc = capture_command(&cp, &out);
	if (rc) {
		char why[64];

		struct strbuf words = STRBUF_INIT;

		for (size_t i = 0; i < revs->nr; i++)
			strbuf_addf(&words, "%s%s", i ? " " : "", revs->v[i]);
		ret = error("git format-patch %s on '%s' (khsend reads revisions and their options "
			    "as git send-email does: through git format-patch)",
			    describe_outcome(rc, why, sizeof(why)), words.buf);
		strbuf_release(&words);
		goto out;
	}
	for (char *line = out.buf, *nl; *line && !ret; line = nl + 1) {
		nl = strchrnul(line, '\n');
		if (nl > line) {
			char *file = xstrndup(line, (size_t)(nl - line)), *name = revision_name(file);

			/* One mail each, and not a file of the user's. */
			ret = read_file(rd, file, 0, name);
			if (!rd->opts->keep_dir)
				unlink(file);	/* read: it is not needed again */
			free(name);
			free(file);
		}
		if (!*nl)
			break;
	}
out:
	free(dir);
	strbuf_release(&out);
	return ret;
}

int
series_read(const struct strvec *inputs, const struct series_options *opts, message_fn fn, void *data)
{
	struct reader rd = { opts, fn, data, 0 };
	struct strvec files = STRVEC_INIT, revs = STRVEC_INIT;
	int ret = 0;

	if (!opts->scratch)
		BUG("series_read() needs a scratch directory");
	if (input_classify(inputs, opts->repo, opts->format_patch, &files, &revs)) {
		ret = -1;
		goto out;
	}
	if (!files.nr && !revs.nr) {
		ret = error("no patches given (name patch files, a directory, an mbox or revisions)");
		goto out;
	}
	for (size_t i = 0; i < files.nr && !ret; i++) {
		if (is_dir(files.v[i])) {
			ret = error("'%s' is a directory, not a patch", files.v[i]);
			break;
		}
		ret = read_file(&rd, files.v[i], 1, NULL);
	}
	if (!ret && revs.nr)
		ret = read_revisions(&rd, &revs);
	if (!ret && !rd.index) {
		struct strbuf words = STRBUF_INIT;

		for (size_t i = 0; i < revs.nr; i++)
			strbuf_addf(&words, "%s%s", i ? " " : "", revs.v[i]);
		ret = error("git format-patch made no patches of '%s'", words.buf);
		strbuf_release(&words);
	}
out:
	strvec_clear(&files);
	strvec_clear(&revs);
	return ret;
}

static int
keep_one(struct message *msg, void *data)
{
	struct series *s = data;

	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr++] = message_move(msg);
	return 0;
}

int
series_build(struct series *s, const struct strvec *inputs, const struct series_options *opts)
{
	if (!opts->keep_dir)
		BUG("series_build() keeps its messages in a directory");
	if (mkdir_p(opts->keep_dir, 1))
		return error_errno("cannot create '%s'", opts->keep_dir);
	return series_read(inputs, opts, keep_one, s);
}

int
series_add_file(struct series *s, const char *file, const char *name)
{
	struct message msg = MESSAGE_INIT;

	if (strbuf_read_file(&msg.raw, file, MAX_MAIL_BYTES) < 0) {
		int ret = errno == EFBIG ? error("'%s' is too large (more than %u MiB)", file, MAX_MAIL_BYTES >> 20)
					 : error_errno("cannot read '%s'", file);

		message_release(&msg);
		return ret;
	}
	msg.index = s->nr + 1;
	msg.file = xstrdup(file);
	if (message_set_raw(&msg, name, msg.raw.buf, msg.raw.len)) {
		message_release(&msg);
		return -1;
	}
	return keep_one(&msg, s);
}

void
series_release(struct series *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		message_release(s->v[i]);
		free(s->v[i]);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* An id as git names it here, with "^" if `parent`; NULL if it is not a commit here. */
static char *
resolve_commit(const struct repo *repo, const char *id, int parent)
{
	struct strbuf oid = STRBUF_INIT;
	char *spec = xstrfmt("%s%s^{commit}", id, parent ? "^" : "");

	if (!repo_resolves(repo, spec, &oid)) {
		free(spec);
		strbuf_release(&oid);
		return NULL;
	}
	free(spec);
	return strbuf_detach(&oid, NULL);
}

char *
message_base(const struct message *msg, const struct repo *repo)
{
	char *id = message_base_commit(msg), *base = NULL;

	if (!repo)
		goto out;
	if (id)
		base = resolve_commit(repo, id, 0);
	if (!base && msg->commit)
		base = resolve_commit(repo, msg->commit, 1);
out:
	free(id);
	return base;
}

char *
series_base(const struct series *s, const struct repo *repo)
{
	/* The base-commit line is in the first message git format-patch writes. */
	for (size_t i = 0; i < s->nr; i++) {
		char *id = message_base_commit(s->v[i]), *base;

		if (!id)
			continue;
		base = resolve_commit(repo, id, 0);
		free(id);
		if (base)
			return base;
	}
	for (size_t i = 0; i < s->nr; i++)
		if (s->v[i]->commit)
			return resolve_commit(repo, s->v[i]->commit, 1);
	return NULL;
}
