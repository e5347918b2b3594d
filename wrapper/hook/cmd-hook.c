// SPDX-License-Identifier: GPL-2.0-only
/*
 * "khsend hook <name>": what the hooks in hooks/ exec, and what khsend
 * hands to git send-email and b4 as their transport.  Each hook's
 * contract is written at the top of its file.
 *
 *   sendemail-validate <patch> [<headers>]   plain git send-email, per file
 *   applypatch-msg <msgfile>                 git am, before a patch is applied
 *   pre-applypatch                           git am, after it is applied
 *   pre-commit                               git commit
 *   transport [-f <from>] -i <rcpt>...       git send-email's and b4's sendmail, under khsend
 *
 * Exit status: 0 to let git go on, 1 to stop it (a finding), 2 for an
 * error (git stops too: a hook that cannot check does not wave through).
 * In git am and git commit, the entries KHSEND_ALLOW (one run) and
 * khsend.allow (the repository) name are let through.
 * The policy's repository layer is read from HEAD: for git am, the tree
 * before the patch; never the index or work tree a patch may have written.
 */
#define _GNU_SOURCE
#include "khsend.h"
#include "check/check.h"
#include "check/report.h"
#include "hook/hooks.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/strbuf.h"
#include "lib/usage.h"
#include "send/send.h"
#include "send/sendemail-options.h"
#include "send/spool.h"
#include "send/transport.h"
#include "series/series.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const char khsend_hook_sendemail_validate[];
extern const char khsend_hook_applypatch_msg[];
extern const char khsend_hook_pre_applypatch[];
extern const char khsend_hook_pre_commit[];

const struct shipped_hook shipped_hooks[] = {
	{ "sendemail-validate", khsend_hook_sendemail_validate },
	{ "applypatch-msg", khsend_hook_applypatch_msg },
	{ "pre-applypatch", khsend_hook_pre_applypatch },
	{ "pre-commit", khsend_hook_pre_commit },
};
const size_t nr_shipped_hooks = sizeof(shipped_hooks) / sizeof(*shipped_hooks);

const struct shipped_hook *
shipped_hook_find(const char *name)
{
	for (size_t k = 0; k < nr_shipped_hooks; k++)
		if (!strcmp(shipped_hooks[k].name, name))
			return &shipped_hooks[k];
	return NULL;
}

/* The empty tree: what an unborn branch's first commit is compared with. */
#define EMPTY_TREE "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

/* A hook's run: the repository, the policy as of HEAD, a checker. */
struct hook_run {
	struct khsend_ctx ctx;
	struct checker ck;
	int have_ck;
};

static void
hook_start(struct hook_run *h, const char *name, int need_repo)
{
	static char label[64];

	snprintf(label, sizeof(label), "khsend (%s)", name);
	program_name = label;
	memset(h, 0, sizeof(*h));
	ctx_init(&h->ctx);
	if (need_repo && !h->ctx.repo)
		die(_("git runs this hook in a repository, and there is none here"));
}

/* The policy as of `base` (NULL: HEAD), and a checker that applies the series there. */
static void
hook_check_on(struct hook_run *h, const char *base)
{
	ctx_load_policy(&h->ctx, NULL, base);
	checker_init(&h->ck, &h->ctx.policy, NULL, h->ctx.repo, ctx_tmpdir(&h->ctx));
	h->have_ck = 1;
	if (h->ctx.repo)
		checker_set_base(&h->ck, base ? base : "HEAD");
}

static void
hook_end(struct hook_run *h)
{
	if (h->have_ck)
		checker_release(&h->ck);
	ctx_release(&h->ctx);
}

/* ---- sendemail-validate ---- */

static int
parse_counter(const char *s, long *out)
{
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	*out = strtol(s, &end, 10);
	return !errno && !*end && *out > 0;
}

