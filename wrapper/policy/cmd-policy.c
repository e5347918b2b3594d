// SPDX-License-Identifier: GPL-2.0-only
/* khsend policy check|list and khsend explain: look at the policy itself. */
#include "khsend.h"
#include "lib/i18n.h"
#include "lib/json.h"
#include "lib/parse-options.h"
#include "check/report.h"
#include "lib/strbuf.h"
#include "lib/suggest.h"
#include "lib/usage.h"

#include <stdio.h>
#include <string.h>

static const char *const policy_usage[] = {
	"khsend policy check [<file>...]",
	"khsend policy list [--policy <file>]... [--format=text|json | --ids [--overridable] | --languages]",
	"khsend policy export --format=codespell|codespell-words|typos|checkpatch [--policy <file>]... [<tree>]",
	NULL,
};

static const char *const explain_usage[] = {
	"khsend explain [--policy <file>]... [--lang <tag>] <id>",
	NULL,
};

/* Validate files one by one (or the effective layers), printing a line for each. */
static int
policy_check(int argc, const char **argv)
{
	struct option options[] = { OPT_END() };
	int problems = 0;

	argc = parse_options(argc, argv, options, policy_usage, 0);
	if (argc < 2) {
		struct khsend_ctx ctx;

		ctx_init(&ctx);
		ctx_load_policy(&ctx, NULL, NULL);	/* exits 2 on any problem */
		for (size_t i = 0; i < ctx.policy.files.nr; i++)
			printf("%s: ok\n", ctx.policy.files.v[i]);
		printf("khsend: %zu %s in effect\n", ctx.policy.nr, ctx.policy.nr == 1 ? "entry" : "entries");
		ctx_release(&ctx);
		return EXIT_CLEAN;
	}
	for (int i = 1; i < argc; i++) {
		struct policy p = POLICY_INIT;
		int n = policy_load_file(&p, argv[i]);

		if (!n)
			printf("%s: ok, %zu %s\n", argv[i], p.nr, p.nr == 1 ? "entry" : "entries");
		problems += n;
		policy_release(&p);
	}
	if (problems)
		error("%d %s found", problems, problems == 1 ? "problem" : "problems");
	return problems ? EXIT_ERROR : EXIT_CLEAN;
}

static void
list_json(const struct policy *p)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "{\"files\": [");
	for (size_t i = 0; i < p->files.nr; i++) {
		strbuf_addstr(&sb, i ? ", " : "");
		json_add_string(&sb, p->files.v[i]);
	}
	strbuf_addstr(&sb, "], \"entries\": [");
	for (size_t i = 0; i < p->nr; i++) {
		const struct policy_entry *e = p->v[i];

		strbuf_addstr(&sb, i ? ", {\"id\": " : "{\"id\": ");
		json_add_string(&sb, e->id);
		strbuf_addstr(&sb, ", \"action\": ");
		json_add_string(&sb, policy_action_name(e->action));
		strbuf_addstr(&sb, e->regex_src ? ", \"regex\": " : ", \"string\": ");
		json_add_string(&sb, e->regex_src ? e->regex_src : e->string);
		strbuf_addf(&sb, ", \"ignore-case\": %s, \"allow-override\": %s, \"paths\": [",
			    e->ignore_case ? "true" : "false", e->allow_override ? "true" : "false");
		for (size_t k = 0; k < e->paths.nr; k++) {
			strbuf_addstr(&sb, k ? ", " : "");
			json_add_string(&sb, e->paths.v[k]);
		}
		strbuf_addstr(&sb, "], \"explain\": {\"en\": ");
		json_add_string(&sb, e->explain ? e->explain : "");
		for (size_t k = 0; k < e->translations_nr; k++) {
			const struct policy_text *t = &e->translations[k];

			strbuf_addstr(&sb, ", ");
			json_add_string(&sb, t->lang);
			strbuf_addstr(&sb, ": {\"text\": ");
			json_add_string(&sb, t->text);
			strbuf_addf(&sb, ", \"reviewed\": %s, \"reviewed-by\": ", t->reviewed ? "true" : "false");
			json_add_string_or_null(&sb, t->reviewed_by);
			strbuf_addch(&sb, '}');
		}
		strbuf_addstr(&sb, "}, \"origin\": ");
		json_add_string(&sb, e->origin);
		strbuf_addch(&sb, '}');
	}
	strbuf_addstr(&sb, "]}\n");
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
}

