// SPDX-License-Identifier: GPL-2.0-only
/*
 * i18n: gettext for khsend's messages, and one choice of language for
 * them and for the policy's explanations (see i18n.h).
 */
#define _GNU_SOURCE
#include "lib/i18n.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#define TEXT_DOMAIN "khsend"

/* glibc's counter of loaded catalogues: bumping it makes gettext look again. */
extern int _nl_msg_cat_cntr;

static int settled;
static struct strvec languages = STRVEC_INIT;
static char *child_env;	/* how a child gets the user's own LANGUAGE back */

static const struct {
	const char *tag, *native, *english;
} names[] = {
	{ "de", "Deutsch", "German" },
	{ "en", "English", "English" },
	{ "es", "Español", "Spanish" },
	{ "fr", "Français", "French" },
	{ "id", "Bahasa Indonesia", "Indonesian" },
	{ "it", "Italiano", "Italian" },
	{ "ja", "日本語", "Japanese" },
	{ "ko", "한국어", "Korean" },
	{ "pl", "Polski", "Polish" },
	{ "pt", "Português", "Portuguese" },
	{ "pt_BR", "Português do Brasil", "Brazilian Portuguese" },
	{ "ru", "Русский", "Russian" },
	{ "tr", "Türkçe", "Turkish" },
	{ "uk", "Українська", "Ukrainian" },
	{ "vi", "Tiếng Việt", "Vietnamese" },
	{ "zh_CN", "简体中文", "Simplified Chinese" },
	{ "zh_TW", "繁體中文", "Traditional Chinese" },
};

/*
 * Where the catalogues are: $KHSEND_LOCALEDIR, else locale/ beside the
 * binary (a build directory), else <prefix>/share/locale for the binary in
 * <prefix>/bin, found at run time as khsend's other files are.
 */
static char *
locale_dir(void)
{
	const char *env = getenv("KHSEND_LOCALEDIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash, *dir;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			dir = xstrfmt("%s/locale", exe);
			if (!access(dir, X_OK))
				return dir;
			free(dir);
			if ((slash = strrchr(exe, '/'))) {
				*slash = '\0';
				return xstrfmt("%s/share/locale", exe);
			}
		}
	}
	return xstrdup("/usr/local/share/locale");
}

void
i18n_init(void)
{
	char *dir = locale_dir();

	/* Messages only: ctype, case and collation stay "C" (see i18n.h). */
	setlocale(LC_MESSAGES, "");
	bindtextdomain(TEXT_DOMAIN, dir);
	/* The policy is UTF-8, so khsend writes UTF-8; so does libc's strerror(). */
	bind_textdomain_codeset(TEXT_DOMAIN, "UTF-8");
	bind_textdomain_codeset("libc", "UTF-8");
	textdomain(TEXT_DOMAIN);
	free(dir);
}

int
i18n_tag_valid(const char *tag)
{
	const char *p = tag;
	size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz");

	if (n < 2 || n > 3)
		return 0;
	p += n;
	if (*p == '_') {
		n = strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
		if (n != 2 && !(n == 0 && strspn(p + 1, "0123456789") == 3))
			return 0;
		p += 3;
	}
	if (*p == '@') {
		n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (n < 1 || n > 16)
			return 0;
		p += 1 + n;
	}
	return !*p;
}

int
i18n_tag_is_english(const char *tag)
{
	return !strcmp(tag, "C") || !strcmp(tag, "POSIX") || !strcmp(tag, "en") ||
	       starts_with(tag, "en_") || starts_with(tag, "en@");
}

const char *
i18n_tag_fallback(const char *tag, int n, char *buf, size_t size)
{
	const char *at = strchr(tag, '@'), *us = strchr(tag, '_');
	size_t lang = us ? (size_t)(us - tag) : at ? (size_t)(at - tag) : strlen(tag);
	size_t territory = at ? (size_t)(at - tag) : strlen(tag);
	int written;

	/* The forms gettext tries, without the ones this tag does not have. */
	switch (n) {
	case 0:
		written = snprintf(buf, size, "%s", tag);
		break;
	case 1:
		if (!at)
			return i18n_tag_fallback(tag, 3, buf, size);
		written = snprintf(buf, size, "%.*s", (int)territory, tag);
		break;
	case 2:
		if (!at || !us)
			return i18n_tag_fallback(tag, 3, buf, size);
		written = snprintf(buf, size, "%.*s%s", (int)lang, tag, at);
		break;
	case 3:
		if (!us)
			return NULL;
		written = snprintf(buf, size, "%.*s", (int)lang, tag);
		break;
	default:
		return NULL;
	}
	if (written < 0 || (size_t)written >= size)
		return NULL;
	return buf;
}

/* "ja_JP.UTF-8" -> "ja_JP", "sr_RS.UTF-8@latin" -> "sr_RS@latin", "C.UTF-8" -> "C". */
static char *
normalize_locale(const char *name)
{
	const char *dot = strchr(name, '.'), *at = strchr(name, '@');

	if (!dot || (at && at < dot))
		return xstrdup(name);
	return xstrfmt("%.*s%s", (int)(dot - name), name, at ? at : "");
}

