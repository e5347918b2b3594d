/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sendemail-options: split a git send-email command line exactly as git
 * send-email 2.39 does, so that khsend knows which words are its options
 * (with their values) and which are files, revisions and format-patch
 * options.
 *
 * git send-email reads @ARGV with Perl's Getopt::Long (2.52 here),
 * configured with pass_through, in three passes: %identity_options,
 * %dump_aliases_options, %options (git-send-email.perl:448-536).  What no
 * pass takes goes, in order, to its argument loop: files, directories,
 * revisions, and anything else for git format-patch.  Getopt::Long's
 * defaults apply: "--opt=v" and "--opt v" for =s/=i, optional values for
 * :s/:i, "--no-x"/"--nox" for "!" options, case-insensitive names, a single
 * dash or "+" for long options, and unique-prefix abbreviations (so "-v 2"
 * is "--validate" and a revision "2").  With POSIXLY_CORRECT in the
 * environment, abbreviations and "+" are off and each pass stops at the
 * first word it does not know (require_order).
 */
#ifndef KHSEND_SENDEMAIL_OPTIONS_H
#define KHSEND_SENDEMAIL_OPTIONS_H

#include "lib/strvec.h"

#include <stddef.h>

/* The specs of the three passes, generated from the script (sendemail-options-table.c). */
extern const char sendemail_options_version[];
extern const char *const sendemail_pass_identity[];
extern const char *const sendemail_pass_dump_aliases[];
extern const char *const sendemail_pass_main[];

struct sendemail_args {
	struct strvec opts;	/* the words the option passes take, options and values, in order... */
	struct strvec transport_opts;	/* ...but --sendmail-cmd's, which khsend's transport stands in for */
	struct strvec rest;	/* what the argument loop gets, in order ("--" and all after it included) */
	struct strvec parsed;	/* "name=value" for each option taken, canonical names (khsend debug) */
	int dry_run;
	int quiet;
	int annotate;		/* -1: not on the command line */
	int compose;
	int format_patch;	/* -1: not on the command line */
	int help, dump_aliases, completion_helper;
	int no_identity;
	char *identity;		/* the last --identity value, or NULL */
};

#define SENDEMAIL_ARGS_INIT { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, 0, 0, -1, 0, -1, 0, 0, 0, 0, NULL }

void sendemail_args_parse(struct sendemail_args *a, const char *const *argv, size_t argc);
void sendemail_args_release(struct sendemail_args *a);

/*
 * How many words from argv[i] on one of git send-email's passes would take
 * as an option there: 0 (not one of its options), 1, or 2 (with a value).
 */
size_t sendemail_option_words(const char *const *argv, size_t argc, size_t i);

#endif
