/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * input: the command line, split into files and revisions the way git
 * send-email 2.39 splits it ("process the rest of the command line").
 */
#ifndef KHSEND_INPUT_H
#define KHSEND_INPUT_H

#include "lib/repo.h"
#include "lib/strvec.h"

/*
 * Files (directories expanded to their regular files, sorted as Perl's
 * sort does) go to `files`, everything else to `revs` ("--" and all
 * after it go to revs; "-" is standard input, a file).  format_patch is
 * git send-email's --[no-]format-patch: -1 unset, 0 files, 1 revisions.
 * Returns 0, or -1 after printing git send-email's disambiguation error.
 */
int input_classify(const struct strvec *inputs, const struct repo *repo, int format_patch,
		   struct strvec *files, struct strvec *revs);

#endif
