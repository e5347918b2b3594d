// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-base: the commit a series is applied on.  In order: --base; the
 * series' own word for it (the base-commit line of git format-patch
 * --base, else the parent of the commit its first mail was made from),
 * when the tree has that commit; else, in a kernel checkout, HEAD, and if
 * the series does not apply there, the newest commit whose files are
 * exactly as the series expects them (the blob ids on its "index" lines,
 * as libgit2 reads them), going back through the commits that changed
 * those files.  The default tree has one commit, so it is that one.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/path.h"
#include "lib/repo.h"
#include "lib/usage.h"
#include "series/series.h"

#include <stdlib.h>
#include <string.h>

/* How many commits that changed the series' files are looked at, newest first. */
#define SEARCH_COMMITS 200
/* How many of the commits found are tried with git am. */
#define SEARCH_TRIES 3

/* The series says which commit it is on, and the tree has that commit. */
static int
series_own_base(const struct boot_tree *t, const struct series *s, struct base_choice *b)
{
	const char *where = t->user_tree ? t->user_tree : t->src;
	struct repo *repo = repo_open(where);
	char *base, *line = NULL;
	int found = 0;

	if (!repo)
		return 0;
	for (size_t i = 0; i < s->nr && !line; i++)
		line = message_base_commit(s->v[i]);
	base = series_base(s, repo);
	if (base) {
		struct strbuf oid = STRBUF_INIT;
		char *spec = line ? xstrfmt("%s^{commit}", line) : NULL;

		strbuf_addstr(&b->oid, base);
		b->how = spec && repo_resolves(repo, spec, &oid) && !strcmp(oid.buf, base)
				 ? "the series' base-commit line"
				 : "the parent of the series' first commit";
		found = 1;
		free(spec);
		strbuf_release(&oid);
	} else if (line) {
		b->missing_line = line;
		line = NULL;
	}
	free(base);
	free(line);
	repo_free(repo);
	return found;
}

int
base_choose(const struct boot_tree *t, const char *rev, const struct series *s,
	    struct base_choice *b)
{
	strbuf_reset(&b->oid);
	b->may_search = 0;
	if (rev) {
		b->how = "--base";
		return tree_resolve_base(t, rev, &b->oid);
	}
	if (series_own_base(t, s, b))
		return 0;
	if (b->missing_line)
		note("the series was written on %.12s (its base-commit line), which %s does not have",
		     b->missing_line, t->user_tree ? t->user_tree : "the default tree");
	if (!t->user_tree) {
		b->how = "linux-source 6.1 as packaged";
		return tree_resolve_base(t, NULL, &b->oid);
	}
	b->how = "HEAD";
	b->may_search = 1;
	return tree_resolve_base(t, "HEAD", &b->oid);
}

/* "path\0abbrev" of each file the series changes, as its first mail with it expects it. */
static int
expected_blobs(const struct series *s, const char *scratch, struct strvec *paths,
	       struct strvec *ids)
{
	struct strvec seen = STRVEC_INIT;

	for (size_t i = 0; i < s->nr; i++) {
		struct message *msg = s->v[i];
		size_t n;

		if (!message_has_patch(msg))
			continue;
		if (!msg->diff_read && message_read_diff(msg, scratch))
			return -1;
		n = msg->diff ? git_diff_num_deltas(msg->diff) : 0;
		for (size_t d = 0; d < n; d++) {
			const git_diff_delta *delta = git_diff_get_delta(msg->diff, d);
			const char *path = delta->old_file.path;
			char hex[GIT_OID_HEXSZ + 1];
			size_t len = delta->old_file.id_abbrev ? delta->old_file.id_abbrev
							       : GIT_OID_HEXSZ;

			if (delta->status != GIT_DELTA_ADDED && path && !strvec_contains(&seen, path) &&
			    !git_oid_is_zero(&delta->old_file.id)) {
				git_oid_tostr(hex, len + 1 < sizeof(hex) ? len + 1 : sizeof(hex),
					      &delta->old_file.id);
				strvec_push(paths, path);
				strvec_push(ids, hex);
			}
			if (path)
				strvec_push(&seen, path);
			if (delta->new_file.path)
				strvec_push(&seen, delta->new_file.path);
		}
	}
	strvec_clear(&seen);
	return 0;
}

