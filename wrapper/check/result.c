// SPDX-License-Identifier: GPL-2.0-only
/* result: git apply --cached onto the base, git diff-index -M, git cat-file --batch. */
#define _GNU_SOURCE
#include "check/result.h"
#include "check/matches.h"
#include "lib/i18n.h"
#include "lib/run-command.h"
#include "lib/usage.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NULL_OID "0000000000000000000000000000000000000000"

struct change {
	char *old_oid, *new_oid;	/* NULL_OID where there is none */
	char *old_path, *new_path;	/* the same but for renames and copies */
};

struct blob {
	char *oid;
	struct strbuf text;
};

static int
git_in(const struct repo *repo, const char *index_file, struct strbuf *out, struct strbuf *err, ...)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	va_list ap;
	const char *a;

	repo_git(repo, &cp);
	if (index_file)
		strvec_pushf(&cp.env, "GIT_INDEX_FILE=%s", index_file);
	va_start(ap, err);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&cp.args, a);
	va_end(ap);
	cp.no_stdin = 1;
	if (!out)
		cp.no_stdout = 1;
	return pipe_command(&cp, NULL, 0, out, err);
}

/* ":<mode> <mode> <oid> <oid> <status>\0<path>\0[<path>\0]" records of git diff-index -z. */
static int
parse_raw(const struct strbuf *raw, struct change **out, size_t *nr)
{
	const char *p = raw->buf, *end = raw->buf + raw->len;
	size_t alloc = 0;

	while (p < end) {
		struct change c;
		const char *nul = memchr(p, '\0', (size_t)(end - p)), *f[5];
		char status;
		int two;

		if (!nul || *p != ':')
			return -1;
		/* :100644 100644 <old> <new> M */
		f[0] = p + 1;
		for (int i = 1; i < 5; i++) {
			f[i] = memchr(f[i - 1], ' ', (size_t)(nul - f[i - 1]));
			if (!f[i])
				return -1;
			f[i]++;
		}
		status = *f[4];
		two = status == 'R' || status == 'C';
		c.old_oid = xstrndup(f[2], 40);
		c.new_oid = xstrndup(f[3], 40);
		p = nul + 1;
		nul = memchr(p, '\0', (size_t)(end - p));
		if (!nul)
			goto bad;
		c.old_path = xstrndup(p, (size_t)(nul - p));
		p = nul + 1;
		if (two) {
			nul = memchr(p, '\0', (size_t)(end - p));
			if (!nul) {
				free(c.old_path);
				goto bad;
			}
			c.new_path = xstrndup(p, (size_t)(nul - p));
			p = nul + 1;
		} else {
			c.new_path = xstrdup(c.old_path);
		}
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = c;
		continue;
bad:
		free(c.old_oid);
		free(c.new_oid);
		return -1;
	}
	return 0;
}

static void
changes_free(struct change *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(v[i].old_oid);
		free(v[i].new_oid);
		free(v[i].old_path);
		free(v[i].new_path);
	}
	free(v);
}

/* Every blob asked for, through one git cat-file --batch. */
static int
read_blobs(const struct repo *repo, struct blob *blobs, size_t nr)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	const char *p, *end;
	int rc, ret = -1;

	if (!nr)
		return 0;
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(&in, "%s\n", blobs[i].oid);
	repo_git(repo, &cp);
	strvec_pushl(&cp.args, "cat-file", "--batch", NULL);
	rc = pipe_command(&cp, in.buf, in.len, &out, NULL);
	if (rc) {
		char why[64];

		error(_("git cat-file %s"), describe_outcome(rc, why, sizeof(why)));
		goto out;
	}
	p = out.buf;
	end = out.buf + out.len;
	for (size_t i = 0; i < nr; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
		unsigned long size;

		if (!nl || !(sp = memrchr(p, ' ', (size_t)(nl - p))) || !strncmp(sp, " missing", 8)) {
			error(_("git cat-file cannot read blob %s"), blobs[i].oid);
			goto out;
		}
		size = strtoul(sp + 1, NULL, 10);
		if ((size_t)(end - (nl + 1)) < size + 1) {
			error(_("git cat-file --batch: short output"));
			goto out;
		}
		strbuf_add(&blobs[i].text, nl + 1, size);
		p = nl + 1 + size + 1;
	}
	ret = 0;
