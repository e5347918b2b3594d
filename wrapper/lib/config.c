// SPDX-License-Identifier: GPL-2.0-only
/* config: "git config --list -z", read once; GIT_CONFIG_COUNT for children. */
#include "lib/config.h"
#include "lib/quote.h"
#include "lib/run-command.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct config_item {
	char *key;		/* as git prints it: section and name lower-cased */
	char *value;		/* NULL: "key" alone, which git reads as true */
};

static struct config_item *items;
static size_t items_nr, items_alloc;
static int loaded;
static struct child_process prefetch = CHILD_PROCESS_INIT;
static int prefetching;

void
config_prefetch(void)
{
	if (loaded || prefetching)
		return;
	strvec_pushl(&prefetch.args, "git", "config", "--list", "-z", NULL);
	prefetch.no_stdin = 1;
	prefetch.no_stderr = 1;
	prefetch.out = -1;
	if (!start_command(&prefetch))
		prefetching = 1;
	else
		child_process_clear(&prefetch);
}

/*
 * "section.Sub.Name" the way git prints keys: the section and the last
 * part lower-cased, a subsection as it is.
 */
static char *
canonical_key(const char *key)
{
	char *k = xstrdup(key), *first = strchr(k, '.'), *last = strrchr(k, '.');

	for (char *p = k; *p && (!first || p < first); p++)
		*p = (char)tolower((unsigned char)*p);
	for (char *p = last ? last : k; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return k;
}

/* What "git config --list -z" prints: 0, or -1 if it failed. */
static int
read_list(struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;

	if (prefetching) {
		prefetching = 0;
		rc = strbuf_read_fd(out, prefetch.out, 0);
		close(prefetch.out);
		return finish_command(&prefetch) || rc < 0 ? -1 : 0;
	}
	strvec_pushl(&cp.args, "git", "config", "--list", "-z", NULL);
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	return capture_command(&cp, out) ? -1 : 0;
}

static void
load(void)
{
	struct strbuf out = STRBUF_INIT;
	const char *p, *end;

	loaded = 1;
	/* Outside a repository, or with a broken one, git still lists the user's and system's. */
	if (read_list(&out)) {
		strbuf_release(&out);
		return;
	}
	for (p = out.buf, end = out.buf + out.len; p < end;) {
		const char *nul = memchr(p, '\0', (size_t)(end - p)), *nl;
		struct config_item *it;

		if (!nul)
			nul = end;
		nl = memchr(p, '\n', (size_t)(nul - p));
		ALLOC_GROW(items, items_nr + 1, items_alloc);
		it = &items[items_nr++];
		it->key = xstrndup(p, (size_t)((nl ? nl : nul) - p));
		it->value = nl ? xstrndup(nl + 1, (size_t)(nul - nl - 1)) : NULL;
		p = nul + 1;
	}
	strbuf_release(&out);
}

static const struct config_item *
find_last(const char *key)
{
	char *k;
	const struct config_item *found = NULL;

	if (!loaded)
		load();
	k = canonical_key(key);
	for (size_t i = items_nr; i-- > 0 && !found;)
		if (!strcmp(items[i].key, k))
			found = &items[i];
	free(k);
	return found;
}

const char *
config_get(const char *key)
{
	const struct config_item *it = find_last(key);

	if (!it)
		return NULL;
	return it->value ? it->value : "";
}

size_t
config_get_all(const char *key, struct strvec *out)
{
	char *k;
	size_t n = 0;

	if (!loaded)
		load();
	k = canonical_key(key);
	for (size_t i = 0; i < items_nr; i++)
		if (!strcmp(items[i].key, k)) {
			strvec_push(out, items[i].value ? items[i].value : "");
			n++;
		}
	free(k);
	return n;
}

/* git's git_parse_maybe_bool_text(), and a plain integer as git_config_bool() takes it. */
static int
parse_bool(const char *v)
{
	char *end;
	long n;

	if (!v || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return 1;
	if (!*v || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || end == v)
		return -1;
	return n != 0;
}

int
config_get_bool(const char *key, int *out)
{
	const struct config_item *it = find_last(key);
	int b;

	if (!it)
		return 0;
	b = parse_bool(it->value);
	if (b < 0)
		die("bad boolean config value '%s' for '%s'", it->value, key);
	*out = b;
	return 1;
}

void
config_clear(void)
{
	if (prefetching) {
		struct strbuf drain = STRBUF_INIT;

		strbuf_read_fd(&drain, prefetch.out, 0);
		strbuf_release(&drain);
		close(prefetch.out);
		finish_command(&prefetch);
		prefetching = 0;
	}
	for (size_t i = 0; i < items_nr; i++) {
		free(items[i].key);
		free(items[i].value);
	}
	free(items);
	items = NULL;
	items_nr = items_alloc = 0;
	loaded = 0;
}

void
config_env_init(struct config_env *c, struct strvec *env, struct strvec *undo)
{
	const char *count = getenv("GIT_CONFIG_COUNT"), *params = getenv("GIT_CONFIG_PARAMETERS");

	memset(c, 0, sizeof(*c));
	c->env = env;
	c->undo = undo;
	strvec_init(&c->added);
	if (count && *count) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(count, &end, 10);
		if (errno || *end || n > 100000)
			die("GIT_CONFIG_COUNT is '%s', which is not a number of entries (git refuses it too)", count);
		c->base = n;
		strvec_pushf(undo, "GIT_CONFIG_COUNT=%s", count);
	} else {
		strvec_push(undo, "GIT_CONFIG_COUNT");
	}
	if (params) {
		c->params = xstrdup(params);
		strvec_pushf(undo, "GIT_CONFIG_PARAMETERS=%s", params);
	}
}

void
config_env_add(struct config_env *c, const char *key, const char *value)
{
	size_t n = c->base + c->nr++;

	strvec_pushf(c->env, "GIT_CONFIG_KEY_%zu=%s", n, key);
	strvec_pushf(c->env, "GIT_CONFIG_VALUE_%zu=%s", n, value);
	strvec_pushf(c->undo, "GIT_CONFIG_KEY_%zu", n);
	strvec_pushf(c->undo, "GIT_CONFIG_VALUE_%zu", n);
	if (c->params) {
		struct strbuf sb = STRBUF_INIT;

		sq_quote(&sb, key);
		strbuf_addch(&sb, '=');
		sq_quote(&sb, value);
		strvec_push_nodup(&c->added, strbuf_detach(&sb, NULL));
	}
}

void
config_env_finish(struct config_env *c)
{
	strvec_pushf(c->env, "GIT_CONFIG_COUNT=%zu", c->base + c->nr);
	if (c->params) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, c->params);
		for (size_t i = 0; i < c->added.nr; i++) {
			if (sb.len)
				strbuf_addch(&sb, ' ');
			strbuf_addstr(&sb, c->added.v[i]);
		}
		strvec_pushf(c->env, "GIT_CONFIG_PARAMETERS=%s", sb.buf);
		strbuf_release(&sb);
	}
	free(c->params);
	c->params = NULL;
	strvec_clear(&c->added);
}
