// SPDX-License-Identifier: GPL-2.0-only
/*
 * policy: load, validate and layer policy files with libyaml's document
 * API, after netplan's key tables and error format.  Every problem in a
 * file is reported (not just the first) as "file:line:col: message".
 */
#define _GNU_SOURCE
#include "policy/policy.h"
#include "policy/glob.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/repo.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* policy.yaml as shipped, linked in by embedded-policy.S. */
extern const char khsend_embedded_policy[];
extern const char khsend_embedded_policy_end[];

#define MAX_POLICY_BYTES (1u << 20)
#define MAX_DEPTH 16
#define MAX_STRING_BYTES 1024
#define MAX_EXPLAIN_BYTES 8192
#define MAX_ID_BYTES 64

struct loader {
	const char *name;	/* file name used in messages */
	const char *buf;
	size_t len;
	yaml_document_t doc;
	int problems;
};

__attribute__((format(printf, 3, 4)))
static void
problem_at(struct loader *ld, yaml_mark_t mark, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	sanitize_terminal(sb.buf);
	fflush(stdout);
	fprintf(stderr, "%s:%zu:%zu: %s\n", ld->name, mark.line + 1, mark.column + 1, sb.buf);
	strbuf_release(&sb);
	ld->problems++;
}

/* Show the offending line and a caret under the column, as netplan does. */
static void
show_source_line(struct loader *ld, yaml_mark_t mark)
{
	const char *p = ld->buf, *end = ld->buf + ld->len;
	struct strbuf line = STRBUF_INIT;

	for (size_t l = 0; l < mark.line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		p = nl ? nl + 1 : end;
	}
	if (p >= end)
		return;
	strbuf_add(&line, p, strcspn(p, "\n"));
	sanitize_terminal(line.buf);
	fprintf(stderr, "%s\n%*s^\n", line.buf, (int)mark.column, "");
	strbuf_release(&line);
}

static yaml_mark_t
mark_of_offset(struct loader *ld, size_t offset)
{
	yaml_mark_t m = { offset, 0, 0 };

	for (size_t i = 0; i < offset && i < ld->len; i++) {
		if (ld->buf[i] == '\n') {
			m.line++;
			m.column = 0;
		} else {
			m.column++;
		}
	}
	return m;
}

/* libyaml's own error report (tests/example-reformatter.c), in our format. */
static void
report_parser_error(struct loader *ld, yaml_parser_t *parser)
{
	yaml_mark_t mark;

	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		die("out of memory while reading '%s'", ld->name);
	case YAML_READER_ERROR:
		mark = mark_of_offset(ld, parser->problem_offset);
		if (parser->problem_value != -1)
			problem_at(ld, mark, "invalid YAML: %s (byte 0x%02x)",
				   parser->problem, (unsigned)parser->problem_value);
		else
			problem_at(ld, mark, "invalid YAML: %s", parser->problem);
		return;
	default:
		mark = parser->problem_mark;
		if (mark.index < ld->len && ld->buf[mark.index] == '\t')
			problem_at(ld, mark, "invalid YAML: tabs are not allowed for indentation (use spaces)");
		else if (parser->context)
			problem_at(ld, mark, "invalid YAML: %s (%s at line %zu column %zu)",
				   parser->problem, parser->context,
				   parser->context_mark.line + 1, parser->context_mark.column + 1);
		else
			problem_at(ld, mark, "invalid YAML: %s", parser->problem ? parser->problem : "syntax error");
		show_source_line(ld, mark);
	}
}

/*
 * The document API resolves aliases silently, so look at the events first:
 * aliases, anchors, explicit tags and extra documents are all refused.
 * Returns 0 when the stream is well-formed (even if it had refusals).
 */
static int
prescan(struct loader *ld)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int documents = 0, depth = 0, ret = 0;

	if (!yaml_parser_initialize(&parser))
		die("out of memory while reading '%s'", ld->name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)ld->buf, ld->len);
	for (;;) {
		yaml_char_t *anchor = NULL, *tag = NULL;
		int done;

		if (!yaml_parser_parse(&parser, &ev)) {
			report_parser_error(ld, &parser);
			ret = -1;
			break;
		}
		switch (ev.type) {
		case YAML_ALIAS_EVENT:
			problem_at(ld, ev.start_mark, "aliases are not allowed in a policy (found '*%s')",
				   (const char *)ev.data.alias.anchor);
			break;
		case YAML_SCALAR_EVENT:
			anchor = ev.data.scalar.anchor;
			tag = ev.data.scalar.tag;
			break;
		case YAML_SEQUENCE_START_EVENT:
			anchor = ev.data.sequence_start.anchor;
			tag = ev.data.sequence_start.tag;
			depth++;
			break;
		case YAML_MAPPING_START_EVENT:
			anchor = ev.data.mapping_start.anchor;
			tag = ev.data.mapping_start.tag;
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++documents > 1)
				problem_at(ld, ev.start_mark, "a policy file holds one YAML document");
			break;
		default:
			break;
		}
		if (anchor)
			problem_at(ld, ev.start_mark, "anchors are not allowed in a policy (found '&%s')",
				   (const char *)anchor);
		if (tag)
			problem_at(ld, ev.start_mark, "tags are not allowed in a policy (found '%s')",
				   (const char *)tag);
		done = ev.type == YAML_STREAM_END_EVENT;
		/*
		 * A policy is a few levels deep.  libyaml's work grows with the
		 * square of the nesting, so stop long before it matters.
		 */
		if (depth > MAX_DEPTH) {
			problem_at(ld, ev.start_mark, "nested more than %d levels deep; a policy needs 4", MAX_DEPTH);
			ret = -1;
			done = 1;
		}
		yaml_event_delete(&ev);
		if (done)
			break;
	}
	yaml_parser_delete(&parser);
	return ret;
}

