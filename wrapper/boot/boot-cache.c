// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-cache: what khsend boot keeps, and taking it away again.  The
 * cache holds one directory per kernel tree (trees/<key>/: the private
 * work tree src/, the build directories build/ and compile/, a log
 * directory per run logs/<key>/, verdicts results/, the base's boot logs
 * base/), and one ccache shared by all.  A tree's lock file's time says
 * when it was last used; its origin file, which checkout it is for.
 *
 * Pruning keeps the newest `keep` runs' logs of each tree, drops other
 * logs, verdicts and base logs older than the age limit, then whole trees
 * unused for that long (but never the `keep` most recently used), then,
 * while the cache is over its size limit, the least recently used trees'
 * build directories and the trees themselves (never the most recent one).
 * A tree another khsend is using is left alone.
 */
#define _GNU_SOURCE
#include "boot/boot-cache.h"
#include "boot/boot-internal.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned long long walked_bytes;

static int
add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_F || flag == FTW_SL)
		walked_bytes += (unsigned long long)st->st_blocks * 512;
	return 0;
}

unsigned long long
cache_disk_usage(const char *path)
{
	walked_bytes = 0;
	if (file_exists(path))
		nftw(path, add_size, 32, FTW_PHYS);
	return walked_bytes;
}

void
cache_format_size(struct strbuf *out, unsigned long long bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(*units)) {
		v /= 1024;
		u++;
	}
	strbuf_addf(out, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

int
cache_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long n;
	unsigned shift = 0;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end == 'B' || *end == 'b') && end[1] == '\0')
		end++;
	if (*end || (shift && n > (~0ULL >> shift)))
		return -1;
	*out = n << shift;
	return 0;
}

static time_t
mtime_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_mtime;
}

/* The entries of dir (not . and ..), oldest first by mtime. */
struct entry {
	char *path;
	time_t mtime;
};

static int
by_mtime(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->path, y->path);
}

static size_t
list_entries(const char *dir, struct entry **out)
{
	struct strvec names = STRVEC_INIT;
	struct entry *v = NULL;
	size_t nr = 0;

	if (!read_dir_sorted(dir, &names)) {
		v = xcalloc(names.nr ? names.nr : 1, sizeof(*v));
		for (size_t i = 0; i < names.nr; i++) {
			if (names.v[i][0] == '.')
				continue;	/* results/.tmp-* of a live run */
			v[nr].path = xstrfmt("%s/%s", dir, names.v[i]);
			v[nr].mtime = mtime_of(v[nr].path);
			nr++;
		}
		qsort(v, nr, sizeof(*v), by_mtime);
	}
	strvec_clear(&names);
	*out = v;
	return nr;
}

static void
free_entries(struct entry *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].path);
	free(v);
}

static void
drop(const char *path, const struct cache_prune *p, const char *why)
{
	struct strbuf size = STRBUF_INIT;

	if (!p->quiet) {
		cache_format_size(&size, cache_disk_usage(path));
		printf("%s %s (%s, %s)\n", p->dry_run ? "would remove" : "removed", path, size.buf, why);
	}
	if (!p->dry_run && remove_dir_recursively(path))
		warning("could not remove '%s'", path);
	strbuf_release(&size);
}

void
cache_prune_runs(const char *tree_dir, const struct cache_prune *p)
{
	static const char *const aged[] = { "results", "base", NULL };
	char *logs = xstrfmt("%s/logs", tree_dir);
	time_t limit = time(NULL) - p->max_age;
	struct entry *v;
	size_t nr = list_entries(logs, &v);

	/* The newest `keep` runs stay, however old; a verdict goes with its run's logs. */
	for (size_t i = 0; i + (size_t)p->keep < nr; i++) {
		char *result = xstrfmt("%s/results/%s", tree_dir, base_name(v[i].path));

		drop(v[i].path, p, "an older run's logs");
		if (!p->dry_run)
			unlink(result);
		free(result);
	}
	free_entries(v, nr);
	for (size_t d = 0; aged[d]; d++) {
		char *dir = xstrfmt("%s/%s", tree_dir, aged[d]);

		nr = list_entries(dir, &v);
		for (size_t i = 0; i < nr; i++)
			if (p->max_age > 0 && v[i].mtime < limit)
				drop(v[i].path, p, "older than the age limit");
		free_entries(v, nr);
		free(dir);
	}
	free(logs);
}

