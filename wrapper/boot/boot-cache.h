/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot-cache: khsend cache, what khsend boot keeps under its cache
 * directory, listed and pruned (boot-cache.c says what goes first).
 */
#ifndef KHSEND_BOOT_CACHE_H
#define KHSEND_BOOT_CACHE_H

#include "lib/strbuf.h"

#include <time.h>

struct cache_prune {
	int keep;			/* the newest runs (logs) of each tree, and trees, always kept */
	time_t max_age;			/* seconds; 0: no age limit */
	unsigned long long max_size;	/* bytes; 0: no size limit */
	int dry_run;			/* say what would go, remove nothing */
	int quiet;			/* remove without a word (after a boot) */
};

#define CACHE_DEFAULT_KEEP 5
#define CACHE_DEFAULT_MAX_AGE_DAYS 30
#define CACHE_DEFAULT_MAX_SIZE "20G"

/* Limits from the options (NULL: not given), else khsend.cache*, else the defaults; exit 2 if bad. */
void cache_prune_defaults(struct cache_prune *p, const char *keep, const char *age, const char *size);
/* Print each tree (what it is for, when last used, sizes) and the total; an exit status. */
int cache_list(const char *root);
/* Prune the whole cache as p says, printing what goes; an exit status. */
int cache_prune(const char *root, const struct cache_prune *p);
/* Prune one tree's run logs, verdicts and base logs (its lock held by the caller). */
void cache_prune_runs(const char *tree_dir, const struct cache_prune *p);

/* Bytes on disk under path (not following symlinks). */
unsigned long long cache_disk_usage(const char *path);
void cache_format_size(struct strbuf *out, unsigned long long bytes);
/* "20G", "500M", "1024" (bytes) and the like: 0 or -1. */
int cache_parse_size(const char *s, unsigned long long *out);

#endif
