/*
 * khsend scan: where does each entry occur in a source tree?  A maintainer
 * uses --stale to find entries whose joke is gone, so the policy stays true.
 */
#define _GNU_SOURCE
#include "khsend.h"
#include "lib/i18n.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const scan_usage[] = {
	"khsend scan [--policy <file>]... [--stale] [<tree>]",
	NULL,
};

#define MAX_SCAN_BYTES (64u << 20)

struct scan {
	const struct policy *policy;
	size_t *hits;		/* per entry */
	size_t *covering;	/* scratch: entries covering the current file */
	int stale;		/* only count */
	size_t files;
};

static void
scan_file(struct scan *s, const char *rel, const char *abs)
{
	struct strbuf buf = STRBUF_INIT;
	size_t ncover = 0;
	int lineno = 0;

	for (size_t i = 0; i < s->policy->nr; i++)
		if (policy_entry_covers(s->policy->v[i], rel))
			s->covering[ncover++] = i;
	if (!ncover)
		return;
	if (strbuf_read_file(&buf, abs, MAX_SCAN_BYTES) < 0) {
		warning(_("cannot read '%s': %s"), abs, strerror(errno));
		strbuf_release(&buf);
		return;
	}
	s->files++;
	/* Like git grep: a NUL in the first 8000 bytes means a binary file. */
	if (memchr(buf.buf, '\0', buf.len < 8000 ? buf.len : 8000)) {
		strbuf_release(&buf);
		return;
	}
	for (char *line = buf.buf, *nl; line < buf.buf + buf.len; line = nl + 1) {
		nl = strchrnul(line, '\n');
		*nl = '\0';
		lineno++;
		for (size_t k = 0; k < ncover; k++) {
			const struct policy_entry *e = s->policy->v[s->covering[k]];

			if (!policy_entry_count(e, line))
				continue;
			s->hits[s->covering[k]]++;
			if (!s->stale) {
				char *text = xstrdup(line);

				sanitize_terminal(text);
				printf("%s:%d: %s: %s\n", rel, lineno, e->id, text);
				free(text);
			}
		}
		if (!*nl && nl == buf.buf + buf.len)
			break;
	}
	strbuf_release(&buf);
}

/* Walk the tree in name order (so output is stable), skipping .git. */
static void
walk(struct scan *s, struct strbuf *rel, struct strbuf *abs)
{
	struct strvec names = STRVEC_INIT;
	size_t rlen = rel->len, alen = abs->len;

	if (read_dir_sorted(abs->buf, &names)) {
		warning(_("cannot read directory '%s': %s"), abs->buf, strerror(errno));
		return;
	}
	for (size_t i = 0; i < names.nr; i++) {
		struct stat st;

		if (!strcmp(names.v[i], ".git"))
			continue;

		strbuf_setlen(rel, rlen);
		strbuf_setlen(abs, alen);
		if (rlen)
			strbuf_addch(rel, '/');
		strbuf_addstr(rel, names.v[i]);
		strbuf_addf(abs, "/%s", names.v[i]);
		if (lstat(abs->buf, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(s, rel, abs);
		else if (S_ISREG(st.st_mode))
			scan_file(s, rel->buf, abs->buf);
	}
	strbuf_setlen(rel, rlen);
	strbuf_setlen(abs, alen);
	strvec_clear(&names);
}

int
cmd_scan(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT;
	struct strbuf rel = STRBUF_INIT, abs = STRBUF_INIT;
	struct khsend_ctx ctx;
	struct scan s = { 0 };
	size_t stale = 0;
	int only_stale = 0, ret = EXIT_CLEAN;
	const char *tree = NULL;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_BOOL(0, "stale", &only_stale, "list only the entries that match nowhere (exit 1 if any)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, scan_usage, 0);
	if (argc > 2)
		usage_msg_opt(scan_usage, options, _("give at most one tree"));
	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	if (argc == 2)
		tree = argv[1];
	else if (ctx.repo && ctx.repo->worktree)
		tree = ctx.repo->worktree;
	else
		tree = ".";
	if (!is_dir(tree)) {
		error(_("'%s' is not a directory"), tree);
		ret = EXIT_ERROR;
		goto out;
	}
	s.policy = &ctx.policy;
	s.stale = only_stale == 1;
	s.hits = xcalloc(ctx.policy.nr + 1, sizeof(*s.hits));
	s.covering = xcalloc(ctx.policy.nr + 1, sizeof(*s.covering));
	strbuf_addstr(&abs, tree);
	while (abs.len > 1 && abs.buf[abs.len - 1] == '/')
		strbuf_setlen(&abs, abs.len - 1);
	walk(&s, &rel, &abs);

	for (size_t i = 0; i < ctx.policy.nr; i++) {
		if (s.hits[i])
			continue;
		stale++;
		if (s.stale)
			printf("%s: matches nowhere in %s (defined at %s)\n", ctx.policy.v[i]->id, tree,
			       ctx.policy.v[i]->origin);
	}
	if (s.stale) {
		note(Q_("%zu of %zu entry match nowhere", "%zu of %zu entries match nowhere", ctx.policy.nr),
		     stale, ctx.policy.nr);
		ret = stale ? EXIT_FINDING : EXIT_CLEAN;
	} else {
		note(Q_("%zu of %zu entry found (%zu files read)%s", "%zu of %zu entries found (%zu files read)%s",
			ctx.policy.nr), ctx.policy.nr - stale, ctx.policy.nr, s.files,
		     stale ? _("; 'khsend scan --stale' lists the others") : "");
	}
out:
	free(s.hits);
	free(s.covering);
	strbuf_release(&rel);
	strbuf_release(&abs);
	ctx_release(&ctx);
	strvec_clear(&policies);
	return ret;
}
