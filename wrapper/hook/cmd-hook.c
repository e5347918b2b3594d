/*
 * khsend install-hooks, and "khsend hook <name>": what the hooks in hooks/
 * exec.  Each hook's contract is written at the top of its file.
 *
 *   sendemail-validate <patch> [<headers>]   plain git send-email, per file
 *   applypatch-msg <msgfile>                 git am, before a patch is applied
 *   pre-applypatch                           git am, after it is applied
 *   pre-commit                               git commit
 *
 * Exit status: 0 to let git go on, 1 to stop it (a finding), 2 for an
 * error (git stops too: a hook that cannot check does not wave through).
 */
#define _GNU_SOURCE
#include "khsend.h"
#include "check/detect.h"
#include "lib/gitutil.h"
#include "series/outgoing.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "check/report.h"
#include "lib/run-command.h"
#include "series/series.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const char khsend_hook_sendemail_validate[];
extern const char khsend_hook_applypatch_msg[];
extern const char khsend_hook_pre_applypatch[];
extern const char khsend_hook_pre_commit[];

static const struct {
	const char *name;
	const char *text;
} hooks[] = {
	{ "sendemail-validate", khsend_hook_sendemail_validate },
	{ "applypatch-msg", khsend_hook_applypatch_msg },
	{ "pre-applypatch", khsend_hook_pre_applypatch },
	{ "pre-commit", khsend_hook_pre_commit },
};

#define NR_HOOKS (sizeof(hooks) / sizeof(*hooks))

/* ---- khsend install-hooks ---- */

static const char *const install_usage[] = {
	"khsend install-hooks [--force] [<hook>...]",
	NULL,
};

/* The hook as installed: it calls the khsend that installed it. */
static void
hook_text(const char *tmpl, struct strbuf *out)
{
	const char *line = strstr(tmpl, "\nkhsend=khsend\n");

	if (!line)
		BUG("hook template without its khsend= line");
	strbuf_add(out, tmpl, (size_t)(line - tmpl) + 1);
	strbuf_addstr(out, "khsend=");
	strbuf_add_quoted(out, khsend_self_path());
	strbuf_addstr(out, line + strlen("\nkhsend=khsend"));
}