/* Add a tag to the list; stop at English (returns 1 then). */
static int
add_language(const char *name)
{
	char *tag = normalize_locale(name);

	if (i18n_tag_is_english(tag)) {
		free(tag);
		return 1;
	}
	if (i18n_tag_valid(tag) && !strvec_contains(&languages, tag))
		strvec_push(&languages, tag);
	free(tag);
	return 0;
}

/*
 * The environment as gettext reads it: the locale of messages is the first
 * of LC_ALL, LC_MESSAGES and LANG; in the C locale LANGUAGE is ignored,
 * otherwise it is the list of languages, else that locale is.
 */
static void
environment_languages(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
	const char *locale = NULL, *list;

	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars) && !locale; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			locale = v;
	}
	if (!locale || !strcmp(locale, "C") || !strcmp(locale, "POSIX"))
		return;
	list = getenv("LANGUAGE");
	if (!list || !*list) {
		add_language(locale);
		return;
	}
	while (*list) {
		size_t n = strcspn(list, ":");
		char *one = xstrndup(list, n);
		int english = *one && add_language(one);

		free(one);
		if (english)
			return;
		list += n;
		if (*list)
			list++;
	}
}

/*
 * Make gettext use the chosen languages, even when the user's locale is
 * not installed: LANGUAGE for this process (children get theirs back, see
 * i18n_child_env()), and a locale of messages that is not "C", which
 * would make gettext ignore LANGUAGE.
 */
static void
apply_languages(void)
{
	struct strbuf list = STRBUF_INIT;
	const char *old = getenv("LANGUAGE"), *locale;

	if (!languages.nr) {
		setlocale(LC_MESSAGES, "C");
		return;
	}
	for (size_t i = 0; i < languages.nr; i++)
		strbuf_addf(&list, "%s%s", i ? ":" : "", languages.v[i]);
	if (!old || strcmp(old, list.buf)) {
		child_env = old ? xstrfmt("LANGUAGE=%s", old) : xstrdup("LANGUAGE");
		setenv("LANGUAGE", list.buf, 1);
	}
	locale = setlocale(LC_MESSAGES, NULL);
	if (!locale || !strcmp(locale, "C") || !strcmp(locale, "POSIX"))
		setlocale(LC_MESSAGES, "C.UTF-8");
	++_nl_msg_cat_cntr;
	strbuf_release(&list);
}

char *
i18n_parse_tag(const char *tag, const char *where)
{
	char *norm = normalize_locale(tag);

	if (i18n_tag_is_english(norm)) {
		free(norm);
		return NULL;
	}
	if (!i18n_tag_valid(norm))
		die(_("%s '%s' is not a language tag (write it like ja, zh_CN or pt_BR)"), where, tag);
	return norm;
}

/* A tag from --lang, KHSEND_LANG or khsend.lang: one language, or English. */
static void
use_tag(const char *tag, const char *where)
{
	char *norm = i18n_parse_tag(tag, where);

	if (norm)
		strvec_push_nodup(&languages, norm);
}

void
i18n_setup(const char *tag)
{
	const char *v;

	if (settled)
		return;
	settled = 1;
	if (tag) {
		use_tag(tag, "--lang");
		/* The hooks and the transport that this khsend runs read the same. */
		setenv("KHSEND_LANG", tag, 1);
	} else if ((v = getenv("KHSEND_LANG")) && *v) {
		use_tag(v, "KHSEND_LANG");
	} else if ((v = config_get("khsend.lang")) && *v) {
		use_tag(v, "khsend.lang");
	} else {
		environment_languages();
	}
	apply_languages();
}

const struct strvec *
i18n_languages(void)
{
	if (!settled)
		i18n_setup(NULL);
	return &languages;
}

static int
find_name(const char *tag)
{
	char buf[64];
	const char *t;

	for (int n = 0; (t = i18n_tag_fallback(tag, n, buf, sizeof(buf))); n++)
		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
			if (!strcmp(names[i].tag, t))
				return (int)i;
	return -1;
}

const char *
i18n_native_name(const char *tag)
{
	int i = find_name(tag);

	return i < 0 ? tag : names[i].native;
}

const char *
i18n_english_name(const char *tag)
{
	int i = find_name(tag);

	return i < 0 ? tag : names[i].english;
}

const char *
i18n_child_env(void)
{
	return child_env;
}

size_t
i18n_display_width(const char *s)
{
	size_t width = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);

		if (!n)
			n = 1;
		/* U+1100 and up, in three bytes or more: wide, near enough (Hangul, CJK, kana). */
		width += n >= 3 && (p[0] > 0xe1 || (p[0] == 0xe1 && p[1] >= 0x84)) ? 2 : 1;
		p += n;
	}
	return width;
}

int
i18n_lang_option(int argc, const char **argv, int *i, const char **lang)
{
	const char *arg = argv[*i], *v = NULL;

	if (!strcmp(arg, "--lang"))
		v = *i + 1 < argc ? argv[++*i] : "";
	else if (!skip_prefix(arg, "--lang=", &v))
		return 0;
	if (!*v)
		die(_("--lang needs a value (a language tag, like ja or zh_CN)"));
	*lang = v;
	return 1;
}
