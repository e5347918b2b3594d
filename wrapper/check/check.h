/*
 * check: the whole series against the policy, the one way every command
 * does it (check, send, b4, boot, reply, each hook).
 *
 * Per message, cheapest first:
 *   1. One pass of the policy's literals over the mail's bytes (decoded by
 *      git mailinfo first if it is not plain), and a look for what moves
 *      or hides text (renames, copies, binary patches, a policy file).  A
 *      mail with none of them cannot change a protected string: git would
 *      read from it no removed line that holds one.
 *   2. Otherwise its patch is read as git apply reads it
 *      (message_read_diff()) and its lines go to the detector.
 * At the end, when the series' base is at hand, the result is what
 * counts: the series is applied with git onto the base in a private
 * index, and each entry's string is counted in the old and the new
 * blobs of the files it covers (check/result.c).  A line-level finding
 * the result does not bear out is dropped; a change the result shows
 * and the lines did not is reported.
 */
#ifndef KHSEND_CHECK_H
#define KHSEND_CHECK_H

#include "check/detect.h"
#include "lib/repo.h"
#include "policy/matcher.h"
#include "series/series.h"

struct checker {
	const struct policy *policy;	/* the policy, and the lexicon's entries after it */
	struct policy lexicon, all;	/* ...which the checker owns (all: borrowed entries) */
	const struct repo *repo;	/* may be NULL */
	const char *scratch;
	struct matcher *matcher;
	unsigned char *hits;		/* per entry, for the message at hand */
	struct detector det;
	char *base;			/* the commit the result check applies the series to, or NULL */
	char *origin;			/* an older tree whose file names still count (git am's ORIG_HEAD), or NULL */
	int want_result;		/* try the result check (a base is known or may be) */
	struct strvec patches;		/* each message's patch as a file, for the result check */
	size_t gated;			/* messages whose lines were read */
	struct strvec policy_changes;	/* "message: path" of policy files the series changes */
	struct strvec refusals;		/* binary changes to protected files, unless the result clears them */
	int result_done;		/* the result check ran and settled the findings */
	int force_result;		/* apply the series to the base even if no message could change a string */
	int result_state;		/* 0 not tried, 1 the series applied to the base, -1 it did not */
	struct strbuf result_why;	/* git's reason when it did not */
	struct message **pending;	/* messages whose lines are read next, all with one git apply */
	unsigned char *pending_hits;	/* their candidates */
	size_t pending_nr, pending_alloc;
	int owns_pending;
	struct strvec touched;		/* files the read messages change... */
	size_t *touched_by;		/* ...and the detector's handle of the message */
	size_t touched_alloc;
};

void checker_init(struct checker *c, const struct policy *policy, const struct strvec *allow,
		  const struct repo *repo, const char *scratch);
/* The base commit the series applies to, if known (the result check needs it). */
void checker_set_base(struct checker *c, const char *base);
/*
 * Files renamed between `origin` and `tip` stay covered under their new
 * names: a git am session (ORIG_HEAD, where it began, to HEAD), or work
 * not yet published.  0 or -1 (reported).
 */
int checker_set_origin(struct checker *c, const char *origin, const char *tip);
/*
 * The same from where the branch left its upstream to the base (a rename
 * in a series sent before, not yet merged); nothing without an upstream.
 */
int checker_follow_unpublished(struct checker *c);
/*
 * Look at one message; 0, or -1 (reported) if git cannot read it the way
 * khsend does.  The message must live until checker_finish(), or be
 * given with checker_add_owned(), which takes it over (it is left empty).
 */
int checker_add(struct checker *c, struct message *msg);
int checker_add_owned(struct checker *c, struct message *msg);
/* Settle the findings (c->det.findings); 0, or -1 (reported) if the series must be refused. */
int checker_finish(struct checker *c);
/*
 * Instead of checker_finish(), for a change that is in an index already
 * (git am's pre-applypatch, git commit's pre-commit): settle with the
 * index (NULL: the repository's) against `tree`.  0 or -1 (reported).
 */
int checker_finish_index(struct checker *c, const char *tree, const char *index_file);
void checker_release(struct checker *c);

/* Check a kept series in one go: init, add each, finish. */
int check_series(struct checker *c, const struct series *s);

#endif
