/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * matches: where an entry occurs in some lines, read the way people read
 * them, and which occurrences on one side are still there on the other.
 *
 * Both the detector (a run of removed lines against the added run after
 * it) and the result check (a file before the series against after it)
 * ask the same two questions, so they give the same answers.
 */
#ifndef KHSEND_MATCHES_H
#define KHSEND_MATCHES_H

#include "lib/strbuf.h"
#include "policy/policy.h"

#include <stddef.h>

struct match {
	size_t line;		/* index into the lines searched */
	char *text;		/* what the entry matched */
	char *file, *line_text;	/* where, for a caller that keeps it (owned; may be NULL) */
	unsigned used:1;	/* paired off with a match on the other side */
};

struct matches {
	struct match *v;
	size_t nr, alloc;
};

#define MATCHES_INIT { NULL, 0, 0 }

/*
 * The occurrences of an entry in lines[0..n): line by line, or in the
 * lines read as text when that finds more -- comment leaders ("*", "//",
 * "#") dropped, blanks squeezed, lines joined, C's adjacent string
 * literals joined -- so a joke wrapped onto two lines or re-flowed is
 * still seen.  The lines are searched for many entries, so their text is
 * made once, when the first entry needs it.  Appended to `out`.
 */
struct matches_text {
	const char *const *lines;
	size_t n;
	int built;
	struct strbuf text;	/* the lines read as text */
	size_t *starts;		/* where each line begins in text */
};
void matches_text_init(struct matches_text *mt, const char *const *lines, size_t n);
void matches_find_in(const struct policy_entry *e, struct matches_text *mt, struct matches *out);
void matches_text_release(struct matches_text *mt);

/*
 * Pair removed occurrences with added ones: the same text first, then any
 * other text the entry matches; one that differs only in case pairs off
 * only when the entry says "case-change: ignore".  Sets `used` on both.
 */
void matches_pair(const struct policy_entry *e, struct matches *removed, struct matches *added);
/* The rule of each pass of matches_pair(), for pairing done elsewhere (0: same text first). */
#define MATCHES_PASSES 3
int matches_kept(const struct policy_entry *e, const char *removed, const char *added, int pass);

/* Occurrences not paired off. */
size_t matches_unused(const struct matches *m);

/* Take the matches of `from` (which is left empty) onto the end of `to`. */
void matches_move(struct matches *to, struct matches *from);

void matches_clear(struct matches *m);

#endif