static const char *
node_type_name(yaml_node_type_t t)
{
	switch (t) {
	case YAML_SCALAR_NODE:
		return "a single value";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static const char *
scalar(yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

/* A scalar as a C string, refusing embedded NULs and oversized values. */
static const char *
string_value(struct loader *ld, yaml_node_t *node, const char *key, size_t max)
{
	const char *s = scalar(node);

	if (strlen(s) != node->data.scalar.length) {
		problem_at(ld, node->start_mark, "'%s' contains a NUL byte", key);
		return NULL;
	}
	if (node->data.scalar.length > max) {
		problem_at(ld, node->start_mark, "'%s' is too long (%zu bytes, at most %zu)",
			   key, node->data.scalar.length, max);
		return NULL;
	}
	return s;
}

/* Booleans are the plain words true and false, nothing else. */
static int
bool_value(struct loader *ld, yaml_node_t *node, const char *key)
{
	if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (!strcmp(scalar(node), "true"))
			return 1;
		if (!strcmp(scalar(node), "false"))
			return 0;
	}
	problem_at(ld, node->start_mark, "'%s' must be true or false, not '%s'", key, scalar(node));
	return -1;
}

static int
action_value(struct loader *ld, yaml_node_t *node, enum policy_action *out)
{
	static const char *names[] = { "warn", "annotate", "block" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(scalar(node), names[i])) {
			*out = (enum policy_action)i;
			return 0;
		}
	problem_at(ld, node->start_mark, "unknown action '%s' (expected block, annotate or warn)",
		   scalar(node));
	return -1;
}

/* One entry as it is being read; -1 in a flag means "not given". */
struct entry_build {
	struct policy_entry *e;
	yaml_node_t *node;
	yaml_node_t *id_node, *string_node, *regex_node, *explain_node;
	int ignore_case, allow_override, disabled, action_set, case_change;
	size_t translations_alloc;
};

struct defaults {
	enum policy_action action;
	int ignore_case, allow_override;
};

typedef void (*field_fn)(struct loader *, yaml_node_t *value, void *target);

struct field {
	const char *key;
	yaml_node_type_t type;
	field_fn fn;
};

static void
entry_id(struct loader *ld, yaml_node_t *v, void *target)
{
	struct entry_build *b = target;
	const char *s = string_value(ld, v, "id", MAX_ID_BYTES);

	b->id_node = v;
	if (!s)
		return;
	if (!*s || s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-")]) {
		problem_at(ld, v->start_mark, "id '%s' may only use a-z, 0-9 and '-'", s);
		return;
	}
	b->e->id = xstrdup(s);
}

static void
entry_string(struct loader *ld, yaml_node_t *v, void *target)
{
	struct entry_build *b = target;
	const char *s = string_value(ld, v, "string", MAX_STRING_BYTES);

	b->string_node = v;
	if (!s)
		return;
	if (!*s)
		problem_at(ld, v->start_mark, "'string' is empty");
	else if (strchr(s, '\n'))
		problem_at(ld, v->start_mark, "'string' spans lines, but matching is per line");
	else
		b->e->string = xstrdup(s);
}

static void
entry_regex(struct loader *ld, yaml_node_t *v, void *target)
{
	struct entry_build *b = target;
	const char *s = string_value(ld, v, "regex", MAX_STRING_BYTES);

	b->regex_node = v;
	if (!s)
		return;
	if (!*s)
		problem_at(ld, v->start_mark, "'regex' is empty");
	else
		b->e->regex_src = xstrdup(s);
}

static void
entry_ignore_case(struct loader *ld, yaml_node_t *v, void *target)
{
	((struct entry_build *)target)->ignore_case = bool_value(ld, v, "ignore-case");
}

/* "case-change": is a change of case only (Borked -> borked) an alteration? */
static void
entry_case_change(struct loader *ld, yaml_node_t *v, void *target)
{
	const char *s = string_value(ld, v, "case-change", MAX_ID_BYTES);

	if (!s)
		return;
	if (!strcmp(s, "alteration"))
		((struct entry_build *)target)->case_change = 1;
	else if (!strcmp(s, "ignore"))
		((struct entry_build *)target)->case_change = 0;
	else
		problem_at(ld, v->start_mark, "'case-change' is 'alteration' or 'ignore', not '%s'", s);
}

static void
entry_allow_override(struct loader *ld, yaml_node_t *v, void *target)
{
	((struct entry_build *)target)->allow_override = bool_value(ld, v, "allow-override");
}

static void
entry_disabled(struct loader *ld, yaml_node_t *v, void *target)
{
	((struct entry_build *)target)->disabled = bool_value(ld, v, "disabled");
}

static void
entry_action(struct loader *ld, yaml_node_t *v, void *target)
{
	struct entry_build *b = target;

	if (!action_value(ld, v, &b->e->action))
		b->action_set = 1;
}

/* An explanation's text, trimmed; NULL (reported) when it is empty or unfit. */
static char *
explain_text(struct loader *ld, yaml_node_t *v, const char *key, const char *empty)
{
	const char *s = string_value(ld, v, key, MAX_EXPLAIN_BYTES);
	struct strbuf sb = STRBUF_INIT;

	if (!s)
		return NULL;
	strbuf_addstr(&sb, s);
	strbuf_trim(&sb);
	if (!sb.len) {
		problem_at(ld, v->start_mark, "%s", empty);
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* One translation as it is being read: "ja: text" or "ja: {text, reviewed, reviewed-by}". */
struct translation_build {
	struct policy_text *t;
	yaml_node_t *text_node, *reviewed_by_node;
	int reviewed;
};

static void
translation_text(struct loader *ld, yaml_node_t *v, void *target)
{
	struct translation_build *tb = target;
	char *empty = xstrfmt("the '%s' text of 'explain' is empty", tb->t->lang);

	tb->text_node = v;
	tb->t->text = explain_text(ld, v, "text", empty);
	free(empty);
}

static void
translation_reviewed(struct loader *ld, yaml_node_t *v, void *target)
{
	((struct translation_build *)target)->reviewed = bool_value(ld, v, "reviewed");
}

static void
translation_reviewed_by(struct loader *ld, yaml_node_t *v, void *target)
{
	struct translation_build *tb = target;
	const char *s = string_value(ld, v, "reviewed-by", MAX_STRING_BYTES);

	tb->reviewed_by_node = v;
	if (s && !*s)
		problem_at(ld, v->start_mark, "'reviewed-by' is empty");
	else if (s)
		tb->t->reviewed_by = xstrdup(s);
}

static const struct field translation_fields[] = {
	{ "text", YAML_SCALAR_NODE, translation_text },
	{ "reviewed", YAML_SCALAR_NODE, translation_reviewed },
	{ "reviewed-by", YAML_SCALAR_NODE, translation_reviewed_by },
	{ NULL, YAML_NO_NODE, NULL },
};

static void process_mapping(struct loader *ld, yaml_node_t *map, const char *what,
			    const struct field *fields, void *target);
static int duplicate_key(struct loader *ld, yaml_node_t *map, yaml_node_pair_t *pair, const char *what);

/*
 * A translation: plain text is the policy author's own (reviewed); the
 * mapping form says whether a speaker of the language has confirmed it.
 */
static void
read_translation(struct loader *ld, yaml_node_t *v, struct policy_text *t)
{
	struct translation_build tb = { t, NULL, NULL, -1 };
	char *what;

	if (v->type == YAML_SCALAR_NODE) {
		char *empty = xstrfmt("the '%s' text of 'explain' is empty", t->lang);

		t->text = explain_text(ld, v, "explain", empty);
		t->reviewed = 1;
		free(empty);
		return;
	}
	if (v->type != YAML_MAPPING_NODE) {
		problem_at(ld, v->start_mark, "the '%s' translation must be text or a mapping "
			   "(text, reviewed, reviewed-by), not %s", t->lang, node_type_name(v->type));
		return;
	}
	what = xstrfmt("the '%s' translation", t->lang);
	process_mapping(ld, v, what, translation_fields, &tb);
	free(what);
	if (!tb.text_node)
		problem_at(ld, v->start_mark, "the '%s' translation has no 'text'", t->lang);
	if (tb.reviewed_by_node && tb.reviewed != 1)
		problem_at(ld, tb.reviewed_by_node->start_mark,
			   "the '%s' translation names a reviewer, so it needs 'reviewed: true'", t->lang);
	t->reviewed = tb.reviewed == 1;
}

/*
 * explain: the English text, or a mapping of language tags to text in which
 * "en" is required: "en: ...", "ja: ...", "zh_CN: {text: ..., reviewed: false}".
 */
static void
entry_explain(struct loader *ld, yaml_node_t *v, void *target)
{
	struct entry_build *b = target;
	struct policy_entry *e = b->e;
	yaml_node_t *en = NULL;

	b->explain_node = v;
	if (v->type == YAML_SCALAR_NODE) {
		e->explain = explain_text(ld, v, "explain",
					  "'explain' is empty; say what the joke is, in plain English");
		return;
	}
	if (v->type != YAML_MAPPING_NODE) {
		problem_at(ld, v->start_mark, "'explain' must be text or a mapping of language tags "
			   "to text (en: ..., ja: ...), not %s", node_type_name(v->type));
		return;
	}
	for (yaml_node_pair_t *pair = v->data.mapping.pairs.start; pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = yaml_document_get_node(&ld->doc, pair->key);
		yaml_node_t *value = yaml_document_get_node(&ld->doc, pair->value);
		const char *tag;

		if (key->type != YAML_SCALAR_NODE) {
			problem_at(ld, key->start_mark, "keys in 'explain' must be language tags");
			continue;
		}
		if (duplicate_key(ld, v, pair, "'explain'"))
			continue;
		tag = scalar(key);
		if (!strcmp(tag, "en")) {
			en = value;
			if (value->type != YAML_SCALAR_NODE)
				problem_at(ld, value->start_mark, "'en' in 'explain' must be text, not %s",
					   node_type_name(value->type));
			else
				e->explain = explain_text(ld, value, "explain", "the 'en' text of 'explain' is "
							  "empty; say what the joke is, in plain English");
			continue;
		}
		if (!i18n_tag_valid(tag)) {
			problem_at(ld, key->start_mark, "'%s' in 'explain' is not a language tag "
				   "(write it like en, ja, zh_CN or pt_BR)", tag);
			continue;
		}
		if (i18n_tag_is_english(tag)) {
			problem_at(ld, key->start_mark, "'%s' in 'explain': the English text is 'en'", tag);
			continue;
		}
		ALLOC_GROW(e->translations, e->translations_nr + 1, b->translations_alloc);
		e->translations[e->translations_nr] = (struct policy_text){ xstrdup(tag), NULL, 0, NULL };
		read_translation(ld, value, &e->translations[e->translations_nr++]);
	}
	if (!en)
		problem_at(ld, v->start_mark, "'explain' has no 'en' text (the English text is required, "
			   "and always shown)");
}

/* A list of strings; `check` may refuse an item (NULL: every string is fine). */
static void
string_list(struct loader *ld, yaml_node_t *v, const char *key, struct strvec *out,
	    const char *(*check)(const char *))
{
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(&ld->doc, *it);
		const char *s, *why;

		if (item->type != YAML_SCALAR_NODE) {
			problem_at(ld, item->start_mark, "each item of '%s' must be a string, not %s",
				   key, node_type_name(item->type));
			continue;
		}
		s = string_value(ld, item, key, MAX_STRING_BYTES);
		if (!s)
			continue;
		if (!*s) {
			problem_at(ld, item->start_mark, "empty item in '%s'", key);
			continue;
		}
		if (check && (why = check(s))) {
			problem_at(ld, item->start_mark, "'%s': %s", s, why);
			continue;
		}
		strvec_push(out, s);
	}
}

/* A path pattern, or "!pattern" for files the others would cover but the entry does not. */
static const char *
path_problem(const char *pattern)
{
	return path_glob_problem(pattern + (*pattern == '!'));
}

static void
entry_paths(struct loader *ld, yaml_node_t *v, void *target)
{
	string_list(ld, v, "paths", &((struct entry_build *)target)->e->paths, path_problem);
}

static void
entry_see(struct loader *ld, yaml_node_t *v, void *target)
{
	string_list(ld, v, "see", &((struct entry_build *)target)->e->see, NULL);
}

static const struct field entry_fields[] = {
	{ "id", YAML_SCALAR_NODE, entry_id },
	{ "string", YAML_SCALAR_NODE, entry_string },
	{ "regex", YAML_SCALAR_NODE, entry_regex },
	{ "ignore-case", YAML_SCALAR_NODE, entry_ignore_case },
	{ "case-change", YAML_SCALAR_NODE, entry_case_change },
	{ "paths", YAML_SEQUENCE_NODE, entry_paths },
	{ "action", YAML_SCALAR_NODE, entry_action },
	{ "allow-override", YAML_SCALAR_NODE, entry_allow_override },
	{ "explain", YAML_NO_NODE, entry_explain },	/* text, or a mapping of languages */
	{ "see", YAML_SEQUENCE_NODE, entry_see },
	{ "disabled", YAML_SCALAR_NODE, entry_disabled },
	{ NULL, YAML_NO_NODE, NULL },
};

static void
defaults_action(struct loader *ld, yaml_node_t *v, void *target)
{
	action_value(ld, v, &((struct defaults *)target)->action);
}

static void
defaults_ignore_case(struct loader *ld, yaml_node_t *v, void *target)
{
	int b = bool_value(ld, v, "ignore-case");

	if (b >= 0)
		((struct defaults *)target)->ignore_case = b;
}

static void
defaults_allow_override(struct loader *ld, yaml_node_t *v, void *target)
{
	int b = bool_value(ld, v, "allow-override");

	if (b >= 0)
		((struct defaults *)target)->allow_override = b;
}

static const struct field defaults_fields[] = {
	{ "action", YAML_SCALAR_NODE, defaults_action },
	{ "ignore-case", YAML_SCALAR_NODE, defaults_ignore_case },
	{ "allow-override", YAML_SCALAR_NODE, defaults_allow_override },
	{ NULL, YAML_NO_NODE, NULL },
};

static void
list_keys(struct strbuf *sb, const struct field *fields)
{
	for (const struct field *f = fields; f->key; f++)
		strbuf_addf(sb, "%s%s", f == fields ? "" : ", ", f->key);
}

/* Does a scalar key repeat an earlier one of the mapping?  Reported if so. */
static int
duplicate_key(struct loader *ld, yaml_node_t *map, yaml_node_pair_t *pair, const char *what)
{
	yaml_node_t *key = yaml_document_get_node(&ld->doc, pair->key);

	for (yaml_node_pair_t *prev = map->data.mapping.pairs.start; prev < pair; prev++) {
		yaml_node_t *pk = yaml_document_get_node(&ld->doc, prev->key);

		if (pk->type == YAML_SCALAR_NODE && !strcmp(scalar(pk), scalar(key))) {
			problem_at(ld, key->start_mark, "duplicate key '%s' in %s (first at line %zu)",
				   scalar(key), what, pk->start_mark.line + 1);
			return 1;
		}
	}
	return 0;
}

/*
 * Walk a mapping through a key table: unknown and duplicate keys and
 * values of the wrong shape are problems; known keys go to their handler
 * (a field of type YAML_NO_NODE takes any shape and checks it itself).
 */
static void
process_mapping(struct loader *ld, yaml_node_t *map, const char *what,
		const struct field *fields, void *target)
{
	yaml_node_pair_t *start = map->data.mapping.pairs.start;

	for (yaml_node_pair_t *pair = start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = yaml_document_get_node(&ld->doc, pair->key);
		yaml_node_t *value = yaml_document_get_node(&ld->doc, pair->value);
		const struct field *f;

		if (key->type != YAML_SCALAR_NODE) {
			problem_at(ld, key->start_mark, "keys in %s must be plain words", what);
			continue;
		}
		if (duplicate_key(ld, map, pair, what))
			continue;
		for (f = fields; f->key && strcmp(f->key, scalar(key)); f++)
			;
		if (!f->key) {
			struct strbuf known = STRBUF_INIT;

			list_keys(&known, fields);
			problem_at(ld, key->start_mark, "unknown key '%s' in %s (known keys: %s)",
				   scalar(key), what, known.buf);
			strbuf_release(&known);
			continue;
		}
		if (f->type != YAML_NO_NODE && value->type != f->type) {
			problem_at(ld, value->start_mark, "'%s' must be %s, not %s%s", f->key,
				   node_type_name(f->type), node_type_name(value->type),
				   f->type == YAML_SEQUENCE_NODE ? " (write [\"...\"] or a \"- ...\" list)" : "");
			continue;
		}
		f->fn(ld, value, target);
	}
}

void
policy_entry_free(struct policy_entry *e)
{
	if (!e)
		return;
	free(e->id);
	free(e->string);
	if (e->regex.code)
		bounded_regex_free(&e->regex);
	free(e->regex_src);
	strvec_clear(&e->paths);
	free(e->globs);
	free(e->explain);
	for (size_t i = 0; i < e->translations_nr; i++) {
		free(e->translations[i].lang);
		free(e->translations[i].text);
		free(e->translations[i].reviewed_by);
	}
	free(e->translations);
	strvec_clear(&e->see);
	free(e->origin);
	free(e->lexicon);
	strvec_clear(&e->stop_words);
	free(e);
}

/*
 * GNU's word edges \< and \> are no PCRE2: there they would match a
 * literal '<' or '>', and the entry would silently protect nothing.
 */
static int
uses_gnu_word_edge(const char *re)
{
	for (const char *p = re; *p; p++) {
		if (*p != '\\' || !p[1])
			continue;
		if (p[1] == '<' || p[1] == '>')
			return 1;
		p++;
	}
	return 0;
}

/*
 * Compile a regex; refuse ones that cannot compile or that match nothing
 * at all.  Its work is bounded when it runs (bounded-regex.h), so a
 * pattern that backtracks badly cannot stall khsend, whatever it is.
 */
static int
compile_regex(struct loader *ld, struct entry_build *b)
{
	struct policy_entry *e = b->e;
	struct strbuf err = STRBUF_INIT;
	size_t offset = 0, so, eo;
	int ret = -1;

	if (uses_gnu_word_edge(e->regex_src)) {
		problem_at(ld, b->regex_node->start_mark,
			   "regex '%s' uses GNU's \\< or \\>, which PCRE2 reads as a plain '<' or '>': "
			   "use \\b for a word edge", e->regex_src);
	} else if (bounded_regex_compile(&e->regex, e->regex_src, e->ignore_case, &err, &offset)) {
		problem_at(ld, b->regex_node->start_mark, "regex '%s' does not compile (at byte %zu): %s",
			   e->regex_src, offset, err.buf);
	} else if (bounded_regex_search(&e->regex, "", 0, 0, &so, &eo) != REGEX_NO_MATCH) {
		problem_at(ld, b->regex_node->start_mark,
			   "regex '%s' matches the empty string, so it would match every line",
			   e->regex_src);
		bounded_regex_free(&e->regex);
	} else {
		ret = 0;
	}
	strbuf_release(&err);
	if (ret) {
		free(e->regex_src);
		e->regex_src = NULL;
	}
	return ret;
}

static struct policy_entry *
read_entry(struct loader *ld, yaml_node_t *node, const struct defaults *defs)
{
	struct entry_build b = { 0 };
	int before = ld->problems;

	b.e = xcalloc(1, sizeof(*b.e));
	b.node = node;
	b.ignore_case = b.allow_override = b.disabled = b.case_change = -1;
	strvec_init(&b.e->paths);
	strvec_init(&b.e->see);
	strvec_init(&b.e->stop_words);
	process_mapping(ld, node, "a policy entry", entry_fields, &b);

	if (!b.id_node) {
		problem_at(ld, node->start_mark, "entry has no 'id'");
	} else if (b.disabled != 1) {
		const char *id = b.e->id ? b.e->id : scalar(b.id_node);

		if (b.string_node && b.regex_node)
			problem_at(ld, b.regex_node->start_mark,
				   "entry '%s' has both 'string' and 'regex'; give exactly one", id);
		else if (!b.string_node && !b.regex_node)
			problem_at(ld, node->start_mark, "entry '%s' needs a 'string' or a 'regex'", id);
		if (!b.explain_node)
			problem_at(ld, node->start_mark,
				   "entry '%s' has no 'explain' (say what the joke is, in plain English)", id);
	}
	b.e->ignore_case = b.ignore_case >= 0 ? (unsigned)b.ignore_case : (unsigned)defs->ignore_case;
	b.e->allow_override = b.allow_override >= 0 ? (unsigned)b.allow_override
						    : (unsigned)defs->allow_override;
	b.e->disabled = b.disabled == 1;
	b.e->case_change_ignored = b.case_change == 0;
	if (!b.action_set)
		b.e->action = defs->action;
	if (ld->problems == before && b.e->regex_src && !b.string_node)
		compile_regex(ld, &b);
	else if (b.e->regex_src) {
		free(b.e->regex_src);	/* never compiled */
		b.e->regex_src = NULL;
	}
	if (ld->problems != before) {
		policy_entry_free(b.e);
		return NULL;
	}
	b.e->origin = xstrfmt("%s:%zu", ld->name, node->start_mark.line + 1);
	b.e->globs = xcalloc(b.e->paths.nr + 1, sizeof(*b.e->globs));
	for (size_t i = 0; i < b.e->paths.nr; i++)
		path_glob_compile(&b.e->globs[i], b.e->paths.v[i] + (b.e->paths.v[i][0] == '!'));
	return b.e;
}

static void
policy_add(struct policy *p, struct policy_entry *e)
{
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr++] = e;
}

static void
policy_remove_at(struct policy *p, size_t i)
{
	policy_entry_free(p->v[i]);
	memmove(p->v + i, p->v + i + 1, (p->nr - i - 1) * sizeof(*p->v));
	p->nr--;
}

/* A later layer replaces entries by id; "disabled: true" removes them. */
static void
merge_entry(struct policy *p, struct policy_entry *e)
{
	for (size_t i = 0; i < p->nr; i++) {
		if (strcmp(p->v[i]->id, e->id))
			continue;
		if (e->disabled) {
			policy_remove_at(p, i);
			policy_entry_free(e);
		} else {
			policy_entry_free(p->v[i]);
			p->v[i] = e;
		}
		return;
	}
	if (e->disabled)
		policy_entry_free(e);
	else
		policy_add(p, e);
}

static int
read_version(struct loader *ld, yaml_node_t *v)
{
	char *end;
	long n;

	if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
		problem_at(ld, v->start_mark, "'version' must be a number");
		return -1;
	}
	errno = 0;
	n = strtol(scalar(v), &end, 10);
	if (errno || *end || end == scalar(v)) {
		problem_at(ld, v->start_mark, "'version' must be a number, not '%s'", scalar(v));
		return -1;
	}
	if (n != POLICY_VERSION) {
		problem_at(ld, v->start_mark, "unsupported policy version %ld (this khsend reads version %d)",
			   n, POLICY_VERSION);
		return -1;
	}
	return 0;
}

static yaml_node_t *
mapping_get(struct loader *ld, yaml_node_t *map, const char *key)
{
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(&ld->doc, pair->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key))
			return yaml_document_get_node(&ld->doc, pair->value);
	}
	return NULL;
}

