// SPDX-License-Identifier: GPL-2.0-only
/* spool: held messages and the settings of khsend's transport, in a private directory. */
#include "send/spool.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_HELD_BYTES (256u << 20)

int
spool_create(struct spool *sp, const char *dir)
{
	sp->dir = xstrdup(dir);
	if (mkdir_p(dir, 1))
		return error_errno(_("cannot create '%s'"), dir);
	return 0;
}

int
spool_from_env(struct spool *sp)
{
	const char *dir = getenv(SPOOL_ENV);

	if (!dir || !*dir || !is_dir(dir))
		return error(_("this is khsend's transport for git send-email and b4; it only runs under "
			       "'khsend' and 'khsend b4'"));
	sp->dir = xstrdup(dir);
	return 0;
}

void
spool_release(struct spool *sp)
{
	free(sp->dir);
	sp->dir = NULL;
}

static char *
path_of(const struct spool *sp, const char *name)
{
	return xstrfmt("%s/%s", sp->dir, name);
}

int
spool_set_list(const struct spool *sp, const char *name, const struct strvec *v)
{
	char *p = path_of(sp, name);
	int ret = write_list_file(p, v);

	free(p);
	return ret ? error(_("cannot write khsend's '%s' in '%s'"), name, sp->dir) : 0;
}

int
spool_get_list(const struct spool *sp, const char *name, struct strvec *v)
{
	char *p = path_of(sp, name);
	int ret = 0;

	if (file_exists(p) && read_list_file(p, v))
		ret = error_errno(_("cannot read khsend's '%s' in '%s'"), name, sp->dir);
	free(p);
	return ret;
}

int
spool_set(const struct spool *sp, const char *name, const char *value)
{
	char *p = path_of(sp, name);
	int ret = write_file_buf(p, value, strlen(value));

	free(p);
	return ret;
}

char *
spool_get(const struct spool *sp, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = path_of(sp, name);

	if (strbuf_read_file(&sb, p, 1 << 16) < 0) {
		free(p);
		strbuf_release(&sb);
		return NULL;
	}
	free(p);
	return strbuf_detach(&sb, NULL);
}

static char *
held_path(const struct spool *sp, size_t n, const char *suffix)
{
	return xstrfmt("%s/%04zu.%s", sp->dir, n, suffix);
}

size_t
spool_count(const struct spool *sp)
{
	size_t n = 0;

	for (;; n++) {
		char *p = held_path(sp, n + 1, "eml");
		int there = file_exists(p);

		free(p);
		if (!there)
			return n;
	}
}

size_t
spool_hold(const struct spool *sp, const char *msg, size_t len, const struct strvec *args)
{
	size_t n = spool_count(sp) + 1;
	char *eml = held_path(sp, n, "eml"), *arg = held_path(sp, n, "args");
	char *tmp = xstrfmt("%s.new", eml);
	int ok;

	/* The arguments first, and the message under its final name last: it counts once complete. */
	ok = !write_list_file(arg, args) && !write_file_buf(tmp, msg, len) && !rename(tmp, eml);
	if (!ok) {
		error_errno(_("cannot hold message %zu in '%s'"), n, sp->dir);
		unlink(tmp);
	}
	free(eml);
	free(arg);
	free(tmp);
	return ok ? n : 0;
}

int
spool_load(const struct spool *sp, struct series *s)
{
	size_t n = spool_count(sp);

	for (size_t i = 1; i <= n; i++) {
		char *eml = held_path(sp, i, "eml"), *name = xstrfmt("message %zu", i);
		int rc = series_add_file(s, eml, name);

		free(eml);
		free(name);
		if (rc)
			return -1;
	}
	return 0;
}

int
spool_args(const struct spool *sp, size_t n, struct strvec *args)
{
	char *p = held_path(sp, n, "args");
	int ret = read_list_file(p, args) ? error_errno("cannot read '%s'", p) : 0;

	free(p);
	return ret;
}

void
spool_mark_sent(const struct spool *sp, size_t n)
{
	char *p = held_path(sp, n, "sent");

	if (write_file_buf(p, "", 0))
		warning(_("cannot record that message %zu was sent"), n);
	free(p);
}

int
spool_was_sent(const struct spool *sp, size_t n)
{
	char *p = held_path(sp, n, "sent");
	int yes = file_exists(p);

	free(p);
	return yes;
}

int
spool_clear(const struct spool *sp)
{
	size_t n = spool_count(sp);

	for (size_t i = 1; i <= n; i++) {
		static const char *const suffixes[] = { "eml", "args", "sent" };

		for (size_t k = 0; k < 3; k++) {
			char *p = held_path(sp, i, suffixes[k]);

			if (unlink(p) && errno != ENOENT) {
				free(p);
				return error_errno(_("cannot clear '%s'"), sp->dir);
			}
			free(p);
		}
	}
	return 0;
}