out:
	strbuf_release(&in);
	strbuf_release(&out);
	return ret;
}

/* A blob's lines, for matches_find_in() (a NUL ends a line too, and a CR before the newline goes). */
struct blob_lines {
	char *copy;
	const char **v;
	size_t nr;
};

static void
blob_lines_split(struct blob_lines *bl, const struct strbuf *text)
{
	size_t alloc = 0;
	char *end;

	bl->copy = xmalloc(text->len + 1);
	memcpy(bl->copy, text->buf, text->len);
	bl->copy[text->len] = '\0';
	bl->v = NULL;
	bl->nr = 0;
	end = bl->copy + text->len;
	for (char *p = bl->copy; p < end;) {
		char *nl = p;

		while (nl < end && *nl != '\n' && *nl)
			nl++;
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		ALLOC_GROW(bl->v, bl->nr + 1, alloc);
		bl->v[bl->nr++] = p;
		p = nl + 1;
	}
}

static void
blob_lines_release(struct blob_lines *bl)
{
	free(bl->copy);
	free(bl->v);
}

/* A blob read for matches_find_in(): split and made into text once, for every entry that asks. */
struct blob_reading {
	int ready;
	struct blob_lines bl;
	struct matches_text mt;
};

static void
blob_reading_release(struct blob_reading *r)
{
	if (r->ready) {
		matches_text_release(&r->mt);
		blob_lines_release(&r->bl);
	}
	r->ready = 0;
}

/* The entry's occurrences in a blob, read as detect.c reads a run of lines, each with its place. */
static void
find_in_blob(const struct policy_entry *e, const struct strbuf *text, struct blob_reading *r, const char *path,
	     struct matches *out)
{
	size_t first = out->nr;

	if (!r->ready) {
		blob_lines_split(&r->bl, text);
		matches_text_init(&r->mt, r->bl.v, r->bl.nr);
		r->ready = 1;
	}
	matches_find_in(e, &r->mt, out);
	for (size_t i = first; i < out->nr; i++) {
		out->v[i].file = xstrdup(path);
		out->v[i].line_text = xstrdup(r->bl.v[out->v[i].line]);
	}
}

/* Keep the occurrences not paired off yet, for pairing across files. */
static void
keep_unused(struct matches *to, struct matches *from)
{
	for (size_t i = 0; i < from->nr; i++) {
		if (from->v[i].used) {
			free(from->v[i].text);
			free(from->v[i].file);
			free(from->v[i].line_text);
			continue;
		}
		ALLOC_GROW(to->v, to->nr + 1, to->alloc);
		to->v[to->nr++] = from->v[i];
	}
	free(from->v);
	memset(from, 0, sizeof(*from));
}

static size_t
blob_index(struct blob **blobs, size_t *nr, size_t *alloc, const char *oid)
{
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*blobs)[i].oid, oid))
			return i;
	ALLOC_GROW(*blobs, *nr + 1, *alloc);
	(*blobs)[*nr].oid = xstrdup(oid);
	strbuf_init(&(*blobs)[*nr].text, 0);
	return (*nr)++;
}

/* The name a file had in the origin tree, if it was renamed since (else itself). */
static const char *
origin_of(const struct strvec *from, const struct strvec *to, const char *path)
{
	for (size_t i = 0; from && i < to->nr; i++)
		if (!strcmp(to->v[i], path))
			return from->v[i];
	return path;
}

static int
covers(const struct policy_entry *e, const char *path, const struct strvec *from, const struct strvec *to)
{
	return policy_entry_covers(e, path) || policy_entry_covers(e, origin_of(from, to, path));
}

