// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend: check a kernel patch series for "fixed" jokes before it is sent.
 *
 * Each command lives in its own cmd-*.c and is found in the table below;
 * anything that is not a command name is handed to the send command, so
 * khsend can be typed wherever "git send-email" was.  Commands without a
 * help line are hidden: "hook" is what git's hooks, git send-email's
 * editor and b4's transport call back into.
 */
#include "khsend.h"
#include "lib/color.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/lg2.h"
#include "lib/repo.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/suggest.h"
#include "lib/usage.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "send", cmd_send, "check a series, then send it with git send-email (the default)" },
	{ "b4", cmd_b4, "check the series of a b4 prep branch, then send it with b4 send" },
	{ "check", cmd_check, "check a series against the policy" },
	{ "boot", cmd_boot, "build the series into a kernel and boot it in QEMU" },
	{ "setup", cmd_setup, "prepare the default kernel tree for khsend boot" },
	{ "cache", cmd_cache, "list or prune what khsend boot keeps (kernel trees, builds, logs)" },
	{ "explain", cmd_explain, "explain one policy entry (the joke behind it)" },
	{ "policy", cmd_policy, "validate, list or export (for spell checkers) the policy" },
	{ "scan", cmd_scan, "find where each policy entry occurs in a source tree" },
	{ "reply", cmd_reply, "draft a kind reply to a received patch that changes a protected string" },
	{ "install-hooks", cmd_install_hooks, "install khsend's git hooks in this repository" },
	{ "uninstall-hooks", cmd_uninstall_hooks, "remove khsend's git hooks, putting back what was there" },
	{ "hook", cmd_hook, NULL },
	{ NULL, NULL, NULL },
};

void
ctx_init(struct khsend_ctx *ctx)
{
	config_prefetch();
	/* The reader's language, unless the command settled it from --lang. */
	i18n_setup(NULL);
	memset(ctx, 0, sizeof(*ctx));
	ctx->policy = (struct policy)POLICY_INIT;
	ctx->repo = repo_discover();
}

void
ctx_load_policy(struct khsend_ctx *ctx, const struct strvec *files, const char *base)
{
	int problems;

	if (ctx->policy_loaded)
		BUG("the policy is loaded once");
	ctx->policy_loaded = 1;
	problems = policy_load(&ctx->policy, files, ctx->repo, base);
	if (problems)
		die(Q_("the policy has %d problem (see above); nothing was checked",
		       "the policy has %d problems (see above); nothing was checked", problems), problems);
	if (!ctx->policy.files.nr)
		warning(_("no policy file was found, so nothing is protected"));
}

void
ctx_reload_policy(struct khsend_ctx *ctx, const struct strvec *files, const char *base)
{
	policy_release(&ctx->policy);
	ctx->policy = (struct policy)POLICY_INIT;
	ctx->policy_loaded = 0;
	ctx_load_policy(ctx, files, base);
}

const char *
ctx_tmpdir(struct khsend_ctx *ctx)
{
	if (!ctx->tmpdir) {
		ctx->tmpdir = make_temp_dir("khsend");
		remove_at_exit(ctx->tmpdir);
	}
	return ctx->tmpdir;
}

void
ctx_release(struct khsend_ctx *ctx)
{
	policy_release(&ctx->policy);
	repo_free(ctx->repo);
	free(ctx->tmpdir);
	ctx->repo = NULL;
	ctx->tmpdir = NULL;
}

int
ctx_want_boot(const struct khsend_ctx *ctx, int flag)
{
	int on = 1;

	if (flag >= 0)
		return flag;
	return config_get_bool("khsend.boot", &on) ? on : 1;
}

void
ctx_add_id_hint(const struct khsend_ctx *ctx, const char *id, int overridable, struct strbuf *sb)
{
	const char **ids = xcalloc(ctx->policy.nr + 1, sizeof(*ids));
	struct strvec near = STRVEC_INIT;
	size_t n = 0;

	for (size_t i = 0; i < ctx->policy.nr; i++)
		if (!overridable || ctx->policy.v[i]->allow_override)
			ids[n++] = ctx->policy.v[i]->id;
	suggest_similar(id, ids, n, &near);
	/* A part of an id ("borken") or an id with more around it. */
	for (size_t i = 0; i < n && near.nr < 5 && strlen(id) >= 4; i++)
		if ((strstr(ids[i], id) || strstr(id, ids[i])) && !strvec_contains(&near, ids[i]))
			strvec_push(&near, ids[i]);
	suggest_format(sb, &near);
	strvec_clear(&near);
	free(ids);
}