/* For each language: how many entries explain their joke in it, and how many of those a speaker reviewed. */
static void
list_languages(const struct policy *p)
{
	struct strvec langs = STRVEC_INIT;

	for (size_t i = 0; i < p->nr; i++)
		for (size_t k = 0; k < p->v[i]->translations_nr; k++)
			if (!strvec_contains(&langs, p->v[i]->translations[k].lang))
				strvec_push(&langs, p->v[i]->translations[k].lang);
	strvec_sort(&langs);
	printf("%-8s %zu %s\n", "en", p->nr, p->nr == 1 ? "entry" : "entries");
	for (size_t l = 0; l < langs.nr; l++) {
		size_t have = 0, reviewed = 0;

		for (size_t i = 0; i < p->nr; i++)
			for (size_t k = 0; k < p->v[i]->translations_nr; k++)
				if (!strcmp(p->v[i]->translations[k].lang, langs.v[l])) {
					have++;
					reviewed += p->v[i]->translations[k].reviewed;
				}
		printf("%-8s %zu %s, %zu reviewed  (%s)\n", langs.v[l], have, have == 1 ? "entry" : "entries",
		       reviewed, i18n_english_name(langs.v[l]));
	}
	strvec_clear(&langs);
}

static int
policy_list(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT;
	const char *format = NULL;
	struct khsend_ctx ctx;
	int ids = 0, overridable = 0, languages = 0;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_STRING(0, "format", &format, "text|json", "output format (default: text)"),
		OPT_BOOL(0, "ids", &ids, "print only the ids, one a line (for scripts and completion)"),
		OPT_BOOL(0, "languages", &languages, "count the entries explained in each language"),
		OPT_BOOL(0, "overridable", &overridable, "with --ids: only those --allow accepts (allow-override)"),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, policy_usage, 0);
	if (argc > 1)
		usage_msg_opt(policy_usage, options, "'policy list' takes no arguments");
	if (ids == 1 && format)
		usage_msg_opt(policy_usage, options, "--ids and --format cannot be combined");
	if (languages == 1 && (format || ids == 1))
		usage_msg_opt(policy_usage, options, "--languages cannot be combined with --ids or --format");
	if (overridable == 1 && ids != 1)
		usage_msg_opt(policy_usage, options, "--overridable goes with --ids");
	if (!format)
		format = "text";
	if (strcmp(format, "text") && strcmp(format, "json"))
		usage_msg_opt(policy_usage, options, "--format=%s: expected text or json", format);
	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	if (ids == 1) {
		for (size_t i = 0; i < ctx.policy.nr; i++)
			if (overridable != 1 || ctx.policy.v[i]->allow_override)
				printf("%s\n", ctx.policy.v[i]->id);
	} else if (languages == 1) {
		list_languages(&ctx.policy);
	} else if (!strcmp(format, "json")) {
		list_json(&ctx.policy);
	} else {
		for (size_t i = 0; i < ctx.policy.nr; i++) {
			const struct policy_entry *e = ctx.policy.v[i];
			char pattern[1200];
			struct strbuf line = STRBUF_INIT;

			strbuf_addf(&line, "%-28s %-8s %s", e->id, policy_action_name(e->action),
				    policy_entry_pattern(e, pattern, sizeof(pattern)));
			for (size_t k = 0; k < e->paths.nr; k++)
				strbuf_addf(&line, "%s%s", k ? ", " : "  in ", e->paths.v[k]);
			sanitize_terminal(line.buf);
			printf("%s\n", line.buf);
			strbuf_release(&line);
		}
	}
	ctx_release(&ctx);
	strvec_clear(&policies);
	return EXIT_CLEAN;
}

