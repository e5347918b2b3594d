// SPDX-License-Identifier: GPL-2.0-only
/* lexicon: the word lists of tools/lexicon/ (see its README) read into warn-only policy entries. */
#include "policy/lexicon.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* All the word lists, each after a "%category NAME" line (Makefile: $(OUT)/lexicon.txt). */
extern const char khsend_embedded_lexicon[];
extern const char khsend_embedded_lexicon_end[];

/* What each category is, for the warning a contributor reads. */
static const struct {
	const char *category, *what;
} kinds[] = {
	{ "archaic", "old-style English (\"thou\", \"-eth\", \"ye olde\")" },
	{ "codespell", "a joke spelling that spell checkers \"fix\"" },
	{ "exclamations", "a playful exclamation (\"Oops\", \"Whee\", \"Aieee\")" },
	{ "jargon", "hacker slang (\"borked\", \"frob\", \"grok\")" },
	{ "kernel", "a running joke of kernel developers" },
	{ "leetspeak", "leetspeak (digits for letters, like \"b0rked\")" },
	{ "popculture", "a quote from a film, a TV show or a book" },
	{ "spoonerisms", "a pun or a spoonerism" },
	{ "swearing", "a disguised swear word" },
	{ "users", "slang for users (\"luser\", \"PEBKAC\")" },
};

const char *
lexicon_category(const struct policy_entry *e)
{
	return e->lexicon;
}

static const char *
kind_of(const char *category)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (!strcmp(kinds[i].category, category))
			return kinds[i].what;
	return "a word that kernel authors use as a joke";
}

/* The category being read: its name and stop words, and the entries of its terms. */
struct category {
	char *name;
	struct strvec stop_words;
	size_t first;		/* its first entry in the lexicon */
};

