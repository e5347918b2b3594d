/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * series: the one reader of khsend's input.  Every command (check, send,
 * b4, boot, reply, each hook) turns its inputs into messages here and
 * nowhere else.
 *
 * Inputs are what git send-email 2.39 takes — patch files, directories,
 * an mbox of a whole series, revisions — plus "-" for standard input.
 * Each file is read once (a FIFO gives its bytes once); an mbox of
 * several mails is split by git mailsplit's rule; revisions always go
 * through "git format-patch -o", exactly as git send-email runs it, so
 * what is checked is what git would send (diff.noprefix, diff.mnemonicPrefix,
 * format.* and all).  A series is either read one message at a time
 * (series_read(): memory stays flat however long it is) or kept whole,
 * each message also written to a private file, exactly the bytes that
 * will be sent (series_build()).
 */
#ifndef KHSEND_SERIES_H
#define KHSEND_SERIES_H

#include "lib/repo.h"
#include "lib/strvec.h"
#include "series/message.h"

struct series_options {
	const struct repo *repo;	/* for revisions and the file-or-revision question; may be NULL */
	int format_patch;		/* git send-email's --[no-]format-patch: -1 unset, 0 files, 1 revisions */
	const char *scratch;		/* a private directory: git format-patch's output, git mailinfo's files */
	const char *keep_dir;		/* series_build(): where the messages are kept as files */
};

/* Called for each message; a negative return stops the reading and is returned. */
typedef int (*message_fn)(struct message *msg, void *data);

/*
 * Read every input in git send-email's order: files and directories
 * first, then revisions.  The message is released after fn returns (take
 * it with message_move()).  Returns 0, fn's negative value, or -1 after
 * an error naming the input.
 */
int series_read(const struct strvec *inputs, const struct series_options *opts,
		message_fn fn, void *data);

/* A whole series, kept. */
struct series {
	struct message **v;
	size_t nr, alloc;
};

#define SERIES_INIT { NULL, 0, 0 }

/* series_read() into `s`, every message written to a file in opts->keep_dir; 0 or -1. */
int series_build(struct series *s, const struct strvec *inputs, const struct series_options *opts);
/* Add a mail that is a private file already (b4's output, a held message); 0 or -1. */
int series_add_file(struct series *s, const char *file, const char *name);
void series_release(struct series *s);

/*
 * The commit the series applies to, if it says: the "base-commit:" line
 * of git format-patch --base, else the parent of the first commit git
 * format-patch made it from; resolved in `repo`.  NULL if neither is
 * known there (malloc()ed).
 */
char *series_base(const struct series *s, const struct repo *repo);
/* The same for one message (the first of a series read one at a time). */
char *message_base(const struct message *msg, const struct repo *repo);

/* Move a message into a new heap one; `from` is left empty. */
struct message *message_move(struct message *from);

#endif