static int
write_hook(const char *path, const struct strbuf *text)
{
	char *tmp = xstrfmt("%s.khsend-new", path);

	if (write_file_buf(tmp, text->buf, text->len) || chmod(tmp, 0755) || rename(tmp, path)) {
		error_errno("cannot install '%s'", path);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int
cmd_install_hooks(int argc, const char **argv)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf dir = STRBUF_INIT;
	int force = 0, skipped = 0, ret = EXIT_CLEAN, rc;
	struct option options[] = {
		OPT_BOOL(0, "force", &force, "replace hooks that are there already (the old one is kept as <hook>.khsend-old)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, install_usage, 0);
	for (int i = 1; i < argc; i++) {
		size_t k;

		for (k = 0; k < NR_HOOKS && strcmp(hooks[k].name, argv[i]); k++)
			;
		if (k == NR_HOOKS)
			usage_msg_opt(install_usage, options, "'%s' is not one of khsend's hooks "
				      "(sendemail-validate, applypatch-msg, pre-applypatch, pre-commit)", argv[i]);
	}
	/* Where git looks: honours core.hooksPath and linked worktrees. */
	strvec_pushl(&cp.args, "git", "rev-parse", "--git-path", "hooks", NULL);
	rc = capture_command(&cp, &dir);
	strbuf_strip_eol(&dir);
	if (rc || !dir.len) {
		strbuf_release(&dir);
		die("not in a git repository: 'git rev-parse --git-path hooks' failed");
	}
	if (mkdir_p(dir.buf, 0))
		die_errno("cannot create the hooks directory '%s'", dir.buf);
	for (size_t k = 0; k < NR_HOOKS; k++) {
		struct strbuf want = STRBUF_INIT, have = STRBUF_INIT;
		char *path = xstrfmt("%s/%s", dir.buf, hooks[k].name);
		int wanted = argc < 2;

		for (int i = 1; i < argc; i++)
			wanted |= !strcmp(argv[i], hooks[k].name);
		if (!wanted)
			goto next;
		hook_text(hooks[k].text, &want);
		if (!file_exists(path)) {
			if (write_hook(path, &want))
				ret = EXIT_ERROR;
			else
				printf("installed %s\n", path);
		} else if (strbuf_read_file(&have, path, 0) < 0) {
			ret = error_errno("cannot read '%s'", path) ? EXIT_ERROR : ret;
		} else if (have.len == want.len && !memcmp(have.buf, want.buf, want.len)) {
			printf("%s is installed already\n", path);
		} else if (!force) {
			warning("'%s' is there already and is not khsend's (or is another khsend's); "
				"left as it is (--force replaces it and keeps it as %s.khsend-old)",
				path, hooks[k].name);
			skipped++;
		} else {
			char *old = xstrfmt("%s.khsend-old", path);

			if (rename(path, old) || write_hook(path, &want)) {
				ret = error_errno("cannot replace '%s'", path) ? EXIT_ERROR : ret;
			} else {
				printf("installed %s (the hook that was there is now %s)\n", path, old);
			}
			free(old);
		}
next:
		strbuf_release(&want);
		strbuf_release(&have);
		free(path);
	}
	strbuf_release(&dir);
	if (ret == EXIT_CLEAN && skipped)
		ret = EXIT_FINDING;
	return ret;
}

/* ---- the hooks ---- */

static int
check_and_report(struct khsend_ctx *ctx, struct outgoing *o, struct detector *d, enum report_mode mode,
		 int quiet_unless_blocked)
{
	detector_init(d, &ctx->policy, NULL);
	if (outgoing_check(o, d, ctx_tmpdir(ctx)))
		return -1;
	if (d->nr && (!quiet_unless_blocked || detector_blocked(d)))
		report_text(stderr, d, mode);
	return 0;
}

/* Is `file` one of the files khsend itself checked and handed to git send-email? */
static int
checked_by_khsend(const char *file)
{
	const char *dir = getenv("KHSEND_CHECKED_DIR");
	char *rd, *rf;
	int yes;

	if (!dir || !*dir)
		return 0;
	rd = realpath(dir, NULL);
	rf = realpath(file, NULL);
	yes = rd && rf && starts_with(rf, rd) && rf[strlen(rd)] == '/';
	free(rd);
	free(rf);
	return yes;
}

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
	struct khsend_ctx ctx;
	struct outgoing o;
	struct detector d;
	long counter, total;
	char *dir = NULL;
	int ret;

	program_name = "khsend (sendemail-validate)";
	if (argc < 2)
		die("usage: khsend hook sendemail-validate <patch> [<smtp-headers>]");
	if (checked_by_khsend(argv[1]))
		return EXIT_CLEAN;
	ctx_init(&ctx, NULL);
	outgoing_init(&o, ctx_tmpdir(&ctx));
	if (parse_counter(getenv("GIT_SENDEMAIL_FILE_COUNTER"), &counter) &&
	    parse_counter(getenv("GIT_SENDEMAIL_FILE_TOTAL"), &total) && counter <= total) {
		/*
		 * git >= 2.41 says where we are in the series: keep each file
		 * until the last one comes, then check the series as a whole.
		 */
		char *copy, *name;

		if (!ctx.repo)
			die("git send-email runs this hook in a repository, and there is none here");
		dir = xstrfmt("%skhsend-validate", git_repository_path(ctx.repo));
		if (counter == 1)
			remove_dir_recursively(dir);
		if (mkdir_p(dir, 1))
			die_errno("cannot create '%s'", dir);
		copy = xstrfmt("%s/%06ld", dir, counter);
		name = xstrfmt("%s/%06ld.name", dir, counter);
		if (copy_file(copy, argv[1]) || write_file_buf(name, argv[1], strlen(argv[1])))
			die("cannot keep '%s' until the whole series is there", argv[1]);
		free(copy);
		free(name);
		if (counter < total) {
			outgoing_release(&o);
			ctx_release(&ctx);
			free(dir);
			return EXIT_CLEAN;
		}
		for (long k = 1; k <= total; k++) {
			struct strbuf sb = STRBUF_INIT;
			char *f = xstrfmt("%s/%06ld", dir, k), *n = xstrfmt("%s.name", f);

			if (strbuf_read_file(&sb, n, 0) < 0)
				die("patch %ld of %ld was never given to this hook; cannot check the series", k, total);
			outgoing_add_private(&o, f, sb.buf);
			strbuf_release(&sb);
			free(f);
			free(n);
		}
	} else {
		outgoing_add_private(&o, argv[1], argv[1]);
	}
	if (check_and_report(&ctx, &o, &d, REPORT_VALIDATE, 0))
		ret = EXIT_ERROR;
	else if (detector_blocked(&d) || detector_count(&d, POLICY_ANNOTATE))
		ret = EXIT_FINDING;
	else
		ret = EXIT_CLEAN;
	if (dir)
		remove_dir_recursively(dir);
	free(dir);
	detector_release(&d);
	outgoing_release(&o);
	ctx_release(&ctx);
	return ret;
}

/* The staged change, HEAD against the index, as a patch. */
static int
staged_patch(git_repository *repo, struct strbuf *out)
{
	git_object *head = NULL;
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_buf buf = { 0 };
	int rc;

	rc = git_revparse_single(&head, repo, "HEAD^{tree}");
	if (rc < 0 && rc != GIT_ENOTFOUND && rc != GIT_EUNBORNBRANCH)
		return lg2_error(rc, "cannot read HEAD", NULL);
	git_error_clear();
	if ((rc = git_repository_index(&index, repo)) < 0 ||
	    (rc = git_diff_tree_to_index(&diff, repo, (git_tree *)head, index, NULL)) < 0 ||
	    (rc = git_diff_find_similar(diff, NULL)) < 0 ||
	    (rc = git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH)) < 0) {
		lg2_error(rc, "cannot diff the index against HEAD", NULL);
		rc = -1;
	} else {
		strbuf_add(out, buf.ptr, buf.size);
		rc = 0;
	}
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_index_free(index);
	git_object_free(head);
	return rc;
}

/* Check the staged change as one patch called `name`; *blocked and the findings in d. */
static int
check_staged(struct khsend_ctx *ctx, const char *name, struct detector *d, enum report_mode mode,
	     int quiet_unless_blocked)
{
	struct strbuf patch = STRBUF_INIT;
	struct outgoing o;
	char *file;
	int ret;

	detector_init(d, &ctx->policy, NULL);
	if (!ctx->repo)
		die("this hook runs in a repository, and there is none here");
	if (staged_patch(ctx->repo, &patch)) {
		strbuf_release(&patch);
		return -1;
	}
	if (!patch.len) {
		strbuf_release(&patch);
		return 0;
	}
	file = xstrfmt("%s/staged.patch", ctx_tmpdir(ctx));
	if (write_file_buf(file, patch.buf, patch.len)) {
		free(file);
		strbuf_release(&patch);
		return -1;
	}
	detector_release(d);
	outgoing_init(&o, ctx_tmpdir(ctx));
	outgoing_add_private(&o, file, name);
	ret = check_and_report(ctx, &o, d, mode, quiet_unless_blocked);
	outgoing_release(&o);
	free(file);
	strbuf_release(&patch);
	return ret;
}

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
am_mail(git_repository *repo)
{
	struct strbuf sb = STRBUF_INIT;
	char *next = xstrfmt("%srebase-apply/next", git_repository_path(repo)), *mail = NULL;

	if (strbuf_read_file(&sb, next, 64) >= 0) {
		long n = strtol(sb.buf, NULL, 10);

		mail = xstrfmt("%srebase-apply/%04ld", git_repository_path(repo), n);
		if (!file_exists(mail)) {
			free(mail);
			mail = NULL;
		}
	}
	free(next);
	strbuf_release(&sb);
	return mail;
}

static void
advise_stopped_am(git_repository *repo)
{
	char *mail = am_mail(repo);

	if (mail)
		note("to draft a kind reply to its author: khsend reply %s\n"
		     "(before 'git am --skip' or 'git am --abort', which remove that file)", mail);
	else
		note("'khsend reply <the patch mail>' drafts a kind reply to its author");
	note("'git am --skip' leaves this patch out and goes on; 'git am --abort' stops");
	free(mail);
}

/* git am goes on, or stops with the way out. */
static int
am_verdict(git_repository *repo, const struct detector *d, int check_failed)
{
	if (check_failed)
		return EXIT_ERROR;
	if (!detector_blocked(d))
		return EXIT_CLEAN;
	advise_stopped_am(repo);
	return EXIT_FINDING;
}

static int
hook_applypatch_msg(int argc, const char **argv)
{
	struct khsend_ctx ctx;
	struct outgoing o;
	struct detector d;
	char *mail, *patch, *subject;
	int ret;

	program_name = "khsend (applypatch-msg)";
	ctx_init(&ctx, NULL);
	if (!ctx.repo)
		die("git am runs this hook in a repository, and there is none here");
	outgoing_init(&o, ctx_tmpdir(&ctx));
	mail = am_mail(ctx.repo);
	patch = xstrfmt("%srebase-apply/patch", git_repository_path(ctx.repo));
	subject = subject_of(argc > 1 ? argv[1] : NULL);
	if (mail) {
		outgoing_add_private(&o, mail, subject);
	} else if (file_exists(patch)) {
		outgoing_add_private(&o, patch, subject);
	} else {
		die("cannot find the patch git am is applying (no %s)", patch);
	}
	ret = am_verdict(ctx.repo, &d, check_and_report(&ctx, &o, &d, REPORT_APPLY, 0));
	free(mail);
	free(patch);
	free(subject);
	detector_release(&d);
	outgoing_release(&o);
	ctx_release(&ctx);
	return ret;
}

static int
hook_pre_applypatch(int argc, const char **argv)
{
	struct khsend_ctx ctx;
	struct detector d;
	char *msg, *subject;
	int ret;

	program_name = "khsend (pre-applypatch)";
	ctx_init(&ctx, NULL);
	if (!ctx.repo)
		die("git am runs this hook in a repository, and there is none here");
	msg = xstrfmt("%srebase-apply/final-commit", git_repository_path(ctx.repo));
	subject = subject_of(msg);
	ret = am_verdict(ctx.repo, &d, check_staged(&ctx, subject, &d, REPORT_APPLY, 1));
	free(msg);
	free(subject);
	detector_release(&d);
	ctx_release(&ctx);
	return ret;
}

static int
hook_pre_commit(int argc, const char **argv)
{
	struct khsend_ctx ctx;
	struct detector d;
	char *mode = NULL;
	int block = 0, ret;

	program_name = "khsend (pre-commit)";
	ctx_init(&ctx, NULL);
	if (repo_config_get_string(ctx.repo, "khsend.preCommit", &mode)) {
		if (!strcmp(mode, "block"))
			block = 1;
		else if (strcmp(mode, "warn"))
			die("khsend.preCommit is '%s'; it can be 'warn' (the default) or 'block'", mode);
	}
	if (check_staged(&ctx, "the staged change", &d, REPORT_COMMIT, 0))
		ret = EXIT_ERROR;
	else if (block && detector_blocked(&d))
		ret = EXIT_FINDING;
	else
		ret = EXIT_CLEAN;
	if (ret == EXIT_FINDING)
		note("the commit was stopped (khsend.preCommit=block); 'git commit --no-verify' commits anyway");
	free(mode);
	detector_release(&d);
	ctx_release(&ctx);
	return ret;
}

int
cmd_hook(int argc, const char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";
	int rc;

	if (!strcmp(name, "sendemail-validate"))
		return hook_sendemail_validate(argc - 1, argv + 1);
	if (!strcmp(name, "applypatch-msg"))
		return hook_applypatch_msg(argc - 1, argv + 1);
	if (!strcmp(name, "pre-applypatch"))
		return hook_pre_applypatch(argc - 1, argv + 1);
	if (!strcmp(name, "pre-commit"))
		return hook_pre_commit(argc - 1, argv + 1);
	if ((rc = send_hook(name, argc - 1, argv + 1)) >= 0)
		return rc;
	if ((rc = b4_hook(name, argc - 1, argv + 1)) >= 0)
		return rc;
	error("'khsend hook %s': there is no such hook (the hooks in hooks/ call this)", name);
	return EXIT_ERROR;
}