static int
hook_sendemail_validate(int argc, const char **argv)
{
	struct hook_run h;
	struct series s = SERIES_INIT;
	struct spool sp = { NULL };
	char *base = NULL;
	long counter, total;
	int ret = EXIT_ERROR;

	if (argc < 2)
		die(_("usage: khsend hook sendemail-validate <patch> [<smtp-headers>]"));
	/* Under khsend, its transport checks the whole series as it leaves. */
	if (getenv(SPOOL_ENV))
		return EXIT_CLEAN;
	hook_start(&h, "sendemail-validate", 0);
	if (parse_counter(getenv("GIT_SENDEMAIL_FILE_COUNTER"), &counter) &&
	    parse_counter(getenv("GIT_SENDEMAIL_FILE_TOTAL"), &total) && counter <= total && h.ctx.repo) {
		/*
		 * git >= 2.41 says where we are in the series: hold each file
		 * until the last one comes, then check the series as a whole.
		 */
		char *dir = xstrfmt("%s/khsend-validate", h.ctx.repo->git_dir);
		struct strbuf raw = STRBUF_INIT;
		struct strvec name = STRVEC_INIT;

		if (spool_create(&sp, dir) || (counter == 1 && spool_clear(&sp)) ||
		    strbuf_read_file(&raw, argv[1], 64u << 20) < 0)
			die(_("cannot keep '%s' until the whole series is there"), argv[1]);
		strvec_push(&name, argv[1]);
		if (!spool_hold(&sp, raw.buf, raw.len, &name))
			die(_("cannot keep '%s' until the whole series is there"), argv[1]);
		strbuf_release(&raw);
		strvec_clear(&name);
		free(dir);
		if (counter < total) {
			ret = EXIT_CLEAN;
			goto out;
		}
		if ((long)spool_count(&sp) != total)
			die(_("the hook was shown %zu of the %ld files; cannot check the series"), spool_count(&sp), total);
		if (spool_load(&sp, &s))
			goto out;
		/* Name each held message by the file git send-email showed. */
		for (size_t i = 0; i < s.nr; i++) {
			struct strvec args = STRVEC_INIT;

			if (!spool_args(&sp, i + 1, &args) && args.nr) {
				free(s.v[i]->name);
				s.v[i]->name = xstrdup(args.v[0]);
			}
			strvec_clear(&args);
		}
	} else if (series_add_file(&s, argv[1], argv[1])) {
		goto out;
	}
	/* The series' own base, if it names one here; else HEAD. */
	base = series_base(&s, h.ctx.repo);
	hook_check_on(&h, base);
	/* git 2.39 shows the hook one file at a time: a rename earlier in the series is in the branch. */
	if (checker_follow_unpublished(&h.ck) || check_series(&h.ck, &s))
		goto out;
	if (h.ck.det.nr)
		report_text(stderr, &h.ck, REPORT_VALIDATE);
	ret = detector_blocked(&h.ck.det) || detector_count(&h.ck.det, POLICY_ANNOTATE) ? EXIT_FINDING
											  : EXIT_CLEAN;
	if (sp.dir)
		remove_dir_recursively(sp.dir);
out:
	free(base);
	spool_release(&sp);
	series_release(&s);
	hook_end(&h);
	return ret;
}

/* ---- what the maintainer lets through ---- */

/*
 * The ids of KHSEND_ALLOW (separated by commas or blanks) and of every
 * khsend.allow value.  Any entry may be named: this is the maintainer's
 * own tree (an entry's allow-override is about what a contributor may
 * send).  An id that names no entry is an error, with "did you mean".
 */
static void
collect_allowed(const struct hook_run *h, struct strvec *ids)
{
	struct strvec values = STRVEC_INIT;
	const char *env = getenv("KHSEND_ALLOW");

	config_get_all("khsend.allow", &values);
	if (env)
		strvec_push(&values, env);
	for (size_t i = 0; i < values.nr; i++) {
		for (const char *p = values.v[i]; *p;) {
			size_t n;

			p += strspn(p, ", \t\n");
			n = strcspn(p, ", \t\n");
			if (n)
				strvec_push_nodup(ids, xstrndup(p, n));
			p += n;
		}
	}
	strvec_clear(&values);
	for (size_t i = 0; i < ids->nr; i++) {
		struct strbuf hint = STRBUF_INIT;

		if (policy_find(&h->ctx.policy, ids->v[i]))
			continue;
		ctx_add_id_hint(&h->ctx, ids->v[i], 0, &hint);
		die("KHSEND_ALLOW or khsend.allow names '%s', which is no policy entry%s%s", ids->v[i],
		    hint.len ? "; " : "", hint.buf);
	}
}

