// SPDX-License-Identifier: GPL-2.0-only
/*
 * suggest: "did you mean" for a mistyped command, hook or policy id, the
 * way git's help.c finds the commands close to a typo: a weighted
 * Damerau-Levenshtein distance (a swap of two neighbours costs 0, a
 * substitution 2, an insertion 1, a deletion 3) plus one, and 0 for a
 * prefix, and then the best of those under a floor.
 */
#include "lib/suggest.h"
#include "lib/i18n.h"
#include "lib/usage.h"

#include <stdlib.h>
#include <string.h>

/* git help.c's SIMILARITY_FLOOR: anything scored this or worse is no suggestion. */
#define SIMILARITY_FLOOR 7

/* The optimal string alignment distance with git's weights (levenshtein.c). */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row0 = xcalloc(lb + 1, sizeof(size_t));
	size_t *row1 = xcalloc(lb + 1, sizeof(size_t));
	size_t *row2 = xcalloc(lb + 1, sizeof(size_t));
	size_t ret;

	for (size_t j = 0; j <= lb; j++)
		row1[j] = j;	/* insertions */
	for (size_t i = 0; i < la; i++) {
		size_t *t;

		row2[0] = (i + 1) * 3;	/* deletions */
		for (size_t j = 0; j < lb; j++) {
			size_t best = row1[j] + (a[i] != b[j] ? 2 : 0);

			if (i > 0 && j > 0 && a[i - 1] == b[j] && a[i] == b[j - 1] && best > row0[j - 1])
				best = row0[j - 1];	/* a swap */
			if (best > row1[j + 1] + 3)
				best = row1[j + 1] + 3;
			if (best > row2[j] + 1)
				best = row2[j] + 1;
			row2[j + 1] = best;
		}
		t = row0;
		row0 = row1;
		row1 = row2;
		row2 = t;
	}
	ret = row1[lb];
	free(row0);
	free(row1);
	free(row2);
	return ret;
}

static size_t
score(const char *word, const char *candidate)
{
	if (*word && !strncmp(candidate, word, strlen(word)))
		return 0;
	return distance(word, candidate) + 1;
}

void
suggest_similar(const char *word, const char *const *candidates, size_t n, struct strvec *out)
{
	size_t best = SIMILARITY_FLOOR;

	for (size_t i = 0; i < n; i++) {
		size_t s = score(word, candidates[i]);

		if (s < best)
			best = s;
	}
	for (size_t i = 0; i < n && best < SIMILARITY_FLOOR; i++)
		if (score(word, candidates[i]) == best && !strvec_contains(out, candidates[i]))
			strvec_push(out, candidates[i]);
}

void
suggest_format(struct strbuf *sb, const struct strvec *near)
{
	struct strbuf names = STRBUF_INIT;

	if (!near->nr)
		return;
	for (size_t i = 0; i < near->nr; i++)
		/* TRANSLATORS: between the last two names of "did you mean 'a', 'b' or 'c'?" */
		strbuf_addf(&names, "%s'%s'", !i ? "" : i + 1 < near->nr ? ", " : _(" or "), near->v[i]);
	/* TRANSLATORS: %s is a list of names in quotes. */
	strbuf_addf(sb, _("did you mean %s?"), names.buf);
	strbuf_release(&names);
}

void
suggest_add_hint(struct strbuf *sb, const char *word, const char *const *candidates, size_t n)
{
	struct strvec near = STRVEC_INIT;

	suggest_similar(word, candidates, n, &near);
	suggest_format(sb, &near);
	strvec_clear(&near);
}
