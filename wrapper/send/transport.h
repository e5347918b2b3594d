/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * transport: how a message leaves the machine, and khsend's place on
 * that road.
 *
 * git send-email and b4 are given khsend as their sendmail ("khsend hook
 * transport", through --sendmail-cmd or sendemail.smtpserver), which
 * holds each message in the spool with its arguments.  Once the whole
 * series is there and passes as delivered, each message goes to the
 * transport the user set up — the one git send-email (or b4) would have
 * used — with the same arguments.  A network SMTP server cannot be
 * stepped in front of this way (git send-email and b4 speak SMTP
 * themselves), so khsend refuses it and says what works instead.
 */
#ifndef KHSEND_TRANSPORT_H
#define KHSEND_TRANSPORT_H

#include "check/report.h"
#include "lib/strvec.h"
#include "send/sendemail-options.h"
#include "send/spool.h"

/*
 * The transport git send-email 2.39 would use with these options and
 * the configuration (sendmail-cmd over smtp-server, command line over
 * sendemail.<identity>.* over sendemail.*, else a sendmail on the usual
 * paths): its argv into `argv` (["sh", "-c", "<cmd> \"$@\"", "-"] for a
 * --sendmail-cmd, as git send-email runs it), 0; or -1 when it is a
 * network SMTP server, whose name goes to `server`.
 */
int transport_of_send_email(const struct sendemail_args *se, struct strvec *argv, char **server);

/* The command string khsend's transport is given as (single-quoted path, then "hook transport"). */
char *transport_shim_command(void);

/*
 * The held series: check it as it was delivered; if it passes, add the
 * notes it needs and, if `relay`, give each message to the transport in
 * the spool's settings; only a problem is reported (which messages left
 * and which did not, when the transport fails).  Returns EXIT_CLEAN,
 * EXIT_FINDING (nothing left: a block), or EXIT_ERROR (nothing left, or
 * only the messages it names).
 */
int spool_deliver(const struct spool *sp, enum report_mode mode, int relay);

/* From the first line of a patch's diff to git format-patch's "-- " signature: what booted. */
void diff_region(const struct strbuf *patch, struct strbuf *out);

/*
 * Keep what booted (each message's diff) in the spool: spool_deliver()
 * then sends only a series whose diffs are those; 0 or -1 (reported).
 */
int spool_keep_booted(const struct spool *sp, const struct series *s);

/* "khsend hook transport [-f from] -i rcpt...": what git send-email and b4 run as sendmail. */
int transport_main(int argc, const char **argv);

#endif
