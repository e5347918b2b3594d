/* SPDX-License-Identifier: GPL-2.0-only */
/* suggest: "did you mean" for a mistyped name, after git's help.c. */
#ifndef KHSEND_SUGGEST_H
#define KHSEND_SUGGEST_H

#include "lib/strbuf.h"
#include "lib/strvec.h"

#include <stddef.h>

/* The candidates closest to `word`, best first, appended to `out`; none if nothing is close. */
void suggest_similar(const char *word, const char *const *candidates, size_t n, struct strvec *out);
/* "did you mean 'a' or 'b'?" for these names, appended to `sb` (nothing for none). */
void suggest_format(struct strbuf *sb, const struct strvec *near);
/* "did you mean 'a' or 'b'?" appended to `sb`, or nothing if no candidate is close. */
void suggest_add_hint(struct strbuf *sb, const char *word, const char *const *candidates, size_t n);

#endif
