// SPDX-License-Identifier: GPL-2.0-only
/* glob: split pattern and path into components and match them one by one. */
#include "policy/glob.h"
#include "lib/strbuf.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 256

/*
 * Split `s` in place at slashes; empty components vanish.  Returns the
 * number of components, or -1 if there are too many to match sensibly.
 */
static int
split(char *s, char **v)
{
	char *save = NULL;
	int n = 0;

	for (char *tok = strtok_r(s, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (n == MAX_PARTS)
			return -1;
		v[n++] = tok;
	}
	return n;
}

static int
match_from(char **pat, int np, char **path, int nq)
{
	if (!np)
		return 1;	/* matched a leading directory (or the file itself) */
	if (!strcmp(pat[0], "**")) {
		if (np == 1)
			return nq > 0;
		for (int k = 0; k <= nq; k++)
			if (match_from(pat + 1, np - 1, path + k, nq - k))
				return 1;
		return 0;
	}
	if (!nq || fnmatch(pat[0], path[0], 0))
		return 0;
	return match_from(pat + 1, np - 1, path + 1, nq - 1);
}

/* Anchored unless the only slashes are trailing ones ("scsi/" is any scsi directory). */
static int
is_anchored(const char *pattern)
{
	size_t n = strlen(pattern);

	while (n && pattern[n - 1] == '/')
		n--;
	return memchr(pattern, '/', n) != NULL;
}

/* The common case, a plain file or directory name: no copies, no fnmatch. */
static int
match_literal(const char *pattern, const char *path, int anchored)
{
	size_t n;

	while (*pattern == '/')
		pattern++;
	n = strlen(pattern);
	while (n && pattern[n - 1] == '/')
		n--;
	if (!n)
		return 0;
	if (anchored)
		return !strncmp(path, pattern, n) && (path[n] == '/' || !path[n]);
	for (const char *c = path; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
		if (!strncmp(c, pattern, n) && (c[n] == '/' || !c[n]))
			return 1;
	return 0;
}

void
path_glob_compile(struct path_glob *g, const char *pattern)
{
	g->pattern = pattern;
	g->literal = !pattern[strcspn(pattern, "*?[\\")];
	g->anchored = (unsigned)is_anchored(pattern);
}

int
path_glob_match(const char *pattern, const char *path)
{
	struct path_glob g;

	path_glob_compile(&g, pattern);
	return path_glob_matches(&g, path);
}

int
path_glob_matches(const struct path_glob *g, const char *path)
{
	char *pat_parts[MAX_PARTS], *path_parts[MAX_PARTS];
	int anchored = g->anchored, np, nq, ret = 0;
	char *pat, *p;

	if (g->literal)
		return match_literal(g->pattern, path, anchored);
	pat = xstrdup(g->pattern);
	p = xstrdup(path);
	np = split(pat, pat_parts);
	nq = split(p, path_parts);
	if (np > 0 && nq > 0 && anchored) {
		ret = match_from(pat_parts, np, path_parts, nq);
	} else if (np == 1 && nq > 0) {
		for (int i = 0; i < nq && !ret; i++)
			ret = !fnmatch(pat_parts[0], path_parts[i], 0);
	}
	free(pat);
	free(p);
	return ret;
}

const char *
path_glob_problem(const char *pattern)
{
	char *parts[MAX_PARTS];
	char *pat = xstrdup(pattern);
	const char *problem = NULL;
	int n = split(pat, parts);

	if (n < 0)
		problem = "too many path components";
	else if (!n)
		problem = "empty path pattern";
	for (int i = 0; i < n && !problem; i++)
		if (!strcmp(parts[i], "..") || !strcmp(parts[i], "."))
			problem = "path patterns are relative to the tree top and cannot contain '.' or '..'";
	free(pat);
	return problem;
}