/* Findings of allowed entries no longer block: they are explained, and git goes on. */
static void
apply_allowed(struct hook_run *h)
{
	struct strvec ids = STRVEC_INIT;

	collect_allowed(h, &ids);
	for (size_t i = 0; i < h->ck.det.nr; i++) {
		struct finding *f = &h->ck.det.findings[i];

		if (strvec_contains(&ids, f->entry->id) && f->action == POLICY_BLOCK) {
			f->allowed = 1;
			f->action = POLICY_ANNOTATE;
		}
	}
	strvec_clear(&ids);
}

/* The ids of the findings that block, "a,b", for a command line; malloc()ed. */
static char *
blocking_ids(const struct detector *d)
{
	struct strvec seen = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < d->nr; i++) {
		const char *id = d->findings[i].entry->id;

		if (d->findings[i].action != POLICY_BLOCK || strvec_contains(&seen, id))
			continue;
		strvec_push(&seen, id);
		strbuf_addf(&sb, "%s%s", sb.len ? "," : "", id);
	}
	strvec_clear(&seen);
	return strbuf_detach(&sb, NULL);
}

/* ---- the maintainer's git am ---- */

/* The first line of a commit message file, for naming the patch. */
static char *
subject_of(const char *msgfile)
{
	struct strbuf sb = STRBUF_INIT;
	char *nl;

	if (!msgfile || strbuf_read_file(&sb, msgfile, 1 << 20) < 0 || !sb.len) {
		strbuf_release(&sb);
		return xstrdup("the patch being applied");
	}
	nl = strchr(sb.buf, '\n');
	if (nl)
		strbuf_setlen(&sb, (size_t)(nl - sb.buf));
	return strbuf_detach(&sb, NULL);
}

/* git am's copy of the mail being applied: rebase-apply/<next>, or NULL. */
static char *
am_mail(const struct repo *repo)
{
	struct strbuf sb = STRBUF_INIT;
	char *next = xstrfmt("%s/rebase-apply/next", repo->git_dir), *mail = NULL;

	if (strbuf_read_file(&sb, next, 64) >= 0) {
		long n = strtol(sb.buf, NULL, 10);

		mail = xstrfmt("%s/rebase-apply/%04ld", repo->git_dir, n);
		if (!file_exists(mail)) {
			free(mail);
			mail = NULL;
		}
	}
	free(next);
	strbuf_release(&sb);
	return mail;
}

/* The ways on after git am stopped: reply, skip or abort, or apply it all the same. */
static void
advise_stopped_am(const struct hook_run *h, int applied)
{
	const struct repo *repo = h->ctx.repo;
	char *mail = am_mail(repo), *ids = blocking_ids(&h->ck.det);

	if (mail)
		note(_("to draft a kind reply to its author: khsend reply %s\n"
		       "(before 'git am --skip' or 'git am --abort', which remove that file)"), mail);
	else
		note(_("'khsend reply <the patch mail>' drafts a kind reply to its author"));
	note(_("'git am --skip' leaves this patch out and goes on; 'git am --abort' stops"));
	if (applied)
		note(_("to commit it all the same: KHSEND_ALLOW=%s git am --continue"), ids);
	else
		note(_("to apply it all the same: git apply --index %s/rebase-apply/patch && "
		     "KHSEND_ALLOW=%s git am --continue"), repo->git_dir, ids);
	note(_("('git config --add khsend.allow <id>' lets an entry through in this repository from now on)"));
	free(ids);
	free(mail);
}

static void
report_policy_changes_for_am(const struct checker *c)
{
	if (c->policy_changes.nr)
		warning(_("this patch changes khsend's own policy file; it was checked with the policy of HEAD, "
			  "before the patch. Please review that change to the policy on its own."));
}

