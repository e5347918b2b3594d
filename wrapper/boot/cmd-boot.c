/*
 * khsend boot: read the series in any form khsend check takes, turn each
 * message into a mail file git am can apply (commits through git
 * format-patch), and hand them to boot_series().  khsend setup prepares
 * the default tree ahead of the first boot.
 */
#include "khsend.h"
#include "boot/boot.h"
#include "lib/gitutil.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "series/series.h"
#include "lib/usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const boot_usage[] = {
	"khsend boot [--tree <dir>] [--base <rev>] [--timeout <s>] [--memory <MiB>] [--keep] "
	"<patch|directory|mbox|revisions>...",
	NULL,
};

static const char *const setup_usage[] = {
	"khsend setup [--force]",
	NULL,
};

struct collect {
	git_repository *repo;
	const char *tmpdir;
	struct strvec files;
	char *first_commit;	/* of a series read from revisions */
	int all_commits;
};

/* A commit becomes the mail git format-patch would send for it. */
static int
commit_to_mail(struct collect *c, const struct message *msg, char **out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf mail = STRBUF_INIT, err = STRBUF_INIT;
	char *path = xstrfmt("%s/commit-%04zu.patch", c->tmpdir, msg->index);
	int rc;

	strvec_pushl(&cp.args, "git", "format-patch", "-1", "--stdout", "--no-color",
		     "--no-signature", "--src-prefix=a/", "--dst-prefix=b/", msg->commit, NULL);
	strvec_pushf(&cp.env, "GIT_DIR=%s", git_repository_path(c->repo));
	strvec_pushl(&cp.env, "GIT_WORK_TREE", "GIT_INDEX_FILE", NULL);
	rc = pipe_command(&cp, NULL, 0, &mail, &err);
	if (rc) {
		error("git format-patch %s failed: %s", msg->name, err.buf);
	} else {
		rc = write_file_buf(path, mail.buf, mail.len);
	}
	strbuf_release(&mail);
	strbuf_release(&err);
	if (rc) {
		free(path);
		return -1;
	}
	*out = path;
	return 0;
}

static int
collect_one(struct message *msg, void *data)
{
	struct collect *c = data;
	char *path;

	if (msg->file) {
		strvec_push(&c->files, msg->file);
		c->all_commits = 0;
		return 0;
	}
	if (commit_to_mail(c, msg, &path))
		return -1;
	strvec_push_nodup(&c->files, path);
	if (!c->first_commit)
		c->first_commit = xstrdup(msg->commit);
	return 0;
}

/*
 * Commits on top of a base in the --tree itself (the usual case) apply
 * on their first parent, not on HEAD, which already has them.
 */
static char *
parent_in_tree(const char *tree, const char *commit)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	char *spec = xstrfmt("%s^", commit), *ret = NULL;

	if (!git_repository_open_ext(&repo, tree, 0, NULL) &&
	    !git_revparse_single(&obj, repo, spec))
		ret = xstrdup(git_oid_tostr_s(git_object_id(obj)));
	git_error_clear();
	git_object_free(obj);
	git_repository_free(repo);
	free(spec);
	return ret;
}

int
cmd_boot(int argc, const char **argv)
{
	struct boot_options opts = { NULL, NULL, 0, 0, 0 };
	struct strvec inputs = STRVEC_INIT, policies = STRVEC_INIT;
	struct collect c = { NULL, NULL, STRVEC_INIT, NULL, 1 };
	struct series_options sopts = { NULL, -1, NULL };
	struct policy policy = POLICY_INIT;
	char *tmpdir, *base = NULL;
	int keep = -1, ret = EXIT_ERROR;
	struct option options[] = {
		OPT_STRING(0, "tree", &opts.tree, "dir",
			   "a kernel checkout to build (default: khsend.tree, else linux-source 6.1)"),
		OPT_STRING(0, "base", &opts.base, "rev", "apply the series on this commit of the tree"),
		OPT_INTEGER(0, "timeout", &opts.timeout, "s",
			    "seconds QEMU may run (default: khsend.bootTimeout, else 120)"),
		OPT_INTEGER(0, "memory", &opts.memory_mb, "MiB",
			    "guest memory (default: khsend.bootMemory, else 256)"),
		OPT_BOOL(0, "keep", &keep, "leave the series applied in the private work tree"),
		OPT_STRING_LIST(0, "policy", &policies, "file",
				"policy files, validated as khsend check does (boot checks no policy)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, boot_usage, PARSE_OPT_KEEP_DASHDASH);
	if (argc < 2)
		usage_msg_opt(boot_usage, options, "name the patches to boot");
	if (opts.memory_mb && opts.memory_mb < 32)
		usage_msg_opt(boot_usage, options, "--memory %d: at least 32 MiB", opts.memory_mb);
	opts.keep = keep > 0;
	for (int i = 1; i < argc; i++)
		strvec_push(&inputs, argv[i]);

	c.repo = repo_discover();
	if (policies.nr && policy_load(&policy, &policies, c.repo)) {
		error("the policy has problems (see above)");
		goto out;
	}
	tmpdir = make_temp_dir("khsend");
	remove_at_exit(tmpdir);
	c.tmpdir = tmpdir;
	sopts.repo = c.repo;
	sopts.tmpdir = tmpdir;
	if (series_read(&inputs, &sopts, collect_one, &c))
		goto out_tmp;
	boot_options_from_config(&opts, c.repo);
	if (!opts.base && opts.tree && c.all_commits && c.first_commit) {
		base = parent_in_tree(opts.tree, c.first_commit);
		opts.base = base;
	}
	ret = boot_series(&opts, &c.files, c.repo);
out_tmp:
	free(tmpdir);
out:
	free(base);
	free(c.first_commit);
	strvec_clear(&c.files);
	strvec_clear(&inputs);
	strvec_clear(&policies);
	policy_release(&policy);
	git_repository_free(c.repo);
	return ret;
}

int
cmd_setup(int argc, const char **argv)
{
	git_repository *repo;
	int force = -1, ret;
	struct option options[] = {
		OPT_BOOL(0, "force", &force, "extract and record the default tree again"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, setup_usage, 0);
	if (argc > 1)
		usage_msg_opt(setup_usage, options, "unexpected argument '%s'", argv[1]);
	repo = repo_discover();
	ret = boot_setup_default_tree(repo, force > 0);
	git_repository_free(repo);
	return ret;
}
