// SPDX-License-Identifier: GPL-2.0-only
/* args: a "b4 send" command line, read as b4 0.12's argparse reads it. */
#include "b4/args.h"
#include "lib/i18n.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <string.h>

/* b4 0.12's "b4 send" options (b4/command.py), for argparse's prefix matching. */
static const char *const b4_send_options[] = {
	"--help", "--dry-run", "--output-dir", "--reflect", "--no-trailer-to-cc", "--to", "--cc",
	"--not-me-too", "--resend", "--no-sign", "--web-auth-new", "--web-auth-verify", NULL,
};

/* argparse: "--x" is a long option if it names one exactly or is a unique prefix of one. */
static const char *
b4_long_option(const char *arg)
{
	size_t len = strcspn(arg, "=");
	const char *hit = NULL;

	if (!starts_with(arg, "--") || len < 3)
		return NULL;
	for (const char *const *o = b4_send_options; *o; o++) {
		if (strlen(*o) == len && !strncmp(*o, arg, len))
			return *o;
		if (!strncmp(*o, arg, len)) {
			if (hit)
				return NULL;	/* ambiguous: b4 refuses it */
			hit = *o;
		}
	}
	return hit;
}


void
b4_args_parse(int argc, const char **argv, struct b4_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v, *opt;

		if (!strcmp(arg, "--policy") || !strcmp(arg, "--allow")) {
			if (i + 1 >= argc || !*argv[i + 1])
				die(_("%s needs a value"), arg);
			strvec_push(arg[2] == 'p' ? &a->policies : &a->allow, argv[++i]);
			continue;
		}
		if (skip_prefix(arg, "--policy=", &v) || skip_prefix(arg, "--allow=", &v)) {
			strvec_push(arg[2] == 'p' ? &a->policies : &a->allow, v);
			continue;
		}
		if (!strcmp(arg, "--boot") || !strcmp(arg, "--no-boot")) {
			a->boot = arg[2] == 'b';
			continue;
		}
		if (i18n_lang_option(argc, argv, &i, &a->lang))
			continue;
		strvec_push(&a->rest, arg);
		if (!strcmp(arg, "--"))
			continue;
		if (!strcmp(arg, "-d") || starts_with(arg, "-o"))
			a->dry_run = 1;
		if (!strcmp(arg, "-h"))
			a->help = 1;
		opt = b4_long_option(arg);
		if (!opt)
			continue;
		if (!strcmp(opt, "--dry-run") || !strcmp(opt, "--output-dir"))
			a->dry_run = 1;
		else if (!strcmp(opt, "--no-sign"))
			a->no_sign = 1;
		else if (!strcmp(opt, "--web-auth-new") || !strcmp(opt, "--web-auth-verify"))
			a->web_auth = 1;
		else if (!strcmp(opt, "--help"))
			a->help = 1;
	}
}

void
b4_args_release(struct b4_args *a)
{
	strvec_clear(&a->policies);
	strvec_clear(&a->allow);
	strvec_clear(&a->rest);
}
