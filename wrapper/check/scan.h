/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scan: every line of a source tree where a policy entry occurs, in name
 * order (khsend scan's walk, in cmd-scan.c, for khsend policy export).
 */
#ifndef KHSEND_SCAN_H
#define KHSEND_SCAN_H

#include "policy/policy.h"

#include <stddef.h>

struct repo;

/*
 * Called for each occurrence: the entry's index in the policy, the file's
 * path from the top of the tree, the line number and the line itself
 * (NUL-terminated, without its newline; a CR before it is kept).
 */
typedef void (*scan_fn)(void *data, size_t entry, const char *path, int lineno, const char *line);

/*
 * Walk `tree` (skipping .git, binary files, symlinks) and call fn for each
 * line an entry covering the file occurs in.  Returns how many files were
 * read; unreadable ones are warned about.
 */
size_t scan_tree(const struct policy *policy, const char *tree, scan_fn fn, void *data);

/* The tree named, else the work tree of the repository here, else "."; NULL (reported) if not a directory. */
const char *scan_tree_arg(const struct repo *repo, const char *arg);

#endif