/* Count each entry over the changes of `raw` (git diff-index -z -M output). */
static int
count_changes(const struct repo *repo, const struct strbuf *raw, const struct policy *p,
	      const struct matcher *m, const struct strvec *from, const struct strvec *to,
	      struct result_count *out)
{
	struct change *ch = NULL;
	struct blob *blobs = NULL;
	size_t nch = 0, nblobs = 0, ablobs = 0, *old_at, *new_at;
	unsigned char *hits = xcalloc(p->nr ? p->nr : 1, 1);
	struct matches *gone = xcalloc(p->nr ? p->nr : 1, sizeof(*gone));
	struct matches *came = xcalloc(p->nr ? p->nr : 1, sizeof(*came));
	int ret = -1;

	if (parse_raw(raw, &ch, &nch)) {
		error(_("cannot make sense of what 'git diff-index' says"));
		goto out0;
	}
	old_at = xcalloc(nch ? nch : 1, sizeof(*old_at));
	new_at = xcalloc(nch ? nch : 1, sizeof(*new_at));
	for (size_t i = 0; i < nch; i++) {
		int covered = 0;

		for (size_t k = 0; k < p->nr && !covered; k++)
			covered = covers(p->v[k], ch[i].old_path, from, to) ||
				  covers(p->v[k], ch[i].new_path, from, to);
		old_at[i] = new_at[i] = (size_t)-1;
		if (!covered)
			continue;
		if (strcmp(ch[i].old_oid, NULL_OID))
			old_at[i] = blob_index(&blobs, &nblobs, &ablobs, ch[i].old_oid);
		if (strcmp(ch[i].new_oid, NULL_OID))
			new_at[i] = blob_index(&blobs, &nblobs, &ablobs, ch[i].new_oid);
	}
	if (read_blobs(repo, blobs, nblobs))
		goto out;
	for (size_t i = 0; i < nch; i++) {
		const struct strbuf *old = old_at[i] != (size_t)-1 ? &blobs[old_at[i]].text : NULL;
		const struct strbuf *new = new_at[i] != (size_t)-1 ? &blobs[new_at[i]].text : NULL;
		struct blob_reading old_reading = { 0 }, new_reading = { 0 };

		memset(hits, 0, p->nr);
		if (old)
			matcher_scan(m, old->buf, old->len, hits);
		if (new)
			matcher_scan(m, new->buf, new->len, hits);
		for (size_t k = 0; k < p->nr; k++) {
			const struct policy_entry *e = p->v[k];
			int old_covered = covers(e, ch[i].old_path, from, to);
			struct matches before = MATCHES_INIT, after = MATCHES_INIT;

			if (!hits[k] || (!old_covered && !covers(e, ch[i].new_path, from, to)))
				continue;
			/* A file the entry covers keeps its protection under a new name. */
			if (old && old_covered)
				find_in_blob(e, old, &old_reading, ch[i].old_path, &before);
			if (new)
				find_in_blob(e, new, &new_reading, ch[i].new_path, &after);
			matches_pair(e, &before, &after);
			out[k].before += before.nr;
			out[k].after += after.nr;
			keep_unused(&gone[k], &before);
			keep_unused(&came[k], &after);
		}
		blob_reading_release(&old_reading);
		blob_reading_release(&new_reading);
	}
	/* A joke moved from one file to another (both covered) is still there. */
	for (size_t k = 0; k < p->nr; k++) {
		matches_pair(p->v[k], &gone[k], &came[k]);
		out[k].gone = matches_unused(&gone[k]);
		for (size_t i = 0; i < gone[k].nr; i++)
			if (!gone[k].v[i].used) {
				out[k].file = xstrdup(gone[k].v[i].file);
				out[k].line = (int)gone[k].v[i].line + 1;
				out[k].removed = xstrdup(gone[k].v[i].line_text);
				break;
			}
	}
	ret = 0;
out:
	for (size_t i = 0; i < nblobs; i++) {
		free(blobs[i].oid);
		strbuf_release(&blobs[i].text);
	}
	free(blobs);
	free(old_at);
	free(new_at);
out0:
	for (size_t k = 0; k < p->nr; k++) {
		matches_clear(&gone[k]);
		matches_clear(&came[k]);
	}
	free(gone);
	free(came);
	changes_free(ch, nch);
	free(hits);
	return ret;
}

