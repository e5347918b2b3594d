// SPDX-License-Identifier: GPL-2.0-only
/*
 * sendemail-options: Getopt::Long 2.52's GetOptionsFromArray() and
 * FindOption(), reduced to what git send-email 2.39 configures (no
 * bundling, pass_through, ignore_case, gnu_compat off, permute unless
 * POSIXLY_CORRECT), applied to its three option tables.  Line references
 * are to /usr/lib/x86_64-linux-gnu/perl-base/Getopt/Long.pm.
 */
#include "send/sendemail-options.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum key_type {
	KEY_FLAG,	/* "name" (and the plain name of a "name!" option) */
	KEY_NEGATED,	/* "noname" and "no-name" of a "name!" option: the value is 0 */
	KEY_STRING,	/* =s or :s */
	KEY_INTEGER,	/* =i or :i */
};

struct optkey {
	char *key;		/* lower case, as ParseOptionSpec() stores it */
	char *cname;		/* the spec's first name: what the option is called */
	enum key_type type;
	unsigned mandatory:1;	/* "=" rather than ":" */
	unsigned negatable:1;	/* the plain key of a "!" option */
};

struct optpass {
	struct optkey *v;
	size_t nr, alloc;
};

static struct optpass passes[3];

static struct optkey *
lookup(const struct optpass *p, const char *key)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->v[i].key, key))
			return &p->v[i];
	return NULL;
}

static char *
lowercase(const char *s, size_t len)
{
	char *r = xstrndup(s, len);

	for (char *c = r; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return r;
}

static void
add_key(struct optpass *p, char *key, const char *cname, enum key_type type, int mandatory, int negatable)
{
	struct optkey *k = lookup(p, key);

	/*
	 * A name given twice (git has "thread!" and "no-thread") is one hash
	 * key in Perl; which spec wins depends on hash order, and either way
	 * it is a flag.  Keep the "!" form so reports call it "thread=0".
	 */
	if (k) {
		if (k->type == KEY_NEGATED && type == KEY_FLAG) {
			free(key);
			return;
		}
		free(k->key);
		free(k->cname);
	} else {
		ALLOC_GROW(p->v, p->nr + 1, p->alloc);
		k = &p->v[p->nr++];
	}
	k->key = key;
	k->cname = xstrdup(cname);
	k->type = type;
	k->mandatory = (unsigned)mandatory;
	k->negatable = (unsigned)negatable;
}

/* ParseOptionSpec(): "name|alias!", "name=s", "name:i", ... */
static void
add_spec(struct optpass *p, const char *spec)
{
	size_t nlen = strcspn(spec, "!+=:");
	const char *mod = spec + nlen;
	enum key_type type = KEY_FLAG;
	int mandatory = 0;
	char *names = xstrndup(spec, nlen), *cname, *save = NULL;

	if (*mod == '=' || *mod == ':') {
		mandatory = *mod == '=';
		if (mod[1] == 's' && !mod[2])
			type = KEY_STRING;
		else if (mod[1] == 'i' && !mod[2])
			type = KEY_INTEGER;
		else
			BUG("git send-email option spec '%s' is not one khsend knows", spec);
	} else if (*mod && strcmp(mod, "!")) {
		BUG("git send-email option spec '%s' is not one khsend knows", spec);
	}
	cname = strtok_r(names, "|", &save);
	for (char *name = cname; name; name = strtok_r(NULL, "|", &save)) {
		char *lc = lowercase(name, strlen(name));

		if (*mod == '!') {
			add_key(p, xstrfmt("no%s", lc), cname, KEY_NEGATED, 0, 0);
			add_key(p, xstrfmt("no-%s", lc), cname, KEY_NEGATED, 0, 0);
			add_key(p, lc, cname, KEY_FLAG, 0, 1);
		} else {
			add_key(p, lc, cname, type, mandatory, 0);
		}
	}
	free(names);
}

static void
load_passes(void)
{
	const char *const *tables[3] = { sendemail_pass_identity, sendemail_pass_dump_aliases,
					 sendemail_pass_main };

	if (passes[0].nr)
		return;
	for (size_t t = 0; t < 3; t++)
		for (const char *const *s = tables[t]; *s; s++)
			add_spec(&passes[t], *s);
}

struct getopt_mode {
	unsigned permute:1;	/* else require_order */
	unsigned autoabbrev:1;
	unsigned plus_prefix:1;	/* "+name" is an option, and "-name=value" splits (getopt_compat) */
};

static struct getopt_mode
current_mode(void)
{
	struct getopt_mode m = { 1, 1, 1 };

	/* ConfigDefaults(): POSIXLY_CORRECT only has to be defined. */
	if (getenv("POSIXLY_CORRECT"))
		m.permute = m.autoabbrev = m.plus_prefix = 0;
	return m;
}

/* The words a pass looks at: indexes into the original argv. */
struct words {
	const char *const *argv;
	size_t *v;
	size_t nr;
};

struct found {
	const struct optkey *key;
	int takes_next;		/* the value is the next word */
	char *value;		/* for reports */
};

/* $arg =~ /^$prefix.+/: does a word look like an option to an optional string? */
static int
looks_like_option(const char *arg, const struct getopt_mode *m)
{
	return (arg[0] == '-' || (m->plus_prefix && arg[0] == '+')) && arg[1];
}

/* PAT_INT: [-+]?_*[0-9][0-9_]* */
static int
is_integer(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	while (*s == '_')
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s) || *s == '_')
		s++;
	return !*s;
}