/* Lock a tree's directory without waiting: -1 if another khsend holds it. */
static int
try_lock(const char *tree_dir)
{
	char *path = xstrfmt("%s/lock", tree_dir);
	int fd = open(path, O_RDWR | O_CLOEXEC);

	free(path);
	if (fd < 0)
		return -2;	/* no lock file: nothing has used it yet */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return fd;
}

struct tree_info {
	char *dir, *origin;
	time_t used;
	int lock_fd;
};

static int
by_use(const void *a, const void *b)
{
	const struct tree_info *x = a, *y = b;

	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->dir, y->dir);
}

/* The trees of the cache, least recently used first. */
static size_t
list_trees(const char *root, struct tree_info **out)
{
	char *trees = xstrfmt("%s/trees", root);
	struct strvec names = STRVEC_INIT;
	struct tree_info *v = NULL;
	size_t nr = 0;

	if (!read_dir_sorted(trees, &names)) {
		v = xcalloc(names.nr ? names.nr : 1, sizeof(*v));
		for (size_t i = 0; i < names.nr; i++) {
			struct strbuf origin = STRBUF_INIT;
			char *lock, *origin_path;

			if (names.v[i][0] == '.')
				continue;
			v[nr].dir = xstrfmt("%s/%s", trees, names.v[i]);
			if (!is_dir(v[nr].dir)) {
				free(v[nr].dir);
				continue;
			}
			lock = xstrfmt("%s/lock", v[nr].dir);
			origin_path = xstrfmt("%s/origin", v[nr].dir);
			v[nr].used = mtime_of(lock) ? mtime_of(lock) : mtime_of(v[nr].dir);
			if (strbuf_read_file(&origin, origin_path, 4096) < 0)
				strbuf_addstr(&origin, strcmp(names.v[i], "default") ? "?" : "default");
			v[nr].origin = strbuf_detach(&origin, NULL);
			v[nr].lock_fd = -1;
			free(lock);
			free(origin_path);
			nr++;
		}
		qsort(v, nr, sizeof(*v), by_use);
	}
	strvec_clear(&names);
	free(trees);
	*out = v;
	return nr;
}

static void
free_trees(struct tree_info *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (v[i].lock_fd >= 0)
			close(v[i].lock_fd);
		free(v[i].dir);
		free(v[i].origin);
	}
	free(v);
}

static void
describe_origin(struct strbuf *out, const char *origin)
{
	strbuf_addstr(out, strcmp(origin, "default") ? origin : "linux-source 6.1 (the default tree)");
}

