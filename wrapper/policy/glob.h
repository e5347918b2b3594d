/* SPDX-License-Identifier: GPL-2.0-only */
/* glob: git-style path patterns over fnmatch(3). */
#ifndef KHSEND_GLOB_H
#define KHSEND_GLOB_H

/*
 * Match a path relative to the tree top against a pattern:
 *   - a pattern without a slash (but for trailing ones) matches any path
 *     component, so "Kconfig" covers every Kconfig and "scsi/" every file
 *     below a scsi directory;
 *   - otherwise it is anchored at the top ("/Kconfig" is only the top
 *     one, "kernel/..." the same as "/kernel/..."), each component is an
 *     fnmatch(3) pattern, "**" matches any number of directories, and a
 *     pattern that names a directory covers everything below it.
 */
int path_glob_match(const char *pattern, const char *path);

/* A pattern looked at once, for matching many paths. */
struct path_glob {
	const char *pattern;	/* borrowed */
	unsigned literal:1;	/* no wildcards: a plain name or prefix */
	unsigned anchored:1;
};
void path_glob_compile(struct path_glob *g, const char *pattern);
int path_glob_matches(const struct path_glob *g, const char *path);
/* Reject patterns we cannot honour (empty, ".." components); NULL if fine. */
const char *path_glob_problem(const char *pattern);

#endif
