// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend reply: the maintainer's side.  For a received patch that alters a
 * protected string, draft the kind answer the article asks for: thanks
 * first, the changed lines quoted, the joke explained in plain English,
 * and what happens next.  The draft is a mail git send-email takes as is:
 * threaded to the patch, to its author, copied to everyone it was sent to.
 */
#include "khsend.h"
#include "check/check.h"
#include "lib/i18n.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"
#include "reply/compose.h"
#include "series/series.h"

#include <stdio.h>
#include <stdlib.h>

#define MBOX_FROM "From khsend Mon Sep 17 00:00:00 2001\n"

static const char *const reply_usage[] = {
	"khsend reply [--policy <file>]... [-o <file>] [--lang <tag>] <mail|mbox|patch|directory>",
	NULL,
};

int
cmd_reply(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT, inputs = STRVEC_INIT;
	struct series_options sopts = { NULL, 0, NULL, NULL };
	struct series s = SERIES_INIT;
	struct strbuf out = STRBUF_INIT;
	struct replier r = { 0 };
	struct khsend_ctx ctx;
	struct checker ck;
	const char *output = NULL, *input, *lang = NULL;
	char *keep = NULL, *author_lang = NULL;
	size_t replies = 0;
	int have_ck = 0, ret = EXIT_ERROR;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_STRING('o', "output", &output, "file", "write the reply there instead of to standard output"),
		OPT_STRING(0, "lang", &lang, "tag", "also explain the joke in the author's language, below the English"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, reply_usage, 0);
	if (argc != 2)
		usage_msg_opt(reply_usage, options, _("name one received mail, mbox or patch file"));
	input = argv[1];
	/* The author's language, for the reply: not the language of khsend's own messages. */
	if (lang)
		author_lang = i18n_parse_tag(lang, "--lang");
	if (!file_exists(input))
		die_errno(_("cannot read '%s'"), input);
	if (output && same_file(output, input))
		die(_("-o '%s' is the mail being answered; name another file for the reply"), output);

	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	strvec_push(&inputs, input);
	keep = xstrfmt("%s/received", ctx_tmpdir(&ctx));
	/* Files only, never revisions: sopts.repo stays NULL. */
	sopts.scratch = ctx_tmpdir(&ctx);
	sopts.keep_dir = keep;
	if (series_build(&s, &inputs, &sopts))
		goto out;
	/* The maintainer's tree: the result of applying the patch there settles it. */
	checker_init(&ck, &ctx.policy, NULL, ctx.repo, ctx_tmpdir(&ctx));
	have_ck = 1;
	if (ctx.repo)
		checker_set_base(&ck, "HEAD");
	if (check_series(&ck, &s))
		goto out;
	if (!ck.det.nr) {
		note(_("no protected string is changed in '%s', so there is nothing to reply to"), input);
		ret = EXIT_FINDING;
		goto out;
	}
	if (replier_init(&r))
		goto out;
	r.lang = author_lang;
	/* Findings are in series order, so each message's findings are one run. */
	for (size_t i = 0; i < ck.det.nr; i++)
		replies += !i || ck.det.findings[i].index != ck.det.findings[i - 1].index;
	for (size_t i = 0, first = 0; i < s.nr; i++) {
		const struct finding *f = ck.det.findings;
		size_t nf = 0;

		while (first < ck.det.nr && f[first].index < s.v[i]->index)
			first++;
		while (first + nf < ck.det.nr && f[first + nf].index == s.v[i]->index)
			nf++;
		if (!nf)
			continue;
		if (replies > 1)
			strbuf_addstr(&out, MBOX_FROM);
		if (compose_reply(&out, s.v[i], f + first, nf, &r, ctx_tmpdir(&ctx)))
			goto out;
	}
	if (output ? write_file_buf(output, out.buf, out.len) : (fwrite(out.buf, 1, out.len, stdout), 0))
		goto out;
	if (replies > 1)
		note(_("%zu replies, one for each patch that changes a protected string, as an mbox%s%s%s"),
		     replies, output ? " in '" : "", output ? output : "", output ? "'" : "");
	ret = EXIT_CLEAN;
out:
	if (have_ck)
		checker_release(&ck);
	series_release(&s);
	replier_release(&r);
	ctx_release(&ctx);
	free(keep);
	free(author_lang);
	strbuf_release(&out);
	strvec_clear(&inputs);
	strvec_clear(&policies);
	return ret;
}