/*
 * Where the git am session began (ORIG_HEAD, which git am sets when it
 * starts): its policy is the one that counts, and a file an earlier patch
 * of the session renamed keeps its protection.  NULL outside git am.
 */
static char *
am_session_start(const struct repo *repo)
{
	char *dir = xstrfmt("%s/rebase-apply", repo->git_dir);
	struct strbuf oid = STRBUF_INIT;
	char *ret = NULL;

	if (is_dir(dir) && repo_resolves(repo, "ORIG_HEAD^{commit}", &oid))
		ret = strbuf_detach(&oid, NULL);
	strbuf_release(&oid);
	free(dir);
	return ret;
}

/* A maintainer's hook: the policy and the names as of the session's start; the result on HEAD. */
static int
am_check_on(struct hook_run *h)
{
	char *start = am_session_start(h->ctx.repo);
	int ret = 0;

	hook_check_on(h, start);
	checker_set_base(&h->ck, "HEAD");
	if (start)
		ret = checker_set_origin(&h->ck, start, "HEAD");
	free(start);
	return ret;
}

/* git am goes on, or stops with the ways out. */
static int
am_verdict(const struct hook_run *h, int check_failed, int applied)
{
	if (check_failed)
		return EXIT_ERROR;
	report_policy_changes_for_am(&h->ck);
	if (!detector_blocked(&h->ck.det))
		return EXIT_CLEAN;
	advise_stopped_am(h, applied);
	return EXIT_FINDING;
}

static int
hook_applypatch_msg(int argc, const char **argv)
{
	struct hook_run h;
	struct series s = SERIES_INIT;
	char *mail, *patch, *subject;
	int failed, ret;

	hook_start(&h, "applypatch-msg", 1);
	/* git am applies onto HEAD: that is the base the result is checked on. */
	if (am_check_on(&h)) {
		hook_end(&h);
		return EXIT_ERROR;
	}
	mail = am_mail(h.ctx.repo);
	patch = xstrfmt("%s/rebase-apply/patch", h.ctx.repo->git_dir);
	subject = subject_of(argc > 1 ? argv[1] : NULL);
	if (!mail && !file_exists(patch))
		die(_("cannot find the patch git am is applying (no %s)"), patch);
	failed = series_add_file(&s, mail ? mail : patch, subject) || check_series(&h.ck, &s);
	if (!failed)
		apply_allowed(&h);
	if (!failed && h.ck.det.nr)
		report_text(stderr, &h.ck, REPORT_APPLY);
	ret = am_verdict(&h, failed, 0);
	free(mail);
	free(patch);
	free(subject);
	series_release(&s);
	hook_end(&h);
	return ret;
}

/* The change staged in the index (git's own diff of it) as one message; settled with the index itself. */
static int
check_staged(struct hook_run *h, const char *name, const char *tree)
{
	struct message msg = MESSAGE_INIT;
	struct strbuf patch = STRBUF_INIT, err = STRBUF_INIT;
	int ret = -1, rc;

	rc = repo_capture(h->ctx.repo, &patch, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff",
			  "--no-textconv", "-M", "--src-prefix=a/", "--dst-prefix=b/", tree, "--", NULL);
	if (rc) {
		error(_("git diff --cached cannot compare the index with %s"), tree);
		goto out;
	}
	h->ck.want_result = 0;	/* the index holds the result already */
	if (patch.len) {
		strbuf_addch(&patch, '\n');
		msg.index = 1;
		if (message_set_raw(&msg, name, patch.buf, patch.len) || checker_add(&h->ck, &msg))
			goto out;
	}
	ret = checker_finish_index(&h->ck, tree, NULL);
out:
	message_release(&msg);
	strbuf_release(&patch);
	strbuf_release(&err);
	return ret;
}

static const char *
head_tree(const struct repo *repo)
{
	return repo_resolves(repo, "HEAD^{tree}", NULL) ? "HEAD" : EMPTY_TREE;
}

