/*
 * khsend scan: where does each entry occur in a source tree?  A maintainer
 * uses --stale to find entries whose joke is gone, so the policy stays true.
 */
#include "khsend.h"
#include "check/scan.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const scan_usage[] = {
	"khsend scan [--policy <file>]... [--stale] [<tree>]",
	NULL,
};

/* Each occurrence: counted per entry, and printed unless only the stale ones are wanted. */
struct scan_run {
	size_t *hits;		/* per entry */
	const struct policy *policy;
	int stale;
};

static void
found(void *data, size_t entry, const char *path, int lineno, const char *line, size_t count)
{
	struct scan_run *r = data;

	r->hits[entry]++;
	if (!r->stale) {
		char *text = xstrdup(line);

		sanitize_terminal(text);
		printf("%s:%d: %s: %s\n", path, lineno, r->policy->v[entry]->id, text);
		free(text);
	}
}

int
cmd_scan(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT;
	struct khsend_ctx ctx;
	struct scan_run r = { NULL, NULL, 0 };
	size_t stale = 0, files;
	int only_stale = 0, ret = EXIT_CLEAN;
	const char *tree;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_BOOL(0, "stale", &only_stale, "list only the entries that match nowhere (exit 1 if any)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, scan_usage, 0);
	if (argc > 2)
		usage_msg_opt(scan_usage, options, "give at most one tree");
	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	tree = scan_tree_arg(ctx.repo, argc == 2 ? argv[1] : NULL);
	if (!tree) {
		ret = EXIT_ERROR;
		goto out;
	}
	r.policy = &ctx.policy;
	r.stale = only_stale == 1;
	r.hits = xcalloc(ctx.policy.nr + 1, sizeof(*r.hits));
	files = scan_tree(&ctx.policy, tree, found, &r);

	for (size_t i = 0; i < ctx.policy.nr; i++) {
		if (r.hits[i])
			continue;
		stale++;
		if (r.stale)
			printf("%s: matches nowhere in %s (defined at %s)\n", ctx.policy.v[i]->id, tree,
			       ctx.policy.v[i]->origin);
	}
	if (r.stale) {
		note("%zu of %zu %s match nowhere", stale, ctx.policy.nr, ctx.policy.nr == 1 ? "entry" : "entries");
		ret = stale ? EXIT_FINDING : EXIT_CLEAN;
	} else {
		note("%zu of %zu %s found (%zu files read)%s", ctx.policy.nr - stale, ctx.policy.nr,
		     ctx.policy.nr == 1 ? "entry" : "entries", files,
		     stale ? "; 'khsend scan --stale' lists the others" : "");
	}
out:
	free(r.hits);
	ctx_release(&ctx);
	strvec_clear(&policies);
	return ret;
}