/* Top-level keys are checked here; their values are read by parse_document(). */
static void
top_level_noop(struct loader *ld, yaml_node_t *v, void *target)
{
	(void)ld;
	(void)v;
	(void)target;
}

static const struct field top_fields[] = {
	{ "version", YAML_SCALAR_NODE, top_level_noop },
	{ "defaults", YAML_MAPPING_NODE, top_level_noop },
	{ "entries", YAML_SEQUENCE_NODE, top_level_noop },
	{ NULL, YAML_NO_NODE, NULL },
};

/* Duplicate ids are found even when either entry has other problems. */
static void
note_id(struct loader *ld, yaml_node_t *entry, struct strvec *seen)
{
	yaml_node_t *idn = mapping_get(ld, entry, "id");

	if (!idn || idn->type != YAML_SCALAR_NODE)
		return;
	for (size_t i = 0; i < seen->nr; i += 2)
		if (!strcmp(seen->v[i], scalar(idn))) {
			problem_at(ld, idn->start_mark, "duplicate id '%s' (first defined at %s:%s)",
				   scalar(idn), ld->name, seen->v[i + 1]);
			return;
		}
	strvec_push(seen, scalar(idn));
	strvec_pushf(seen, "%zu", entry->start_mark.line + 1);
}

static void
parse_document(struct loader *ld, struct policy *layer)
{
	yaml_node_t *root = yaml_document_get_root_node(&ld->doc);
	yaml_node_t *version, *defaults, *entries;
	struct defaults defs = { POLICY_BLOCK, 0, 0 };
	yaml_mark_t top = { 0, 0, 0 };
	struct strvec ids = STRVEC_INIT;	/* "id" then "line", for duplicates */

	if (!root) {
		problem_at(ld, top, "empty policy (expected 'version: %d' and 'entries:')", POLICY_VERSION);
		return;
	}
	if (root->type != YAML_MAPPING_NODE) {
		problem_at(ld, root->start_mark, "a policy must be a mapping with 'version' and 'entries', not %s",
			   node_type_name(root->type));
		return;
	}
	process_mapping(ld, root, "the policy", top_fields, NULL);
	version = mapping_get(ld, root, "version");
	if (!version)
		problem_at(ld, root->start_mark, "missing 'version: %d'", POLICY_VERSION);
	else if (read_version(ld, version))
		return;	/* an unknown version: do not guess at the rest */
	defaults = mapping_get(ld, root, "defaults");
	if (defaults && defaults->type == YAML_MAPPING_NODE)
		process_mapping(ld, defaults, "'defaults'", defaults_fields, &defs);
	entries = mapping_get(ld, root, "entries");
	if (!entries) {
		problem_at(ld, root->start_mark, "missing 'entries'");
		return;
	}
	if (entries->type != YAML_SEQUENCE_NODE)
		return;	/* reported by process_mapping() */
	for (yaml_node_item_t *it = entries->data.sequence.items.start; it < entries->data.sequence.items.top; it++) {
		yaml_node_t *node = yaml_document_get_node(&ld->doc, *it);
		struct policy_entry *e;
		int repeat = 0;

		/* An alias (already refused) brings back a node we have seen. */
		for (yaml_node_item_t *prev = entries->data.sequence.items.start; prev < it && !repeat; prev++)
			repeat = *prev == *it;
		if (repeat)
			continue;
		if (node->type != YAML_MAPPING_NODE) {
			problem_at(ld, node->start_mark, "each entry must be a mapping (id, string, explain, ...), not %s",
				   node_type_name(node->type));
			continue;
		}
		note_id(ld, node, &ids);
		e = read_entry(ld, node, &defs);
		if (e && ld->problems)
			policy_entry_free(e);	/* the layer is not merged anyway */
		else if (e)
			policy_add(layer, e);
	}
	strvec_clear(&ids);
}

