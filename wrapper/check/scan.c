// SPDX-License-Identifier: GPL-2.0-only
/*
 * scan: where does each entry occur in a source tree?  Files are read in
 * name order, so what is printed is stable; only the files an entry's
 * paths cover are read.
 */
#define _GNU_SOURCE
#include "check/scan.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SCAN_BYTES (64u << 20)

struct scan {
	const struct policy *policy;
	size_t *covering;	/* scratch: entries covering the current file */
	scan_fn fn;
	void *data;
	size_t files;
};

static void
scan_file(struct scan *s, const char *rel, const char *abs)
{
	struct strbuf buf = STRBUF_INIT;
	size_t ncover = 0;
	int lineno = 0;

	for (size_t i = 0; i < s->policy->nr; i++)
		if (policy_entry_covers(s->policy->v[i], rel))
			s->covering[ncover++] = i;
	if (!ncover)
		return;
	if (strbuf_read_file(&buf, abs, MAX_SCAN_BYTES) < 0) {
		warning("cannot read '%s': %s", abs, strerror(errno));
		strbuf_release(&buf);
		return;
	}
	s->files++;
	/* Like git grep: a NUL in the first 8000 bytes means a binary file. */
	if (memchr(buf.buf, '\0', buf.len < 8000 ? buf.len : 8000)) {
		strbuf_release(&buf);
		return;
	}
	for (char *line = buf.buf, *nl; line < buf.buf + buf.len; line = nl + 1) {
		nl = strchrnul(line, '\n');
		*nl = '\0';
		lineno++;
		for (size_t k = 0; k < ncover; k++) {
			size_t n = policy_entry_count(s->policy->v[s->covering[k]], line);

			if (n)
				s->fn(s->data, s->covering[k], rel, lineno, line, n);
		}
		if (!*nl && nl == buf.buf + buf.len)
			break;
	}
	strbuf_release(&buf);
}

/* Walk the tree in name order (so output is stable), skipping .git. */
static void
walk(struct scan *s, struct strbuf *rel, struct strbuf *abs)
{
	struct strvec names = STRVEC_INIT;
	size_t rlen = rel->len, alen = abs->len;

	if (read_dir_sorted(abs->buf, &names)) {
		warning("cannot read directory '%s': %s", abs->buf, strerror(errno));
		return;
	}
	for (size_t i = 0; i < names.nr; i++) {
		struct stat st;

		if (!strcmp(names.v[i], ".git"))
			continue;

		strbuf_setlen(rel, rlen);
		strbuf_setlen(abs, alen);
		if (rlen)
			strbuf_addch(rel, '/');
		strbuf_addstr(rel, names.v[i]);
		strbuf_addf(abs, "/%s", names.v[i]);
		if (lstat(abs->buf, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(s, rel, abs);
		else if (S_ISREG(st.st_mode))
			scan_file(s, rel->buf, abs->buf);
	}
	strbuf_setlen(rel, rlen);
	strbuf_setlen(abs, alen);
	strvec_clear(&names);
}

size_t
scan_tree(const struct policy *policy, const char *tree, scan_fn fn, void *data)
{
	struct strbuf rel = STRBUF_INIT, abs = STRBUF_INIT;
	struct scan s = { policy, NULL, fn, data, 0 };

	s.covering = xcalloc(policy->nr + 1, sizeof(*s.covering));
	strbuf_addstr(&abs, tree);
	while (abs.len > 1 && abs.buf[abs.len - 1] == '/')
		strbuf_setlen(&abs, abs.len - 1);
	walk(&s, &rel, &abs);
	free(s.covering);
	strbuf_release(&rel);
	strbuf_release(&abs);
	return s.files;
}

const char *
scan_tree_arg(const struct repo *repo, const char *arg)
{
	const char *tree = arg ? arg : repo && repo->worktree ? repo->worktree : ".";

	if (!is_dir(tree)) {
		error("'%s' is not a directory", tree);
		return NULL;
	}
	return tree;
}
