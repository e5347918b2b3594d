/* SPDX-License-Identifier: GPL-2.0-only */
/* compose: a maintainer's kind reply to a patch that changes a protected string. */
#ifndef KHSEND_COMPOSE_H
#define KHSEND_COMPOSE_H

#include "check/detect.h"
#include "lib/strbuf.h"
#include "series/message.h"

/* Who answers, and when. */
struct replier {
	char *from;		/* the From: header value */
	char *name;		/* for the signature */
	char *address;		/* lower-cased, to leave out of Cc */
	struct strbuf date;
	const char *lang;	/* the author's language (--lang), or NULL: English only */
};

/*
 * The sender git send-email would use: sendemail.from, else the author
 * identity (GIT_AUTHOR_NAME/EMAIL, user.name/email, EMAIL); the date is
 * GIT_AUTHOR_DATE in git's raw form if set, else now.  0 or -1 (reported).
 */
int replier_init(struct replier *r);
void replier_release(struct replier *r);

/*
 * The whole reply to one message (its findings f[0..nf)): headers and
 * body, appended to `out`.  0, or -1 (reported).
 */
int compose_reply(struct strbuf *out, struct message *msg, const struct finding *f, size_t nf,
		  const struct replier *r, const char *scratch);

#endif
