/* khsend check: read the series, run the detector, report. */
#include "khsend.h"
#include "check/detect.h"
#include "lib/parse-options.h"
#include "check/report.h"
#include "series/series.h"
#include "lib/usage.h"

#include <stdio.h>
#include <string.h>

static const char *const check_usage[] = {
	"khsend check [--policy <file>]... [--format=text|json] <patch|directory|mbox|revisions>...",
	NULL,
};

static int
check_one(struct message *msg, void *data)
{
	return detector_add(data, msg);
}

int
cmd_check(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT;
	struct khsend_ctx ctx;
	struct detector det;
	struct series_options sopts = { NULL, -1, NULL };
	const char *format = "text";
	struct strvec inputs = STRVEC_INIT;
	int format_patch = -1, ret;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_STRING(0, "format", &format, "text|json", "how to print the findings (default: text)"),
		OPT_BOOL(0, "format-patch", &format_patch,
			 "a name that is both a file and a revision means the revision"),
		OPT_END(),
	};

	/* Unknown options are left to the revision reader, which knows --root and -N. */
	argc = parse_options(argc, argv, options, check_usage, PARSE_OPT_KEEP_DASHDASH | PARSE_OPT_KEEP_UNKNOWN);
	if (strcmp(format, "text") && strcmp(format, "json"))
		usage_msg_opt(check_usage, options, "--format=%s: expected text or json", format);
	if (argc < 2)
		usage_msg_opt(check_usage, options, "name the patches to check");
	for (int i = 1; i < argc; i++)
		strvec_push(&inputs, argv[i]);

	ctx_init(&ctx, &policies);
	sopts.repo = ctx.repo;
	sopts.format_patch = format_patch;
	sopts.tmpdir = ctx_tmpdir(&ctx);
	detector_init(&det, &ctx.policy, NULL);
	if (series_read(&inputs, &sopts, check_one, &det)) {
		ret = EXIT_ERROR;
		goto out;
	}
	detector_finish(&det);
	if (!strcmp(format, "json"))
		report_json(stdout, &det);
	else
		report_text(stdout, &det, REPORT_CHECK);
	ret = detector_blocked(&det) ? EXIT_FINDING : EXIT_CLEAN;
out:
	detector_release(&det);
	ctx_release(&ctx);
	strvec_clear(&inputs);
	strvec_clear(&policies);
	return ret;
}
