// SPDX-License-Identifier: GPL-2.0-only
/* path: the few file-system helpers khsend needs, with cleanup on exit. */
#define _GNU_SOURCE
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *cleanup_dirs[8];
static pid_t cleanup_owner;

char *
make_temp_dir(const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	char *path;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	path = xstrfmt("%s/%s.XXXXXX", tmp, prefix);
	if (!mkdtemp(path))
		die_errno("cannot create a temporary directory in '%s'", tmp);
	return path;
}

static int
unlink_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	if (flag == FTW_DNR) {
		/* An unreadable directory: make it readable once, then retry. */
		if (chmod(path, 0700))
			return -1;
		return remove_dir_recursively(path);
	}
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

int
remove_dir_recursively(const char *path)
{
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	return nftw(path, unlink_cb, 16, FTW_DEPTH | FTW_PHYS);
}

int
mkdir_p(const char *path, int private)
{
	char *copy = xstrdup(path);

	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) && errno != EEXIST) {
			free(copy);
			return -1;
		}
		*p = '/';
	}
	if (mkdir(copy, private ? 0700 : 0755) && errno != EEXIST) {
		free(copy);
		return -1;
	}
	free(copy);
	return 0;
}

void
run_exit_cleanup(void)
{
	/* A forked child must not remove its parent's directories. */
	if (cleanup_owner != getpid())
		return;
	for (size_t i = 0; i < sizeof(cleanup_dirs) / sizeof(*cleanup_dirs); i++) {
		if (!cleanup_dirs[i])
			continue;
		remove_dir_recursively(cleanup_dirs[i]);
		free(cleanup_dirs[i]);
		cleanup_dirs[i] = NULL;
	}
}

/*
 * A fatal signal: the children first (none may outlive khsend), then the
 * directories, then die of the same signal so the caller sees 128+sig.
 * Removing a tree is not async-signal-safe; like git's tmp-objdir we take
 * that risk on the way out rather than leave the series behind.
 */
static void
cleanup_on_signal(int sig)
{
	stop_running_children(sig);
	run_exit_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
exit_by_signal(int sig)
{
	fflush(NULL);
	run_exit_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

static void
catch_fatal_signals(void)
{
	static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

	for (size_t i = 0; i < sizeof(fatal) / sizeof(*fatal); i++) {
		struct sigaction sa, old;

		/* A signal the caller ignores (nohup, a background job's ^C) stays ignored. */
		if (sigaction(fatal[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = cleanup_on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(fatal[i], &sa, NULL);
	}
}

void
remove_at_exit(const char *path)
{
	static int registered;

	if (!registered) {
		cleanup_owner = getpid();
		atexit(run_exit_cleanup);
		set_die_cleanup(run_exit_cleanup);
		catch_fatal_signals();
		registered = 1;
	}
	for (size_t i = 0; i < sizeof(cleanup_dirs) / sizeof(*cleanup_dirs); i++)
		if (!cleanup_dirs[i]) {
			cleanup_dirs[i] = xstrdup(path);
			return;
		}
	BUG("too many directories to clean up");
}

static void
xdg_dir(struct strbuf *out, const char *var, const char *fallback)
{
	const char *base = getenv(var);
	const char *home = getenv("HOME");

	strbuf_reset(out);
	if (base && *base == '/')
		strbuf_addf(out, "%s/khsend", base);
	else if (home && *home)
		strbuf_addf(out, "%s/%s/khsend", home, fallback);
	else
		die("neither $%s nor $HOME is set", var);
}

void
xdg_config_dir(struct strbuf *out)
{
	xdg_dir(out, "XDG_CONFIG_HOME", ".config");
}

void
xdg_cache_dir(struct strbuf *out)
{
	xdg_dir(out, "XDG_CACHE_HOME", ".cache");
}

/* The directory above the one the running binary is in (/usr for /usr/bin/khsend); NULL if unknown. */
static const char *
install_prefix(void)
{
	static char prefix[PATH_MAX];
	static int done;

	if (!done) {
		ssize_t n = readlink("/proc/self/exe", prefix, sizeof(prefix) - 1);
		char *slash;

		done = 1;
		prefix[n > 0 ? n : 0] = '\0';
		/* Twice: the binary's name, then its directory (bin/). */
		for (int i = 0; i < 2; i++)
			if ((slash = strrchr(prefix, '/')))
				*slash = '\0';
	}
	return *prefix ? prefix : NULL;
}

char *
installed_path(enum installed_dir dir, const char *name)
{
	const char *prefix = install_prefix();

	return xstrfmt("%s/%s/khsend/%s", prefix ? prefix : "/usr/local",
		       dir == INSTALLED_DATA ? "share" : "lib", name);
}

char *
expand_user_path(const char *path)
{
	const char *home = getenv("HOME");

	if (path[0] == '~' && (path[1] == '/' || !path[1]) && home)
		return xstrfmt("%s%s", home, path + 1);
	return xstrdup(path);
}

int
read_dir_sorted(const char *dir, struct strvec *names)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strvec_push(names, de->d_name);
	closedir(d);
	strvec_sort(names);
	return 0;
}

int
is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int
is_fifo(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISFIFO(st.st_mode);
}

int
is_regular_or_fifo(const char *path)
{
	struct stat st;

	return !stat(path, &st) && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode));
}

int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int
file_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

int
write_file_buf(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t done = 0;

	if (fd < 0)
		return error_errno("cannot create '%s'", path);
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			error_errno("cannot write '%s'", path);
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd))
		return error_errno("cannot write '%s'", path);
	return 0;
}

int
copy_file(const char *dst, const char *src)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (strbuf_read_file(&sb, src, 0) < 0) {
		strbuf_release(&sb);
		return error_errno("cannot read '%s'", src);
	}
	ret = write_file_buf(dst, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int
write_list_file(const char *path, const struct strvec *v)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < v->nr; i++) {
		strbuf_addstr(&sb, v->v[i]);
		strbuf_addch(&sb, '\0');
	}
	ret = write_file_buf(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

int
read_list_file(const char *path, struct strvec *v)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		strbuf_release(&sb);
		return -1;
	}
	for (size_t i = 0; i < sb.len; i += strlen(sb.buf + i) + 1)
		strvec_push(v, sb.buf + i);
	strbuf_release(&sb);
	return 0;
}
