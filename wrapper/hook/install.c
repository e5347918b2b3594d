// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend install-hooks and uninstall-hooks: the hooks of hooks/ (built into
 * khsend) into the repository's hooks directory, and out again.
 *
 * A hook is installed exactly as shipped: it finds khsend at run time (on
 * PATH, or "git config khsend.path"), so nothing in it goes stale when
 * khsend is upgraded or moved.  A hook is khsend's when its comment says
 * so ("# khsend's <name> hook", in every version), so install-hooks
 * updates khsend's own hooks without --force, and uninstall-hooks removes
 * only those.  A hook of the user's that --force moved aside to
 * <hook>.khsend-old runs after khsend's, and uninstall-hooks puts it back.
 */
#include "khsend.h"
#include "hook/hooks.h"
#include "lib/i18n.h"
#include "lib/config.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/strbuf.h"
#include "lib/suggest.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OLD_SUFFIX ".khsend-old"

static const char *const install_usage[] = {
	"khsend install-hooks [--force] [<hook>...]",
	"khsend install-hooks --list",
	NULL,
};

static const char *const uninstall_usage[] = {
	"khsend uninstall-hooks [<hook>...]",
	NULL,
};

/* Check the hook names on the command line; exit 129 with the usage for one that is not khsend's. */
static void
check_hook_names(int argc, const char **argv, const char *const *usage, const struct option *options)
{
	const char *names[16];
	struct strbuf hint = STRBUF_INIT;

	if (nr_shipped_hooks > sizeof(names) / sizeof(*names))
		BUG("too many hooks");
	for (size_t k = 0; k < nr_shipped_hooks; k++)
		names[k] = shipped_hooks[k].name;
	for (int i = 1; i < argc; i++) {
		if (shipped_hook_find(argv[i]))
			continue;
		suggest_add_hint(&hint, argv[i], names, nr_shipped_hooks);
		usage_msg_opt(usage, options, "'%s' is not one of khsend's hooks (%s, %s, %s, %s)%s%s", argv[i],
			      names[0], names[1], names[2], names[3], hint.len ? "; " : "", hint.buf);
	}
}

/* Is this hook named on the command line (or is none named)? */
static int
wanted(int argc, const char **argv, const char *name)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

/* Where git looks for hooks: honours core.hooksPath and linked worktrees. */
static void
hooks_dir(struct strbuf *dir)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;

	strvec_pushl(&cp.args, "git", "rev-parse", "--git-path", "hooks", NULL);
	rc = capture_command(&cp, dir);
	strbuf_strip_eol(dir);
	if (rc || !dir->len)
		die("not in a git repository: 'git rev-parse --git-path hooks' failed");
}

/* Does this text say it is khsend's hook `name` (any version of it)? */
static int
is_khsend_hook(const struct strbuf *text, const char *name)
{
	char *mark = xstrfmt("\n# khsend's %s hook", name);
	const char *at = strstr(text->buf, mark);
	int yes = at && at - text->buf < 200;

	free(mark);
	return yes;
}

