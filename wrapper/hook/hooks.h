/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks: the git hooks khsend ships (hooks/), and "khsend hook <name>",
 * what they and khsend's shims run.
 */
#ifndef KHSEND_HOOKS_H
#define KHSEND_HOOKS_H

#include <stddef.h>

/* A hook as shipped (the text of hooks/<name>, built into khsend) and installed. */
struct shipped_hook {
	const char *name;
	const char *text;
};

extern const struct shipped_hook shipped_hooks[];
extern const size_t nr_shipped_hooks;

/* The shipped hook of this name, or NULL. */
const struct shipped_hook *shipped_hook_find(const char *name);

#endif
