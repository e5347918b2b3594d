// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-tree: where a series is applied.  Every kernel tree gets a
 * directory of its own under the cache, trees/<key>/, with
 *   src/      a private git work tree that only khsend checks out and
 *             git am's into (the default tree's extracted source, or a
 *             "git clone --shared --no-checkout" of the user's checkout),
 *   build/    the persistent O= build directory,
 *   results/  verdicts by series tree and config, base/ base boot logs,
 *   lock      held for the whole run, so two khsend runs take turns.
 * The user's own checkout is only ever read.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/config.h"
#include "lib/repo.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL_TARBALL "/usr/src/linux-source-6.1.tar.xz"
#define DEFAULT_TREE_SUBJECT "linux-source 6.1 (Debian's linux-source-6.1, as packaged)"
/* Fixed, so that every machine extracting the same package gets the same commit id. */
#define KHSEND_IDENT_NAME "khsend"
#define KHSEND_IDENT_EMAIL "khsend@localhost"
#define KHSEND_IDENT_DATE "1700000000 +0000"
#define BASE_REF "refs/khsend/base"

void
boot_cache_root(struct strbuf *out)
{
	const char *env = getenv("KHSEND_CACHE_DIR"), *cfg = config_get("khsend.cacheDir");

	strbuf_reset(out);
	if (env && *env) {
		strbuf_addstr(out, env);
	} else if (cfg && *cfg) {
		char *expanded = expand_user_path(cfg);

		strbuf_addstr(out, expanded);
		free(expanded);
	} else {
		xdg_cache_dir(out);
	}
	while (out->len > 1 && out->buf[out->len - 1] == '/')
		strbuf_setlen(out, out->len - 1);
}

void
private_git_env(struct child_process *cp)
{
	/* Our own repository, whatever the caller's environment points at. */
	strvec_pushl(&cp->env, "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		     "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
		     "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_PREFIX",
		     "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", NULL);
	/* No user or system config: no hooks, signing, autocrlf or am.threeWay surprises. */
	strvec_pushl(&cp->env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		     "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		     "GIT_COMMITTER_NAME=" KHSEND_IDENT_NAME,
		     "GIT_COMMITTER_EMAIL=" KHSEND_IDENT_EMAIL,
		     "GIT_COMMITTER_DATE=" KHSEND_IDENT_DATE, NULL);
}

/*
 * Run git with the private environment in dir: 0, or -1 with git's own
 * words shown (quiet: not shown; a probe whose failure is an answer).
 */
static int
run_gitv(const char *dir, struct strbuf *out, const struct strvec *args, int quiet)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT, own = STRBUF_INIT, cmd = STRBUF_INIT;
	struct strbuf *sink = out ? out : &own;
	int rc;

	strvec_push(&cp.args, "git");
	strvec_pushv(&cp.args, args->v);
	/* For the message: the command as typed (pipe_command() clears cp.args). */
	for (size_t i = 0; i < cp.args.nr; i++)
		strbuf_addf(&cmd, "%s%s", i ? " " : "", cp.args.v[i]);
	cp.dir = dir;
	private_git_env(&cp);
	/* Out of the terminal's reach: a Ctrl-C lets it finish, then we reset. */
	cp.new_process_group = 1;
	rc = pipe_command(&cp, NULL, 0, sink, &err);
	if (rc && !quiet) {
		strbuf_trim(&err);
		error("'%s' in '%s' failed%s%s", cmd.buf, dir ? dir : ".", err.len ? ":\n" : "", err.buf);
	}
	strbuf_trim(sink);
	strbuf_release(&err);
	strbuf_release(&own);
	strbuf_release(&cmd);
	return rc ? -1 : 0;
}

static int
vrun_git(const char *dir, struct strbuf *out, va_list ap)
{
	struct strvec args = STRVEC_INIT;
	const char *arg;
	int rc;

	while ((arg = va_arg(ap, const char *)))
		strvec_push(&args, arg);
	rc = run_gitv(dir, out, &args, 0);
	strvec_clear(&args);
	return rc;
}

int
tree_git_capturev(const struct boot_tree *t, struct strbuf *out, const struct strvec *args,
		  int quiet)
{
	strbuf_reset(out);
	return run_gitv(t->src, out, args, quiet);
}

static int
run_git(const char *dir, struct strbuf *out, ...)
{
	va_list ap;
	int rc;

	va_start(ap, out);
	rc = vrun_git(dir, out, ap);
	va_end(ap);
	return rc;
}