/*
 * FindOption() with pass_through: 1 and *f filled if the word at w->v[i]
 * is an option of this pass, 0 if it is passed through.
 */
static int
find_option(const struct optpass *p, const struct getopt_mode *m, const struct words *w, size_t i,
	    struct found *f)
{
	const char *arg = w->argv[w->v[i]], *name, *eq, *optarg = NULL;
	const char *next = i + 1 < w->nr ? w->argv[w->v[i + 1]] : NULL;
	const struct optkey *k;
	char *tryopt;
	int starter_dashdash = 0;

	if (starts_with(arg, "--")) {
		name = arg + 2;
		starter_dashdash = 1;
	} else if (arg[0] == '-' || (m->plus_prefix && arg[0] == '+')) {
		name = arg + 1;
	} else {
		return 0;
	}
	if (!strcmp(arg, "-"))
		return 0;
	/* "--name=value"; with getopt_compat also "-name=value" ("=" not first). */
	if ((starter_dashdash || m->plus_prefix) && *name && (eq = strchr(name + 1, '='))) {
		optarg = eq + 1;
		tryopt = lowercase(name, (size_t)(eq - name));
	} else {
		tryopt = lowercase(name, strlen(name));
	}

	if (m->autoabbrev && *tryopt) {
		const struct optkey *hit = NULL, *exact = NULL;
		size_t nhits = 0, len = strlen(tryopt);
		char *collapsed = NULL;
		int ambiguous = 0;

		for (size_t j = 0; j < p->nr; j++) {
			const struct optkey *c = &p->v[j];
			char *canon;

			if (strncmp(c->key, tryopt, len))
				continue;
			nhits++;
			hit = c;
			if (!c->key[len])
				exact = c;
			/* All hits naming one option are not ambiguous ("no" + name for negations). */
			canon = c->type == KEY_NEGATED ? xstrfmt("no%s", c->cname) : xstrdup(c->cname);
			if (!collapsed)
				collapsed = canon;
			else if (strcmp(collapsed, canon))
				ambiguous = 1, free(canon);
			else
				free(canon);
		}
		if (nhits > 1 && !exact) {
			if (ambiguous) {
				free(collapsed);
				free(tryopt);
				return 0;
			}
			free(tryopt);
			tryopt = collapsed;
			collapsed = NULL;
		} else if (nhits == 1) {
			free(tryopt);
			tryopt = xstrdup(hit->key);
		}
		free(collapsed);
	}
	k = lookup(p, tryopt);
	free(tryopt);
	if (!k)
		return 0;

	memset(f, 0, sizeof(*f));
	f->key = k;
	if (k->type == KEY_FLAG || k->type == KEY_NEGATED) {
		if (optarg)
			return 0;	/* "Option x does not take an argument" */
		f->value = xstrdup(k->type == KEY_NEGATED ? "0" : "1");
		return 1;
	}
	if (optarg ? !*optarg : !next) {
		if (k->mandatory)
			return 0;	/* "Option x requires an argument" */
		f->value = xstrdup(k->type == KEY_STRING ? "" : "0");
		return 1;
	}
	if (k->type == KEY_STRING) {
		if (optarg) {
			f->value = xstrdup(optarg);
		} else if (k->mandatory || !strcmp(next, "-") ||
			   (strcmp(next, "--") && !looks_like_option(next, m))) {
			f->takes_next = 1;
			f->value = xstrdup(next);
		} else {
			f->value = xstrdup("");	/* the next word is an option: an empty value */
		}
		return 1;
	}
	/* Integers. */
	if (is_integer(optarg ? optarg : next)) {
		f->takes_next = !optarg;
		f->value = xstrdup(optarg ? optarg : next);
		return 1;
	}
	if (optarg || k->mandatory)
		return 0;	/* "Value x invalid for option y", passed through */
	f->value = xstrdup("0");
	return 1;
}

/* How send-email's own variables see an option (what khsend needs of them). */
static void
record(struct sendemail_args *a, const struct found *f)
{
	const char *name = f->key->cname;
	int on = f->key->type != KEY_NEGATED;

