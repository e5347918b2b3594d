/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lg2: libgit2, started only when a patch's lines are read.  Its start-up
 * (the TLS library loading its CA bundle) costs more than a git child
 * process, so nothing else in khsend uses it.
 */
#ifndef KHSEND_LG2_H
#define KHSEND_LG2_H

#include <git2.h>

/* git_libgit2_init() the first time; git_libgit2_shutdown() at lg2_shutdown(). */
void lg2_init(void);
void lg2_shutdown(void);

/*
 * Print "what 'extra': <libgit2's message>" (after libgit2's examples'
 * check_lg2) and return -1.  Call it only after a libgit2 call failed.
 */
int lg2_error(int code, const char *what, const char *extra);

#endif