int
tree_git_capture(const struct boot_tree *t, struct strbuf *out, ...)
{
	va_list ap;
	int rc;

	strbuf_reset(out);
	va_start(ap, out);
	rc = vrun_git(t->src, out, ap);
	va_end(ap);
	return rc;
}

/* "name-0123456789ab": readable, and unique per real path. */
static char *
tree_key(const char *real)
{
	struct strbuf hex = STRBUF_INIT;
	char *key;

	hash_hex(&hex, real, strlen(real));
	strbuf_setlen(&hex, 12);
	key = xstrfmt("%s-%s", base_name(real), hex.buf);
	strbuf_release(&hex);
	for (char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_'))
			*p = '_';
	return key;
}

int
tree_lock(struct boot_tree *t)
{
	char *path = xstrfmt("%s/lock", t->dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		error_errno("cannot open the lock '%s'", path);
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			error_errno("cannot lock '%s'", path);
			goto fail;
		}
		note("another khsend run is using '%s'; waiting for it", t->dir);
		while (flock(fd, LOCK_EX)) {
			if (errno != EINTR || boot_interrupted) {
				if (!boot_interrupted)
					error_errno("cannot lock '%s'", path);
				goto fail;
			}
		}
	}
	t->lock_fd = fd;
	free(path);
	return 0;
fail:
	close(fd);
	free(path);
	return -1;
}

/* The user's checkout, as git finds it from `dir`: its top directory's real path. */
static int
user_tree_path(const char *dir, char **out)
{
	struct repo *repo;
	char real[PATH_MAX];
	int rc;

	if (!realpath(dir, real))
		return error_errno("--tree '%s'", dir);
	repo = repo_open(real);
	if (!repo)
		return error("--tree '%s' is not a git checkout", dir);
	if (!repo->worktree) {
		repo_free(repo);
		return error("--tree '%s' is a bare repository; name a kernel checkout", dir);
	}
	if (!realpath(repo->worktree, real)) {
		rc = error_errno("--tree '%s'", repo->worktree);
		repo_free(repo);
		return rc;
	}
	repo_free(repo);
	if (!is_kernel_tree(real))
		return error("--tree '%s' does not look like a kernel tree (it has no arch/x86/Kconfig)",
			     real);
	*out = xstrdup(real);
	return 0;
}

int
is_kernel_tree(const char *dir)
{
	static const char *const marks[] = {
		"Makefile", "Kconfig", "arch/x86/Kconfig", "scripts/kconfig/merge_config.sh", NULL,
	};

	for (size_t i = 0; marks[i]; i++) {
		char *probe = xstrfmt("%s/%s", dir, marks[i]);
		int rc = access(probe, F_OK);

		free(probe);
		if (rc)
			return 0;
	}
	return 1;
}

/* For khsend cache: which checkout this directory is for, and when it was last used. */
static void
record_use(const struct boot_tree *t)
{
	char *path = xstrfmt("%s/origin", t->dir);
	const char *origin = t->user_tree ? t->user_tree : "default";
	struct strbuf have = STRBUF_INIT;

	if (strbuf_read_file(&have, path, 0) < 0 || strcmp(have.buf, origin))
		write_file_buf(path, origin, strlen(origin));
	/* The lock file's time says when the tree was last used. */
	futimens(t->lock_fd, NULL);
	strbuf_release(&have);
	free(path);
}

/* A shared clone: our objects are the user's (read through alternates), our HEAD is ours. */
static int
clone_user_tree(struct boot_tree *t)
{
	char *tmp = xstrfmt("%s/src.tmp", t->dir);
	int rc;

	remove_dir_recursively(tmp);
	note("making a private clone of '%s' (once) in '%s'", t->user_tree, t->src);
	/* gc.auto=0: a background repack would take a core from the kernel build. */
	rc = run_git(NULL, NULL, "clone", "--quiet", "--shared", "--no-checkout",
		     "--config", "gc.auto=0", t->user_tree, tmp, NULL);
	if (!rc && rename(tmp, t->src))
		rc = error_errno("cannot rename '%s' to '%s'", tmp, t->src);
	if (rc)
		remove_dir_recursively(tmp);
	free(tmp);
	return rc;
}

