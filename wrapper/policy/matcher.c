// SPDX-License-Identifier: GPL-2.0-only
/* matcher: an Aho-Corasick automaton over the entries' literals, ASCII case folded. */
#include "policy/matcher.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct matcher {
	size_t entries;		/* policy entries */
	uint8_t cls[256];	/* byte -> class; 0: a byte no literal has */
	size_t nclasses;
	/*
	 * The automaton, failures folded in: next[state * nclasses + class] is
	 * the next state times nclasses (the offset of its row).  States with
	 * outputs come last, from row `first_out` on: one compare per byte.
	 */
	uint32_t *next;
	uint32_t first_out;
	uint32_t *out_at, *out_nr;	/* per state: its entries in `outs` */
	uint32_t *outs;
	size_t nstates;
	uint32_t *always;	/* entries without a literal */
	size_t nalways;
};

static int
fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* Append the run so far to the best if longer, and start over. */
static void
end_run(struct strbuf *run, struct strbuf *best)
{
	if (run->len > best->len) {
		strbuf_reset(best);
		strbuf_addbuf(best, run);
	}
	strbuf_reset(run);
}

/* Skip a bracket expression starting at p ('['); returns the pointer after its ']'. */
static const char *
skip_bracket(const char *p)
{
	p += p[1] == '^' ? 2 : 1;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			char close = p[1];
			const char *q = p + 2;

			while (*q && !(q[0] == close && q[1] == ']'))
				q++;
			p = *q ? q + 2 : q;
			continue;
		}
		p++;
	}
	return *p ? p + 1 : p;
}

/* The ')' that closes the group opening at p ('('), or the NUL if none does. */
static const char *
group_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '[')
			p = skip_bracket(p) - 1;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && !--depth)
			break;
	}
	return p;
}

/* The literal every match of one branch (no "|" at its top level) must contain, or NULL. */
static char *
branch_literal(const char *re)
{
	struct strbuf run = STRBUF_INIT, best = STRBUF_INIT;
	const char *p = re;

	while (*p) {
		int c = (unsigned char)*p, literal = -1;

		switch (c) {
		case '\\':
			if (!p[1] || isalnum((unsigned char)p[1]) || strchr("<>`'", p[1])) {
				/* \w \b \< \> \` \' and friends (GNU) are no literal */
				end_run(&run, &best);
				p += p[1] ? 2 : 1;
				continue;
			}
			literal = (unsigned char)p[1];
			p += 2;
			break;
		case '[':
			end_run(&run, &best);
			p = skip_bracket(p);
			continue;
		case '(':
			end_run(&run, &best);
			p = group_end(p);
			if (*p)
				p++;
			continue;
		case '|':
			BUG("a branch of a regex with '|' at its top level");
		case '*':
		case '?':
		case '{':
			/* The atom before may not be there at all. */
			if (run.len)
				strbuf_setlen(&run, run.len - 1);
			end_run(&run, &best);
			if (c == '{')
				while (*p && *p != '}')
					p++;
			if (*p)
				p++;
			continue;
		case '+':
			/* At least one: the run ends with it, and the next starts with it. */
			if (run.len) {
				int last = run.buf[run.len - 1];

				end_run(&run, &best);
				strbuf_addch(&run, last);
			}
			p++;
			continue;
		case '.':
		case '^':
		case '$':
		case ')':
		case '}':
		case ']':
			end_run(&run, &best);
			p++;
			continue;
		default:
			literal = c;
			p++;
			break;
		}
		strbuf_addch(&run, fold(literal));
	}
	end_run(&run, &best);
	strbuf_release(&run);
	if (!best.len) {
		strbuf_release(&best);
		return NULL;
	}
	return strbuf_detach(&best, NULL);
}

static int group_literals(const char *branch, struct strvec *out);

int
regex_required_literals(const char *re, struct strvec *out)
{
	const char *p = re, *start = re;
	int depth = 0;

	/* Split at the "|" of the top level: every match matches one of the branches. */
	for (;; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			p = skip_bracket(p) - 1;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && depth) {
			depth--;
		} else if ((*p == '|' && !depth) || !*p) {
			char *branch = xstrndup(start, (size_t)(p - start)), *lit = branch_literal(branch);
			int none = !lit && group_literals(branch, out);

			free(branch);
			if (none) {
				strvec_clear(out);
				return -1;
			}
			if (lit)
				strvec_push_nodup(out, lit);
			if (!*p)
				return 0;
			start = p + 1;
		}
	}
}

/*
 * A branch with no literal outside its groups ("\\b(oops|whoops)[!?]"):
 * every match goes through each group that is not optional, so the
 * literals of one such group's branches will do.  -1 if there is none.
 */
