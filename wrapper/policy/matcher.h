/*
 * matcher: which policy entries could occur in a buffer, in one pass.
 *
 * Every entry is reduced to a literal that any match of it must contain
 * (its string, or the longest piece of its regex that every match
 * spells out), case folded; one Aho-Corasick automaton over all of them
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
 * The literal every match of a POSIX ERE must contain, case folded if
 * `fold`, or NULL when there is none worth filtering on (malloc()ed).
 */
char *regex_required_literal(const char *re);

#endif
