/* SPDX-License-Identifier: GPL-2.0-only */
/* server: b4's sendemail.smtpserver, read the way b4 0.12 reads it. */
#ifndef KHSEND_B4_SERVER_H
#define KHSEND_B4_SERVER_H

#include "lib/strvec.h"

/* b4.sendemail-identity, or NULL. */
const char *b4_identity(void);
/* sendemail.<identity>.smtpserver over sendemail.smtpserver, or NULL (b4's get_sendemail_config()). */
const char *b4_smtpserver(const char *identity);
/*
 * The command b4 would run for this server, split as b4 splits it
 * (expandvars, expanduser, shlex), "-i" added as b4 adds it; 0 or -1.
 */
int b4_transport_argv(const char *server, struct strvec *argv);

#endif
