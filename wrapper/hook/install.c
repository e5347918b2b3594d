/*
 * khsend install-hooks: the hooks of hooks/ (built into khsend) into the
 * repository's hooks directory, each calling the khsend that installed it.
 */
#include "khsend.h"
#include "hook/hooks.h"
#include "lib/i18n.h"
#include "lib/parse-options.h"
#include "lib/path.h"
#include "lib/quote.h"
#include "lib/run-command.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	sq_quote_if_needed(out, khsend_self_path());
	strbuf_addstr(out, line + strlen("\nkhsend=khsend"));
}

static int
write_hook(const char *path, const struct strbuf *text)
{
	char *tmp = xstrfmt("%s.khsend-new", path);

	if (write_file_buf(tmp, text->buf, text->len) || chmod(tmp, 0755) || rename(tmp, path)) {
		error_errno(_("cannot install '%s'"), path);
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

		for (k = 0; k < nr_shipped_hooks && strcmp(shipped_hooks[k].name, argv[i]); k++)
			;
		if (k == nr_shipped_hooks)
			usage_msg_opt(install_usage, options, _("'%s' is not one of khsend's hooks "
				        "(sendemail-validate, applypatch-msg, pre-applypatch, pre-commit)"), argv[i]);
	}
	/* Where git looks: honours core.hooksPath and linked worktrees. */
	strvec_pushl(&cp.args, "git", "rev-parse", "--git-path", "hooks", NULL);
	rc = capture_command(&cp, &dir);
	strbuf_strip_eol(&dir);
	if (rc || !dir.len) {
		strbuf_release(&dir);
		die(_("not in a git repository: 'git rev-parse --git-path hooks' failed"));
	}
	if (mkdir_p(dir.buf, 0))
		die_errno(_("cannot create the hooks directory '%s'"), dir.buf);
	for (size_t k = 0; k < nr_shipped_hooks; k++) {
		struct strbuf want = STRBUF_INIT, have = STRBUF_INIT;
		char *path = xstrfmt("%s/%s", dir.buf, shipped_hooks[k].name);
		int wanted = argc < 2;

		for (int i = 1; i < argc; i++)
			wanted |= !strcmp(argv[i], shipped_hooks[k].name);
		if (!wanted)
			goto next;
		hook_text(shipped_hooks[k].text, &want);
		if (!file_exists(path)) {
			if (write_hook(path, &want))
				ret = EXIT_ERROR;
			else
				printf(_("installed %s\n"), path);
		} else if (strbuf_read_file(&have, path, 0) < 0) {
			ret = error_errno(_("cannot read '%s'"), path) ? EXIT_ERROR : ret;
		} else if (have.len == want.len && !memcmp(have.buf, want.buf, want.len)) {
			printf(_("%s is installed already\n"), path);
		} else if (!force) {
			warning(_("'%s' is there already and is not khsend's (or is another khsend's); "
				  "left as it is (--force replaces it and keeps it as %s.khsend-old)"),
				path, shipped_hooks[k].name);
			skipped++;
		} else {
			char *old = xstrfmt("%s.khsend-old", path);

			if (rename(path, old) || write_hook(path, &want)) {
				ret = error_errno(_("cannot replace '%s'"), path) ? EXIT_ERROR : ret;
			} else {
				printf(_("installed %s (the hook that was there is now %s)\n"), path, old);
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