int
policy_parse(struct policy *p, const char *name, const char *buf, size_t len)
{
	struct loader ld = { .name = name, .buf = buf, .len = len };
	struct policy layer = POLICY_INIT;
	yaml_parser_t parser;

	/* A syntax error ends it; refused aliases still let the rest be checked. */
	if (prescan(&ld) < 0)
		return ld.problems;
	if (!yaml_parser_initialize(&parser))
		die("out of memory while reading '%s'", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &ld.doc)) {
		report_parser_error(&ld, &parser);
		yaml_parser_delete(&parser);
		return ld.problems;
	}
	parse_document(&ld, &layer);
	yaml_document_delete(&ld.doc);
	yaml_parser_delete(&parser);

	if (!ld.problems) {
		for (size_t i = 0; i < layer.nr; i++)
			merge_entry(p, layer.v[i]);
		layer.nr = 0;
		strvec_push(&p->files, name);
	}
	policy_release(&layer);
	return ld.problems;
}

int
policy_load_file(struct policy *p, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int fd, ret = 1;

	/*
	 * Only a regular file: a FIFO or /dev/stdin (a policy is someone
	 * else's data, and may be a symlink to one) would block khsend.
	 * O_NONBLOCK makes the open itself return; symlinks to files are fine.
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		error_errno("cannot read policy '%s'", path);
		return 1;
	}
	if (fstat(fd, &st)) {
		error_errno("cannot read policy '%s'", path);
	} else if (S_ISDIR(st.st_mode)) {
		error("'%s' is a directory, not a policy file", path);
	} else if (!S_ISREG(st.st_mode)) {
		error("'%s' is not a regular file (a FIFO, a device or a socket), so it is no policy file", path);
	} else if (st.st_size > MAX_POLICY_BYTES || strbuf_read_fd(&sb, fd, MAX_POLICY_BYTES) < 0) {
		if (st.st_size > MAX_POLICY_BYTES || errno == EFBIG)
			error("'%s' is too large for a policy file (more than %u bytes)", path, MAX_POLICY_BYTES);
		else
			error_errno("cannot read policy '%s'", path);
	} else {
		ret = -1;
	}
	close(fd);
	if (ret < 0)
		ret = policy_parse(p, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

const char *
policy_system_path(void)
{
	static char *installed;
	const char *env = getenv("KHSEND_SYSTEM_POLICY");

	if (env)
		return env;
	if (!installed)
		installed = installed_path(INSTALLED_DATA, "policy.yaml");
	return installed;
}

/* A layer that does not exist is simply absent; one that exists must be valid. */
static int
load_optional(struct policy *p, const char *path)
{
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	return policy_load_file(p, path);
}

/*
 * A layer kept in the repository is read from the commit the change under
 * review applies to, never from the work tree or the index, which the
 * change itself may have written (git am applies a patch to both).
 */
static int
load_from_commit(struct policy *p, const struct repo *repo, const char *base, const char *path, int optional)
{
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;
	int rc, problems = 0;

	rc = repo_read_blob(repo, base, path, &sb);
	strbuf_addf(&name, "%s:%s", base, path);
	if (rc < 0) {
		problems = 1;
	} else if (!rc) {
		if (!optional) {
			error("policy '%s' is not in the repository at %s (khsend reads a repository's "
			      "policy from its commits, never from the work tree)", path, base);
			problems = 1;
		}
	} else if (sb.len > MAX_POLICY_BYTES) {
		error("'%s' is too large for a policy file (more than %u bytes)", name.buf, MAX_POLICY_BYTES);
		problems = 1;
	} else {
		problems = policy_parse(p, name.buf, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	strbuf_release(&name);
	return problems;
}

int
policy_load(struct policy *p, const struct strvec *explicit_files, const struct repo *repo, const char *base)
{
	struct strbuf path = STRBUF_INIT;
	struct strvec values = STRVEC_INIT;
	const char *sys;
	int problems = 0;

	if (explicit_files && explicit_files->nr) {
		for (size_t i = 0; i < explicit_files->nr; i++)
			problems += policy_load_file(p, explicit_files->v[i]);
		return problems;
	}

	sys = policy_system_path();
	if (*sys && !access(sys, F_OK))
		problems += policy_load_file(p, sys);
	else if (!getenv("KHSEND_SYSTEM_POLICY"))
		problems += policy_parse(p, "<built-in policy.yaml>", khsend_embedded_policy,
					 (size_t)(khsend_embedded_policy_end - khsend_embedded_policy));

	xdg_config_dir(&path);
	strbuf_addstr(&path, "/policy.yaml");
	problems += load_optional(p, path.buf);

	if (!base)
		base = "HEAD";
	if (repo && repo_resolves(repo, base, NULL))
		problems += load_from_commit(p, repo, base, ".khsend.yaml", 1);

	config_get_all("khsend.policy", &values);
	for (size_t i = 0; i < values.nr; i++) {
		char *file = expand_user_path(values.v[i]);

		if (*file == '/' || !repo) {
			problems += policy_load_file(p, file);
		} else if (starts_with(file, "../") && repo->worktree) {
			/* Outside the tree, where no patch can write: a file beside it. */
			char *abs = xstrfmt("%s/%s", repo->worktree, file);

			problems += policy_load_file(p, abs);
			free(abs);
		} else {
			problems += load_from_commit(p, repo, base, file, 0);
		}
		free(file);
	}
	strvec_clear(&values);
	strbuf_release(&path);
	return problems;
}

void
policy_release(struct policy *p)
{
	for (size_t i = 0; i < p->nr; i++)
		policy_entry_free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->nr = p->alloc = 0;
	strvec_clear(&p->files);
}

const struct policy_entry *
policy_find(const struct policy *p, const char *id)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->v[i]->id, id))
			return p->v[i];
	return NULL;
}