int
tree_open(struct boot_tree *t, const char *cache, const char *user_tree)
{
	char *key, *gitdir;
	int rc = 0;

	t->cache = xstrdup(cache);
	/* kbuild breaks on such paths (O= and the source path end up in make variables). */
	if (strpbrk(cache, " \t\n:"))
		return error("the cache directory '%s' has white space or a colon, which the kernel "
			     "build cannot take; set KHSEND_CACHE_DIR or khsend.cacheDir elsewhere", cache);
	if (user_tree) {
		if (user_tree_path(user_tree, &t->user_tree))
			return -1;
		key = tree_key(t->user_tree);
	} else {
		key = xstrdup("default");
	}
	t->dir = xstrfmt("%s/trees/%s", cache, key);
	free(key);
	t->src = xstrfmt("%s/src", t->dir);
	t->build = xstrfmt("%s/build", t->dir);
	if (mkdir_p(t->dir, 0))
		return error_errno("cannot create the cache directory '%s'", t->dir);
	if (tree_lock(t))
		return -1;
	record_use(t);
	gitdir = xstrfmt("%s/.git", t->src);
	if (t->user_tree && !is_dir(gitdir))
		rc = clone_user_tree(t);
	else if (!t->user_tree)
		rc = tree_setup_default(t, 0);
	free(gitdir);
	if (!rc && mkdir_p(t->build, 0))
		rc = error_errno("cannot create '%s'", t->build);
	return rc;
}

/* What the stamp records: the tarball as it is now, so a package upgrade re-extracts. */
static int
tarball_identity(struct strbuf *out)
{
	struct stat st;

	if (stat(KERNEL_TARBALL, &st))
		return error_errno("cannot find the kernel source '%s' (apt-get install linux-source-6.1)",
				   KERNEL_TARBALL);
	strbuf_addf(out, "%s %lld %lld\n", KERNEL_TARBALL, (long long)st.st_size,
		    (long long)st.st_mtime);
	return 0;
}

/* The one directory the tarball unpacked into. */
static char *
only_subdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;
	int count = 0;

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		count++;
		free(found);
		found = xstrfmt("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (count != 1 || !is_dir(found)) {
		free(found);
		return NULL;
	}
	return found;
}

/* Leftovers of a run that was killed while extracting (we hold the lock: none is live). */
static void
remove_stale_setups(const struct boot_tree *t)
{
	DIR *d = opendir(t->dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (starts_with(e->d_name, "setup.")) {
			char *p = xstrfmt("%s/%s", t->dir, e->d_name);

			remove_dir_recursively(p);
			free(p);
		}
	}
	closedir(d);
}

static int
extract_and_commit(const char *tmp, char **top)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char why[64];
	int rc;

	note("extracting %s (once; about a minute)", KERNEL_TARBALL);
	strvec_pushl(&cp.args, "tar", "--no-same-owner", "-xJf", KERNEL_TARBALL, "-C", tmp, NULL);
	strvec_push(&cp.env, "LC_ALL=C");
	cp.no_stdin = 1;
	cp.new_process_group = 1;
	rc = run_command(&cp);
	if (boot_interrupted)
		return -1;
	if (rc)
		return error("tar -xJf %s %s", KERNEL_TARBALL, describe_outcome(rc, why, sizeof(why)));
	*top = only_subdir(tmp);
	if (!*top)
		return error("%s did not unpack into one directory", KERNEL_TARBALL);
	note("recording it as a git repository with one base commit");
	/*
	 * gc.auto=0: the commit leaves some 80,000 loose objects, and the repack
	 * git would start behind it takes a core from the first kernel build.
	 * add -f: the kernel's own .gitignore files must not leave shipped files out.
	 */
	if (run_git(*top, NULL, "init", "--quiet", "--initial-branch=khsend", NULL) ||
	    run_git(*top, NULL, "config", "gc.auto", "0", NULL) ||
	    run_git(*top, NULL, "-c", "core.looseCompression=1", "add", "--all", "--force", NULL) ||
	    boot_interrupted)
		return -1;
	{
		struct child_process commit = CHILD_PROCESS_INIT;
		struct strbuf err = STRBUF_INIT;

		strvec_pushl(&commit.args, "git", "commit", "--quiet", "--no-verify", "-m",
			     DEFAULT_TREE_SUBJECT, NULL);
		commit.dir = *top;
		private_git_env(&commit);
		commit.new_process_group = 1;
		strvec_pushl(&commit.env, "GIT_AUTHOR_NAME=" KHSEND_IDENT_NAME,
			     "GIT_AUTHOR_EMAIL=" KHSEND_IDENT_EMAIL,
			     "GIT_AUTHOR_DATE=" KHSEND_IDENT_DATE, NULL);
		rc = pipe_command(&commit, NULL, 0, NULL, &err);
		if (rc)
			error("git commit in '%s' failed:\n%s", *top, err.buf);
		strbuf_release(&err);
		if (rc)
			return -1;
	}
	return run_git(*top, NULL, "update-ref", BASE_REF, "HEAD", NULL);
}