void
ctx_check_allow(const struct khsend_ctx *ctx, const struct strvec *allow)
{
	for (size_t i = 0; i < allow->nr; i++) {
		const struct policy_entry *e = policy_find(&ctx->policy, allow->v[i]);
		struct strbuf hint = STRBUF_INIT;

		if (!e) {
			ctx_add_id_hint(ctx, allow->v[i], 1, &hint);
			die(_("--allow %s: there is no policy entry with that id%s%s"), allow->v[i],
			    hint.len ? "; " : "", hint.buf);
		}
		if (!e->allow_override)
			die(_("--allow %s: this entry cannot be overridden (its policy says so, at %s)"),
			    allow->v[i], e->origin);
	}
}

const char *
khsend_self_path(void)
{
	static char path[PATH_MAX];
	ssize_t n;

	if (*path)
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		die_errno(_("cannot find where this khsend is (/proc/self/exe)"));
	path[n] = '\0';
	return path;
}

static void
print_help(FILE *fp)
{
	fprintf(fp, "usage: khsend [--policy <file>]... [--allow <id>]... [--[no-]boot] [git send-email options]\n"
		    "              <files|directories|mbox|revisions>...\n"
		    "   or: khsend b4 [--policy <file>]... [--allow <id>]... [--[no-]boot] [b4 send options]\n"
		    "   or: khsend <command> [<options>]\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		if (c->help)
			fprintf(fp, "   %-17s%s\n", c->name, c->help);
	fprintf(fp, "\noptions:\n"
		    "    --color[=<when>]          colour: auto (only on a terminal), always or never\n"
		    "    --no-color                the same as --color=never\n"
		    "    --version                 print the version of khsend\n"
		    "    -h, --help                print this help\n"
		    "\n'khsend <command> -h' shows a command's options; khsend(1) has the details.\n");
}

/* --color[=when] and --no-color are understood anywhere before "--". */
static int
take_color_options(int argc, const char **argv)
{
	int out = 1;

	for (int i = 1; i < argc; i++) {
		const char *v;
		int mode;

		if (!strcmp(argv[i], "--")) {
			for (; i < argc; i++)
				argv[out++] = argv[i];
			break;
		}
		if (!strcmp(argv[i], "--color")) {
			color_set_mode(COLOR_ALWAYS);
		} else if (!strcmp(argv[i], "--no-color")) {
			color_set_mode(COLOR_NEVER);
		} else if (skip_prefix(argv[i], "--color=", &v)) {
			if ((mode = color_parse_mode(v)) < 0)
				die(_("--color=%s: expected auto, always or never"), v);
			color_set_mode((enum color_mode)mode);
		} else {
			argv[out++] = argv[i];
		}
	}
	argv[out] = NULL;
	return out;
}

/* Does `arg` name revisions ("HEAD~2", "A..B", "^A") in the repository here? */
static int
names_revisions(const char *arg)
{
	struct repo *repo = repo_discover();
	int yes = repo_names_revisions(repo, arg);

	repo_free(repo);
	return yes;
}

/* "did you mean" among the commands --help lists. */
static void
command_hint(const char *word, struct strbuf *sb)
{
	const char *names[sizeof(commands) / sizeof(*commands)];
	size_t n = 0;

	for (const struct command *c = commands; c->name; c++)
		if (c->help)
			names[n++] = c->name;
	suggest_add_hint(sb, word, names, n);
}

/* A closed or full stdout is an error, not a silent success (sbase's fshut). */
static int
close_stdout(int ret)
{
	return flush_stdout() ? EXIT_ERROR : ret;
}

int
main(int argc, const char **argv)
{
	const struct command *c;
	int ret;

	i18n_init();
	argc = take_color_options(argc, argv);
	if (argc < 2) {
		print_help(stderr);
		ret = EXIT_ERROR;
		goto out;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		print_help(stdout);
		ret = close_stdout(EXIT_CLEAN);
		goto out;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("khsend version %s\n", KHSEND_VERSION);
		ret = close_stdout(EXIT_CLEAN);
		goto out;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			break;
	/*
	 * Not a command: khsend as git send-email.  A first word that is no
	 * option, file or revision is most likely a mistyped command.
	 */
	if (!c->name && argv[1][0] != '-' && !file_exists(argv[1]) && !names_revisions(argv[1])) {
		struct strbuf hint = STRBUF_INIT;

		command_hint(argv[1], &hint);
		error(_("'%s' is not a khsend command (see 'khsend --help')%s%s"), argv[1],
		      hint.len ? "; " : "", hint.buf);
		strbuf_release(&hint);
		ret = EXIT_ERROR;
	} else if (!c->name)
		ret = close_stdout(cmd_send(argc, argv));
	else
		ret = close_stdout(c->fn(argc - 1, argv + 1));
out:
	run_exit_cleanup();
	lg2_shutdown();
	config_clear();
	return ret;
}