const char *
policy_action_name(enum policy_action a)
{
	switch (a) {
	case POLICY_WARN:
		return "warn";
	case POLICY_ANNOTATE:
		return "annotate";
	case POLICY_BLOCK:
		return "block";
	}
	return "?";
}

int
policy_entry_covers(const struct policy_entry *e, const char *path)
{
	int covered = 1;

	/* Any pattern covers it, unless a "!pattern" takes it out; only "!" ones: all but those. */
	for (size_t i = 0; i < e->paths.nr; i++) {
		if (e->paths.v[i][0] != '!') {
			covered = 0;
			break;
		}
	}
	for (size_t i = 0; i < e->paths.nr; i++) {
		if (!path_glob_matches(&e->globs[i], path))
			continue;
		if (e->paths.v[i][0] == '!')
			return 0;
		covered = 1;
	}
	return covered;
}

static void
die_too_much_work(const struct policy_entry *e, size_t len)
{
	die("the regex of entry '%s' ('%s', %s) needs too much work on a line of %zu bytes, so khsend "
	    "cannot judge the series with it; simplify the regex", e->id, e->regex_src, e->origin ? e->origin : "?",
	    len);
}

void (*policy_too_much_work)(const struct policy_entry *e, size_t len) = die_too_much_work;

/* Whether a C string literal is open at `pos` of a line: an odd number of unescaped quotes before. */
static int
inside_string(const char *text, size_t pos)
{
	int quotes = 0;

	for (size_t i = 0; i < pos; i++) {
		if (text[i] == '\\')
			i++;
		else if (text[i] == '\'' && i + 2 < pos && text[i + 2] == '\'')
			i += 2;	/* a character constant such as '"' */
		else if (text[i] == '"')
			quotes++;
	}
	return quotes % 2;
}

