/* SPDX-License-Identifier: GPL-2.0-only */
/* quote: the one way khsend quotes a word for a shell-like reader. */
#ifndef KHSEND_QUOTE_H
#define KHSEND_QUOTE_H

#include "lib/strbuf.h"

/*
 * git's sq_quote_buf(): '...', with ' and ! taken out of the quotes
 * ('\'' and '\!').  Read back the same by sh, by Python's shlex (b4's
 * sendemail.smtpserver) and by git's GIT_CONFIG_PARAMETERS parser.
 */
void sq_quote(struct strbuf *sb, const char *s);
/* The same, but a word that needs no quotes is left bare (for messages and hooks). */
void sq_quote_if_needed(struct strbuf *sb, const char *s);

#endif
