/* gitutil: the libgit2 calls khsend makes everywhere, with one error style. */
#ifndef KHSEND_GITUTIL_H
#define KHSEND_GITUTIL_H

#include "strvec.h"

#include <git2.h>

/*
 * Print "what 'extra': <libgit2's message>" (after libgit2's examples'
 * check_lg2) and return -1.  Call it only after a libgit2 call failed.
 */
int lg2_error(int code, const char *what, const char *extra);

/* The repository around the current directory (honouring GIT_DIR), or NULL. */
git_repository *repo_discover(void);

/* Configuration of the repository, or the user's and system's without one. */
void repo_config_get_all(git_repository *repo, const char *key, struct strvec *out);
/* 1 and *out malloc()ed if set, 0 if not. */
int repo_config_get_string(git_repository *repo, const char *key, char **out);
/* 1 and *out set if set and a valid boolean, 0 if not set, -1 (reported) if invalid. */
int repo_config_get_bool(git_repository *repo, const char *key, int *out);

#endif
