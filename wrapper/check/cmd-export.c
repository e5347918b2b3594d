// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend policy export: the policy as the ignore lists of the spell
 * checkers that keep proposing the "fixes", so they stop at the source:
 *
 *   codespell        an --exclude-file: every line of the tree an entry
 *                    occurs in, exactly as codespell reads it (the whole
 *                    line is then skipped, and nothing else)
 *   codespell-words  an --ignore-words file: the words of the protected
 *                    text that codespell's dictionary lists as typos
 *   typos            a _typos.toml: the protected strings as
 *                    extend-ignore-re (but regexes only PCRE2 reads),
 *                    their words and identifiers as always valid
 *                    (extend-words, extend-identifiers)
 *   checkpatch       a --codespellfile for checkpatch.pl --codespell:
 *                    codespell's dictionary without the protected words
 *
 * The protected text is found in a tree (khsend scan's walk), so regex
 * entries give the text they really match there.
 */
#define _GNU_SOURCE
#include "khsend.h"
#include "check/scan.h"
#include "lib/json.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const export_usage[] = {
	"khsend policy export --format=codespell|codespell-words|typos|checkpatch [--policy <file>]...\n"
	"                     [--dictionary <file>] [<tree>]",
	NULL,
};

/* Where checkpatch.pl and Debian's codespell keep codespell's dictionary, in checkpatch's order. */
static const char *const dictionaries[] = {
	"/usr/share/codespell/dictionary.txt",
	"/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt",
};

enum export_format { EXPORT_CODESPELL, EXPORT_CODESPELL_WORDS, EXPORT_TYPOS, EXPORT_CHECKPATCH };

struct export_run {
	const struct policy *policy;
	enum export_format format;
	struct strvec lines;		/* codespell: the lines, each with its newline */
	struct strvec words;		/* the words of the protected text, lower-cased */
	struct strvec idents;		/* typos: identifiers that are more than one word */
};

/* codespell's word: [\w\-'’]+ (Python's \w: any Unicode letter; every byte of UTF-8 is taken as one). */
static int
codespell_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '\'' || c >= 0x80;
}

/* typos' identifier: XID_Continue, here ASCII letters, digits, '_' and any UTF-8 byte. */
static int
ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

static void
push_lower(struct strvec *v, const char *s, size_t len)
{
	char *w = xstrndup(s, len);

	for (char *p = w; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	strvec_push_nodup(v, w);
}

/* Does an identifier need splitting into words (snake_case, CamelCase, digits)? */
static int
compound(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '_' || isdigit((unsigned char)s[i]) ||
		    (i && islower((unsigned char)s[i - 1]) && isupper((unsigned char)s[i])))
			return 1;
	return 0;
}

/* The words (and, for typos, identifiers) of the protected text at [so, eo) of the line. */
static void
take_words(struct export_run *r, const char *line, size_t so, size_t eo)
{
	int (*is_word)(unsigned char) = r->format == EXPORT_TYPOS ? ident_char : codespell_char;
	size_t len = strlen(line);

	/* A match that starts or ends inside a word covers that word. */
	while (so > 0 && is_word((unsigned char)line[so - 1]))
		so--;
	while (eo < len && is_word((unsigned char)line[eo]))
		eo++;
	for (size_t i = so; i < eo;) {
		size_t n = 0;

		while (i + n < eo && is_word((unsigned char)line[i + n]))
			n++;
		if (!n) {
			i++;
			continue;
		}
		if (isdigit((unsigned char)line[i]))
			;	/* a number: no spell checker reads those */
		else if (r->format == EXPORT_TYPOS && compound(line + i, n))
			strvec_push_nodup(&r->idents, xstrndup(line + i, n));
		else
			push_lower(&r->words, line + i, n);
		i += n;
	}
}