/* Are the files at `commit` the blobs the series expects? */
static int
blobs_match(const struct boot_tree *t, const char *commit, const struct strvec *paths,
	    const struct strvec *ids)
{
	struct strvec args = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	size_t matched = 0;

	strvec_pushl(&args, "ls-tree", "--full-tree", commit, "--", NULL);
	strvec_pushv(&args, paths->v);
	if (tree_git_capturev(t, &out, &args, 1)) {
		strvec_clear(&args);
		strbuf_release(&out);
		return 0;
	}
	/* "<mode> blob <id>\t<path>" */
	for (char *p = out.buf; *p;) {
		char *nl = strchrnul(p, '\n'), *tab = memchr(p, '\t', (size_t)(nl - p));
		char *id = memchr(p, ' ', (size_t)(nl - p));

		if (tab && id && (id = memchr(id + 1, ' ', (size_t)(tab - id - 1)))) {
			char *path = xstrndup(tab + 1, (size_t)(nl - tab - 1));

			id++;
			for (size_t i = 0; i < paths->nr; i++)
				if (!strcmp(paths->v[i], path) &&
				    !strncmp(id, ids->v[i], strlen(ids->v[i])))
					matched++;
			free(path);
		}
		p = *nl ? nl + 1 : nl;
	}
	strvec_clear(&args);
	strbuf_release(&out);
	return matched == paths->nr;
}

/* Commits older than `head` whose files are as the series expects, newest first. */
static int
search_bases(const struct boot_tree *t, const struct series *s, const char *scratch,
	     const char *head, struct strvec *found)
{
	struct strvec paths = STRVEC_INIT, ids = STRVEC_INIT, args = STRVEC_INIT;
	struct strbuf commits = STRBUF_INIT, parent = STRBUF_INIT;
	int rc = 0;

	if (expected_blobs(s, scratch, &paths, &ids)) {
		rc = -1;
		goto out;
	}
	if (!paths.nr)
		goto out;	/* only new files: nothing to tell commits apart by */
	strvec_pushl(&args, "rev-list", "--first-parent", NULL);
	strvec_pushf(&args, "--max-count=%d", SEARCH_COMMITS);
	strvec_pushl(&args, head, "--", NULL);
	strvec_pushv(&args, paths.v);
	if (tree_git_capturev(t, &commits, &args, 0)) {
		rc = -1;
		goto out;
	}
	/* Before each commit that changed them, the files were as after the next one. */
	for (char *p = commits.buf; *p && found->nr < SEARCH_TRIES && !boot_interrupted;) {
		char *nl = strchrnul(p, '\n'), *spec;
		int more = *nl != '\0';

		*nl = '\0';
		spec = xstrfmt("%s^", p);
		if (blobs_match(t, spec, &paths, &ids) &&
		    !tree_git_capture(t, &parent, "rev-parse", "--verify", "--quiet", spec, NULL))
			strvec_push(found, parent.buf);
		free(spec);
		p = more ? nl + 1 : nl;
	}
out:
	strvec_clear(&paths);
	strvec_clear(&ids);
	strvec_clear(&args);
	strbuf_release(&commits);
	strbuf_release(&parent);
	return rc;
}

static void
add_tried(struct base_choice *b)
{
	strvec_pushf(&b->tried, "%.12s (%s)", b->oid.buf, b->how);
}

int
base_apply(const struct boot_tree *t, const struct series *s, const struct strvec *mails,
	   const char *scratch, struct base_choice *b, struct strbuf *why)
{
	struct strvec candidates = STRVEC_INIT;
	struct strbuf other = STRBUF_INIT, first = STRBUF_INIT;
	int rc;

	add_tried(b);
	if (tree_reset(t, b->oid.buf))
		return -1;
	b->applied = 1;
	rc = tree_apply(t, mails, why);
	if (rc <= 0 || !b->may_search || boot_interrupted)
		return boot_interrupted ? -1 : rc;
	strbuf_addbuf(&first, &b->oid);
	if (search_bases(t, s, scratch, b->oid.buf, &candidates)) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < candidates.nr && rc > 0; i++) {
		strbuf_reset(&other);
		strbuf_reset(&b->oid);
		strbuf_addstr(&b->oid, candidates.v[i]);
		b->how = "the newest commit with the files as the series expects them";
		add_tried(b);
		if (tree_reset(t, b->oid.buf)) {
			rc = -1;
			break;
		}
		rc = tree_apply(t, mails, &other);
		if (boot_interrupted)
			rc = -1;
	}
	if (!rc)
		note("the series does not apply to HEAD of '%s'; it does to %.12s, the newest commit "
		     "with its files as it expects them", t->user_tree, b->oid.buf);
	else if (rc > 0 && candidates.nr) {
		/* Name the first base tried, with git's words about it. */
		strbuf_reset(&b->oid);
		strbuf_addbuf(&b->oid, &first);
		b->how = "HEAD";
	}
out:
	strvec_clear(&candidates);
	strbuf_release(&other);
	strbuf_release(&first);
	return rc;
}

void
base_choice_release(struct base_choice *b)
{
	strbuf_release(&b->oid);
	strvec_clear(&b->tried);
	free(b->missing_line);
	b->missing_line = NULL;
}
