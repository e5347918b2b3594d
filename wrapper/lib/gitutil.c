/* gitutil: repository discovery and configuration through libgit2. */
#include "lib/gitutil.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
lg2_error(int code, const char *what, const char *extra)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "no further details";

	if (extra)
		error("%s '%s': %s (libgit2 error %d)", what, extra, msg, code);
	else
		error("%s: %s (libgit2 error %d)", what, msg, code);
	return -1;
}

git_repository *
repo_discover(void)
{
	git_repository *repo = NULL;
	int rc = git_repository_open_ext(&repo, ".", GIT_REPOSITORY_OPEN_FROM_ENV, NULL);

	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return NULL;
	}
	if (rc < 0) {
		lg2_error(rc, "cannot open the repository here", NULL);
		return NULL;
	}
	return repo;
}

static git_config *
open_config(git_repository *repo)
{
	git_config *cfg = NULL, *snap = NULL;
	int rc;

	if (repo)
		rc = git_repository_config(&cfg, repo);
	else
		rc = git_config_open_default(&cfg);
	if (rc < 0) {
		git_error_clear();
		return NULL;
	}
	rc = git_config_snapshot(&snap, cfg);
	git_config_free(cfg);
	if (rc < 0) {
		git_error_clear();
		return NULL;
	}
	return snap;
}

static int
push_value(const git_config_entry *entry, void *payload)
{
	strvec_push(payload, entry->value ? entry->value : "");
	return 0;
}

void
repo_config_get_all(git_repository *repo, const char *key, struct strvec *out)
{
	git_config *cfg = open_config(repo);

	if (!cfg)
		return;
	if (git_config_get_multivar_foreach(cfg, key, NULL, push_value, out) < 0)
		git_error_clear();
	git_config_free(cfg);
}

int
repo_config_get_string(git_repository *repo, const char *key, char **out)
{
	git_config *cfg = open_config(repo);
	const char *value = NULL;
	int found = 0;

	if (!cfg)
		return 0;
	if (!git_config_get_string(&value, cfg, key)) {
		*out = xstrdup(value);
		found = 1;
	} else {
		git_error_clear();
	}
	git_config_free(cfg);
	return found;
}

int
repo_config_get_bool(git_repository *repo, const char *key, int *out)
{
	git_config *cfg = open_config(repo);
	int rc, ret = 0;

	if (!cfg)
		return 0;
	rc = git_config_get_bool(out, cfg, key);
	if (!rc) {
		ret = 1;
	} else if (rc != GIT_ENOTFOUND) {
		lg2_error(rc, "bad boolean config value for", key);
		ret = -1;
	} else {
		git_error_clear();
	}
	git_config_free(cfg);
	return ret;
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

/* git's sq_quote_buf(): '...' with ' and ! taken out of the quotes. */
static void
add_sq_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '!')
			strbuf_addf(sb, "'\\%c'", *s);
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
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

		add_sq_quoted(&sb, key);
		strbuf_addch(&sb, '=');
		add_sq_quoted(&sb, value);
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
