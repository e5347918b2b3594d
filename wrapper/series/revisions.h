/* revisions: commits named the way git format-patch names them, read with libgit2. */
#ifndef KHSEND_REVISIONS_H
#define KHSEND_REVISIONS_H

#include "series/series.h"

/* Would "git rev-parse --verify" accept this name? */
int revision_resolves(git_repository *repo, const char *arg);

/*
 * Read the commits that `git format-patch <revs>` would turn into patches:
 * "A..B", "^A B", "-N", "--root REV", or a single REV meaning REV..HEAD.
 * Merges are skipped, as format-patch does.  `index` numbers the messages.
 */
int revisions_read(git_repository *repo, const struct strvec *revs, size_t *index,
		   message_fn fn, void *data);

#endif
