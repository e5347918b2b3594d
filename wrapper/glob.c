/* glob: split pattern and path into components and match them one by one. */
#include "glob.h"
#include "strbuf.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

struct parts {
	char *copy;
	char **v;
	size_t nr, alloc;
};

static void
split(struct parts *p, const char *s)
{
	char *c;

	p->copy = xstrdup(s);
	p->v = NULL;
	p->nr = p->alloc = 0;
	c = p->copy;
	while (*c) {
		char *slash = strchr(c, '/');

		if (slash)
			*slash = '\0';
		if (*c) {
			ALLOC_GROW(p->v, p->nr + 1, p->alloc);
			p->v[p->nr++] = c;
		}
		if (!slash)
			break;
		c = slash + 1;
	}
}

static void
parts_release(struct parts *p)
{
	free(p->copy);
	free(p->v);
}

static int
match_from(char **pat, size_t np, char **path, size_t nq)
{
	if (!np)
		return 1;	/* matched a leading directory (or the file itself) */
	if (!strcmp(pat[0], "**")) {
		if (np == 1)
			return nq > 0;
		for (size_t k = 0; k <= nq; k++)
			if (match_from(pat + 1, np - 1, path + k, nq - k))
				return 1;
		return 0;
	}
	if (!nq || fnmatch(pat[0], path[0], 0))
		return 0;
	return match_from(pat + 1, np - 1, path + 1, nq - 1);
}

int
path_glob_match(const char *pattern, const char *path)
{
	struct parts pat, p;
	int ret = 0;

	split(&pat, pattern);
	split(&p, path);
	if (!pat.nr || !p.nr) {
		ret = 0;
	} else if (!strchr(pattern, '/') ||
		   (strchr(pattern, '/') == pattern + strlen(pattern) - 1 && pat.nr == 1)) {
		/* No slash (or only a trailing one): any component may match. */
		for (size_t i = 0; i < p.nr && !ret; i++)
			ret = !fnmatch(pat.v[0], p.v[i], 0);
	} else {
		ret = match_from(pat.v, pat.nr, p.v, p.nr);
	}
	parts_release(&pat);
	parts_release(&p);
	return ret;
}

const char *
path_glob_problem(const char *pattern)
{
	struct parts pat;
	const char *problem = NULL;

	split(&pat, pattern);
	if (!pat.nr)
		problem = "empty path pattern";
	for (size_t i = 0; i < pat.nr && !problem; i++)
		if (!strcmp(pat.v[i], "..") || !strcmp(pat.v[i], "."))
			problem = "path patterns are relative to the tree top and cannot contain '.' or '..'";
	parts_release(&pat);
	return problem;
}
