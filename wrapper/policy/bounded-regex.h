/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bounded-regex: a policy's regular expressions, run with a hard bound on
 * their work.
 *
 * A policy is someone else's data (a repository's .khsend.yaml is read by
 * every hook), so no expression in it may stall khsend.  They are PCRE2
 * patterns, as "git grep -P" takes, compiled without UTF (a patch is bytes)
 * and matched with a match limit that grows with the text: any expression
 * does at most a fixed amount of work per byte, or gives up.  Giving up is
 * not "no match": khsend cannot judge the text, and says so.
 */
#ifndef KHSEND_BOUNDED_REGEX_H
#define KHSEND_BOUNDED_REGEX_H

#include "lib/strbuf.h"

#include <stddef.h>

struct bounded_regex {
	void *code;		/* pcre2_code */
	void *match;		/* pcre2_match_data */
	unsigned searches;	/* so far, up to the one that has the JIT compile it */
};

/*
 * Compile `src`.  On failure returns -1 with the reason in `err` and the
 * offending byte offset in `*offset`.
 */
int bounded_regex_compile(struct bounded_regex *re, const char *src, int ignore_case,
			  struct strbuf *err, size_t *offset);
void bounded_regex_free(struct bounded_regex *re);

enum bounded_result {
	REGEX_MATCH,
	REGEX_NO_MATCH,
	REGEX_TOO_MUCH_WORK,	/* the work bound was reached: no answer */
};

/* The first match in text[start..len), as [*so, *eo). */
enum bounded_result bounded_regex_search(struct bounded_regex *re, const char *text, size_t len,
					 size_t start, size_t *so, size_t *eo);

#endif
