// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend [khsend options] [git send-email options] <files|dirs|mbox|revisions>...
 *
 * 1. The series is read once into a private directory (series_build():
 *    the user's files copied, an mbox split, revisions through git
 *    format-patch as git send-email runs it), checked as a whole, and
 *    annotated where the policy says so; a block stops everything here.
 * 2. The boot smoke test runs on exactly those files.
 * 3. The real git send-email gets its own options untouched and the
 *    checked files, with khsend's transport as its sendmail
 *    (--sendmail-cmd): whatever it would deliver — after --annotate,
 *    --compose or an [e]dit at its prompt, by any editor, at any time —
 *    is held in the spool.
 * 4. When git send-email is done, the held series is checked again as it
 *    was delivered (send/transport.c) and only then relayed, message by
 *    message, to the transport git send-email would have used.
 *
 * Exit status: 1 when a block finding (or a failed boot) stopped it and
 * nothing was sent; 2 for an error of khsend's (bad option, policy,
 * unreadable file, git format-patch failing, a transport khsend cannot
 * stand in front of, a note it cannot add, a transport that failed: the
 * messages that left are named); else git send-email's own.
 */
#define _GNU_SOURCE
#include "khsend.h"
#include "check/annotate.h"
#include "check/check.h"
#include "check/report.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/usage.h"
#include "send/outgoing.h"
#include "send/send.h"
#include "send/sendemail-options.h"
#include "send/spool.h"
#include "send/transport.h"
#include "series/input.h"
#include "series/series.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
send_take_options(int argc, const char **argv, struct send_options *so, struct strvec *rest)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		size_t words;

		if (!strcmp(a, "--")) {
			for (; i < argc; i++)
				strvec_push(rest, argv[i]);
			break;
		}
		if (!strcmp(a, "--policy") || !strcmp(a, "--allow")) {
			if (i + 1 >= argc || !*argv[i + 1])
				die(_("%s needs a value (%s)"), a, a[2] == 'p' ? _("a policy file") : _("a policy entry id"));
			strvec_push(a[2] == 'p' ? &so->policies : &so->allow, argv[++i]);
			continue;
		}
		if (skip_prefix(a, "--policy=", &v) || skip_prefix(a, "--allow=", &v)) {
			if (!*v)
				die(_("%.8s needs a value"), a);
			strvec_push(a[2] == 'p' ? &so->policies : &so->allow, v);
			continue;
		}
		if (!strcmp(a, "--boot") || !strcmp(a, "--no-boot")) {
			so->boot = a[2] == 'b';
			continue;
		}
		if (i18n_lang_option(argc, argv, &i, &so->lang))
			continue;
		words = sendemail_option_words(argv, (size_t)argc, (size_t)i);
		strvec_push(rest, a);
		if (words == 2)
			strvec_push(rest, argv[++i]);
	}
}

void
send_options_release(struct send_options *so)
{
	strvec_clear(&so->policies);
	strvec_clear(&so->allow);
}

/* -h, --dump-aliases, --git-completion-helper, no patches: nothing to check, hand over as is. */
static int
pass_through(const struct strvec *args)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc, sig;

	strvec_pushl(&cp.args, "git", "send-email", NULL);
	strvec_pushv(&cp.args, args->v);
	rc = run_command_in_foreground(&cp, &sig);
	if (sig)
		exit_by_signal(sig);
	return rc < 0 ? EXIT_ERROR : rc;
}

/*
 * Would git send-email ask "Do you really want to send <file>?" about the
 * user's files (handle_backup(): a name that is the one before it plus a
 * suffix not starting with a letter or digit, like "x.patch~")?  Then the
 * kept files are named after the user's paths ('/' and '%' escaped, so one
 * name is a prefix of another exactly when it was so before) and given to
 * git send-email one by one, so that it asks the same.
 */
static int
backup_like_names(const struct series *s)
{
	for (size_t i = 1; i < s->nr; i++) {
		const char *last = s->v[i - 1]->source, *f = s->v[i]->source;
		size_t n;

		if (!last || !f)
			continue;
		n = strlen(last);
		if (strlen(f) > n && !strncmp(f, last, n) && !isalnum((unsigned char)f[n]))
			return 1;
	}
	return 0;
}

