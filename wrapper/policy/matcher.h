/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * matcher: which policy entries could occur in a buffer, in one pass.
 *
 * Every entry is reduced to literals, one of which any match of it must
 * contain (its string, or per branch of its regex the longest piece every
 * match spells out), case folded; one Aho-Corasick automaton over all of them
 * scans a mail once.  An entry whose regex has no such literal is always
 * a candidate.  This is only a filter: a candidate is then counted line
 * by line with the entry's own matcher, so the filter may say yes too
 * often but never no when the entry occurs.
 */
#ifndef KHSEND_MATCHER_H
#define KHSEND_MATCHER_H

#include "policy/policy.h"

struct matcher;

struct matcher *matcher_new(const struct policy *p);
void matcher_free(struct matcher *m);

/*
 * Mark in hits[i] (one byte per policy entry, which the caller zeroes)
 * the entries whose literal occurs in buf, or that have none; returns
 * how many entries are marked.
 */
size_t matcher_scan(const struct matcher *m, const char *buf, size_t len, unsigned char *hits);

/*
 * Literals, case folded, one of which every match of a POSIX ERE
 * contains (one per branch of a top-level "|"), into `out`; -1 when some
 * branch has none, and the entry must always be looked at.
 */
int regex_required_literals(const char *re, struct strvec *out);

#endif