static int
group_literals(const char *branch, struct strvec *out)
{
	for (const char *p = branch; *p; p++) {
		const char *q, *inner;

		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '[') {
			p = skip_bracket(p) - 1;
			continue;
		}
		if (*p != '(')
			continue;
		q = group_end(p);
		if (!*q)
			return -1;
		inner = p + 1;
		if (inner[0] == '?' && inner[1] == ':')
			inner += 2;
		/* Not a group a match can skip (?, *, {0,...}), nor a lookaround or flags. */
		if (q[1] != '?' && q[1] != '*' && !(q[1] == '{' && q[2] == '0') && *inner != '?') {
			struct strvec lits = STRVEC_INIT;
			char *sub = xstrndup(inner, (size_t)(q - inner));
			int rc = regex_required_literals(sub, &lits);

			free(sub);
			if (!rc) {
				for (size_t i = 0; i < lits.nr; i++)
					strvec_push(out, lits.v[i]);
				strvec_clear(&lits);
				return 0;
			}
			strvec_clear(&lits);
		}
		p = q;
	}
	return -1;
}

/* The longest run of `s` without a blank, as a new string. */
static char *
longest_word(const char *s)
{
	const char *best = s;
	size_t best_len = 0;

	for (const char *p = s; *p;) {
		size_t n = strcspn(p, " \t");

		if (n > best_len) {
			best = p;
			best_len = n;
		}
		p += n;
		p += strspn(p, " \t");
	}
	return xstrndup(best, best_len);
}

/* The trie, before it becomes the automaton. */
struct builder {
	uint32_t *next;		/* states x classes, 0: none yet (state 0 is the root) */
	size_t nstates, alloc;
	struct strbuf *own;	/* per state: its entries, as uint32_t */
};

static uint32_t
add_state(struct matcher *m, struct builder *b)
{
	if (b->nstates == b->alloc) {
		size_t old = b->alloc;

		b->alloc = b->alloc ? b->alloc * 2 : 64;
		b->next = xrealloc(b->next, b->alloc * m->nclasses * sizeof(*b->next));
		memset(b->next + old * m->nclasses, 0, (b->alloc - old) * m->nclasses * sizeof(*b->next));
		b->own = xrealloc(b->own, b->alloc * sizeof(*b->own));
		for (size_t i = old; i < b->alloc; i++)
			strbuf_init(&b->own[i], 0);
	}
	return (uint32_t)b->nstates++;
}

static void
insert(struct matcher *m, struct builder *b, const char *lit, uint32_t entry)
{
	uint32_t s = 0;

	for (const unsigned char *p = (const unsigned char *)lit; *p; p++) {
		uint32_t *slot = &b->next[s * m->nclasses + m->cls[*p]];

		if (!*slot) {
			uint32_t t = add_state(m, b);

			slot = &b->next[s * m->nclasses + m->cls[*p]];	/* add_state() may move it */
			*slot = t;
		}
		s = *slot;
	}
	strbuf_add(&b->own[s], &entry, sizeof(entry));
}

/* States with outputs last; rows as offsets (see struct matcher). */
static void
renumber(struct matcher *m)
{
	size_t n = m->nstates, nc = m->nclasses, k = 0;
	uint32_t *id = xcalloc(n, sizeof(*id)), *next = xcalloc(n * nc, sizeof(*next));
	uint32_t *at = xcalloc(n, sizeof(*at)), *nr = xcalloc(n, sizeof(*nr));

	for (int outputs = 0; outputs < 2; outputs++) {
		if (outputs)
			m->first_out = (uint32_t)(k * nc);
		for (size_t s = 0; s < n; s++)
			if ((m->out_nr[s] != 0) == outputs)
				id[s] = (uint32_t)k++;
	}
	for (size_t s = 0; s < n; s++) {
		for (size_t c = 0; c < nc; c++)
			next[id[s] * nc + c] = id[m->next[s * nc + c]] * (uint32_t)nc;
		at[id[s]] = m->out_at[s];
		nr[id[s]] = m->out_nr[s];
	}
	free(m->next);
	free(m->out_at);
	free(m->out_nr);
	m->next = next;
	m->out_at = at;
	m->out_nr = nr;
	free(id);
}