static const struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
} policy_commands[] = {
	{ "check", policy_check },
	{ "list", policy_list },
	{ "export", cmd_policy_export },
};

int
cmd_policy(int argc, const char **argv)
{
	for (size_t i = 0; argc >= 2 && i < sizeof(policy_commands) / sizeof(*policy_commands); i++)
		if (!strcmp(argv[1], policy_commands[i].name))
			return policy_commands[i].fn(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		struct option none[] = { OPT_END() };

		parse_options(argc, argv, none, policy_usage, 0);
	}
	if (argc < 2)
		usage_msg_opt(policy_usage, (struct option[]){ OPT_END() }, "say 'check', 'list' or 'export'");
	{
		const char *names[] = { "check", "list", "export" };
		struct strbuf hint = STRBUF_INIT;

		suggest_add_hint(&hint, argv[1], names, sizeof(names) / sizeof(*names));
		usage_msg_opt(policy_usage, (struct option[]){ OPT_END() }, "unknown policy command '%s'%s%s",
			      argv[1], hint.len ? "; " : "", hint.buf);
	}
}

int
cmd_explain(int argc, const char **argv)
{
	struct strvec policies = STRVEC_INIT;
	struct khsend_ctx ctx;
	const struct policy_entry *e;
	char pattern[1200];
	const char *lang = NULL;
	struct option options[] = {
		OPT_STRING_LIST(0, "policy", &policies, "file", "use exactly these policy files, in order"),
		OPT_STRING(0, "lang", &lang, "tag", "the language of the explanation (khsend.lang)"),
		OPT_END(),
	};
	int ret = EXIT_CLEAN;

	argc = parse_options(argc, argv, options, explain_usage, 0);
	i18n_setup(lang);
	if (argc != 2)
		usage_msg_opt(explain_usage, options, _("name one policy entry (see 'khsend policy list')"));
	ctx_init(&ctx);
	ctx_load_policy(&ctx, &policies, NULL);
	e = policy_find(&ctx.policy, argv[1]);
	if (!e) {
		struct strbuf hint = STRBUF_INIT;

		ctx_add_id_hint(&ctx, argv[1], 0, &hint);
		error(_("no policy entry '%s' (%s)"), argv[1], hint.len ? hint.buf : _("see 'khsend policy list'"));
		strbuf_release(&hint);
		ret = EXIT_ERROR;
		goto out;
	}
	{
		struct strbuf head = STRBUF_INIT;

		strbuf_addf(&head, "%s: %s (%s)", e->id, policy_entry_pattern(e, pattern, sizeof(pattern)),
			    policy_action_name(e->action));
		print_sanitized(stdout, "", head.buf);
		strbuf_reset(&head);
		for (size_t k = 0; k < e->paths.nr; k++)
			strbuf_addf(&head, "%s%s", k ? ", " : _("in: "), e->paths.v[k]);
		if (e->paths.nr)
			print_sanitized(stdout, "", head.buf);
		strbuf_release(&head);
	}
	putchar('\n');
	report_explain(stdout, e, "  ");
	for (size_t i = 0; i < e->see.nr; i++) {
		/* TRANSLATORS: before the links about the joke; the links line up after it. */
		const char *see = _("see: ");
		char *label = xstrfmt("\n%s", see), *pad = xstrfmt("%*s", (int)i18n_display_width(see), "");

		print_sanitized(stdout, i ? pad : label, e->see.v[i]);
		free(label);
		free(pad);
	}
	putchar('\n');
	printf(_("defined at %s\n"), e->origin);
out:
	ctx_release(&ctx);
	strvec_clear(&policies);
	return ret;
}
