/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot: the series as a QEMU kernel boot smoke test (issue 4).
 *
 * The series is applied with git am in a private work tree under the
 * cache (never in the user's tree), built out of tree as tinyconfig plus
 * a shipped fragment, packed with a tiny static init and booted in
 * qemu-system-x86_64.  The send path calls boot_series() before sending.
 */
#ifndef KHSEND_BOOT_H
#define KHSEND_BOOT_H

#include "lib/strvec.h"
#include "series/series.h"

/* Which touched .c files get built again in the compile-test's allmodconfig tree. */
enum boot_compile {
	BOOT_COMPILE_UNSET,	/* khsend.compileTest, else BOOT_COMPILE_MISSING */
	BOOT_COMPILE_NONE,
	BOOT_COMPILE_MISSING,	/* those the booted kernel was not built from */
	BOOT_COMPILE_ALL,
};

struct boot_options {
	const char *tree;	/* a kernel checkout; NULL: the repository we are in if it is
				   a kernel tree, else the default tree */
	const char *tree_from;	/* where tree came from, for the report ("--tree", "khsend.tree") */
	const char *base;	/* a revision in that tree; NULL: the series' base, else HEAD */
	int timeout;		/* seconds QEMU may run; 0: the default */
	int memory_mb;		/* guest memory; 0: the default */
	int keep;		/* leave the private work tree at the series for a look */
	enum boot_compile compile;
};

#define BOOT_OPTIONS_INIT { NULL, NULL, NULL, 0, 0, 0, BOOT_COMPILE_UNSET }

#define BOOT_DEFAULT_TIMEOUT 120
#define BOOT_DEFAULT_MEMORY_MB 256

/*
 * Apply the series' mails (kept as files; ones without a diff are skipped) onto the base,
 * build, boot.  EXIT_CLEAN booted clean, EXIT_FINDING build/boot failed
 * (reported), EXIT_ERROR error (reported).
 *
 * The report goes to stdout, progress and errors to stderr.  The tree's
 * cache directory is locked for the whole run (a second khsend waits).
 * SIGINT/SIGTERM/SIGHUP during the run stop make and QEMU, reset the
 * private work tree, and then end the process with that signal.
 */
int boot_series(const struct boot_options *opts, const struct series *series);

/*
 * Fill the fields the caller left unset from khsend.tree, khsend.bootTimeout,
 * khsend.bootMemory and khsend.compileTest.
 */
void boot_options_from_config(struct boot_options *opts);

/* Prepare the default tree under the cache (khsend setup); EXIT_CLEAN or EXIT_ERROR. */
int boot_setup_default_tree(int force);

/* "missing", "all" or "none" (--compile-test, khsend.compileTest); -1 if it is none of those. */
int boot_compile_parse(const char *value);

#endif
