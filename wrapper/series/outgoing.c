/* outgoing: copy, split and format-patch the series into the private directory; check; annotate. */
#define _GNU_SOURCE
#include "series/outgoing.h"
#include "boot/boot.h"
#include "check/annotate.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "series/series.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT_BYTES (256u << 20)

void
outgoing_init(struct outgoing *o, const char *dir)
{
	memset(o, 0, sizeof(*o));
	o->dir = xstrdup(dir);
	o->cover = -1;
}

void
outgoing_release(struct outgoing *o)
{
	for (size_t i = 0; i < o->nr; i++) {
		free(o->v[i].file);
		free(o->v[i].name);
	}
	free(o->v);
	free(o->dir);
	free(o->gathered);
	memset(o, 0, sizeof(*o));
	o->cover = -1;
}

static void
push(struct outgoing *o, char *file, char *name)
{
	ALLOC_GROW(o->v, o->nr + 1, o->alloc);
	o->v[o->nr].file = file;
	o->v[o->nr].name = name;
	o->nr++;
}

void
outgoing_add_private(struct outgoing *o, const char *file, const char *name)
{
	push(o, xstrdup(file), xstrdup(name));
}

/*
 * The copy's name: the path as given, with "%" and "/" escaped, so one
 * name is a prefix of another exactly when it was so before (git
 * send-email asks before sending "x.patch~" after "x.patch").
 */
static char *
copy_path(struct outgoing *o, const char *path)
{
	struct strbuf name = STRBUF_INIT;
	char *dir, *full;

	for (const char *c = path; *c; c++) {
		if (*c == '%')
			strbuf_addstr(&name, "%25");
		else if (*c == '/')
			strbuf_addstr(&name, "%2F");
		else
			strbuf_addch(&name, *c);
	}
	if (name.len > 200) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%04zu-%.100s", o->nr + 1, base_name(path));
	}
	/* The same name twice (a file given twice) goes to a directory of its own. */
	for (size_t k = 0;; k++) {
		dir = k ? xstrfmt("%s/series.%zu", o->dir, k) : xstrfmt("%s/series", o->dir);
		if (mkdir_p(dir, 1))
			die_errno("cannot create '%s'", dir);
		full = xstrfmt("%s/%s", dir, name.buf);
		free(dir);
		if (!file_exists(full))
			break;
		free(full);
	}
	strbuf_release(&name);
	return full;
}

int
outgoing_add_file(struct outgoing *o, const char *path)
{
	struct strbuf raw = STRBUF_INIT;
	char *copy;
	int ret = 0;

	/* One read: a FIFO gives its bytes once, and the file is never read again. */
	if (strbuf_read_file(&raw, path, MAX_INPUT_BYTES) < 0) {
		ret = errno == EFBIG ? error("'%s' is too large (more than %u MiB)", path, MAX_INPUT_BYTES >> 20)
				     : error_errno("cannot read '%s'", path);
		strbuf_release(&raw);
		return ret;
	}
	copy = copy_path(o, path);
	if (write_file_buf(copy, raw.buf, raw.len)) {
		free(copy);
		strbuf_release(&raw);
		return -1;
	}
	if (mbox_holds_several(raw.buf, raw.len)) {
		/* git send-email 2.39 alone would send the whole mbox as one mail. */
		struct strvec parts = STRVEC_INIT;
		char *dir = xstrfmt("%s.mails", copy);

		ret = mbox_split(copy, dir, &parts);
		for (size_t k = 0; !ret && k < parts.nr; k++)
			push(o, xstrdup(parts.v[k]),
			     parts.nr > 1 ? xstrfmt("%s (message %zu)", path, k + 1) : xstrdup(path));
		strvec_clear(&parts);
		free(dir);
		free(copy);
	} else {
		push(o, copy, xstrdup(path));
	}
	strbuf_release(&raw);
	return ret;
}

