// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend boot: read the series in any form khsend check takes, turn each
 * message into a mail file git am can apply (commits through git
 * format-patch), and hand them to boot_series().  khsend setup prepares
 * the default tree ahead of the first boot.
 */
#include "khsend.h"
#include "boot/boot.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "series/series.h"
#include "lib/usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const boot_usage[] = {
	"khsend boot [--tree <dir>] [--base <rev>] [--timeout <s>] [--memory <MiB>] [--keep]\n"
	"            [--compile-test missing|all|none] <patch|directory|mbox|revisions>...",
	NULL,
};

static const char *const setup_usage[] = {
	"khsend setup [--force]",
	NULL,
};

int
cmd_boot(int argc, const char **argv)
{
	struct boot_options opts = BOOT_OPTIONS_INIT;
	struct strvec inputs = STRVEC_INIT, policies = STRVEC_INIT;
	struct series_options sopts = { NULL, -1, NULL, NULL };
	struct series s = SERIES_INIT;
	struct khsend_ctx ctx;
	char *keep = NULL;
	const char *compile = NULL;
	int keep_tree = -1, ret = EXIT_ERROR;
	struct option options[] = {
		OPT_STRING(0, "tree", &opts.tree, "dir",
			   "a kernel checkout to build (default: khsend.tree, else the one we are in, "
			   "else linux-source 6.1)"),
		OPT_STRING(0, "base", &opts.base, "rev", "apply the series on this commit of the tree"),
		OPT_INTEGER(0, "timeout", &opts.timeout, "s",
			    "seconds QEMU may run (default: khsend.bootTimeout, else 120)"),
		OPT_INTEGER(0, "memory", &opts.memory_mb, "MiB",
			    "guest memory (default: khsend.bootMemory, else 256)"),
		OPT_BOOL(0, "keep", &keep_tree, "leave the series applied in the private work tree"),
		OPT_STRING(0, "compile-test", &compile, "missing|all|none",
			   "touched .c files to build in an allmodconfig tree too: missing (the default: "
			   "those the booted kernel lacks), all or none"),
		OPT_STRING_LIST(0, "policy", &policies, "file",
				"policy files, validated as khsend check does (boot checks no policy)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, boot_usage, PARSE_OPT_KEEP_DASHDASH | PARSE_OPT_KEEP_UNKNOWN);
	if (argc < 2)
		usage_msg_opt(boot_usage, options, "name the patches to boot");
	if (opts.memory_mb && opts.memory_mb < 32)
		usage_msg_opt(boot_usage, options, "--memory %d: at least 32 MiB", opts.memory_mb);
	opts.keep = keep_tree > 0;
	if (opts.tree)
		opts.tree_from = "--tree";
	if (compile) {
		int mode = boot_compile_parse(compile);

		if (mode < 0)
			usage_msg_opt(boot_usage, options, "--compile-test '%s': expected missing, all or none",
				      compile);
		opts.compile = (enum boot_compile)mode;
	}
	for (int i = 1; i < argc; i++)
		strvec_push(&inputs, argv[i]);

	ctx_init(&ctx);
	if (policies.nr)
		ctx_load_policy(&ctx, &policies, NULL);
	keep = xstrfmt("%s/series", ctx_tmpdir(&ctx));
	sopts.repo = ctx.repo;
	sopts.scratch = ctx_tmpdir(&ctx);
	sopts.keep_dir = keep;
	if (series_build(&s, &inputs, &sopts))
		goto out;
	boot_options_from_config(&opts);
	ret = boot_series(&opts, &s);
out:
	free(keep);
	series_release(&s);
	ctx_release(&ctx);
	strvec_clear(&inputs);
	strvec_clear(&policies);
	return ret;
}

int
cmd_setup(int argc, const char **argv)
{
	int force = -1;
	struct option options[] = {
		OPT_BOOL(0, "force", &force, "extract and record the default tree again"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, setup_usage, 0);
	if (argc > 1)
		usage_msg_opt(setup_usage, options, "unexpected argument '%s'", argv[1]);
	return boot_setup_default_tree(force > 0);
}