/* The renames git finds between `origin` and the index: where each file came from. */
static int
renames_since(const struct repo *repo, const char *origin, const char *index_file, struct strvec *from,
	      struct strvec *to)
{
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	struct change *ch = NULL;
	size_t nch = 0;
	int rc, ret = -1;

	rc = git_in(repo, index_file, &raw, &err, "diff-index", "--cached", "-z", "--no-abbrev", "-M",
		    "--diff-filter=R", origin, "--", NULL);
	if (rc || parse_raw(&raw, &ch, &nch)) {
		strbuf_trim(&err);
		error(_("git diff-index cannot compare the index with %s: %s"), origin, err.buf);
		goto out;
	}
	for (size_t i = 0; i < nch; i++) {
		strvec_push(from, ch[i].old_path);
		strvec_push(to, ch[i].new_path);
	}
	ret = 0;
out:
	changes_free(ch, nch);
	strbuf_release(&raw);
	strbuf_release(&err);
	return ret;
}

int
result_count_index(const struct repo *repo, const char *tree, const char *index_file, const char *origin,
		   const struct policy *p, const struct matcher *m, struct result_count *out)
{
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec from = STRVEC_INIT, to = STRVEC_INIT;
	int rc, ret = -1;

	if (origin && renames_since(repo, origin, index_file, &from, &to))
		goto out;
	rc = git_in(repo, index_file, &raw, &err, "diff-index", "--cached", "-z", "--no-abbrev", "-M",
		    "--no-ext-diff", tree, "--", NULL);
	if (rc) {
		strbuf_trim(&err);
		error(_("git diff-index cannot compare the index with %s: %s"), tree, err.buf);
		goto out;
	}
	if (!count_changes(repo, &raw, p, m, origin ? &from : NULL, &to, out))
		ret = 1;
out:
	strvec_clear(&from);
	strvec_clear(&to);
	strbuf_release(&raw);
	strbuf_release(&err);
	return ret;
}

int
result_apply_and_count(const struct repo *repo, const char *base, const char *origin,
		       const struct strvec *patches, const struct policy *p, const struct matcher *m,
		       const char *scratch, struct result_count *out, struct strbuf *why)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT;
	char *index_file = xstrfmt("%s/result-index", scratch);
	int rc, ret = -1;

	unlink(index_file);
	rc = git_in(repo, index_file, NULL, &err, "read-tree", base, NULL);
	if (rc) {
		strbuf_trim(&err);
		error(_("git read-tree %s: %s"), base, err.buf);
		goto out;
	}
	/* What git am runs for each patch, in the same order, onto the same index. */
	repo_git(repo, &cp);
	strvec_pushf(&cp.env, "GIT_INDEX_FILE=%s", index_file);
	strvec_pushl(&cp.args, "apply", "--cached", NULL);
	strvec_pushv(&cp.args, patches->v);
	cp.no_stdin = 1;
	cp.no_stdout = 1;
	strbuf_reset(&err);
	rc = pipe_command(&cp, NULL, 0, NULL, &err);
	if (rc) {
		strbuf_trim(&err);
		strbuf_addbuf(why, &err);
		ret = 0;
		goto out;
	}
	ret = result_count_index(repo, base, index_file, origin, p, m, out);
out:
	unlink(index_file);
	free(index_file);
	strbuf_release(&err);
	return ret;
}

void
result_counts_release(struct result_count *out, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(out[i].file);
		free(out[i].removed);
	}
}
