// SPDX-License-Identifier: GPL-2.0-only
/* outgoing: check, boot and spool a series the same way for git send-email and b4. */
#include "send/outgoing.h"
#include "boot/boot.h"
#include "check/report.h"
#include "lib/i18n.h"
#include "lib/usage.h"
#include "send/transport.h"

#include <stdlib.h>
#include <string.h>

void
outgoing_init(struct outgoing *o, struct khsend_ctx *ctx, const struct strvec *policies,
	      const struct strvec *allow)
{
	memset(o, 0, sizeof(*o));
	o->ctx = ctx;
	o->policies = policies;
	o->allow = allow;
}

void
outgoing_release(struct outgoing *o)
{
	if (o->checked)
		checker_release(&o->ck);
	free(o->base);
	spool_release(&o->spool);
	memset(o, 0, sizeof(*o));
}

int
outgoing_check(struct outgoing *o, const struct series *s, int always_report)
{
	struct khsend_ctx *ctx = o->ctx;

	o->base = series_base(s, ctx->repo);
	ctx_load_policy(ctx, o->policies, o->base);
	ctx_check_allow(ctx, o->allow);
	checker_init(&o->ck, &ctx->policy, o->allow, ctx->repo, ctx_tmpdir(ctx));
	o->checked = 1;
	if (ctx->repo)
		checker_set_base(&o->ck, o->base ? o->base : "HEAD");
	/* Whether it applies to its base: the series as delivered must still do so. */
	o->ck.force_result = 1;
	if (checker_follow_unpublished(&o->ck) || check_series(&o->ck, s)) {
		note(_("nothing was sent"));
		return EXIT_ERROR;
	}
	if (always_report || o->ck.det.nr || o->ck.policy_changes.nr)
		report_text(stderr, &o->ck, REPORT_SEND);
	return detector_blocked(&o->ck.det) ? EXIT_FINDING : EXIT_CLEAN;
}

int
outgoing_boot(struct outgoing *o, const struct series *s, int flag)
{
	struct boot_options opts = BOOT_OPTIONS_INIT;
	int ret;

	if (!ctx_want_boot(o->ctx, flag))
		return EXIT_CLEAN;
	boot_options_from_config(&opts);
	ret = boot_series(&opts, s);
	if (ret != EXIT_CLEAN)
		note(_("nothing was sent"));
	o->booted = ret == EXIT_CLEAN;
	return ret;
}

int
outgoing_spool(struct outgoing *o, const struct series *s, const struct strvec *transport, size_t expect)
{
	struct strvec policies = STRVEC_INIT;
	char *dir = xstrfmt("%s/spool", ctx_tmpdir(o->ctx)), *count = xstrfmt("%zu", expect);
	int ret;

	/* The transport runs elsewhere: the policy files by their whole names. */
	for (size_t i = 0; i < o->policies->nr; i++) {
		char *abs = realpath(o->policies->v[i], NULL);

		strvec_push(&policies, abs ? abs : o->policies->v[i]);
		free(abs);
	}
	ret = spool_create(&o->spool, dir) || spool_set_list(&o->spool, "policies", &policies) ||
	      spool_set_list(&o->spool, "allow", o->allow) ||
	      spool_set_list(&o->spool, "transport", transport) ||
	      spool_set(&o->spool, "base", o->base ? o->base : "") ||
	      spool_set(&o->spool, "applies", o->ck.result_state > 0 ? "yes" : "no") ||
	      (expect && spool_set(&o->spool, "expect", count)) ||
	      (o->booted && spool_keep_booted(&o->spool, s)) ? -1 : 0;
	strvec_clear(&policies);
	free(dir);
	free(count);
	return ret;
}
