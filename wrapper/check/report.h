/* SPDX-License-Identifier: GPL-2.0-only */
/* report: tell the contributor what was found, kindly, as text or JSON. */
#ifndef KHSEND_REPORT_H
#define KHSEND_REPORT_H

#include "check/check.h"

#include <stdio.h>

enum report_format { REPORT_TEXT, REPORT_JSON };

/* How the findings will be acted on, which changes the words. */
enum report_mode {
	REPORT_CHECK,		/* khsend check: nothing is being sent */
	REPORT_SEND,		/* before git send-email or b4 send */
	REPORT_VALIDATE,	/* plain git send-email's sendemail-validate hook: no notes possible */
	REPORT_APPLY,		/* a maintainer's git am */
	REPORT_COMMIT,		/* pre-commit */
};

/* The text report, on `fp` (whose fd decides the colours). */
void report_text(FILE *fp, const struct checker *c, enum report_mode mode);
/* {"blocked": bool, "findings": [...]} and a newline. */
void report_json(FILE *fp, const struct detector *d);
/* prefix + text + newline, with the text's control characters removed (policy text is untrusted). */
void print_sanitized(FILE *fp, const char *prefix, const char *text);
/* The explanation of an entry, indented, with control characters removed. */
void report_explain(FILE *fp, const struct policy_entry *e, const char *indent);

#endif
