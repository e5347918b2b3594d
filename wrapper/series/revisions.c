/* revisions: a revwalk over format-patch's ranges, each commit diffed against its parent. */
#include "series/revisions.h"
#include "lib/gitutil.h"
#include "lib/run-command.h"
#include "lib/usage.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/*
 * Ask git itself, exactly as git send-email's is_format_patch_arg() does
 * ("git rev-parse --verify --quiet"), so the answer cannot differ from it.
 */
int
revision_resolves(git_repository *repo, const char *arg)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *workdir = git_repository_workdir(repo);

	strvec_pushl(&cp.args, "git", "rev-parse", "--verify", "--quiet", arg, NULL);
	strvec_pushf(&cp.env, "GIT_DIR=%s", git_repository_path(repo));
	if (workdir)
		strvec_pushf(&cp.env, "GIT_WORK_TREE=%s", workdir);
	cp.no_stdout = cp.no_stderr = 1;
	return run_command(&cp) == 0;
}

/* Resolve one side of a range to a commit: an empty side is HEAD, as in git. */
static int
resolve_commit(git_repository *repo, const char *spec, size_t len, git_oid *out)
{
	char *name = len ? xstrndup(spec, len) : xstrdup("HEAD");
	git_object *obj = NULL, *commit = NULL;
	int rc = git_revparse_single(&obj, repo, name);

	if (!rc)
		rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	if (!rc)
		git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	free(name);
	return rc;
}

static int
not_a_revision(git_repository *repo, const char *arg)
{
	const git_error *e = git_error_last();

	if (!repo)
		return error("'%s': no such file or directory "
			     "(and this is not a git repository, so it is not a revision either)", arg);
	return error("'%s': no such file, and not a revision in this repository (%s)", arg,
		     e && e->message ? e->message : "unknown revision");
}

static int
parse_count(const char *arg, size_t *out)
{
	char *end;
	unsigned long n;

	if (arg[0] != '-' || !isdigit((unsigned char)arg[1]))
		return 0;
	n = strtoul(arg + 1, &end, 10);
	if (*end)
		return 0;
	*out = n;
	return 1;
}

/* Diff a commit against its first parent (or nothing, for a root commit). */
static int
commit_diff(git_repository *repo, git_commit *commit, git_diff **out)
{
	git_tree *a = NULL, *b = NULL;
	git_commit *parent = NULL;
	git_diff_options opts;
	git_diff_find_options find;
	int rc;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
	if ((rc = git_commit_tree(&b, commit)) < 0)
		goto fail;
	if (git_commit_parentcount(commit) &&
	    ((rc = git_commit_parent(&parent, commit, 0)) < 0 || (rc = git_commit_tree(&a, parent)) < 0))
		goto fail;
	if ((rc = git_diff_tree_to_tree(out, repo, a, b, &opts)) < 0)
		goto fail;
	find.flags = GIT_DIFF_FIND_RENAMES;
	if ((rc = git_diff_find_similar(*out, &find)) < 0) {
		git_diff_free(*out);
		goto fail;
	}
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return 0;
fail:
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return lg2_error(rc, "cannot diff commit", git_oid_tostr_s(git_commit_id(commit)));
}

static int
emit_commit(git_repository *repo, const git_oid *oid, size_t *index, message_fn fn, void *data)
{
	struct message msg = MESSAGE_INIT;
	git_commit *commit = NULL;
	const git_signature *author;
	char hex[GIT_OID_HEXSZ + 1];
	int rc;

	if ((rc = git_commit_lookup(&commit, repo, oid)) < 0)
		return lg2_error(rc, "cannot read commit", git_oid_tostr_s(oid));
	git_oid_tostr(hex, sizeof(hex), oid);
	msg.commit = xstrdup(hex);
	msg.name = xstrndup(hex, 12);
	msg.subject = xstrdup(git_commit_summary(commit) ? git_commit_summary(commit) : "");
	author = git_commit_author(commit);
	msg.author = xstrfmt("%s <%s>", author->name, author->email);
	strbuf_addstr(&msg.log, git_commit_message(commit));
	rc = commit_diff(repo, commit, &msg.diff);
	git_commit_free(commit);
	if (rc) {
		message_release(&msg);
		return -1;
	}
	msg.diff_parsed = 1;
	msg.index = ++*index;
	rc = fn(&msg, data);
	message_release(&msg);
	return rc < 0 ? rc : 0;
}