/* "0002-foo.patch (commit 1a2b3c4d5e6f)" from format-patch's "From <id> Mon Sep 17 ..." line. */
static char *
revision_name(const char *file)
{
	struct strbuf head = STRBUF_INIT;
	char *name;
	const char *id;
	FILE *fp = fopen(file, "r");

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

int
outgoing_add_revisions(struct outgoing *o, const struct strvec *revs, git_repository *repo)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	char *dir = xstrfmt("%s/format-patch", o->dir);
	int rc, ret = 0;

	if (!repo) {
		free(dir);
		return error("Cannot run git format-patch from outside a repository");
	}
	if (mkdir_p(dir, 1)) {
		ret = error_errno("cannot create '%s'", dir);
		goto out;
	}
	/*
	 * As git send-email does it (Git.pm's command()): GIT_DIR and
	 * GIT_WORK_TREE set, from the current directory; the file names
	 * come back on stdout, one a line.
	 */
	strvec_pushl(&cp.args, "git", "format-patch", "-o", dir, NULL);
	strvec_pushv(&cp.args, revs->v);
	{
		const char *gitdir = git_repository_path(repo), *wt = git_repository_workdir(repo);

		strvec_pushf(&cp.env, "GIT_DIR=%s", gitdir);
		if (wt)
			strvec_pushf(&cp.env, "GIT_WORK_TREE=%s", wt);
	}
	rc = capture_command(&cp, &out);
	if (rc) {
		char why[64];

		ret = error("git format-patch %s; nothing was sent", describe_outcome(rc, why, sizeof(why)));
		goto out;
	}
	for (char *line = out.buf, *nl; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		if (nl > line) {
			char *file = xstrndup(line, (size_t)(nl - line));

			push(o, file, revision_name(file));
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
outgoing_check(struct outgoing *o, struct detector *d, const char *tmpdir)
{
	for (size_t i = 0; i < o->nr; i++) {
		struct message msg = MESSAGE_INIT;
		int rc;

		msg.index = i + 1;
		msg.name = xstrdup(o->v[i].name);
		msg.file = xstrdup(o->v[i].file);
		rc = message_from_file(&msg, o->v[i].file, tmpdir);
		if (!rc)
			rc = detector_add(d, &msg);
		message_release(&msg);
		if (rc)
			return -1;
	}
	detector_finish(d);
	return 0;
}

const char *
outgoing_gather(struct outgoing *o)
{
	char *dir = xstrfmt("%s/send", o->dir);

	if (mkdir_p(dir, 1)) {
		error_errno("cannot create '%s'", dir);
		free(dir);
		return NULL;
	}
	for (size_t i = 0; i < o->nr; i++) {
		const char *base = base_name(o->v[i].file);
		char *to;

		/* The copies' escaped names are long; keep the file's own name. */
		for (const char *e = strstr(base, "%2F"); e; e = strstr(e + 3, "%2F"))
			base = e + 3;
		to = xstrfmt("%s/%04zu-%.200s", dir, i + 1, base);
		if (rename(o->v[i].file, to)) {
			error_errno("cannot move '%s' to '%s'", o->v[i].file, to);
			free(to);
			free(dir);
			return NULL;
		}
		free(o->v[i].file);
		o->v[i].file = to;
	}
	free(o->gathered);
	o->gathered = dir;
	return dir;
}

size_t
outgoing_index(const struct finding *f)
{
	return f->index - 1;
}

static int
rewrite(const char *file, const char *name, const struct finding *const *f, size_t nr, int cover)
{
	struct strbuf raw = STRBUF_INIT;
	int ret;

	if (strbuf_read_file(&raw, file, MAX_INPUT_BYTES) < 0) {
		strbuf_release(&raw);
		return error_errno("cannot read '%s'", file);
	}
	ret = cover ? annotate_cover(&raw, name, f, nr) : annotate_patch(&raw, name, f, nr);
	if (!ret)
		ret = write_file_buf(file, raw.buf, raw.len);
	strbuf_release(&raw);
	return ret;
}

int
outgoing_annotate(struct outgoing *o, const struct detector *d)
{
	const struct finding **all = xcalloc(d->nr ? d->nr : 1, sizeof(*all));
	size_t nall = 0;
	int ret = 0;

	o->annotated = 0;
	o->cover = -1;
	for (size_t i = 0; i < d->nr; i++)
		if (d->findings[i].action == POLICY_ANNOTATE)
			all[nall++] = &d->findings[i];
	/* Findings are in series order: one rewrite per patch. */
	for (size_t i = 0; i < nall && !ret;) {
		size_t j = i, k = outgoing_index(all[i]);

		while (j < nall && outgoing_index(all[j]) == k)
			j++;
		if (k >= o->nr)
			BUG("finding in message %zu of %zu", k + 1, o->nr);
		ret = rewrite(o->v[k].file, o->v[k].name, all + i, j - i, 0);
		o->annotated++;
		i = j;
	}
	for (size_t k = 0; nall && !ret && k < o->nr; k++) {
		struct strbuf raw = STRBUF_INIT;
		int cover;

		if (strbuf_read_file(&raw, o->v[k].file, MAX_INPUT_BYTES) < 0)
			ret = error_errno("cannot read '%s'", o->v[k].file);
		cover = !ret && is_cover_letter(raw.buf, raw.len);
		strbuf_release(&raw);
		if (cover) {
			ret = rewrite(o->v[k].file, o->v[k].name, all, nall, 1);
			o->cover = (int)k;
			break;
		}
	}
	free(all);
	return ret;
}

int
outgoing_boot(const struct outgoing *o, git_repository *repo)
{
	struct boot_options opts = { NULL, NULL, 0, 0, 0 };
	struct strvec files = STRVEC_INIT;
	int ret;

	boot_options_from_config(&opts, repo);
	for (size_t i = 0; i < o->nr; i++)
		strvec_push(&files, o->v[i].file);
	ret = boot_series(&opts, &files, repo);
	strvec_clear(&files);
	return ret;
}
