/*
 * lexicon: the words kernel authors use as jokes (tools/lexicon/, built
 * into khsend), as policy entries of their own.
 *
 * The policy names the jokes someone looked at; the lexicon guesses at the
 * rest.  So a lexicon entry only ever warns ("this may be a deliberate
 * joke"), and it is what "khsend scan --suggest" proposes entries from.
 * One entry per category and kind of term (anywhere or only in a C string,
 * in any case or as written), its regex the alternation of the terms.
 */
#ifndef KHSEND_LEXICON_H
#define KHSEND_LEXICON_H

#include "policy/policy.h"

/*
 * Append the lexicon's entries to `lex` (marked `lexicon`, action warn,
 * every path).  `dir` is a directory of *.txt word lists, or NULL for the
 * built-in one.  0, or the number of problems (reported as file:line).
 */
int lexicon_load(struct policy *lex, const char *dir);

/* The category of a lexicon entry ("jargon"), or NULL for a policy entry. */
const char *lexicon_category(const struct policy_entry *e);

#endif
