/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * repo: the git repository around us, read by git itself.
 *
 * khsend decides about patches the way git will act on them, so it asks
 * git: "git rev-parse" finds the repository (GIT_DIR honoured) and
 * resolves revisions, "git cat-file" reads blobs.  Each call is a child
 * process with an argv vector and GIT_DIR/GIT_WORK_TREE set explicitly.
 */
#ifndef KHSEND_REPO_H
#define KHSEND_REPO_H

#include "lib/run-command.h"
#include "lib/strbuf.h"

struct repo {
	char *git_dir;		/* absolute */
	char *worktree;		/* absolute, or NULL (bare, or run from inside .git) */
};

/* The repository git finds from the current directory, or NULL outside one. */
struct repo *repo_discover(void);
/* The repository at `dir` (a work tree or a git directory); NULL and a message if none. */
struct repo *repo_open(const char *dir);
void repo_free(struct repo *r);

/* Start cp as "git" run against this repository (r may be NULL: no repository). */
void repo_git(const struct repo *r, struct child_process *cp);

/*
 * Run "git <args...>" (NULL-terminated) against the repository and collect
 * its stdout, its trailing newline taken off; stderr is dropped.  Returns
 * the outcome (0: success).
 */
__attribute__((sentinel))
int repo_capture(const struct repo *r, struct strbuf *out, ...);

/*
 * Does `rev` name an object here, exactly as git send-email asks it
 * ("git rev-parse --verify --quiet")?  The object id goes to `oid` if it
 * is not NULL.  The one revision test of khsend.
 */
int repo_resolves(const struct repo *r, const char *rev, struct strbuf *oid);

/* Does `arg` name revisions ("HEAD~2", "A..B", "A...B", "^A"), by repo_resolves() on each side? */
int repo_names_revisions(const struct repo *r, const char *arg);

/*
 * The blob at <treeish>:<path> into `out`: 1 if there is one, 0 if the
 * path is not in that tree (or is not a blob), -1 on an error (reported).
 */
int repo_read_blob(const struct repo *r, const char *treeish, const char *path, struct strbuf *out);

/* Is the series of `dir` a git repository at all (for --tree and friends)? */
int repo_is_repository(const char *dir);

#endif
