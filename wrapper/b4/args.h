/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * args: khsend's own options and what b4 will make of the rest of a
 * "khsend b4" command line (argparse: long options and their unique
 * prefixes, as b4 0.12's "b4 send" declares them).
 */
#ifndef KHSEND_B4_ARGS_H
#define KHSEND_B4_ARGS_H

#include "lib/strvec.h"

struct b4_args {
	struct strvec policies, allow, rest;
	int boot;
	const char *lang;	/* --lang, or NULL */
	int dry_run;		/* -d/--dry-run or -o/--output-dir: b4 sends nothing */
	int no_sign;
	int web_auth;
	int help;
};

#define B4_ARGS_INIT { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, -1, NULL, 0, 0, 0, 0 }

void b4_args_parse(int argc, const char **argv, struct b4_args *a);
void b4_args_release(struct b4_args *a);

#endif