static int
write_hook(const char *path, const char *text)
{
	char *tmp = xstrfmt("%s.khsend-new", path);

	if (write_file_buf(tmp, text, strlen(text)) || chmod(tmp, 0755) || rename(tmp, path)) {
		error_errno(_("cannot install '%s'"), path);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* The hooks call "khsend" from PATH, or khsend.path: say so if that finds nothing. */
static void
check_reachable(void)
{
	const char *fixed = config_get("khsend.path");
	char *found;

	if (fixed) {
		if (access(fixed, X_OK))
			warning("khsend.path is '%s', which is not an executable file; "
				"the hooks will stop git am and git send-email until it is", fixed);
		return;
	}
	found = locate_in_path("khsend", getenv("PATH"));
	if (!found)
		warning("'khsend' is not on your PATH, so the hooks cannot run it; put it there, "
			"or run 'git config khsend.path %s'", khsend_self_path());
	else if (!same_file(found, khsend_self_path()))
		note("the hooks will run %s, the khsend on your PATH", found);
	free(found);
}

/* One of khsend's hooks, where it goes in this repository. */
struct hook_slot {
	const struct shipped_hook *hook;
	const char *path;	/* <hooks dir>/<name> */
	const char *old;	/* where a hook of the user's is kept: <path>.khsend-old */
};

struct install_tally {
	int force, installed, skipped;
};

typedef int (*each_hook_fn)(const struct hook_slot *slot, void *data);

/* Run fn on each of khsend's hooks named on the command line (all when none is); the worst result. */
static int
for_each_wanted_hook(int argc, const char **argv, const char *dir, each_hook_fn fn, void *data)
{
	int ret = EXIT_CLEAN;

	for (size_t k = 0; k < nr_shipped_hooks; k++) {
		char *path, *old;
		struct hook_slot slot;
		int rc;

		if (!wanted(argc, argv, shipped_hooks[k].name))
			continue;
		path = xstrfmt("%s/%s", dir, shipped_hooks[k].name);
		old = xstrfmt("%s" OLD_SUFFIX, path);
		slot = (struct hook_slot){ &shipped_hooks[k], path, old };
		rc = fn(&slot, data);
		if (rc > ret)
			ret = rc;
		free(path);
		free(old);
	}
	return ret;
}

/* Put one hook in place; a hook of the user's is only moved aside with --force. */
static int
install_one(const struct hook_slot *slot, void *data)
{
	struct install_tally *tally = data;
	const char *path = slot->path, *name = slot->hook->name, *text = slot->hook->text;
	struct strbuf have = STRBUF_INIT;
	int ret = EXIT_CLEAN;

	if (!file_exists(path)) {
		if (write_hook(path, text))
			ret = EXIT_ERROR;
		else if (++tally->installed)
			printf(_("installed %s\n"), path);
	} else if (strbuf_read_file(&have, path, 1 << 20) < 0) {
		ret = error_errno(_("cannot read '%s'"), path) ? EXIT_ERROR : ret;
	} else if (!strcmp(have.buf, text)) {
		printf(_("%s is installed already\n"), path);
		tally->installed++;
	} else if (is_khsend_hook(&have, name)) {
		/* An older khsend's: replaced, nothing of the user's is lost. */
		if (write_hook(path, text))
			ret = EXIT_ERROR;
		else if (++tally->installed)
			printf(_("updated %s (an older khsend's)\n"), path);
	} else if (!tally->force) {
		warning(_("'%s' is a hook of your own; left as it is (--force moves it to %s%s, "
			  "where it runs after khsend's)"), path, name, OLD_SUFFIX);
		tally->skipped++;
	} else if (file_exists(slot->old)) {
		ret = error("'%s' is a hook of your own, and '%s' is there already; "
			    "move one of them away first", path, slot->old) ? EXIT_ERROR : ret;
	} else if (rename(path, slot->old)) {
		ret = error_errno("cannot move '%s' aside", path) ? EXIT_ERROR : ret;
	} else if (write_hook(path, text)) {
		rename(slot->old, path);
		ret = EXIT_ERROR;
	} else {
		printf(_("installed %s (yours is now %s%s and runs after it)\n"), path, name, OLD_SUFFIX);
		tally->installed++;
	}
	strbuf_release(&have);
	return ret;
}

int
cmd_install_hooks(int argc, const char **argv)
{
	struct strbuf dir = STRBUF_INIT;
	struct install_tally tally = { 0 };
	int list = 0, ret;
	struct option options[] = {
		OPT_BOOL(0, "force", &tally.force, "also replace a hook of your own (it is kept as <hook>.khsend-old, "
			 "runs after khsend's, and comes back with uninstall-hooks)"),
		OPT_BOOL(0, "list", &list, "print the names of khsend's hooks, one a line (for completion)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, install_usage, 0);
	if (list == 1) {
		if (argc > 1 || tally.force == 1)
			usage_msg_opt(install_usage, options, _("--list takes nothing else"));
		for (size_t k = 0; k < nr_shipped_hooks; k++)
			printf("%s\n", shipped_hooks[k].name);
		return EXIT_CLEAN;
	}
	check_hook_names(argc, argv, install_usage, options);
	hooks_dir(&dir);
	if (mkdir_p(dir.buf, 0))
		die_errno(_("cannot create the hooks directory '%s'"), dir.buf);
	ret = for_each_wanted_hook(argc, argv, dir.buf, install_one, &tally);
	if (tally.installed)
		check_reachable();
	strbuf_release(&dir);
	if (ret == EXIT_CLEAN && tally.skipped)
		ret = EXIT_FINDING;
	return ret;
}

/* Take out one of khsend's hooks, and put back the user's it had moved aside. */
static int
uninstall_one(const struct hook_slot *slot, void *data)
{
	const char *path = slot->path, *old = slot->old;
	struct strbuf have = STRBUF_INIT;
	int ret = EXIT_CLEAN;

	if (!file_exists(path)) {
		if (file_exists(old) && !rename(old, path))
			printf("restored %s\n", path);
	} else if (strbuf_read_file(&have, path, 1 << 20) < 0) {
		ret = error_errno("cannot read '%s'", path) ? EXIT_ERROR : ret;
	} else if (!is_khsend_hook(&have, slot->hook->name)) {
		warning("'%s' is not khsend's hook; left as it is", path);
		ret = EXIT_FINDING;
	} else if (unlink(path)) {
		ret = error_errno("cannot remove '%s'", path) ? EXIT_ERROR : ret;
	} else if (file_exists(old)) {
		if (rename(old, path))
			ret = error_errno("cannot put '%s' back", old) ? EXIT_ERROR : ret;
		else
			printf("removed khsend's %s; yours is back\n", path);
	} else {
		printf("removed %s\n", path);
	}
	strbuf_release(&have);
	return ret;
}

int
cmd_uninstall_hooks(int argc, const char **argv)
{
	struct strbuf dir = STRBUF_INIT;
	int ret;
	struct option options[] = { OPT_END() };

	argc = parse_options(argc, argv, options, uninstall_usage, 0);
	check_hook_names(argc, argv, uninstall_usage, options);
	hooks_dir(&dir);
	ret = for_each_wanted_hook(argc, argv, dir.buf, uninstall_one, NULL);
	strbuf_release(&dir);
	return ret;
}
