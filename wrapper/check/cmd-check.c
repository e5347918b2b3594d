// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend check: read the series one message at a time (memory stays flat),
 * check it, report.  The policy's repository layer and the result check
 * use the series' base, which the first message tells (git format-patch's
 * base-commit line, or the parent of its commit), else HEAD.
 *
 * With checkpatch's options (--terse, --showfile, --no-summary, --mailback;
 * -q then has checkpatch's meaning) or --format=checkpatch it answers as checkpatch.pl does,
 * for b4's per-patch checks: "khsend check - -q --terse --no-summary
 * --mailback --showfile" prints nothing at all for a clean patch.
 */
#include "khsend.h"
#include "check/check.h"
#include "check/report.h"
#include "lib/i18n.h"
#include "check/report-checkpatch.h"
#include "lib/parse-options.h"
#include "lib/usage.h"
#include "series/series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const check_usage[] = {
	"khsend check [-q] [--policy <file>]... [--format=text|json] [--lang <tag>]\n"
	"             <patch|directory|mbox|revisions|->...",
	"khsend check [--policy <file>]... [-q] [--terse] [--showfile] [--no-summary] [--mailback] <patch|->",
	NULL,
};

struct check_run {
	struct khsend_ctx *ctx;
	const struct strvec *policies;
	struct checker ck;
	int started;
	struct checkpatch_input *cp;	/* the bytes of each message, for checkpatch's line numbers */
};

static int
check_one(struct message *msg, void *data)
{
	struct check_run *run = data;

	if (!run->started) {
		char *base = message_base(msg, run->ctx->repo);

		run->started = 1;
		/* The policy was read (and validated) as of HEAD: the series may name another base. */
		if (base && !run->policies->nr)
			ctx_reload_policy(run->ctx, run->policies, base);
		checker_init(&run->ck, &run->ctx->policy, NULL, run->ctx->repo, ctx_tmpdir(run->ctx));
		/* No base in a repository without a commit yet: the lines alone count then. */
		if (run->ctx->repo && (base || repo_resolves(run->ctx->repo, "HEAD^{commit}", NULL)))
			checker_set_base(&run->ck, base ? base : "HEAD");
		free(base);
		if (checker_follow_unpublished(&run->ck))
			return -1;
	}
	if (run->cp) {
		strvec_push(&run->cp->raws, msg->raw.buf);
		if (!run->cp->subject && msg->subject)
			run->cp->subject = xstrdup(msg->subject);
	}
	return checker_add_owned(&run->ck, msg);
}

int
cmd_check(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT, inputs = STRVEC_INIT;
	struct series_options sopts = { NULL, -1, NULL, NULL };
	struct khsend_ctx ctx;
	struct check_run run;
	const char *format = NULL, *lang = NULL;
	struct checkpatch_options cpo = CHECKPATCH_OPTIONS_INIT;
	struct checkpatch_input cpi = { "-", STRVEC_INIT, NULL };
	int format_patch = -1, summary = -1, no_tree = -1, ret;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_STRING(0, "format", &format, "text|json|checkpatch", "how to print the findings (default: text)"),
		OPT_BOOL(0, "format-patch", &format_patch,
			 "a name that is both a file and a revision means the revision"),
		OPT_STRING(0, "lang", &lang, "tag", "the language of the explanations and messages (khsend.lang)"),
		OPT_COUNTUP('q', "quiet", &cpo.quiet, "print nothing when nothing is found (checkpatch: no closing words)"),
		OPT_GROUP("checkpatch.pl's options (each means --format=checkpatch):"),
		OPT_BOOL(0, "terse", &cpo.terse, "one line a finding: <input>:<line>: ERROR|WARNING|CHECK: ..."),
		OPT_BOOL(0, "showfile", &cpo.showfile, "name the changed file and its line, not the input's line"),
		OPT_BOOL(0, "summary", &summary, "the 'total: ...' line (the default; --no-summary drops it)"),
		OPT_BOOL(0, "mailback", &cpo.mailback, "print nothing at all when nothing is found"),
		OPT_BOOL(0, "tree", &no_tree, "accepted for checkpatch's --no-tree; khsend needs no kernel tree"),
		OPT_END(),
	};

	/* Unknown options go to git format-patch with the revisions (-3, --root, -v2 ...). */
	argc = parse_options(argc, argv, options, check_usage, PARSE_OPT_KEEP_DASHDASH | PARSE_OPT_KEEP_UNKNOWN);
	i18n_setup(lang);
	if (cpo.terse == 1 || cpo.showfile == 1 || summary >= 0 || cpo.mailback == 1 || no_tree >= 0) {
		if (format && strcmp(format, "checkpatch"))
			usage_msg_opt(check_usage, options, _("--format=%s cannot be combined with checkpatch's options"),
				      format);
		format = "checkpatch";
	}
	if (!format)
		format = "text";
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "checkpatch"))
		usage_msg_opt(check_usage, options, _("--format=%s: expected text, json or checkpatch"), format);
	cpo.terse = cpo.terse == 1;
	cpo.showfile = cpo.showfile == 1;
	cpo.mailback = cpo.mailback == 1;
	cpo.summary = summary != 0;
	if (argc < 2)
		usage_msg_opt(check_usage, options, _("name the patches to check"));
	for (int i = 1; i < argc; i++)
		strvec_push(&inputs, argv[i]);

	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	memset(&run, 0, sizeof(run));
	run.ctx = &ctx;
	run.policies = &policies;
	if (!strcmp(format, "checkpatch")) {
		run.cp = &cpi;
		cpi.name = argc == 2 ? argv[1] : "-";
	}
	sopts.repo = ctx.repo;
	sopts.format_patch = format_patch;
	sopts.scratch = ctx_tmpdir(&ctx);
	if (series_read(&inputs, &sopts, check_one, &run) || checker_finish(&run.ck)) {
		ret = EXIT_ERROR;
		goto out;
	}
	if (!strcmp(format, "checkpatch")) {
		/* checkpatch's exit status: 1 when anything was reported. */
		ret = report_checkpatch(stdout, &run.ck, &cpo, &cpi) ? EXIT_FINDING : EXIT_CLEAN;
		goto out;
	}
	if (!strcmp(format, "json"))
		report_json(stdout, &run.ck.det);
	else if (!cpo.quiet || run.ck.det.nr || run.ck.policy_changes.nr)
		report_text(stdout, &run.ck, REPORT_CHECK);
	ret = detector_blocked(&run.ck.det) ? EXIT_FINDING : EXIT_CLEAN;
out:
	if (run.started)
		checker_release(&run.ck);
	ctx_release(&ctx);
	strvec_clear(&inputs);
	strvec_clear(&policies);
	strvec_clear(&cpi.raws);
	free((char *)cpi.subject);
	return ret;
}