/* A line as codespell reads it back from a UTF-8 exclude file: a line that is not UTF-8 it decodes as Latin-1. */
static char *
as_codespell_reads(const char *line)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)line;

	for (; *p; p++) {
		size_t n = utf8_len(p);

		if (!n)
			break;
		p += n - 1;
	}
	if (!*p) {
		strbuf_addf(&sb, "%s\n", line);
		return strbuf_detach(&sb, NULL);
	}
	for (p = (const unsigned char *)line; *p; p++) {
		if (*p < 0x80) {
			strbuf_addch(&sb, (char)*p);
		} else {
			strbuf_addch(&sb, (char)(0xc0 | (*p >> 6)));
			strbuf_addch(&sb, (char)(0x80 | (*p & 0x3f)));
		}
	}
	strbuf_addch(&sb, '\n');
	return strbuf_detach(&sb, NULL);
}

static void
occurrence(void *data, size_t entry, const char *path, int lineno, const char *line)
{
	struct export_run *r = data;
	const struct policy_entry *e = r->policy->v[entry];
	size_t from = 0, len = strlen(line), so, eo;

	if (r->format == EXPORT_CODESPELL) {
		strvec_push_nodup(&r->lines, as_codespell_reads(line));
		return;
	}
	while (from <= len && policy_entry_find(e, line, len, from, &so, &eo)) {
		take_words(r, line, so, eo);
		from = eo > so ? eo : so + 1;
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort and drop the repeats. */
static void
sort_unique(struct strvec *v)
{
	size_t out = 0;

	strvec_sort(v);
	for (size_t i = 0; i < v->nr; i++) {
		if (out && !strcmp(v->v[out - 1], v->v[i])) {
			free((char *)v->v[i]);
			continue;
		}
		v->v[out++] = v->v[i];
	}
	v->nr = out;
	if (v->alloc)
		v->v[out] = NULL;
}

static int
contains_sorted(const struct strvec *v, const char *s)
{
	return v->nr && bsearch(&s, v->v, v->nr, sizeof(*v->v), cmp_str) != NULL;
}

/* The misspellings a codespell dictionary lists ("wrong->right, other"), lower-cased and sorted. */
static int
read_dictionary(const char *path, struct strvec *keys, struct strbuf *text)
{
	if (strbuf_read_file(text, path, 64u << 20) < 0)
		return error_errno("cannot read the dictionary '%s'", path);
	for (const char *p = text->buf; *p;) {
		const char *nl = strchrnul(p, '\n'), *arrow = memmem(p, (size_t)(nl - p), "->", 2);

		if (arrow && *p != '#')
			push_lower(keys, p, (size_t)(arrow - p));
		p = *nl ? nl + 1 : nl;
	}
	sort_unique(keys);
	return 0;
}

static const char *
find_dictionary(void)
{
	for (size_t i = 0; i < sizeof(dictionaries) / sizeof(*dictionaries); i++)
		if (!access(dictionaries[i], R_OK))
			return dictionaries[i];
	return NULL;
}

/* Keep only the words the dictionary calls misspelled. */
static void
filter_words(struct strvec *words, const struct strvec *keys)
{
	size_t out = 0;

	for (size_t i = 0; i < words->nr; i++) {
		if (contains_sorted(keys, words->v[i]))
			words->v[out++] = words->v[i];
		else
			free((char *)words->v[i]);
	}
	words->nr = out;
	if (words->alloc)
		words->v[out] = NULL;
}

/* A TOML basic string. */
static void
toml_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(sb, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(sb, "\\u%04x", *p);
		else
			strbuf_addch(sb, (char)*p);
	}
	strbuf_addch(sb, '"');
}

/*
 * What of PCRE2 Rust's regex crate (what typos uses) does not read: \K,
 * lookaround, atomic groups, backreferences, possessive repeats.  NULL if
 * the regex has none of them.
 */
static const char *
pcre_only(const char *re)
{
	static const char *const what[] = { "\\K", "(?=", "(?!", "(?<=", "(?<!", "(?>", "*+", "++", "?+", "}+" };

	for (const char *p = re; *p; p++) {
		if (p[0] == '\\' && p[1] >= '1' && p[1] <= '9')
			return "a backreference";
		for (size_t i = 0; i < sizeof(what) / sizeof(*what); i++)
			if (!strncmp(p, what[i], strlen(what[i])) && (p == re || p[-1] != '\\'))
				return what[i];
		if (p[0] == '\\' && p[1])
			p++;
	}
	return NULL;
}

/* The entry as a regex of Rust's regex crate: a string escaped; a PCRE2 regex as it is. */
static void
rust_regex(struct strbuf *sb, const struct policy_entry *e)
{
	if (e->ignore_case)
		strbuf_addstr(sb, "(?i)");
	if (e->regex_src) {
		strbuf_addstr(sb, e->regex_src);
		return;
	}
	for (const char *p = e->string; *p; p++) {
		if (strchr("\\.+*?()|[]{}^$#&-~", *p))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *p);
	}
}