/* A phrase as a regex: whole words, any run of blanks for a space (tools/hunt's phrase_regex()). */
static void
add_phrase(struct strbuf *re, const char *phrase)
{
	const char *p = phrase;
	int last_word = 0;

	if (isalnum((unsigned char)*p) || *p == '_')
		strbuf_addstr(re, "\\b");
	while (*p) {
		if (*p == ' ' || *p == '\t') {
			p += strspn(p, " \t");
			strbuf_addstr(re, "[ \\t]+");
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_')
			strbuf_addch(re, '\\');
		last_word = isalnum((unsigned char)*p) || *p == '_';
		strbuf_addch(re, *p++);
	}
	if (last_word)
		strbuf_addstr(re, "\\b");
}

/*
 * One term, one entry: the matcher then looks for each term's own
 * literal, and a line runs only the regexes of the terms it may hold.
 */
static int
add_term(struct policy *lex, const struct category *c, const char *line, const char *where, size_t lineno)
{
	struct policy_entry *e = xcalloc(1, sizeof(*e));
	struct strbuf re = STRBUF_INIT, err = STRBUF_INIT;
	size_t offset = 0;

	if (starts_with(line, "str:")) {
		e->in_string = 1;
		line += 4;
	}
	if (starts_with(line, "re:") || starts_with(line, "RE:")) {
		e->ignore_case = line[0] == 'r';
		strbuf_addstr(&re, line + 3);
	} else {
		e->ignore_case = 1;
		add_phrase(&re, line);
	}
	e->id = xstrfmt("lexicon-%s", c->name);
	e->regex_src = strbuf_detach(&re, NULL);
	e->action = POLICY_WARN;
	e->lexicon = xstrdup(c->name);
	e->origin = xstrfmt("%s:%zu", where, lineno);
	strvec_init(&e->paths);
	strvec_init(&e->see);
	strvec_init(&e->stop_words);
	e->globs = xcalloc(1, sizeof(*e->globs));
	if (bounded_regex_compile(&e->regex, e->regex_src, e->ignore_case, &err, &offset)) {
		error("%s:%zu: '%s' does not compile (at byte %zu): %s", where, lineno, e->regex_src, offset,
		      err.buf);
		strbuf_release(&err);
		policy_entry_free(e);
		return 1;
	}
	ALLOC_GROW(lex->v, lex->nr + 1, lex->alloc);
	lex->v[lex->nr++] = e;
	return 0;
}

/* The category is read: its entries get its stop words and its explanation. */
static void
finish_category(struct policy *lex, struct category *c)
{
	char *explain = xstrfmt("This may be a deliberate joke. The word is\n"
				"%s.\n"
				"khsend's list of kernel jokes has it, but no entry of the\n"
				"policy says whether it is a joke here. Please ask the\n"
				"maintainer before you send this change.",
				kind_of(c->name));

	for (size_t i = c->first; i < lex->nr; i++) {
		lex->v[i]->explain = xstrdup(explain);
		for (size_t k = 0; k < c->stop_words.nr; k++)
			strvec_push(&lex->v[i]->stop_words, c->stop_words.v[k]);
	}
	free(explain);
	strvec_clear(&c->stop_words);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

/* Read word lists: "%category NAME" starts a category (one per *.txt file). */
static int
parse(struct policy *lex, const char *where, const char *buf, size_t len)
{
	struct category c = { 0 };
	struct strbuf line = STRBUF_INIT;
	size_t lineno = 0;
	int problems = 0;

	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *hash;

		lineno++;
		strbuf_reset(&line);
		strbuf_add(&line, p, nl ? (size_t)(nl - p) : (size_t)(end - p));
		p = nl ? nl + 1 : end;
		/* "term  # why it is there" */
		for (hash = strstr(line.buf, " #"); hash; hash = strstr(hash + 1, " #"))
			if (hash[2] == ' ' || hash[2] == '\0') {
				strbuf_setlen(&line, (size_t)(hash - line.buf));
				break;
			}
		strbuf_trim(&line);
		if (!line.len || line.buf[0] == '#')
			continue;
		if (starts_with(line.buf, "%category ")) {
			if (c.name)
				finish_category(lex, &c);
			c.name = xstrdup(line.buf + 10);
			c.first = lex->nr;
			strvec_init(&c.stop_words);
		} else if (!c.name) {
			error("%s:%zu: a term before any '%%category' line", where, lineno);
			problems++;
		} else if (starts_with(line.buf, "not:")) {
			for (const char *w = line.buf + 4; *(w += strspn(w, " \t"));) {
				size_t n = strcspn(w, " \t");

				strvec_push_nodup(&c.stop_words, xstrndup(w, n));
				w += n;
			}
		} else if (starts_with(line.buf, "hunt:")) {
			;	/* for the hunt's review only: as a guard it would cry wolf */
		} else {
			problems += add_term(lex, &c, line.buf, where, lineno);
		}
	}
	if (c.name)
		finish_category(lex, &c);
	strbuf_release(&line);
	return problems;
}

int
lexicon_load(struct policy *lex, const char *dir)
{
	struct strbuf all = STRBUF_INIT, file = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;
	int problems;

	if (!dir)
		return parse(lex, "<built-in lexicon>", khsend_embedded_lexicon,
			     (size_t)(khsend_embedded_lexicon_end - khsend_embedded_lexicon));
	if (read_dir_sorted(dir, &names)) {
		error_errno("cannot read the lexicon directory '%s'", dir);
		return 1;
	}
	for (size_t i = 0; i < names.nr; i++) {
		size_t n = strlen(names.v[i]);

		if (n < 5 || strcmp(names.v[i] + n - 4, ".txt"))
			continue;
		char *path = xstrfmt("%s/%s", dir, names.v[i]);

		strbuf_reset(&file);
		if (strbuf_read_file(&file, path, 1u << 20) < 0) {
			error_errno("cannot read '%s'", path);
			free(path);
			strbuf_release(&all);
			strbuf_release(&file);
			strvec_clear(&names);
			return 1;
		}
		free(path);
		strbuf_addf(&all, "%%category %.*s\n", (int)(n - 4), names.v[i]);
		strbuf_addbuf(&all, &file);
		strbuf_addch(&all, '\n');
	}
	problems = parse(lex, dir, all.buf, all.len);
	strbuf_release(&all);
	strbuf_release(&file);
	strvec_clear(&names);
	return problems;
}
