/* glob: git-style path patterns over fnmatch(3). */
#ifndef KHSEND_GLOB_H
#define KHSEND_GLOB_H

/*
 * Match a path relative to the tree top against a pattern:
 *   - a pattern without a slash matches any path component, so "Kconfig"
 *     covers every Kconfig and "scsi" every file below a scsi directory;
 *   - otherwise it is anchored at the top ("/kernel/..." is the same as
 *     "kernel/..."), each component is an fnmatch(3) pattern, "**" matches
 *     any number of directories, and a pattern that names a directory
 *     covers everything below it.
 */
int path_glob_match(const char *pattern, const char *path);
/* Reject patterns we cannot honour (empty, ".." components); NULL if fine. */
const char *path_glob_problem(const char *pattern);

#endif