/* A typos table of always-valid words: each "word" = "word". */
static void
toml_valid_table(struct strbuf *sb, const char *name, const struct strvec *v)
{
	strbuf_addf(sb, "\n[%s]\n", name);
	for (size_t i = 0; i < v->nr; i++) {
		toml_string(sb, v->v[i]);
		strbuf_addstr(sb, " = ");
		toml_string(sb, v->v[i]);
		strbuf_addch(sb, '\n');
	}
}

static void
print_typos(const struct export_run *r)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "# khsend policy export --format=typos: keeps typos from \"fixing\" the deliberate\n"
			   "# jokes of khsend's policy.  Save it as _typos.toml (or .typos.toml, typos.toml)\n"
			   "# at the top of the tree, or give it to typos with --config.\n"
			   "[default]\nextend-ignore-re = [\n");
	for (size_t i = 0; i < r->policy->nr; i++) {
		const struct policy_entry *e = r->policy->v[i];
		const char *unread = e->regex_src ? pcre_only(e->regex_src) : NULL;
		struct strbuf re = STRBUF_INIT;

		if (unread) {
			/* Its words are still below: typos only reads them in other places too. */
			strbuf_addf(&sb, "    # %s: its regex uses %s, which typos cannot read\n", e->id, unread);
			continue;
		}
		rust_regex(&re, e);
		strbuf_addstr(&sb, "    ");
		toml_string(&sb, re.buf);
		strbuf_addstr(&sb, ",  # ");
		strbuf_addstr(&sb, r->policy->v[i]->id);
		strbuf_addch(&sb, '\n');
		strbuf_release(&re);
	}
	strbuf_addstr(&sb, "]\n");
	toml_valid_table(&sb, "default.extend-identifiers", &r->idents);
	toml_valid_table(&sb, "default.extend-words", &r->words);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
}

/* codespell's dictionary, but for the lines of protected words. */
static void
print_checkpatch(const struct strbuf *dict, const struct strvec *words)
{
	for (const char *p = dict->buf; *p;) {
		const char *nl = strchrnul(p, '\n'), *arrow = memmem(p, (size_t)(nl - p), "->", 2);
		int keep = 1;

		if (arrow) {
			char *key = xstrndup(p, (size_t)(arrow - p));

			for (char *k = key; *k; k++)
				*k = (char)tolower((unsigned char)*k);
			keep = !contains_sorted(words, key);
			free(key);
		}
		if (keep)
			fwrite(p, 1, (size_t)(nl - p) + (*nl ? 1 : 0), stdout);
		p = *nl ? nl + 1 : nl;
	}
}

