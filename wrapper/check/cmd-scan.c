/*
 * khsend scan: where does each entry occur in a source tree?  A maintainer
 * uses --stale to find entries whose joke is gone, so the policy stays true,
 * and --suggest to find jokes no entry protects yet: the lexicon's words
 * (policy/lexicon.h) where no entry matches, as entries to review.
 */
#define _GNU_SOURCE
#include "khsend.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"
#include "policy/lexicon.h"
#include "policy/matcher.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const scan_usage[] = {
	"khsend scan [--policy <file>]... [--stale | --suggest] [<tree>]",
	NULL,
};

#define MAX_SCAN_BYTES (64u << 20)
/* A suggestion lists at most this many places, and names at most this many files. */
#define SHOWN_PLACES 5
#define NAMED_FILES 10

/* One word the lexicon found where no entry matches: a suggested entry. */
struct suggestion {
	char *category, *word;	/* the word in lower case */
	struct strvec places;	/* "file:line: text" */
	struct strvec files;
	size_t count;
	int last_line;		/* in files.v[files.nr - 1]: two terms may find the same word */
};

struct scan {
	const struct policy *policy;	/* what is looked for */
	const struct policy *known;	/* --suggest: what needs no suggestion */
	struct matcher *matcher, *known_matcher;
	unsigned char *hits, *line_hits, *known_hits;
	size_t *found;			/* per entry */
	int stale;			/* only count */
	size_t files;
	struct suggestion *sugg;
	size_t nsugg, asugg;
};

/* Does any entry of the known policy match this line of this file? */
static int
known_here(const struct scan *s, const char *rel, const char *line)
{
	for (size_t k = 0; k < s->known->nr; k++)
		if (s->known_hits[k] && policy_entry_covers(s->known->v[k], rel) &&
		    policy_entry_count(s->known->v[k], line))
			return 1;
	return 0;
}

