/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config: git's configuration as git itself reads it, and configuration
 * handed to a child git.
 *
 * The one reader: "git config --list -z", run once from the current
 * directory the first time a value is asked for.  So every layer git
 * knows counts (system, global, repository, worktree, includes and
 * includeIf, "git -c", GIT_CONFIG_COUNT), exactly as git send-email, b4
 * and git am will see it.
 */
#ifndef KHSEND_CONFIG_H
#define KHSEND_CONFIG_H

#include "lib/strvec.h"

/*
 * Start reading the configuration now, beside whatever else start-up
 * does (a child git of its own); the first config_get*() takes its answer.
 */
void config_prefetch(void);
/* The last value of `key` ("section.name" or "section.sub.name"), or NULL if unset. */
const char *config_get(const char *key);
/* Every value of `key`, in git's order, appended to `out`; returns how many. */
size_t config_get_all(const char *key, struct strvec *out);
/*
 * A boolean as git parses it (true/yes/on/1 ... false/no/off/0/"";
 * a key without "=" is true): 1 and *out set if set, 0 if unset, and
 * exit 2 naming the key if the value is not a boolean.
 */
int config_get_bool(const char *key, int *out);
/* Forget what was read (a test, or after khsend changed the configuration). */
void config_clear(void);

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