	/* "no-thread" and its kin are subs that set the "thread!" variable to 0. */
	if (f->key->type == KEY_FLAG && !f->key->negatable && starts_with(name, "no-") &&
	    lookup(&passes[2], name + 3) && lookup(&passes[2], name + 3)->negatable) {
		name += 3;
		on = 0;
	}
	if (f->key->type == KEY_FLAG || f->key->type == KEY_NEGATED) {
		strvec_pushf(&a->parsed, "%s=%d", name, on);
	} else if (f->key->type == KEY_INTEGER) {
		/* Perl's "tr/_//d; 0+$arg". */
		struct strbuf digits = STRBUF_INIT;

		for (const char *c = f->value; *c; c++)
			if (*c != '_')
				strbuf_addch(&digits, *c);
		strvec_pushf(&a->parsed, "%s=%lld", name, strtoll(digits.buf, NULL, 10));
		strbuf_release(&digits);
	} else {
		strvec_pushf(&a->parsed, "%s=%s", name, f->value);
	}

	if (!strcmp(name, "dry-run"))
		a->dry_run = 1;
	else if (!strcmp(name, "quiet"))
		a->quiet = on;
	else if (!strcmp(name, "annotate"))
		a->annotate = on;
	else if (!strcmp(name, "compose"))
		a->compose = 1;
	else if (!strcmp(name, "format-patch"))
		a->format_patch = on;
	else if (!strcmp(name, "h"))
		a->help = 1;
	else if (!strcmp(name, "dump-aliases"))
		a->dump_aliases = 1;
	else if (!strcmp(name, "git-completion-helper"))
		a->completion_helper = 1;
	else if (!strcmp(name, "no-identity"))
		a->no_identity = 1;
	else if (!strcmp(name, "identity")) {
		free(a->identity);
		a->identity = xstrdup(f->value);
	}
}

/* GetOptionsFromArray(): one pass; `taken` marks the words it consumes. */
static void
run_pass(struct sendemail_args *a, const struct optpass *p, const struct getopt_mode *m,
	 struct words *w, unsigned char *taken)
{
	size_t *left = xcalloc(w->nr ? w->nr : 1, sizeof(*left));
	size_t nleft = 0, i = 0;

	while (i < w->nr) {
		struct found f;

		if (!strcmp(w->argv[w->v[i]], "--")) {
			while (i < w->nr)
				left[nleft++] = w->v[i++];
			break;
		}
		if (find_option(p, m, w, i, &f)) {
			/* khsend replaces a --sendmail-cmd with its own transport, which relays to this one. */
			unsigned char how = strcmp(f.key->cname, "sendmail-cmd") ? 1 : 2;

			record(a, &f);
			taken[w->v[i++]] = how;
			if (f.takes_next)
				taken[w->v[i++]] = how;
			free(f.value);
			continue;
		}
		if (!m->permute) {
			while (i < w->nr)
				left[nleft++] = w->v[i++];
			break;
		}
		left[nleft++] = w->v[i++];
	}
	free(w->v);
	w->v = left;
	w->nr = nleft;
}

void
sendemail_args_parse(struct sendemail_args *a, const char *const *argv, size_t argc)
{
	struct getopt_mode m = current_mode();
	struct words w = { argv, xcalloc(argc ? argc : 1, sizeof(size_t)), argc };
	unsigned char *taken = xcalloc(argc ? argc : 1, 1);

	load_passes();
	for (size_t i = 0; i < argc; i++)
		w.v[i] = i;
	for (size_t t = 0; t < 3; t++)
		run_pass(a, &passes[t], &m, &w, taken);
	for (size_t i = 0; i < argc; i++)
		if (taken[i] == 1)
			strvec_push(&a->opts, argv[i]);
		else if (taken[i] == 2)
			strvec_push(&a->transport_opts, argv[i]);
	for (size_t i = 0; i < w.nr; i++)
		strvec_push(&a->rest, argv[w.v[i]]);
	free(w.v);
	free(taken);
}

size_t
sendemail_option_words(const char *const *argv, size_t argc, size_t i)
{
	struct getopt_mode m = current_mode();
	size_t idx[2] = { i, i + 1 };
	struct words w = { argv, idx, i + 1 < argc ? 2 : 1 };

	load_passes();
	for (size_t t = 0; t < 3; t++) {
		struct found f;

		if (find_option(&passes[t], &m, &w, 0, &f)) {
			free(f.value);
			return f.takes_next ? 2 : 1;
		}
	}
	return 0;
}

void
sendemail_args_release(struct sendemail_args *a)
{
	strvec_clear(&a->opts);
	strvec_clear(&a->transport_opts);
	strvec_clear(&a->rest);
	strvec_clear(&a->parsed);
	free(a->identity);
	a->identity = NULL;
}
