/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report-checkpatch: the findings the way scripts/checkpatch.pl reports,
 * for the tools that run it on each patch (b4's prep-perpatch-check-cmd
 * and am-perpatch-check-cmd): block is ERROR, annotate is WARNING, warn is
 * CHECK, with checkpatch's -q, --terse, --showfile, --no-summary and
 * --mailback.
 */
#ifndef KHSEND_REPORT_CHECKPATCH_H
#define KHSEND_REPORT_CHECKPATCH_H

#include "check/check.h"
#include "lib/strvec.h"

#include <stdio.h>

struct checkpatch_options {
	int quiet;		/* -q, --quiet: counted, as checkpatch's "q|quiet+" */
	int terse;		/* one line a finding (and one more -q) */
	int showfile;		/* "file:line:" of the diffed file, not of the input */
	int summary;		/* the "total: ..." line (on unless --no-summary) */
	int mailback;		/* nothing at all when nothing is found */
};

#define CHECKPATCH_OPTIONS_INIT { 0, 0, 0, 1, 0 }

/* What was read: the input's name for the prefix ("-" for stdin) and each message's bytes, by index. */
struct checkpatch_input {
	const char *name;
	struct strvec raws;	/* raws.v[i] is message i + 1 */
	const char *subject;	/* the first Subject: (checkpatch's name for stdin) */
};

/*
 * Print the report on `fp`; returns what checkpatch would exit with: 1 if
 * anything was reported, else 0.
 */
int report_checkpatch(FILE *fp, const struct checker *c, const struct checkpatch_options *o,
		      const struct checkpatch_input *in);

#endif
