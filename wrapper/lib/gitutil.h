/* gitutil: the libgit2 calls khsend makes everywhere, with one error style. */
#ifndef KHSEND_GITUTIL_H
#define KHSEND_GITUTIL_H

#include "lib/strvec.h"

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

/*
 * Configuration for a child git, the way "git -c" passes it: appended to
 * GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n after the user's own
 * entries, and to GIT_CONFIG_PARAMETERS when that is set (git reads it
 * after the others, so ours stay last and win).  The user's configuration
 * files are never touched.
 */
struct config_env {
	struct strvec *env;	/* the child's modifications ("VAR=value", "VAR") */
	struct strvec *undo;	/* what restores the user's own values, for a grandchild */
	size_t base, nr;
	char *params;		/* GIT_CONFIG_PARAMETERS as we found it, or NULL */
	struct strvec added;	/* "'key'='value'" */
};

/* Dies (exit 2) if GIT_CONFIG_COUNT is set but not a number, as git would. */
void config_env_init(struct config_env *c, struct strvec *env, struct strvec *undo);
void config_env_add(struct config_env *c, const char *key, const char *value);
/* Push GIT_CONFIG_COUNT (and GIT_CONFIG_PARAMETERS) into c->env; releases c. */
void config_env_finish(struct config_env *c);

#endif