/* A lexicon entry's match may not count: not in a string, or a stop word. */
static int
match_counts(const struct policy_entry *e, const char *text, size_t so, size_t eo)
{
	if (e->in_string && !inside_string(text, so))
		return 0;
	for (size_t i = 0; i < e->stop_words.nr; i++)
		if (strlen(e->stop_words.v[i]) == eo - so && !strncasecmp(e->stop_words.v[i], text + so, eo - so))
			return 0;
	return 1;
}

static int
find_one(const struct policy_entry *e, const char *text, size_t len, size_t start, size_t *so, size_t *eo)
{
	if (e->regex_src) {
		/* The regex's match data and JIT state are scratch, not the entry's meaning. */
		switch (bounded_regex_search((struct bounded_regex *)&e->regex, text, len, start, so, eo)) {
		case REGEX_MATCH:
			return 1;
		case REGEX_NO_MATCH:
			return 0;
		case REGEX_TOO_MUCH_WORK:
			policy_too_much_work(e, len);
			return 0;
		}
	} else {
		size_t n = strlen(e->string);

		for (size_t i = start; n && i + n <= len; i++)
			if (e->ignore_case ? !strncasecmp(text + i, e->string, n) : !memcmp(text + i, e->string, n)) {
				*so = i;
				*eo = i + n;
				return 1;
			}
	}
	return 0;
}

