// SPDX-License-Identifier: GPL-2.0-only
/* repo: find the repository, resolve revisions and read blobs through git. */
#include "lib/repo.h"
#include "lib/usage.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
repo_git(const struct repo *r, struct child_process *cp)
{
	strvec_push(&cp->args, "git");
	if (!r)
		return;
	strvec_pushf(&cp->env, "GIT_DIR=%s", r->git_dir);
	if (r->worktree)
		strvec_pushf(&cp->env, "GIT_WORK_TREE=%s", r->worktree);
	else
		strvec_push(&cp->env, "GIT_WORK_TREE");
}

static int
vcapture(const struct repo *r, const char *dir, struct strbuf *out, va_list ap)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *a;
	int rc;

	repo_git(r, &cp);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&cp.args, a);
	cp.dir = dir;
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	rc = capture_command(&cp, out);
	strbuf_strip_eol(out);
	return rc;
}

int
repo_capture(const struct repo *r, struct strbuf *out, ...)
{
	va_list ap;
	int rc;

	va_start(ap, out);
	rc = vcapture(r, NULL, out, ap);
	va_end(ap);
	return rc;
}

static int
capture_in(const char *dir, struct strbuf *out, ...)
{
	va_list ap;
	int rc;

	va_start(ap, out);
	rc = vcapture(NULL, dir, out, ap);
	va_end(ap);
	return rc;
}

/*
 * "git rev-parse --absolute-git-dir --is-bare-repository --show-toplevel":
 * in a bare repository (or inside .git) the last one fails after the
 * first two were printed, which is all we need there.
 */
static struct repo *
discover_in(const char *dir)
{
	struct strbuf out = STRBUF_INIT;
	struct repo *r = NULL;
	char *nl, *bare, *top = NULL;

	capture_in(dir, &out, "rev-parse", "--absolute-git-dir", "--is-bare-repository",
		   "--show-toplevel", NULL);
	nl = strchr(out.buf, '\n');
	if (!out.len || !nl || out.buf[0] != '/')
		goto out;
	*nl = '\0';
	bare = nl + 1;
	if ((nl = strchr(bare, '\n'))) {
		*nl = '\0';
		top = nl + 1;
	}
	r = xcalloc(1, sizeof(*r));
	r->git_dir = xstrdup(out.buf);
	if (strcmp(bare, "true") && top && *top == '/')
		r->worktree = xstrdup(top);
out:
	strbuf_release(&out);
	return r;
}

struct repo *
repo_discover(void)
{
	return discover_in(NULL);
}

struct repo *
repo_open(const char *dir)
{
	struct repo *r = discover_in(dir);

	if (!r)
		error("'%s' is not a git repository", dir);
	return r;
}

int
repo_is_repository(const char *dir)
{
	struct repo *r = discover_in(dir);

	repo_free(r);
	return r != NULL;
}

void
repo_free(struct repo *r)
{
	if (!r)
		return;
	free(r->git_dir);
	free(r->worktree);
	free(r);
}

int
repo_resolves(const struct repo *r, const char *rev, struct strbuf *oid)
{
	struct strbuf out = STRBUF_INIT;
	int rc;

	if (!r)
		return 0;
	rc = repo_capture(r, &out, "rev-parse", "--verify", "--quiet", rev, NULL);
	if (!rc && oid) {
		strbuf_reset(oid);
		strbuf_addbuf(oid, &out);
	}
	strbuf_release(&out);
	return rc == 0;
}

int
repo_read_blob(const struct repo *r, const char *treeish, const char *path, struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf in = STRBUF_INIT, res = STRBUF_INIT;
	const char *nl, *sp;
	unsigned long size;
	size_t first;
	int rc, ret = -1;

	if (strchr(path, '\n'))
		return 0;	/* git cat-file --batch reads one name a line */
	repo_git(r, &cp);
	strvec_pushl(&cp.args, "cat-file", "--batch", NULL);
	strbuf_addf(&in, "%s:%s\n", treeish, path);
	rc = pipe_command(&cp, in.buf, in.len, &res, NULL);
	if (rc) {
		char why[64];

		error("git cat-file %s", describe_outcome(rc, why, sizeof(why)));
		goto out;
	}
	/* "<spec> missing" (or "ambiguous"), or "<oid> <type> <size>\n<content>\n" */
	nl = memchr(res.buf, '\n', res.len);
	if (!nl) {
		error("git cat-file --batch: unexpected output");
		goto out;
	}
	first = (size_t)(nl - res.buf);
	sp = memchr(res.buf, ' ', first);
	if ((first >= 8 && !memcmp(nl - 8, " missing", 8)) || (first >= 10 && !memcmp(nl - 10, " ambiguous", 10)) ||
	    !sp || (size_t)(nl - sp) < 7 || strncmp(sp, " blob ", 6)) {
		ret = 0;
		goto out;
	}
	size = strtoul(sp + 6, NULL, 10);
	if ((size_t)(res.buf + res.len - (nl + 1)) < size + 1) {
		error("git cat-file --batch: short output");
		goto out;
	}
	strbuf_reset(out);
	strbuf_add(out, nl + 1, size);
	ret = 1;
out:
	strbuf_release(&in);
	strbuf_release(&res);
	return ret;
}

int
repo_names_revisions(const struct repo *r, const char *arg)
{
	const char *dots;
	int yes;

	if (!r)
		return 0;
	if (*arg == '^')
		arg++;
	dots = strstr(arg, "..");
	if (dots) {
		char *left = xstrndup(arg, (size_t)(dots - arg));
		const char *right = dots + (dots[2] == '.' ? 3 : 2);

		yes = (!*left || repo_resolves(r, left, NULL)) && (!*right || repo_resolves(r, right, NULL));
		free(left);
	} else {
		yes = repo_resolves(r, arg, NULL);
	}
	return yes;
}
