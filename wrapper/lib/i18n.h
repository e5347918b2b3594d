/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * i18n: khsend's own messages through gettext, and the reader's language.
 *
 * One choice serves both: the language of khsend's messages and the
 * language of the policy's explanations.  It comes from --lang (which
 * also sets KHSEND_LANG for the hooks and the transport khsend runs),
 * else `git config khsend.lang`, else the environment as gettext reads
 * it: LANGUAGE (a list, ignored in the C locale), else the first of
 * LC_ALL, LC_MESSAGES and LANG.  English is the fallback, and the C
 * locale is English, byte for byte.
 *
 * Only LC_MESSAGES follows the user's locale: character classes, case
 * and collation stay "C", so matching never depends on the locale.
 */
#ifndef KHSEND_I18N_H
#define KHSEND_I18N_H

#include "lib/strvec.h"

#include <libintl.h>

/* Mark a message for translation; N_() marks one that is translated later. */
#define _(msgid) gettext(msgid)
#define N_(msgid) (msgid)
/* "1 change" / "2 changes", in the reader's language. */
#define Q_(one, many, n) ngettext(one, many, n)

/* Start gettext: khsend's text domain, its catalogues, UTF-8 output. */
void i18n_init(void);

/*
 * Settle the reader's language: `tag` from --lang (NULL: none), else
 * KHSEND_LANG, else khsend.lang, else the environment.  The first call
 * decides; later ones do nothing.  A tag that is not one (--lang '../x')
 * is an error: exit 2.
 */
void i18n_setup(const char *tag);

/*
 * The reader's languages, most wanted first, up to the first English one
 * (which is not listed): empty means English.  Settles the language with
 * i18n_setup(NULL) when no command did.
 */
const struct strvec *i18n_languages(void);

/*
 * A tag given by the user (`where` names the option or setting): the tag
 * without a codeset ("ja_JP.UTF-8" is "ja_JP"), malloc()ed, or NULL for
 * English.  Not a tag at all: exit 2.
 */
char *i18n_parse_tag(const char *tag, const char *where);
/*
 * For a command that reads its own command line: is argv[*i] "--lang TAG"
 * or "--lang=TAG"?  Then *lang is the tag, *i is past it, and 1 is
 * returned; an empty tag dies.
 */
int i18n_lang_option(int argc, const char **argv, int *i, const char **lang);

/* Is `tag` a language tag: "ja", "zh_CN", "pt_BR", "sr@latin", "sr_RS@latin". */
int i18n_tag_valid(const char *tag);
/* Is the tag English ("en", "en_GB", "C", "POSIX")? */
int i18n_tag_is_english(const char *tag);
/*
 * A tag as gettext would try it, most exact first: "sr_RS@latin",
 * "sr_RS", "sr@latin", "sr".  `n` counts from 0; NULL when there are no
 * more.  The result lives in `buf`.
 */
const char *i18n_tag_fallback(const char *tag, int n, char *buf, size_t size);

/* The language's own name ("日本語") and its English name ("Japanese"), or the tag. */
const char *i18n_native_name(const char *tag);
const char *i18n_english_name(const char *tag);

/* Columns a UTF-8 string takes on a terminal (CJK characters take two). */
size_t i18n_display_width(const char *s);

/*
 * What a child process needs in its environment to see the user's own
 * LANGUAGE again ("LANGUAGE=..." or "LANGUAGE" to unset it), or NULL when
 * khsend did not change it.  run-command applies it to every child.
 */
const char *i18n_child_env(void);

#endif