int
policy_entry_find(const struct policy_entry *e, const char *text, size_t len, size_t start, size_t *so, size_t *eo)
{
	while (start <= len && find_one(e, text, len, start, so, eo)) {
		if (match_counts(e, text, *so, *eo))
			return 1;
		start = *so + 1;
	}
	return 0;
}

size_t
policy_entry_count(const struct policy_entry *e, const char *line)
{
	size_t n = 0, len = strlen(line), at = 0, so, eo;

	if (!e->regex_src) {
		for (const char *p = line;; n++) {
			p = e->ignore_case ? strcasestr(p, e->string) : strstr(p, e->string);
			if (!p)
				break;
			p += strlen(e->string);
		}
		return n;
	}
	while (at < len && policy_entry_find(e, line, len, at, &so, &eo)) {
		n++;
		at = eo > so ? eo : so + 1;	/* an empty match: step over it */
	}
	return n;
}

const struct policy_text *
policy_entry_translation(const struct policy_entry *e, const struct strvec *langs)
{
	char buf[64];
	const char *tag;

	for (size_t i = 0; i < langs->nr; i++)
		for (int n = 0; (tag = i18n_tag_fallback(langs->v[i], n, buf, sizeof(buf))); n++)
			for (size_t k = 0; k < e->translations_nr; k++)
				if (!strcmp(e->translations[k].lang, tag) && e->translations[k].text)
					return &e->translations[k];
	return NULL;
}

const char *
policy_entry_pattern(const struct policy_entry *e, char *buf, size_t size)
{
	if (e->regex_src)
		snprintf(buf, size, "/%s/%s", e->regex_src, e->ignore_case ? "i" : "");
	else
		snprintf(buf, size, "\"%s\"%s", e->string, e->ignore_case ? " (any case)" : "");
	return buf;
}
