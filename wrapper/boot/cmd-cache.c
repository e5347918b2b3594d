// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend cache: list what khsend boot keeps (khsend cache, khsend cache
 * list) and prune it (khsend cache prune), by age and by size, keeping
 * the newest runs.  The limits come from the options, else from
 * khsend.cacheKeep, khsend.cacheMaxAge (days) and khsend.cacheMaxSize.
 */
#include "khsend.h"
#include "boot/boot-cache.h"
#include "boot/boot-internal.h"
#include "lib/config.h"
#include "lib/parse-options.h"
#include "lib/usage.h"

#include <stdlib.h>
#include <string.h>

static const char *const cache_usage[] = {
	"khsend cache [list]",
	"khsend cache prune [--keep <n>] [--max-age <days>] [--max-size <size>] [-n | --dry-run]",
	NULL,
};

/* A whole number in [min, max] from an option or a config key, or exit 2 naming it. */
static long
number(const char *what, const char *value, long min, long max)
{
	char *end;
	long n = strtol(value, &end, 10);

	if (!*value || *end || n < min || n > max)
		die("%s '%s': expected a whole number from %ld to %ld", what, value, min, max);
	return n;
}

void
cache_prune_defaults(struct cache_prune *p, const char *keep, const char *age, const char *size)
{
	const char *v;

	if (!keep && (v = config_get("khsend.cacheKeep")))
		p->keep = (int)number("khsend.cacheKeep", v, 0, 100000);
	else
		p->keep = keep ? (int)number("--keep", keep, 0, 100000) : CACHE_DEFAULT_KEEP;
	if (!age && (v = config_get("khsend.cacheMaxAge")))
		p->max_age = number("khsend.cacheMaxAge", v, 0, 36500) * 86400;
	else
		p->max_age = (age ? number("--max-age", age, 0, 36500) : CACHE_DEFAULT_MAX_AGE_DAYS) * 86400;
	if (!size && (v = config_get("khsend.cacheMaxSize"))) {
		if (cache_parse_size(v, &p->max_size))
			die("khsend.cacheMaxSize '%s': expected a size such as 20G or 500M (0: no limit)", v);
	} else if (cache_parse_size(size ? size : CACHE_DEFAULT_MAX_SIZE, &p->max_size)) {
		die("--max-size '%s': expected a size such as 20G or 500M (0: no limit)", size);
	}
}

int
cmd_cache(int argc, const char **argv)
{
	struct strbuf root = STRBUF_INIT;
	struct cache_prune p = { 0, 0, 0, 0, 0 };
	const char *keep = NULL, *age = NULL, *size = NULL;
	int dry_run = -1, ret;
	struct option options[] = {
		OPT_STRING(0, "keep", &keep, "n",
			   "prune: the newest runs of each tree, and trees, kept anyway (khsend.cacheKeep, 5)"),
		OPT_STRING(0, "max-age", &age, "days",
			   "prune: what was not used for that long goes (khsend.cacheMaxAge, 30; 0: none)"),
		OPT_STRING(0, "max-size", &size, "size",
			   "prune: then the oldest builds until under it (khsend.cacheMaxSize, 20G; 0: none)"),
		OPT_BOOL('n', "dry-run", &dry_run, "prune: say what would be removed, remove nothing"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, cache_usage, 0);
	boot_cache_root(&root);
	if (argc < 2 || !strcmp(argv[1], "list")) {
		if (argc > 2)
			usage_msg_opt(cache_usage, options, "unexpected argument '%s'", argv[2]);
		if (keep || age || size || dry_run >= 0)
			usage_msg_opt(cache_usage, options, "the options are for khsend cache prune");
		ret = cache_list(root.buf);
	} else if (!strcmp(argv[1], "prune")) {
		if (argc > 2)
			usage_msg_opt(cache_usage, options, "unexpected argument '%s'", argv[2]);
		cache_prune_defaults(&p, keep, age, size);
		p.dry_run = dry_run > 0;
		ret = cache_prune(root.buf, &p);
	} else {
		usage_msg_opt(cache_usage, options, "unknown subcommand '%s' (list or prune)", argv[1]);
	}
	strbuf_release(&root);
	return ret;
}
