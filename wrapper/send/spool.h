/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spool: hold every message until the last one has come, then check the
 * series as it was delivered, and only then let it go.
 *
 * One spool serves every route a series leaves by: git send-email and
 * b4 hand their messages to khsend's transport ("khsend hook transport",
 * their sendmail), which holds each with the arguments it came with; the
 * sendemail-validate hook of git >= 2.41 holds each file it is shown.
 * When the series is complete, spool_check() reads the held messages
 * exactly as the recipients' git am will (series/, check/), so an edit
 * made after khsend's first look, by any editor at any time, is checked
 * too; spool_relay() then gives each message, byte for byte plus any note
 * it needs, to the user's own transport.
 *
 * The spool is a private directory: NNNN.eml, NNNN.args (the transport's
 * arguments, NUL-separated), NNNN.sent once relayed; and the settings the
 * transport needs (policies, allow, transport, base, expect).
 */
#ifndef KHSEND_SPOOL_H
#define KHSEND_SPOOL_H

#include "lib/strbuf.h"
#include "lib/strvec.h"
#include "series/series.h"

/* The environment variable that tells khsend's transport where the spool is. */
#define SPOOL_ENV "KHSEND_SPOOL"

struct spool {
	char *dir;
};

/* Create the spool directory (private); 0 or -1 (reported). */
int spool_create(struct spool *sp, const char *dir);
/* The spool of $KHSEND_SPOOL; 0, or -1 (reported) when not run under khsend. */
int spool_from_env(struct spool *sp);
void spool_release(struct spool *sp);

/* A list setting ("policies", "allow", "transport", ...); 0 or -1 (reported). */
int spool_set_list(const struct spool *sp, const char *name, const struct strvec *v);
int spool_get_list(const struct spool *sp, const char *name, struct strvec *v);
/* A one-line setting; NULL if it is not set (malloc()ed). */
int spool_set(const struct spool *sp, const char *name, const char *value);
char *spool_get(const struct spool *sp, const char *name);

/* Hold one more message with the arguments it came with; its number (1-based), or 0 (reported). */
size_t spool_hold(const struct spool *sp, const char *msg, size_t len, const struct strvec *args);
/* How many messages are held. */
size_t spool_count(const struct spool *sp);
/* The held messages, in order, as a series (names "message N: <subject>"); 0 or -1. */
int spool_load(const struct spool *sp, struct series *s);
/* The arguments message n came with. */
int spool_args(const struct spool *sp, size_t n, struct strvec *args);
/* Mark message n as relayed; is it? */
void spool_mark_sent(const struct spool *sp, size_t n);
int spool_was_sent(const struct spool *sp, size_t n);
/* Remove every held message (the sendemail-validate hook starts a series over). */
int spool_clear(const struct spool *sp);

#endif