static int
name_after_sources(struct series *s, const char *dir)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct message *msg = s->v[i];
		struct strbuf name = STRBUF_INIT;
		char *to;

		if (!msg->source)
			continue;
		strbuf_addf(&name, "%s/", dir);
		for (const char *c = msg->source; *c; c++) {
			if (*c == '%')
				strbuf_addstr(&name, "%25");
			else if (*c == '/')
				strbuf_addstr(&name, "%2F");
			else
				strbuf_addch(&name, *c);
		}
		to = strbuf_detach(&name, NULL);
		if (file_exists(to) || rename(msg->file, to)) {
			error_errno(_("cannot name the copy of '%s' after it"), msg->source);
			free(to);
			return -1;
		}
		free(msg->file);
		msg->file = to;
	}
	return 0;
}

/* --annotate, else sendemail.<identity>.annotate, else sendemail.annotate: git send-email's own reading. */
static int
annotate_in_effect(const struct sendemail_args *se)
{
	const char *identity = se->no_identity ? NULL : se->identity ? se->identity : config_get("sendemail.identity");
	int on = 0;

	if (se->annotate >= 0)
		return se->annotate;
	if (identity) {
		char *key = xstrfmt("sendemail.%s.annotate", identity);
		int set = config_get_bool(key, &on);

		free(key);
		if (set)
			return on;
	}
	return config_get_bool("sendemail.annotate", &on) ? on : 0;
}

/*
 * git send-email gets the user's own words (files, directories,
 * revisions, format-patch options) whenever it can: then it shows the
 * user's file names, runs its own git format-patch, and its hooks and
 * --to-cmd see what they would without khsend; what leaves is checked in
 * the spool either way.  khsend's private copies go instead when git
 * send-email would edit the files in place (--annotate), when a file
 * cannot be read twice (a FIFO, standard input), when khsend split an
 * mbox (git send-email would send it as one mail), or when a patch needs
 * a note for the reviewers (added before git send-email may encode it).
 */
static int
needs_copies(const struct sendemail_args *se, const struct series *s, const struct detector *d,
	     const struct strvec *files)
{
	if (detector_count(d, POLICY_ANNOTATE) || annotate_in_effect(se))
		return 1;
	for (size_t i = 0; i < files->nr; i++)
		if (!strcmp(files->v[i], "-") || is_fifo(files->v[i]))
			return 1;
	for (size_t i = 0; i < s->nr; i++)
		if (s->v[i]->from_mbox)
			return 1;
	return 0;
}

static void
print_help(void)
{
	/* git send-email's own -h exits 1, and its options are its to document. */
	printf("usage: khsend send [--policy <file>]... [--allow <id>]... [--[no-]boot] [--lang <tag>]\n"
	       "              [git send-email options] <files|directories|mbox|revisions>...\n"
	       "   or: khsend [the same]   (\"send\" may be left out)\n\n"
	       "    --policy <file>           use exactly these policy files, in order\n"
	       "    --allow <id>              send a change to this (allow-override) entry, with a note\n"
	       "    --[no-]boot               boot the series in QEMU before sending (khsend.boot)\n"
	       "    --lang <tag>              the language of the explanations and messages (khsend.lang)\n\n"
	       "Every git send-email option is handed on untouched: see 'git send-email -h'.\n");
}