struct matcher *
matcher_new(const struct policy *p)
{
	struct matcher *m = xcalloc(1, sizeof(*m));
	struct builder b = { NULL, 0, 0, NULL };
	size_t slots = p->nr;
	struct strvec *lits = xcalloc(slots ? slots : 1, sizeof(*lits));
	uint32_t *fail, *queue;
	size_t head = 0, tail = 0, nouts = 0;

	m->entries = slots;
	m->always = xcalloc(slots ? slots : 1, sizeof(*m->always));
	for (size_t i = 0; i < p->nr; i++) {
		const struct policy_entry *e = p->v[i];

		strvec_init(&lits[i]);
		if (e->string) {
			struct strbuf sb = STRBUF_INIT;

			for (const char *c = e->string; *c; c++)
				strbuf_addch(&sb, fold((unsigned char)*c));
			strvec_push_nodup(&lits[i], strbuf_detach(&sb, NULL));
		} else if (!e->regex_src || regex_required_literals(e->regex_src, &lits[i])) {
			strvec_clear(&lits[i]);
		}
		for (size_t k = 0; k < lits[i].nr; k++) {
			/* A joke may be wrapped onto two lines: look for its longest word alone. */
			char *word = longest_word(lits[i].v[k]);

			free((char *)lits[i].v[k]);
			lits[i].v[k] = word;
			if (!*word) {
				strvec_clear(&lits[i]);
				break;
			}
		}
		if (!lits[i].nr)
			m->always[m->nalways++] = (uint32_t)i;
	}
	/* Classes: the bytes the literals use (both cases of a letter are one class). */
	m->nclasses = 1;
	for (size_t i = 0; i < slots; i++)
		for (size_t k = 0; k < lits[i].nr; k++)
			for (const unsigned char *c = (const unsigned char *)lits[i].v[k]; *c; c++)
				if (!m->cls[*c]) {
					m->cls[*c] = (uint8_t)m->nclasses++;
					if (m->nclasses > 255)
						BUG("more than 254 distinct bytes in the policy's literals");
				}
	for (int c = 'A'; c <= 'Z'; c++)
		m->cls[c] = m->cls[c + ('a' - 'A')];

	add_state(m, &b);
	for (size_t i = 0; i < slots; i++)
		for (size_t k = 0; k < lits[i].nr; k++)
			insert(m, &b, lits[i].v[k], (uint32_t)i);

	/* Breadth first: failure links, folded into the transitions, and the outputs merged. */
	fail = xcalloc(b.nstates, sizeof(*fail));
	queue = xcalloc(b.nstates, sizeof(*queue));
	m->nstates = b.nstates;
	m->next = xcalloc(b.nstates * m->nclasses, sizeof(*m->next));
	for (size_t c = 0; c < m->nclasses; c++) {
		uint32_t t = b.next[c];

		m->next[c] = t;
		if (t)
			queue[tail++] = t;	/* fail[t] = 0 */
	}
	while (head < tail) {
		uint32_t s = queue[head++];

		/* s's own outputs, then those of the state it falls back to */
		strbuf_add(&b.own[s], b.own[fail[s]].buf, b.own[fail[s]].len);
		for (size_t c = 0; c < m->nclasses; c++) {
			uint32_t t = b.next[s * m->nclasses + c];

			if (t) {
				fail[t] = m->next[fail[s] * m->nclasses + c];
				m->next[s * m->nclasses + c] = t;
				queue[tail++] = t;
			} else {
				m->next[s * m->nclasses + c] = m->next[fail[s] * m->nclasses + c];
			}
		}
	}
	m->out_at = xcalloc(b.nstates, sizeof(*m->out_at));
	m->out_nr = xcalloc(b.nstates, sizeof(*m->out_nr));
	for (size_t s = 0; s < b.nstates; s++)
		nouts += b.own[s].len / sizeof(uint32_t);
	m->outs = xcalloc(nouts ? nouts : 1, sizeof(*m->outs));
	nouts = 0;
	for (size_t s = 0; s < b.nstates; s++) {
		m->out_at[s] = (uint32_t)nouts;
		m->out_nr[s] = (uint32_t)(b.own[s].len / sizeof(uint32_t));
		memcpy(m->outs + nouts, b.own[s].buf, b.own[s].len);
		nouts += m->out_nr[s];
	}
	renumber(m);
	for (size_t s = 0; s < b.alloc; s++)
		strbuf_release(&b.own[s]);
	free(b.own);
	free(b.next);
	free(fail);
	free(queue);
	for (size_t i = 0; i < slots; i++)
		strvec_clear(&lits[i]);
	free(lits);
	return m;
}

void
matcher_free(struct matcher *m)
{
	if (!m)
		return;
	free(m->next);
	free(m->out_at);
	free(m->out_nr);
	free(m->outs);
	free(m->always);
	free(m);
}

size_t
matcher_scan(const struct matcher *m, const char *buf, size_t len, unsigned char *hits)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + len;
	const uint32_t *next = m->next, first_out = m->first_out;
	const uint8_t *cls = m->cls;
	size_t nc = m->nclasses, found = 0;
	uint32_t row = 0;

	for (size_t i = 0; i < m->nalways; i++)
		if (!hits[m->always[i]]) {
			hits[m->always[i]] = 1;
			found++;
		}
	if (m->nstates <= 1)
		return found;
	for (; p < end; p++) {
		row = next[row + cls[*p]];
		if (row >= first_out) {
			uint32_t s = row / (uint32_t)nc;

			for (uint32_t k = 0; k < m->out_nr[s]; k++) {
				uint32_t e = m->outs[m->out_at[s] + k];

				if (!hits[e]) {
					hits[e] = 1;
					found++;
				}
			}
			if (found == m->entries)
				break;
		}
	}
	return found;
}
