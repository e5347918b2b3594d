// SPDX-License-Identifier: GPL-2.0-only
/* matches: occurrences read as text, and paired off across a change. */
#include "check/matches.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * A run of lines as text people read: comment leaders ("*", "//", "#",
 * "/ *") and a closing "* /" dropped, blanks squeezed, lines joined with one
 * space, and C's adjacent string literals ("... " "...") joined.  So a
 * joke wrapped onto two lines, or re-flowed in a comment, is still there.
 */

static const char *
skip_comment_leader(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if ((p[0] == '/' && (p[1] == '*' || p[1] == '/')))
		p += 2;
	else if ((*p == '*' && p[1] != '/') || *p == '#')
		p++;
	while (*p == '*' && p[1] != '/')
		p++;
	return p;
}

static void
run_text_build(struct matches_text *rt)
{
	const char *const *lines = rt->lines;
	size_t n = rt->n;

	rt->built = 1;
	strbuf_init(&rt->text, 0);
	rt->starts = xcalloc(n ? n : 1, sizeof(*rt->starts));
	for (size_t k = 0; k < n; k++) {
		const char *p = skip_comment_leader(lines[k]);
		size_t len = strlen(p);

		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len >= 2 && p[len - 2] == '*' && p[len - 1] == '/')
			len -= 2;
		if (rt->text.len && rt->text.buf[rt->text.len - 1] == '"' && *p == '"') {
			strbuf_setlen(&rt->text, rt->text.len - 1);	/* "a " "b" -> "a b" */
			p++;
			len--;
		} else if (rt->text.len && rt->text.buf[rt->text.len - 1] != ' ') {
			strbuf_addch(&rt->text, ' ');
		}
		rt->starts[k] = rt->text.len;
		for (size_t i = 0; i < len; i++) {
			int blank = p[i] == ' ' || p[i] == '\t';

			if (!blank)
				strbuf_addch(&rt->text, p[i]);
			else if (rt->text.len && rt->text.buf[rt->text.len - 1] != ' ')
				strbuf_addch(&rt->text, ' ');
		}
	}
}

void
matches_text_init(struct matches_text *mt, const char *const *lines, size_t n)
{
	memset(mt, 0, sizeof(*mt));
	mt->lines = lines;
	mt->n = n;
}

void
matches_text_release(struct matches_text *mt)
{
	if (mt->built) {
		strbuf_release(&mt->text);
		free(mt->starts);
	}
	memset(mt, 0, sizeof(*mt));
}

/* The line of the run a byte of its text came from. */
static size_t
run_text_line(const struct matches_text *rt, size_t at)
{
	size_t k = 0;

	while (k + 1 < rt->n && rt->starts[k + 1] <= at)
		k++;
	return k;
}

void
matches_clear(struct matches *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->v[i].text);
		free(m->v[i].file);
		free(m->v[i].line_text);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static void
add_match(struct matches *m, size_t line, const char *text, size_t len)
{
	ALLOC_GROW(m->v, m->nr + 1, m->alloc);
	m->v[m->nr].line = line;
	m->v[m->nr].text = xstrndup(text, len);
	m->v[m->nr].file = m->v[m->nr].line_text = NULL;
	m->v[m->nr].used = 0;
	m->nr++;
}

/* Every occurrence in the run, line by line. */
static void
find_in_lines(const struct policy_entry *e, const char *const *lines, size_t n, struct matches *out)
{
	for (size_t k = 0; k < n; k++) {
		const char *t = lines[k];
		size_t len = strlen(t), at = 0, so, eo;

		while (at < len && policy_entry_find(e, t, len, at, &so, &eo)) {
			add_match(out, k, t + so, eo - so);
			at = eo > so ? eo : so + 1;
		}
	}
}

/* Every occurrence in the run read as text (struct matches_text). */
static void
find_in_text(const struct policy_entry *e, const struct matches_text *rt, struct matches *out)
{
	const char *t = rt->text.buf;
	size_t len = rt->text.len, at = 0, so, eo;

	while (at < len && policy_entry_find(e, t, len, at, &so, &eo)) {
		add_match(out, run_text_line(rt, so), t + so, eo - so);
		at = eo > so ? eo : so + 1;
	}
}

void
matches_find_in(const struct policy_entry *e, struct matches_text *mt, struct matches *out)
{
	struct matches by_line = MATCHES_INIT, as_text = MATCHES_INIT;
	size_t n = mt->n;

	find_in_lines(e, mt->lines, n, &by_line);
	/* One line without comment leaders or tabs reads the same as text. */
	if (n > 1 || strpbrk(n ? mt->lines[0] : "", "*/#\t")) {
		if (!mt->built)
			run_text_build(mt);
		find_in_text(e, mt, &as_text);
	}
	if (as_text.nr > by_line.nr) {
		matches_move(out, &as_text);
		matches_clear(&by_line);
	} else {
		matches_move(out, &by_line);
		matches_clear(&as_text);
	}
}

/* May a removed match and an added one pair off, in this pass? */
int
matches_kept(const struct policy_entry *e, const char *removed, const char *added, int pass)
{
	switch (pass) {
	case 0:
		return !strcmp(removed, added);		/* the same text */
	case 1:
		return strcasecmp(removed, added) != 0;	/* another text the entry matches */
	default:
		return e->case_change_ignored;		/* only the case changed */
	}
}

void
matches_pair(const struct policy_entry *e, struct matches *del, struct matches *add)
{
	for (int pass = 0; pass < MATCHES_PASSES; pass++)
		for (size_t i = 0; i < del->nr; i++)
			for (size_t j = 0; j < add->nr && !del->v[i].used; j++)
				if (!add->v[j].used && matches_kept(e, del->v[i].text, add->v[j].text, pass))
					del->v[i].used = add->v[j].used = 1;
}

size_t
matches_unused(const struct matches *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr; i++)
		n += !m->v[i].used;
	return n;
}

void
matches_move(struct matches *to, struct matches *from)
{
	for (size_t i = 0; i < from->nr; i++) {
		ALLOC_GROW(to->v, to->nr + 1, to->alloc);
		to->v[to->nr++] = from->v[i];
	}
	free(from->v);
	memset(from, 0, sizeof(*from));
}