int
cmd_send(int argc, const char **argv)
{
	struct send_options so = SEND_OPTIONS_INIT;
	struct strvec args = STRVEC_INIT, files = STRVEC_INIT, revs = STRVEC_INIT, transport = STRVEC_INIT;
	struct sendemail_args se = SENDEMAIL_ARGS_INIT;
	struct series_options sopts = { NULL, -1, NULL, NULL };
	struct series s = SERIES_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	struct khsend_ctx ctx;
	struct outgoing o;
	char *keep = NULL, *server = NULL, *shim = NULL;
	int ret = EXIT_ERROR, rc, smtp, sig = 0;

	send_take_options(argc, argv, &so, &args);
	i18n_setup(so.lang);
	sendemail_args_parse(&se, args.v, args.nr);
	if (se.help) {
		print_help();
		ret = EXIT_CLEAN;
		goto out_early;
	}
	if (se.dump_aliases || se.completion_helper) {
		ret = pass_through(&args);
		goto out_early;
	}

	ctx_init(&ctx);
	outgoing_init(&o, &ctx, &so.policies, &so.allow);
	/* Nothing to send: git send-email says so itself ("No patch files specified!"). */
	if (input_classify(&se.rest, ctx.repo, se.format_patch, &files, &revs)) {
		ret = EXIT_ERROR;
		goto out;
	}
	if (!files.nr && !revs.nr) {
		ret = pass_through(&se.opts);
		goto out;
	}
	/*
	 * git send-email talking SMTP itself cannot be stood in front of.  It
	 * still runs first (no boot: nothing will be sent), so that its own
	 * errors about the options (an alias file it cannot open, an unknown
	 * identity) come first, as they would without khsend.
	 */
	smtp = !se.dry_run && transport_of_send_email(&se, &transport, &server);

	/* 1. The series, read once, checked, annotated. */
	keep = xstrfmt("%s/series", ctx_tmpdir(&ctx));
	sopts.repo = ctx.repo;
	sopts.format_patch = se.format_patch;
	sopts.scratch = ctx_tmpdir(&ctx);
	sopts.keep_dir = keep;
	if (series_build(&s, &se.rest, &sopts))
		goto out;
	/* Like git send-email, quiet when all is well. */
	if ((ret = outgoing_check(&o, &s, 0)) != EXIT_CLEAN)
		goto out;
	ret = EXIT_ERROR;
	if (annotate_series(&s, &o.ck.det, ctx_tmpdir(&ctx))) {
		note(_("nothing was sent"));
		goto out;
	}

	/* 2. The boot smoke test: after the check and the notes, before anything is sent (a dry run: only with --boot). */
	if ((ret = outgoing_boot(&o, &s, smtp ? 0 : so.boot >= 0 ? so.boot : se.dry_run ? 0 : -1)) != EXIT_CLEAN)
		goto out;
	ret = EXIT_ERROR;

	/* 3. git send-email, with khsend's transport holding what it would send. */
	if (outgoing_spool(&o, &s, &transport, 0))
		goto out;
	strvec_pushl(&cp.args, "git", "send-email", NULL);
	if (!se.dry_run) {
		shim = transport_shim_command();
		strvec_pushf(&cp.args, "--sendmail-cmd=%s", shim);
	}
	strvec_pushv(&cp.args, se.opts.v);
	if (!needs_copies(&se, &s, &o.ck.det, &files)) {
		strvec_pushv(&cp.args, se.rest.v);
	} else if (backup_like_names(&s)) {
		char *named = xstrfmt("%s/named", ctx_tmpdir(&ctx));

		rc = mkdir_p(named, 1) ? error_errno(_("cannot create '%s'"), named) : name_after_sources(&s, named);
		free(named);
		if (rc)
			goto out;
		for (size_t i = 0; i < s.nr; i++)
			strvec_push(&cp.args, s.v[i]->file);
	} else {
		/* One directory argument: git send-email runs "git rev-parse" for each (30 patches: ~90 ms). */
		strvec_push(&cp.args, keep);
	}
	/* Also tells khsend's own sendemail-validate hook that the spool will check the series. */
	strvec_pushf(&cp.env, "%s=%s", SPOOL_ENV, o.spool.dir);
	rc = run_command_in_foreground(&cp, &sig);
	ret = rc < 0 ? EXIT_ERROR : rc;

	/* 4. What it delivered, checked again, then relayed. */
	if (sig) {
		/* A SIGTERM or SIGHUP passed on to git send-email: nothing was relayed; go the same way. */
		note(_("khsend was stopped (%s) while git send-email ran; nothing was sent"), strsignal(sig));
		outgoing_release(&o);
		series_release(&s);
		ctx_release(&ctx);
		exit_by_signal(sig);
	} else if (se.dry_run) {
		;
	} else if (ret) {
		size_t held = spool_count(&o.spool);

		if (held)
			note(Q_("git send-email failed after handing khsend %zu message; none of them was sent",
				"git send-email failed after handing khsend %zu messages; none of them was sent",
				held), held);
		else if (ret > 128)
			note(_("git send-email was stopped (%s); nothing was sent"), strsignal(ret - 128));
	} else if (smtp) {
		size_t held = spool_count(&o.spool);

		error(_("git send-email would send through the SMTP server '%s', which it talks to itself, so "
		        "khsend cannot hold the messages and check them as they leave. Set a "
		        "sendmail-compatible program instead (msmtp talks to the same server: "
		        "'git config sendemail.sendmailcmd \"msmtp\"'), or check without sending: khsend check"),
		      server);
		if (held == 1)
			note(_("the message was not sent"));
		else
			note(_("none of the %zu messages was sent"), held);
		ret = EXIT_ERROR;
	} else {
		ret = spool_deliver(&o.spool, REPORT_SEND, 1);
	}
out:
	outgoing_release(&o);
	series_release(&s);
	ctx_release(&ctx);
out_early:
	free(keep);
	free(server);
	free(shim);
	child_process_clear(&cp);
	sendemail_args_release(&se);
	send_options_release(&so);
	strvec_clear(&args);
	strvec_clear(&files);
	strvec_clear(&revs);
	strvec_clear(&transport);
	return ret;
}
