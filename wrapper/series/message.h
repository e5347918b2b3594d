/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * message: one mail of a series, read the way git reads it.
 *
 * The bytes are kept exactly as they leave (raw).  What git am will make
 * of them (the commit message and the patch) comes from git mailinfo;
 * only for a "plain" mail — no MIME to undo: no base64 or quoted-printable,
 * no multipart, no format=flowed, no encoded words — is it taken straight
 * from the bytes, which is what git mailinfo writes for such a mail (CR
 * before LF dropped, as git mailsplit does; tested against git).
 *
 * What the patch changes — which files, under which names, with which
 * modes, binary or not — is git apply's reading ("git apply --numstat"),
 * and the lines of each file are libgit2's, taken only when both agree
 * on every file and on how many lines it adds and removes
 * (series/patch.c).  What khsend cannot read the way git does, it
 * refuses: it never passes it as clean.
 */
#ifndef KHSEND_MESSAGE_H
#define KHSEND_MESSAGE_H

#include "lib/strbuf.h"
#include "series/mail.h"

#include <git2.h>

/* One file of a patch, as git apply reads it. */
struct patch_file {
	char *old_path, *new_path;	/* git apply -p1 (git am's) names; NULL for /dev/null */
	char *old_p0, *new_p0;		/* the names as written (-p0): a diff.noprefix patch */
	unsigned long added, removed;	/* lines */
	unsigned binary:1;
	unsigned created:1, deleted:1, renamed:1, copied:1;
	size_t delta;			/* libgit2's delta with the lines of this file */
};

struct message {
	size_t index;		/* 1-based position in the series */
	char *name;		/* for people: the user's file, "file (message 2)", "0001-x.patch (commit abc)" */
	char *file;		/* a file holding exactly `raw`, or NULL */
	char *source;		/* the user's file it is, byte for byte (not a part of an mbox), or NULL */
	char *commit;		/* the commit of git format-patch's "From <id>" line, or NULL */
	struct strbuf raw;	/* the bytes as they leave */
	struct mail_headers headers;
	char *subject;		/* decoded, brackets kept: "[PATCH 1/3] sched: ..." */
	char *author;
	unsigned is_mail:1;	/* it starts with a header block */
	unsigned from_mbox:1;	/* one of the mails of an mbox the user named */
	unsigned plain:1;	/* no MIME for git mailinfo to undo */
	unsigned decoded:1;	/* log and patch are filled */
	unsigned by_mailinfo:1;	/* ...by git mailinfo itself */
	unsigned diff_read:1;	/* files and diff are filled */
	struct strbuf log;	/* the commit message (or the cover letter's text) */
	struct strbuf patch;	/* what git apply gets */
	struct patch_file *files;
	size_t files_nr, files_alloc;
	git_diff *diff;		/* libgit2's reading of `patch`, NULL if there is no diff */
};

#define MESSAGE_INIT { 0, NULL, NULL, NULL, NULL, STRBUF_INIT, MAIL_HEADERS_INIT, NULL, NULL, \
		       0, 0, 0, 0, 0, 0, STRBUF_INIT, STRBUF_INIT, NULL, 0, 0, NULL }

/*
 * Take the mail's bytes (`raw` is copied unless it is msg->raw itself)
 * and read its headers.  0, or -1 with a message naming `name` if the
 * bytes are neither a mail nor a patch.
 */
int message_set_raw(struct message *msg, const char *name, const char *raw, size_t len);

/* Fill log and patch (git mailinfo for a mail that is not plain); 0 or -1 (reported). */
int message_decode(struct message *msg, const char *scratch);

/*
 * Fill files and diff (git apply's names and counts, libgit2's lines);
 * 0, or -1 (reported) if git cannot read the patch the way khsend does.
 */
int message_read_diff(struct message *msg, const char *scratch);
/* The same for several messages, with one git apply per reading for all of them. */
int messages_read_diff(struct message **msgs, size_t n, const char *scratch);

/*
 * libgit2's reading of the decoded patch (plain "diff -u" sections get a
 * "diff --git" header first); *out NULL for a text without a diff.  Only
 * message_read_diff() may trust it: it holds it against git's reading.
 */
int patch_read_lines(struct message *msg, git_diff **out);

/* A cover letter: a "[... 0/N]" subject and no diff. */
int message_is_cover(const struct message *msg);
/* Does its patch hold anything git apply would apply? (a guess from the text; for counting) */
int message_has_patch(const struct message *msg);
/*
 * The "base-commit: <id>" line git format-patch --base writes, or NULL
 * (malloc()ed).
 */
char *message_base_commit(const struct message *msg);

/* Forget files and diff (message_read_diff() fills them again). */
void message_clear_diff(struct message *msg);
void message_release(struct message *msg);

/* Is this line where git mailinfo would start the patch? (mailinfo.c:patchbreak) */
int is_patch_break(const char *line, size_t len);

#endif