int
cache_list(const char *root)
{
	struct tree_info *v;
	size_t nr = list_trees(root, &v);
	char *ccache = xstrfmt("%s/ccache", root);
	unsigned long long total = 0;
	struct strbuf sb = STRBUF_INIT;

	printf("khsend cache: %s\n", root);
	for (size_t i = nr; i-- > 0;) {
		static const char *const parts[] = { "src", "build", "compile", "logs", NULL };
		struct entry *runs;
		size_t runs_nr;
		char when[32];
		char *logs = xstrfmt("%s/logs", v[i].dir);
		struct tm tm;

		runs_nr = list_entries(logs, &runs);
		free_entries(runs, runs_nr);
		free(logs);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime_r(&v[i].used, &tm));
		strbuf_reset(&sb);
		describe_origin(&sb, v[i].origin);
		printf("  %s\n    for %s, last used %s, %zu %s kept\n   ", v[i].dir, sb.buf, when,
		       runs_nr, runs_nr == 1 ? "run" : "runs");
		for (size_t p = 0; parts[p]; p++) {
			char *path = xstrfmt("%s/%s", v[i].dir, parts[p]);
			unsigned long long bytes = cache_disk_usage(path);

			total += bytes;
			strbuf_reset(&sb);
			cache_format_size(&sb, bytes);
			printf(" %s %s%s", parts[p], sb.buf, parts[p + 1] ? "," : "\n");
			free(path);
		}
	}
	if (!nr)
		printf("  no kernel tree yet\n");
	{
		unsigned long long bytes = cache_disk_usage(ccache);

		total += bytes;
		strbuf_reset(&sb);
		cache_format_size(&sb, bytes);
		printf("  %s: %s (ccache keeps itself under its own limit, ccache -M)\n", ccache, sb.buf);
	}
	strbuf_reset(&sb);
	cache_format_size(&sb, total);
	printf("  total: %s\n", sb.buf);
	strbuf_release(&sb);
	free(ccache);
	free_trees(v, nr);
	return flush_stdout() ? EXIT_ERROR : EXIT_CLEAN;
}

static unsigned long long
trees_usage(const struct tree_info *v, size_t nr, const char *root)
{
	unsigned long long total = 0;
	char *ccache = xstrfmt("%s/ccache", root);

	for (size_t i = 0; i < nr; i++)
		if (v[i].dir)
			total += cache_disk_usage(v[i].dir);
	total += cache_disk_usage(ccache);
	free(ccache);
	return total;
}

int
cache_prune(const char *root, const struct cache_prune *p)
{
	struct tree_info *v;
	size_t nr = list_trees(root, &v);
	time_t limit = time(NULL) - p->max_age;
	unsigned long long total;

	for (size_t i = 0; i < nr; i++) {
		v[i].lock_fd = try_lock(v[i].dir);
		if (v[i].lock_fd == -1) {
			note("'%s' is in use by another khsend; left alone", v[i].dir);
			free(v[i].dir);
			v[i].dir = NULL;	/* not ours to touch */
			continue;
		}
		cache_prune_runs(v[i].dir, p);
	}
	/* Trees unused for too long, least recently used first; the newest `keep` stay. */
	for (size_t i = 0; i + (size_t)p->keep < nr; i++) {
		if (v[i].dir && p->max_age > 0 && v[i].used < limit) {
			drop(v[i].dir, p, "not used within the age limit");
			free(v[i].dir);
			v[i].dir = NULL;
		}
	}
	/* Over the size limit: build directories, then whole trees; the newest tree stays. */
	total = p->max_size ? trees_usage(v, nr, root) : 0;
	for (int pass = 0; pass < 2 && p->max_size && total > p->max_size; pass++) {
		for (size_t i = 0; i + 1 < nr && total > p->max_size; i++) {
			if (!v[i].dir)
				continue;
			if (pass == 0) {
				static const char *const parts[] = { "compile", "build", NULL };

				for (size_t k = 0; parts[k] && total > p->max_size; k++) {
					char *path = xstrfmt("%s/%s", v[i].dir, parts[k]);
					unsigned long long bytes = cache_disk_usage(path);

					if (bytes) {
						drop(path, p, "over the size limit");
						total -= bytes;
					}
					free(path);
				}
			} else {
				unsigned long long bytes = cache_disk_usage(v[i].dir);

				drop(v[i].dir, p, "over the size limit");
				total -= bytes;
				free(v[i].dir);
				v[i].dir = NULL;
			}
		}
	}
	if (p->max_size && total > p->max_size) {
		struct strbuf sb = STRBUF_INIT;

		cache_format_size(&sb, total);
		note("the cache still holds %s: the most recent tree and ccache stay", sb.buf);
		strbuf_release(&sb);
	}
	free_trees(v, nr);
	return flush_stdout() ? EXIT_ERROR : EXIT_CLEAN;
}