int
tree_setup_default(struct boot_tree *t, int force)
{
	struct strbuf want = STRBUF_INIT, have = STRBUF_INIT;
	char *stamp = xstrfmt("%s/.git/khsend-source", t->src);
	char *tmp = NULL, *top = NULL, *old = NULL;
	int rc = -1;

	if (tarball_identity(&want))
		goto out;
	remove_stale_setups(t);
	if (!force && strbuf_read_file(&have, stamp, 0) >= 0 && !strcmp(have.buf, want.buf)) {
		rc = 0;
		goto out;
	}
	/* Extract beside the final place and rename at the end: a killed run leaves src alone. */
	tmp = xstrfmt("%s/setup.XXXXXX", t->dir);
	if (!mkdtemp(tmp)) {
		error_errno("cannot create a directory in '%s'", t->dir);
		goto out;
	}
	if (extract_and_commit(tmp, &top))
		goto out;
	{
		char *stamp_tmp = xstrfmt("%s/.git/khsend-source", top);

		rc = write_file_buf(stamp_tmp, want.buf, want.len);
		free(stamp_tmp);
		if (rc)
			goto out;
		rc = -1;
	}
	if (is_dir(t->src)) {
		old = xstrfmt("%s/old-src", tmp);
		if (rename(t->src, old)) {
			error_errno("cannot move the old '%s' aside", t->src);
			goto out;
		}
	}
	if (rename(top, t->src)) {
		error_errno("cannot rename '%s' to '%s'", top, t->src);
		goto out;
	}
	/* The build directory stays: make sees every file as new, ccache has the objects. */
	note("the default tree is ready in '%s'", t->src);
	rc = 0;
out:
	if (tmp && remove_dir_recursively(tmp))
		warning("could not remove '%s'", tmp);
	free(tmp);
	free(top);
	free(old);
	free(stamp);
	strbuf_release(&want);
	strbuf_release(&have);
	return rc;
}

int
tree_resolve_base(const struct boot_tree *t, const char *rev, struct strbuf *oid)
{
	const char *where = t->user_tree ? t->user_tree : t->src;
	struct repo *repo;
	char *spec;
	int found;

	if (!rev)
		rev = t->user_tree ? "HEAD" : BASE_REF;
	repo = repo_open(where);
	if (!repo)
		return error("cannot open the kernel tree '%s'", where);
	spec = xstrfmt("%s^{commit}", rev);
	found = repo_resolves(repo, spec, oid);
	free(spec);
	repo_free(repo);
	if (!found)
		return error("--base '%s' does not name a commit in '%s'", rev, where);
	return 0;
}

int
tree_reset(const struct boot_tree *t, const char *commit)
{
	char *am_state = xstrfmt("%s/.git/rebase-apply", t->src);
	char *index_lock = xstrfmt("%s/.git/index.lock", t->src);
	int rc;

	/* A git killed mid-way leaves its state; the tree is ours (we hold its lock), so drop it. */
	remove_dir_recursively(am_state);
	unlink(index_lock);
	free(am_state);
	free(index_lock);
	rc = run_git(t->src, NULL, "checkout", "--quiet", "--force", "--detach", commit, NULL);
	if (!rc)
		rc = run_git(t->src, NULL, "clean", "--quiet", "-d", "-x", "--force", "--force", NULL);
	return rc;
}

int
tree_apply(const struct boot_tree *t, const struct strvec *mails, struct strbuf *why)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	int rc;

	strvec_pushl(&cp.args, "git", "am", "--quiet", "--no-3way", "--", NULL);
	strvec_pushv(&cp.args, mails->v);
	cp.dir = t->src;
	private_git_env(&cp);
	cp.new_process_group = 1;
	rc = pipe_command(&cp, NULL, 0, &out, why);
	if (rc < 0) {
		strbuf_release(&out);
		return -1;
	}
	strbuf_addbuf(why, &out);
	strbuf_release(&out);
	strbuf_trim(why);
	return rc ? 1 : 0;
}

void
tree_release(struct boot_tree *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	free(t->cache);
	free(t->dir);
	free(t->src);
	free(t->build);
	free(t->user_tree);
	*t = (struct boot_tree)BOOT_TREE_INIT;
}