/* checkpatch reads the tree's scripts/spelling.txt too, which no option leaves out: say which words stay. */
static void
note_spelling_txt(const char *tree, const struct strvec *words)
{
	char *path = xstrfmt("%s/scripts/spelling.txt", tree);
	struct strbuf sb = STRBUF_INIT, left = STRBUF_INIT;

	if (strbuf_read_file(&sb, path, 16u << 20) >= 0) {
		for (const char *p = sb.buf; *p;) {
			const char *nl = strchrnul(p, '\n'), *bars = memmem(p, (size_t)(nl - p), "||", 2);

			if (bars && *p != '#') {
				char *key = xstrndup(p, (size_t)(bars - p));

				if (contains_sorted(words, key))
					strbuf_addf(&left, "%s'%s'", left.len ? ", " : "", key);
				free(key);
			}
			p = *nl ? nl + 1 : nl;
		}
		if (left.len)
			note("checkpatch.pl also reads %s, which lists %s; it still proposes a fix for %s "
			     "(only --ignore TYPO_SPELLING stops that)", path, left.buf,
			     strchr(left.buf, ',') ? "those" : "it");
	}
	free(path);
	strbuf_release(&sb);
	strbuf_release(&left);
}

int
cmd_policy_export(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT, keys = STRVEC_INIT;
	struct strbuf dict = STRBUF_INIT;
	struct export_run r = { NULL, EXPORT_CODESPELL, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT };
	struct khsend_ctx ctx;
	const char *format = NULL, *dictionary = NULL, *tree;
	int ret = EXIT_ERROR;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_STRING(0, "format", &format, "codespell|codespell-words|typos|checkpatch",
			   "which tool's ignore list to write"),
		OPT_STRING(0, "dictionary", &dictionary, "file",
			   "codespell's dictionary (default: where checkpatch.pl and Debian keep it)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, export_usage, 0);
	if (!format)
		usage_msg_opt(export_usage, options, "say which format: --format=codespell|codespell-words|typos|checkpatch");
	if (!strcmp(format, "codespell"))
		r.format = EXPORT_CODESPELL;
	else if (!strcmp(format, "codespell-words"))
		r.format = EXPORT_CODESPELL_WORDS;
	else if (!strcmp(format, "typos"))
		r.format = EXPORT_TYPOS;
	else if (!strcmp(format, "checkpatch"))
		r.format = EXPORT_CHECKPATCH;
	else
		usage_msg_opt(export_usage, options, "--format=%s: expected codespell, codespell-words, typos or checkpatch",
			      format);
	if (argc > 2)
		usage_msg_opt(export_usage, options, "give at most one tree");
	if (!dictionary && (r.format == EXPORT_CODESPELL_WORDS || r.format == EXPORT_CHECKPATCH))
		dictionary = find_dictionary();
	if (!dictionary && r.format == EXPORT_CHECKPATCH)
		die("no codespell dictionary found (apt-get install codespell, or give --dictionary <file>)");
	if (dictionary && (r.format == EXPORT_CODESPELL_WORDS || r.format == EXPORT_CHECKPATCH) &&
	    read_dictionary(dictionary, &keys, &dict))
		goto out_args;

	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	tree = scan_tree_arg(ctx.repo, argc == 2 ? argv[1] : NULL);
	if (!tree)
		goto out;
	r.policy = &ctx.policy;
	scan_tree(&ctx.policy, tree, occurrence, &r);
	sort_unique(&r.lines);
	sort_unique(&r.words);
	sort_unique(&r.idents);
	if (keys.nr)
		filter_words(&r.words, &keys);
	switch (r.format) {
	case EXPORT_CODESPELL:
		for (size_t i = 0; i < r.lines.nr; i++)
			fputs(r.lines.v[i], stdout);
		break;
	case EXPORT_CODESPELL_WORDS:
		if (!dictionary)
			note("no codespell dictionary found: every word of the protected text is listed");
		for (size_t i = 0; i < r.words.nr; i++)
			printf("%s\n", r.words.v[i]);
		break;
	case EXPORT_TYPOS:
		print_typos(&r);
		break;
	case EXPORT_CHECKPATCH:
		print_checkpatch(&dict, &r.words);
		note_spelling_txt(tree, &r.words);
		break;
	}
	ret = EXIT_CLEAN;
out:
	ctx_release(&ctx);
out_args:
	strvec_clear(&r.lines);
	strvec_clear(&r.words);
	strvec_clear(&r.idents);
	strvec_clear(&keys);
	strvec_clear(&policies);
	strbuf_release(&dict);
	return ret;
}
