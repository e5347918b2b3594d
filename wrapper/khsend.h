/* SPDX-License-Identifier: GPL-2.0-only */
/* khsend: what the commands share. */
#ifndef KHSEND_H
#define KHSEND_H

#include "lib/repo.h"
#include "lib/strbuf.h"
#include "lib/strvec.h"
#include "policy/policy.h"

#define KHSEND_VERSION "1.1"

/* Set up once per command: the repository around us, the policy, a scratch directory. */
struct khsend_ctx {
	struct repo *repo;	/* NULL outside a repository */
	struct policy policy;
	int policy_loaded;
	char *tmpdir;		/* removed at exit */
};

/* Find the repository around us. */
void ctx_init(struct khsend_ctx *ctx);
/*
 * Load the policy (or exactly `files`, if any); the repository's layer
 * is read from `base` (NULL: HEAD).  Exit 2 on a bad policy.
 */
void ctx_load_policy(struct khsend_ctx *ctx, const struct strvec *files, const char *base);
/* Read it again from another base (the policy as of the commit a series names). */
void ctx_reload_policy(struct khsend_ctx *ctx, const struct strvec *files, const char *base);
/* A private scratch directory, created on first use. */
const char *ctx_tmpdir(struct khsend_ctx *ctx);
void ctx_release(struct khsend_ctx *ctx);

/* --boot / --no-boot (1/0; -1 not given) over khsend.boot over the default, on. */
int ctx_want_boot(const struct khsend_ctx *ctx, int flag);

/*
 * "did you mean 'x' or 'y'?" for an id that names no entry (among the
 * entries that allow overriding, if `overridable`), appended to `sb`.
 */
void ctx_add_id_hint(const struct khsend_ctx *ctx, const char *id, int overridable, struct strbuf *sb);

/* Check that every --allow ID names an entry that permits overriding; exit 2 otherwise. */
void ctx_check_allow(const struct khsend_ctx *ctx, const struct strvec *allow);

int cmd_boot(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_send(int argc, const char **argv);
int cmd_b4(int argc, const char **argv);
int cmd_install_hooks(int argc, const char **argv);
int cmd_uninstall_hooks(int argc, const char **argv);
int cmd_hook(int argc, const char **argv);
int cmd_policy(int argc, const char **argv);
int cmd_policy_export(int argc, const char **argv);
int cmd_reply(int argc, const char **argv);
int cmd_explain(int argc, const char **argv);
int cmd_scan(int argc, const char **argv);
int cmd_setup(int argc, const char **argv);
int cmd_cache(int argc, const char **argv);

/* The hidden entry points git send-email and b4 call back into; -1 if `name` is not theirs. */
int send_hook(const char *name, int argc, const char **argv);
int b4_hook(const char *name, int argc, const char **argv);

/* The absolute path of the running khsend (for hooks and shims that call it back). */
const char *khsend_self_path(void);

#endif
