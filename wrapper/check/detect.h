/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * detect: does the series alter a protected string?
 *
 * For each entry, over the files its paths cover (old or new name), the
 * occurrences in the series' removed lines are set against those in its
 * added lines.  An edit that keeps the string on the same line, a moved or
 * re-indented line, or a line deleted in one patch and added back in
 * another all balance out; what is left over on the removed side is a
 * finding: a fix, a rewording or a deletion.  Commit messages never count.
 */
#ifndef KHSEND_DETECT_H
#define KHSEND_DETECT_H

#include "policy/policy.h"
#include "series/message.h"

struct finding {
	const struct policy_entry *entry;
	enum policy_action action;	/* the entry's, or annotate when --allow'ed */
	unsigned allowed:1;
	size_t index;			/* the message's position in the series */
	const char *patch;		/* message name (file, or commit id) */
	const char *subject;
	const char *commit;		/* NULL for mails */
	const char *msgfile;		/* the file holding the message, NULL for commits */
	char *file;
	int line;			/* in the file before the patch */
	char *removed;
	char *added;			/* NULL when the line was deleted */
	char *matched;			/* what the entry matched: its string, or the regex's text */
	char *note;			/* why there is no added line to show, or NULL */
};

struct occurrence;
struct seen_message;

struct matcher;

struct detector {
	const struct policy *policy;
	const struct matcher *matcher;	/* if set: entries whose literal a run lacks are not searched in it */
	const struct strvec *allow;	/* ids the user overrode (allow-override entries) */
	struct occurrence **occ;	/* per entry */
	size_t *occ_nr, *occ_alloc;
	struct strvec renamed_to, renamed_from;	/* renames seen so far in the series */
	struct seen_message **msgs;
	size_t msgs_nr, msgs_alloc;
	size_t messages, patches;
	struct finding *findings;
	size_t nr, alloc;
};

void detector_init(struct detector *d, const struct policy *policy, const struct strvec *allow);
/*
 * Look at the lines of one message whose diff was read
 * (message_read_diff()), for the entries marked in candidates[] (one byte
 * per policy entry); -1 (reported) if its lines cannot be read.
 */
int detector_add(struct detector *d, const struct message *msg, const unsigned char *candidates);
/* A rename made before the series (a git am session): the file keeps the entries of its old name. */
void detector_add_rename(struct detector *d, const char *from, const char *to);
/* Does the entry cover this file, under any of its names (or its name before the series)? */
int detector_covers(const struct detector *d, const struct policy_entry *e, const struct patch_file *f);
/* Balance the occurrences and produce d->findings, in series order. */
void detector_finish(struct detector *d);

/* Keep what a report needs of a message; returns a handle for detector_add_finding(). */
size_t detector_remember(struct detector *d, const struct message *msg);
/*
 * After detector_finish(): a finding the lines did not show, but the
 * result did (check/result.h): `line` in `file` as it was, and a note
 * saying so.  `msg` (detector_remember()) is the message that last
 * touched the file, or -1 for the series as a whole.
 */
void detector_add_finding(struct detector *d, const struct policy_entry *e, size_t msg, const char *file, int line,
			  const char *removed, const char *note);
/* After detector_finish(): forget the findings of an entry (the result shows its string kept). */
void detector_drop_entry(struct detector *d, const struct policy_entry *e);
/* Forget one finding (the ones after it move up). */
void detector_drop_finding(struct detector *d, size_t i);
int detector_has_entry(const struct detector *d, const struct policy_entry *e);
int detector_blocked(const struct detector *d);
size_t detector_count(const struct detector *d, enum policy_action action);
void detector_release(struct detector *d);

#endif
