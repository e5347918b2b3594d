/*
 * khsend check: read the series one message at a time (memory stays flat),
 * check it, report.  The policy's repository layer and the result check
 * use the series' base, which the first message tells (git format-patch's
 * base-commit line, or the parent of its commit), else HEAD.
 */
#include "khsend.h"
#include "check/check.h"
#include "check/report.h"
#include "lib/parse-options.h"
#include "lib/usage.h"
#include "series/series.h"

#include <stdio.h>
#include <string.h>

static const char *const check_usage[] = {
	"khsend check [-q] [--policy <file>]... [--format=text|json] <patch|directory|mbox|revisions|->...",
	NULL,
};

struct check_run {
	struct khsend_ctx *ctx;
	const struct strvec *policies;
	struct checker ck;
	int started;
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
		if (run->ctx->repo)
			checker_set_base(&run->ck, base ? base : "HEAD");
		free(base);
		if (checker_follow_unpublished(&run->ck))
			return -1;
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
	const char *format = "text";
	int format_patch = -1, quiet = 0, ret;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_STRING(0, "format", &format, "text|json", "how to print the findings (default: text)"),
		OPT_BOOL('q', "quiet", &quiet, "print nothing when nothing is found"),
		OPT_BOOL(0, "format-patch", &format_patch,
			 "a name that is both a file and a revision means the revision"),
		OPT_END(),
	};

	/* Unknown options go to git format-patch with the revisions (-3, --root, -v2 ...). */
	argc = parse_options(argc, argv, options, check_usage, PARSE_OPT_KEEP_DASHDASH | PARSE_OPT_KEEP_UNKNOWN);
	if (strcmp(format, "text") && strcmp(format, "json"))
		usage_msg_opt(check_usage, options, "--format=%s: expected text or json", format);
	if (argc < 2)
		usage_msg_opt(check_usage, options, "name the patches to check");
	for (int i = 1; i < argc; i++)
		strvec_push(&inputs, argv[i]);

	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	memset(&run, 0, sizeof(run));
	run.ctx = &ctx;
	run.policies = &policies;
	sopts.repo = ctx.repo;
	sopts.format_patch = format_patch;
	sopts.scratch = ctx_tmpdir(&ctx);
	if (series_read(&inputs, &sopts, check_one, &run) || checker_finish(&run.ck)) {
		ret = EXIT_ERROR;
		goto out;
	}
	if (!strcmp(format, "json"))
		report_json(stdout, &run.ck.det);
	else if (!quiet || run.ck.det.nr || run.ck.policy_changes.nr)
		report_text(stdout, &run.ck, REPORT_CHECK);
	ret = detector_blocked(&run.ck.det) ? EXIT_FINDING : EXIT_CLEAN;
out:
	if (run.started)
		checker_release(&run.ck);
	ctx_release(&ctx);
	strvec_clear(&inputs);
	strvec_clear(&policies);
	return ret;
}
