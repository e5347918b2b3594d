// SPDX-License-Identifier: GPL-2.0-only
/*
 * server: the transport b4 0.12 would use, read its way: sendemail.smtpserver
 * (over sendemail.<b4.sendemail-identity>.smtpserver), with Python's
 * os.path.expandvars and os.path.expanduser, split by shlex.
 */
#include "b4/server.h"
#include "lib/config.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *
b4_identity(void)
{
	const char *v = config_get("b4.sendemail-identity");

	return v && *v ? v : NULL;
}

const char *
b4_smtpserver(const char *identity)
{
	const char *v = NULL;

	if (identity) {
		char *key = xstrfmt("sendemail.%s.smtpserver", identity);

		v = config_get(key);
		free(key);
	}
	if (!v || !*v)
		v = config_get("sendemail.smtpserver");
	return v && *v ? v : NULL;
}

/* os.path.expandvars(): $name and ${name} that are set in the environment. */
static void
expandvars(const char *s, struct strbuf *out)
{
	while (*s) {
		const char *name = NULL, *val;
		size_t len = 0, skip = 0;

		if (*s == '$' && s[1] == '{' && strchr(s + 2, '}')) {
			name = s + 2;
			len = (size_t)(strchr(s + 2, '}') - name);
			skip = len + 3;
		} else if (*s == '$' && (isalnum((unsigned char)s[1]) || s[1] == '_')) {
			name = s + 1;
			while (isalnum((unsigned char)name[len]) || name[len] == '_')
				len++;
			skip = len + 1;
		}
		if (name) {
			char *n = xstrndup(name, len);

			val = getenv(n);
			free(n);
			if (val) {
				strbuf_addstr(out, val);
				s += skip;
				continue;
			}
		}
		strbuf_addch(out, *s++);
	}
}

/* os.path.expanduser() of a leading "~" or "~user". */
static char *
expanduser(const char *s)
{
	size_t i = strcspn(s, "/");
	const char *home = NULL;
	char *user;
	struct passwd *pw;

	if (*s != '~')
		return xstrdup(s);
	if (i == 1) {
		home = getenv("HOME");
		if (!home && (pw = getpwuid(getuid())))
			home = pw->pw_dir;
	} else {
		user = xstrndup(s + 1, i - 1);
		pw = getpwnam(user);
		free(user);
		if (pw)
			home = pw->pw_dir;
	}
	if (!home)
		return xstrdup(s);
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, home);
		while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
			strbuf_setlen(&sb, sb.len - 1);
		strbuf_addstr(&sb, s + i);
		if (!sb.len)
			strbuf_addch(&sb, '/');
		return strbuf_detach(&sb, NULL);
	}
}

/*
 * shlex.shlex(s, posix=True) with whitespace_split, as b4 splits the
 * server: quotes, backslash escapes, and "#" comments.  0 or -1.
 */
static int
shlex_split(const char *s, struct strvec *out)
{
	struct strbuf tok = STRBUF_INIT;
	int have = 0;

	while (*s) {
		char c = *s++;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			if (have)
				strvec_push(out, tok.buf);
			strbuf_reset(&tok);
			have = 0;
		} else if (c == '#') {
			while (*s && *s != '\n')
				s++;
			if (have)
				strvec_push(out, tok.buf);
			strbuf_reset(&tok);
			have = 0;
		} else if (c == '\\') {
			if (!*s)
				goto bad;
			strbuf_addch(&tok, *s++);
			have = 1;
		} else if (c == '\'') {
			const char *end = strchr(s, '\'');

			if (!end)
				goto bad;
			strbuf_add(&tok, s, (size_t)(end - s));
			s = end + 1;
			have = 1;
		} else if (c == '"') {
			for (;; s++) {
				if (!*s)
					goto bad;
				if (*s == '"')
					break;
				if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
					s++;
				strbuf_addch(&tok, *s);
			}
			s++;
			have = 1;
		} else {
			strbuf_addch(&tok, c);
			have = 1;
		}
	}
	if (have)
		strvec_push(out, tok.buf);
	strbuf_release(&tok);
	return 0;
bad:
	strbuf_release(&tok);
	return -1;
}

/* The transport b4 would have run for this server: its argv, "-i" added as b4 adds it. */
int
b4_transport_argv(const char *server, struct strvec *argv)
{
	struct strbuf sb = STRBUF_INIT;
	char *expanded;
	int ret;

	expandvars(server, &sb);
	expanded = expanduser(sb.buf);
	ret = shlex_split(expanded, argv);
	if (!ret && !argv->nr)
		ret = -1;
	if (!ret && !strvec_contains(argv, "-i"))
		strvec_push(argv, "-i");
	free(expanded);
	strbuf_release(&sb);
	return ret;
}

