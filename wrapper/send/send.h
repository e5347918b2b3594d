/* SPDX-License-Identifier: GPL-2.0-only */
/* send: khsend as git send-email. */
#ifndef KHSEND_SEND_H
#define KHSEND_SEND_H

#include "lib/strvec.h"

/* khsend's own options on a send command line (b4's too). */
struct send_options {
	struct strvec policies;
	struct strvec allow;
	int boot;		/* -1: not given */
	const char *lang;	/* --lang: the reader's language, or NULL */
};

#define SEND_OPTIONS_INIT { STRVEC_INIT, STRVEC_INIT, -1, NULL }

/*
 * Take khsend's own options out of argv[1..], wherever they stand before
 * "--"; skip the value of a git send-email option, so "--subject --boot"
 * keeps its subject.  The rest goes to `rest`, in order.
 */
void send_take_options(int argc, const char **argv, struct send_options *so, struct strvec *rest);
void send_options_release(struct send_options *so);

#endif