int
revisions_read(git_repository *repo, const struct strvec *revs, size_t *index,
	       message_fn fn, void *data)
{
	git_revwalk *walk = NULL;
	git_oid *oids = NULL, oid;
	size_t nr = 0, alloc = 0, max = (size_t)-1;
	size_t positives = 0, negatives = 0;
	const char *single = NULL;
	int root = 0, rc, ret = -1;

	if (!repo) {
		for (size_t i = 0; i < revs->nr; i++)
			if (strcmp(revs->v[i], "--"))
				return not_a_revision(NULL, revs->v[i]);
		return error("no revisions after '--'");
	}
	if ((rc = git_revwalk_new(&walk, repo)) < 0)
		return lg2_error(rc, "cannot walk the history", NULL);
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);

	for (size_t i = 0; i < revs->nr; i++) {
		const char *arg = revs->v[i], *dots;

		if (!strcmp(arg, "--"))
			continue;
		if (parse_count(arg, &max))
			continue;
		if (!strcmp(arg, "--root")) {
			root = 1;
			continue;
		}
		if (arg[0] == '-') {
			error("'%s': khsend check reads revisions like 'origin/master..HEAD', '-3' or "
			      "'--root REV'; other git format-patch options belong to khsend's send command", arg);
			goto out;
		}
		if (strstr(arg, "...")) {
			error("'%s': symmetric ranges are not supported; give 'A..B'", arg);
			goto out;
		}
		if ((dots = strstr(arg, ".."))) {
			git_oid from, to;

			/* Both sides by hand: git_revparse() leaks when the right one is unknown. */
			if (resolve_commit(repo, arg, (size_t)(dots - arg), &from) ||
			    resolve_commit(repo, dots + 2, strlen(dots + 2), &to)) {
				not_a_revision(repo, arg);
				goto out;
			}
			if ((rc = git_revwalk_hide(walk, &from)) < 0 || (rc = git_revwalk_push(walk, &to)) < 0) {
				lg2_error(rc, "cannot walk", arg);
				goto out;
			}
			positives++;
			negatives++;
			continue;
		}
		{
			const char *name = arg[0] == '^' ? arg + 1 : arg;
			git_oid oid_one;

			if (resolve_commit(repo, name, strlen(name), &oid_one)) {
				not_a_revision(repo, arg);
				goto out;
			}
			rc = arg[0] == '^' ? git_revwalk_hide(walk, &oid_one) : git_revwalk_push(walk, &oid_one);
		}
		if (rc < 0) {
			lg2_error(rc, "cannot walk from", arg);
			goto out;
		}
		if (arg[0] == '^') {
			negatives++;
		} else {
			positives++;
			single = arg;
		}
	}
	/* format-patch: a lone REV means REV..HEAD; -N or nothing starts at HEAD. */
	if (positives == 1 && !negatives && max == (size_t)-1 && !root) {
		git_oid since;

		git_revwalk_reset(walk);
		git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
		if (resolve_commit(repo, single, strlen(single), &since) ||
		    (rc = git_revwalk_hide(walk, &since)) < 0 || (rc = git_revwalk_push_head(walk)) < 0) {
			not_a_revision(repo, single);
			goto out;
		}
	} else if (!positives && (rc = git_revwalk_push_head(walk)) < 0) {
		lg2_error(rc, "cannot find HEAD", NULL);
		goto out;
	}

	while (nr < max && !(rc = git_revwalk_next(&oid, walk))) {
		git_commit *c = NULL;
		int merge;

		if ((rc = git_commit_lookup(&c, repo, &oid)) < 0) {
			lg2_error(rc, "cannot read commit", git_oid_tostr_s(&oid));
			goto out;
		}
		merge = git_commit_parentcount(c) > 1;
		git_commit_free(c);
		if (merge)
			continue;
		ALLOC_GROW(oids, nr + 1, alloc);
		oids[nr++] = oid;
	}
	if (rc < 0 && rc != GIT_ITEROVER) {
		lg2_error(rc, "cannot walk the history", NULL);
		goto out;
	}
	git_error_clear();
	/* Oldest first, as the patches would be numbered. */
	ret = 0;
	for (size_t i = nr; i-- > 0 && !ret;)
		ret = emit_commit(repo, &oids[i], index, fn, data);
out:
	free(oids);
	git_revwalk_free(walk);
	return ret;
}