static int
hook_pre_applypatch(int argc, const char **argv)
{
	struct hook_run h;
	char *msg, *subject;
	int failed, ret;

	hook_start(&h, "pre-applypatch", 1);
	if (am_check_on(&h)) {
		hook_end(&h);
		return EXIT_ERROR;
	}
	msg = xstrfmt("%s/rebase-apply/final-commit", h.ctx.repo->git_dir);
	subject = subject_of(msg);
	failed = check_staged(&h, subject, head_tree(h.ctx.repo));
	if (!failed)
		apply_allowed(&h);
	/* The second line of defence: it only speaks when it stops. */
	if (!failed && detector_blocked(&h.ck.det))
		report_text(stderr, &h.ck, REPORT_APPLY);
	ret = am_verdict(&h, failed, 1);
	free(msg);
	free(subject);
	hook_end(&h);
	return ret;
}

static int
hook_pre_commit(int argc, const char **argv)
{
	struct hook_run h;
	const char *mode;
	int block = 0, ret;

	hook_start(&h, "pre-commit", 1);
	hook_check_on(&h, NULL);
	if ((mode = config_get("khsend.preCommit"))) {
		if (!strcmp(mode, "block"))
			block = 1;
		else if (strcmp(mode, "warn"))
			die(_("khsend.preCommit is '%s'; it can be 'warn' (the default) or 'block'"), mode);
	}
	if (check_staged(&h, "the staged change", head_tree(h.ctx.repo))) {
		ret = EXIT_ERROR;
	} else {
		apply_allowed(&h);
		if (h.ck.det.nr)
			report_text(stderr, &h.ck, REPORT_COMMIT);
		ret = block && detector_blocked(&h.ck.det) ? EXIT_FINDING : EXIT_CLEAN;
	}
	if (ret == EXIT_FINDING)
		note(_("the commit was stopped (khsend.preCommit=block); 'git commit --no-verify' commits anyway"));
	hook_end(&h);
	return ret;
}

/* ---- khsend hook sendemail-args: how khsend reads a command line (for the tests) ---- */

static int
hook_sendemail_args(int argc, const char **argv)
{
	struct send_options so = SEND_OPTIONS_INIT;
	struct strvec args = STRVEC_INIT;
	struct sendemail_args se = SENDEMAIL_ARGS_INIT;

	send_take_options(argc, argv, &so, &args);
	sendemail_args_parse(&se, args.v, args.nr);
	for (size_t i = 0; i < so.policies.nr; i++)
		printf("khsend\tpolicy=%s\n", so.policies.v[i]);
	for (size_t i = 0; i < so.allow.nr; i++)
		printf("khsend\tallow=%s\n", so.allow.v[i]);
	if (so.boot >= 0)
		printf("khsend\tboot=%d\n", so.boot);
	if (so.lang)
		printf("khsend\tlang=%s\n", so.lang);
	for (size_t i = 0; i < se.parsed.nr; i++)
		printf("opt\t%s\n", se.parsed.v[i]);
	for (size_t i = 0; i < se.opts.nr; i++)
		printf("word\t%s\n", se.opts.v[i]);
	for (size_t i = 0; i < se.transport_opts.nr; i++)
		printf("word\t%s\n", se.transport_opts.v[i]);
	for (size_t i = 0; i < se.rest.nr; i++)
		printf("rest\t%s\n", se.rest.v[i]);
	sendemail_args_release(&se);
	send_options_release(&so);
	strvec_clear(&args);
	return EXIT_CLEAN;
}

static const struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
} hook_commands[] = {
	{ "sendemail-validate", hook_sendemail_validate },
	{ "applypatch-msg", hook_applypatch_msg },
	{ "pre-applypatch", hook_pre_applypatch },
	{ "pre-commit", hook_pre_commit },
	{ "transport", transport_main },
	{ "sendemail-args", hook_sendemail_args },
};

int
cmd_hook(int argc, const char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";

	for (size_t i = 0; i < sizeof(hook_commands) / sizeof(*hook_commands); i++)
		if (!strcmp(name, hook_commands[i].name))
			return hook_commands[i].fn(argc - 1, argv + 1);
	error(_("'khsend hook %s': there is no such hook (the hooks in hooks/ call this)"), name);
	return EXIT_ERROR;
}