static struct suggestion *
suggestion_for(struct scan *s, const char *category, const char *text, size_t len)
{
	struct suggestion *g;
	char *word = xstrndup(text, len);

	for (char *p = word; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (size_t i = 0; i < s->nsugg; i++)
		if (!strcmp(s->sugg[i].word, word) && !strcmp(s->sugg[i].category, category)) {
			free(word);
			return &s->sugg[i];
		}
	ALLOC_GROW(s->sugg, s->nsugg + 1, s->asugg);
	g = &s->sugg[s->nsugg++];
	memset(g, 0, sizeof(*g));
	g->category = xstrdup(category);
	g->word = word;
	strvec_init(&g->places);
	strvec_init(&g->files);
	return g;
}

static void
suggest_line(struct scan *s, const struct policy_entry *e, const char *rel, int lineno, const char *line)
{
	size_t len = strlen(line), at = 0, so, eo;

	while (at < len && policy_entry_find(e, line, len, at, &so, &eo)) {
		struct suggestion *g = suggestion_for(s, e->lexicon, line + so, eo - so);

		at = eo > so ? eo : so + 1;
		if (g->files.nr && g->last_line == lineno && !strcmp(g->files.v[g->files.nr - 1], rel))
			continue;
		g->last_line = lineno;
		if (g->places.nr < SHOWN_PLACES)
			strvec_pushf(&g->places, "%s:%d: %.100s", rel, lineno, line);
		if (!g->files.nr || strcmp(g->files.v[g->files.nr - 1], rel))
			strvec_push(&g->files, rel);
		g->count++;
	}
}

static void
scan_file(struct scan *s, const char *rel, const char *abs)
{
	struct strbuf buf = STRBUF_INIT;
	int lineno = 0, any = 0;

	for (size_t i = 0; i < s->policy->nr && !any; i++)
		any = policy_entry_covers(s->policy->v[i], rel);
	if (!any)
		return;
	if (strbuf_read_file(&buf, abs, MAX_SCAN_BYTES) < 0) {
		warning("cannot read '%s': %s", abs, strerror(errno));
		strbuf_release(&buf);
		return;
	}
	s->files++;
	/* Like git grep: a NUL in the first 8000 bytes means a binary file. */
	if (memchr(buf.buf, '\0', buf.len < 8000 ? buf.len : 8000)) {
		strbuf_release(&buf);
		return;
	}
	/* The whole file through the filter first: most files hold no entry's text at all. */
	memset(s->hits, 0, s->policy->nr);
	if (!matcher_scan(s->matcher, buf.buf, buf.len, s->hits)) {
		strbuf_release(&buf);
		return;
	}
	for (size_t k = 0; k < s->policy->nr; k++)
		if (s->hits[k] && !policy_entry_covers(s->policy->v[k], rel))
			s->hits[k] = 0;
	if (s->known) {
		memset(s->known_hits, 0, s->known->nr);
		matcher_scan(s->known_matcher, buf.buf, buf.len, s->known_hits);
	}
	for (char *line = buf.buf, *nl; line < buf.buf + buf.len; line = nl + 1) {
		nl = strchrnul(line, '\n');
		*nl = '\0';
		lineno++;
		/* Then each line, and only the entries whose text it may hold. */
		memset(s->line_hits, 0, s->policy->nr);
		if (!matcher_scan(s->matcher, line, (size_t)(nl - line), s->line_hits))
			continue;
		for (size_t k = 0; k < s->policy->nr; k++) {
			const struct policy_entry *e = s->policy->v[k];

			if (!s->hits[k] || !s->line_hits[k] || !policy_entry_count(e, line))
				continue;
			s->found[k]++;
			if (s->known) {
				if (!known_here(s, rel, line))
					suggest_line(s, e, rel, lineno, line);
			} else if (!s->stale) {
				char *text = xstrdup(line);

				sanitize_terminal(text);
				printf("%s:%d: %s: %s\n", rel, lineno, e->id, text);
				free(text);
			}
		}
		if (!*nl && nl == buf.buf + buf.len)
			break;
	}
	strbuf_release(&buf);
}

/* Walk the tree in name order (so output is stable), skipping .git. */
static void
walk(struct scan *s, struct strbuf *rel, struct strbuf *abs)
{
	struct strvec names = STRVEC_INIT;
	size_t rlen = rel->len, alen = abs->len;

	if (read_dir_sorted(abs->buf, &names)) {
		warning("cannot read directory '%s': %s", abs->buf, strerror(errno));
		return;
	}
	for (size_t i = 0; i < names.nr; i++) {
		struct stat st;

		if (!strcmp(names.v[i], ".git"))
			continue;

		strbuf_setlen(rel, rlen);
		strbuf_setlen(abs, alen);
		if (rlen)
			strbuf_addch(rel, '/');
		strbuf_addstr(rel, names.v[i]);
		strbuf_addf(abs, "/%s", names.v[i]);
		if (lstat(abs->buf, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(s, rel, abs);
		else if (S_ISREG(st.st_mode))
			scan_file(s, rel->buf, abs->buf);
	}
	strbuf_setlen(rel, rlen);
	strbuf_setlen(abs, alen);
	strvec_clear(&names);
}

/* A YAML double-quoted scalar: the only escapes it needs are \ " and control characters. */
static void
print_yaml_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static int
cmp_suggestion(const void *x, const void *y)
{
	const struct suggestion *a = x, *b = y;
	int c = strcmp(a->category, b->category);

	return c ? c : strcmp(a->word, b->word);
}

/* The suggestions as a policy a maintainer edits: loads as it is, every explanation a TODO. */
static void
print_suggestions(struct scan *s, const char *tree)
{
	struct strvec ids = STRVEC_INIT;
	size_t places = 0;

	if (s->nsugg)
		qsort(s->sugg, s->nsugg, sizeof(*s->sugg), cmp_suggestion);
	for (size_t i = 0; i < s->nsugg; i++)
		places += s->sugg[i].count;
	printf("# khsend scan --suggest %s: %zu %s of khsend's lexicon, in %zu %s, that no\n"
	       "# entry protects. Each is a guess: read the lines, keep the entries for real\n"
	       "# jokes, say in 'explain' what each joke means, and delete the rest.\n",
	       tree, s->nsugg, s->nsugg == 1 ? "word" : "words", places, places == 1 ? "place" : "places");
	printf("version: 1\nentries:\n");
	if (!s->nsugg)
		printf("  []\n");
	for (size_t i = 0; i < s->nsugg; i++) {
		const struct suggestion *g = &s->sugg[i];
		struct strbuf id = STRBUF_INIT;

		/* An id from the word: a-z, 0-9 and '-', unique. */
		strbuf_addf(&id, "%s-", g->category);
		for (const char *p = g->word; *p; p++)
			if (isalnum((unsigned char)*p) && !(*p & 0x80))
				strbuf_addch(&id, *p);
			else if (id.buf[id.len - 1] != '-')
				strbuf_addch(&id, '-');
		while (id.buf[id.len - 1] == '-')
			strbuf_setlen(&id, id.len - 1);
		if (!strcmp(id.buf, g->category))
			strbuf_addstr(&id, "-word");
		for (size_t len = id.len, n = 2; strvec_contains(&ids, id.buf); n++) {
			strbuf_setlen(&id, len);
			strbuf_addf(&id, "-%zu", n);
		}
		strvec_push(&ids, id.buf);
		printf("\n  # %s: %zu %s in %zu %s\n", g->category, g->count, g->count == 1 ? "place" : "places",
		       g->files.nr, g->files.nr == 1 ? "file" : "files");
		for (size_t k = 0; k < g->places.nr; k++) {
			char *text = xstrdup(g->places.v[k]);

			sanitize_terminal(text);
			for (char *t = text; *t; t++)
				if (*t == '\t')
					*t = ' ';
			printf("  #   %s\n", text);
			free(text);
		}
		printf("  - id: %s\n    string: ", id.buf);
		print_yaml_quoted(g->word);
		printf("\n    ignore-case: true\n    paths: [");
		if (g->files.nr > NAMED_FILES) {
			printf("\"**\"");
		} else {
			for (size_t k = 0; k < g->files.nr; k++) {
				printf(k ? ", " : "");
				print_yaml_quoted(g->files.v[k]);
			}
		}
		printf("]\n    action: annotate\n    explain: |\n      TODO: what the joke is, in plain English.\n");
		strbuf_release(&id);
	}
	strvec_clear(&ids);
}

static void
scan_release(struct scan *s)
{
	for (size_t i = 0; i < s->nsugg; i++) {
		free(s->sugg[i].category);
		free(s->sugg[i].word);
		strvec_clear(&s->sugg[i].places);
		strvec_clear(&s->sugg[i].files);
	}
	free(s->sugg);
	matcher_free(s->matcher);
	matcher_free(s->known_matcher);
	free(s->hits);
	free(s->line_hits);
	free(s->known_hits);
	free(s->found);
}

int
cmd_scan(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT;
	struct strbuf rel = STRBUF_INIT, abs = STRBUF_INIT;
	struct policy lexicon = POLICY_INIT;
	struct khsend_ctx ctx;
	struct scan s = { 0 };
	size_t stale = 0;
	int only_stale = 0, suggest = 0, ret = EXIT_CLEAN;
	const char *tree = NULL;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_BOOL(0, "stale", &only_stale, "list only the entries that match nowhere (exit 1 if any)"),
		OPT_BOOL(0, "suggest", &suggest, "propose entries for the lexicon's words that no entry protects"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, scan_usage, 0);
	if (argc > 2)
		usage_msg_opt(scan_usage, options, "give at most one tree");
	if (only_stale == 1 && suggest == 1)
		usage_msg_opt(scan_usage, options, "--stale and --suggest do not go together");
	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	if (argc == 2)
		tree = argv[1];
	else if (ctx.repo && ctx.repo->worktree)
		tree = ctx.repo->worktree;
	else
		tree = ".";
	if (!is_dir(tree)) {
		error("'%s' is not a directory", tree);
		ret = EXIT_ERROR;
		goto out;
	}
	s.policy = &ctx.policy;
	if (suggest == 1) {
		if (lexicon_load(&lexicon, getenv("KHSEND_LEXICON"))) {
			ret = EXIT_ERROR;
			goto out;
		}
		s.known = &ctx.policy;
		s.policy = &lexicon;
		s.known_matcher = matcher_new(s.known);
		s.known_hits = xcalloc(s.known->nr + 1, 1);
	}
	s.stale = only_stale == 1;
	s.matcher = matcher_new(s.policy);
	s.hits = xcalloc(s.policy->nr + 1, 1);
	s.line_hits = xcalloc(s.policy->nr + 1, 1);
	s.found = xcalloc(s.policy->nr + 1, sizeof(*s.found));
	strbuf_addstr(&abs, tree);
	while (abs.len > 1 && abs.buf[abs.len - 1] == '/')
		strbuf_setlen(&abs, abs.len - 1);
	walk(&s, &rel, &abs);

	if (s.known) {
		print_suggestions(&s, tree);
		note("%zu %s to review (%zu files read)", s.nsugg, s.nsugg == 1 ? "suggestion" : "suggestions",
		     s.files);
		goto out;
	}
	for (size_t i = 0; i < ctx.policy.nr; i++) {
		if (s.found[i])
			continue;
		stale++;
		if (s.stale)
			printf("%s: matches nowhere in %s (defined at %s)\n", ctx.policy.v[i]->id, tree,
			       ctx.policy.v[i]->origin);
	}
	if (s.stale) {
		note("%zu of %zu %s match nowhere", stale, ctx.policy.nr, ctx.policy.nr == 1 ? "entry" : "entries");
		ret = stale ? EXIT_FINDING : EXIT_CLEAN;
	} else {
		note("%zu of %zu %s found (%zu files read)%s", ctx.policy.nr - stale, ctx.policy.nr,
		     ctx.policy.nr == 1 ? "entry" : "entries", s.files,
		     stale ? "; 'khsend scan --stale' lists the others" : "");
	}
out:
	scan_release(&s);
	policy_release(&lexicon);
	strbuf_release(&rel);
	strbuf_release(&abs);
	ctx_release(&ctx);
	strvec_clear(&policies);
	return ret;
}
