/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * outgoing: what "khsend" (git send-email) and "khsend b4" do alike to a
 * series before they let it go: check it as a whole, boot it, and make
 * the spool that khsend's transport checks it in again as it leaves.
 */
#ifndef KHSEND_OUTGOING_H
#define KHSEND_OUTGOING_H

#include "khsend.h"
#include "check/check.h"
#include "send/spool.h"
#include "series/series.h"

struct outgoing {
	struct khsend_ctx *ctx;
	const struct strvec *policies, *allow;	/* --policy and --allow */
	struct checker ck;
	int checked;
	char *base;		/* the commit the series applies to, or NULL */
	int booted;
	struct spool spool;
};

void outgoing_init(struct outgoing *o, struct khsend_ctx *ctx, const struct strvec *policies,
		   const struct strvec *allow);
void outgoing_release(struct outgoing *o);

/*
 * The policy as of the series' base, and the whole series checked (and
 * whether it applies there: the delivered series must still).  The
 * report goes to stderr when there is something to say, or always with
 * `always_report`.  EXIT_CLEAN, EXIT_FINDING (a block), EXIT_ERROR.
 */
int outgoing_check(struct outgoing *o, const struct series *s, int always_report);

/* The boot smoke test, unless `flag` (--[no-]boot) or khsend.boot says not: EXIT_*. */
int outgoing_boot(struct outgoing *o, const struct series *s, int flag);

/*
 * The spool in the scratch directory, with what the transport needs:
 * the policy files, --allow, the user's transport, the base, whether the
 * series applied, what booted, and (b4) how many messages to expect
 * (0: git send-email, which may send fewer).  0 or -1 (reported).
 */
int outgoing_spool(struct outgoing *o, const struct series *s, const struct strvec *transport, size_t expect);

#endif
