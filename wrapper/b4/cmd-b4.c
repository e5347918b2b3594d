// SPDX-License-Identifier: GPL-2.0-only
/*
 * khsend b4 [khsend options] [b4 send options]
 *
 * On a "b4 prep" branch: first "b4 send <options> -o <private dir>
 * --no-sign" writes the exact messages b4 is about to send; khsend checks
 * them as a series.  Then the real "b4 send <options>" runs with
 * sendemail.smtpserver set (through GIT_CONFIG_COUNT, nothing written to
 * the user's configuration) to khsend's transport, "khsend hook
 * b4-transport", which b4 0.12 calls once per message, in order, after all
 * are prepared and signed.  The transport accepts a message only if its
 * content (subject and body; Date, Message-Id, To/Cc and signature headers
 * aside) is one of the checked ones, holds them all until the last has come
 * and the series passes again, and only then relays each to the user's own
 * sendemail.smtpserver program with the arguments b4 gave.  So nothing
 * leaves unless the whole series was checked.
 *
 * A network SMTP server (sendemail.smtpserver without a "/", which b4 0.12
 * reaches with Python's smtplib) or b4's web endpoint is refused: khsend
 * would have to speak SMTP itself.  Use a sendmail-compatible program
 * (msmtp, /usr/sbin/sendmail) as sendemail.smtpserver, or plain khsend.
 *
 * Annotate findings: the note is added to the messages as they are relayed,
 * which is only possible for unsigned sends (--no-sign, or
 * b4.send-no-patatt-sign): a note added after patatt signed a message would
 * break its signature, so a signed send with such a finding is refused.
 */
#define _GNU_SOURCE
#include "khsend.h"
#include "b4/args.h"
#include "b4/server.h"
#include "check/annotate.h"
#include "check/check.h"
#include "check/report.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/strbuf.h"
#include "lib/usage.h"
#include "send/outgoing.h"
#include "send/spool.h"
#include "send/transport.h"
#include "series/series.h"

#include <ctype.h>
#include <dirent.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_MESSAGE_BYTES (64u << 20)

static int
truthy(const char *v)
{
	return v && (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "y"));
}

/* b4's -o output: NNNN-<slug>.eml, in series order. */
static int
list_preview(const char *dir, struct strvec *files)
{
	struct strvec names = STRVEC_INIT;

	if (read_dir_sorted(dir, &names))
		return error_errno(_("b4 wrote no messages into '%s'"), dir);
	for (size_t i = 0; i < names.nr; i++)
		if (ends_with(names.v[i], ".eml"))
			strvec_pushf(files, "%s/%s", dir, names.v[i]);
	strvec_clear(&names);
	return 0;
}

static int
run_b4(const struct strvec *args, const struct strvec *env, int quiet, struct strbuf *log)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct sigaction ign, old_int;
	int rc;

	strvec_pushl(&cp.args, "b4", "send", NULL);
	strvec_pushv(&cp.args, args->v);
	strvec_pushv(&cp.env, env->v);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	if (quiet) {
		cp.no_stdin = 1;
		rc = pipe_command(&cp, NULL, 0, log, log);
	} else {
		rc = run_command(&cp);
	}
	sigaction(SIGINT, &old_int, NULL);
	return rc;
}

int
cmd_b4(int argc, const char **argv)
{
	struct b4_args a = B4_ARGS_INIT;
	struct strvec preview_args = STRVEC_INIT, env = STRVEC_INIT, undo = STRVEC_INIT;
	struct strvec files = STRVEC_INIT, transport = STRVEC_INIT;
	struct strbuf log = STRBUF_INIT;
	struct series s = SERIES_INIT;
	struct khsend_ctx ctx;
	struct outgoing o;
	struct config_env cfg;
	const char *identity, *server;
	char *shim = NULL, *preview = NULL;
	int signing, rc, ret = EXIT_ERROR;

	b4_args_parse(argc, argv, &a);
	i18n_setup(a.lang);
	if (a.help) {
		printf("usage: khsend b4 [--policy <file>]... [--allow <id>]... [--[no-]boot] [--lang <tag>]\n"
		       "                 [b4 send options]\n\n"
		       "    --policy <file>           use exactly these policy files, in order\n"
		       "    --allow <id>              send a change to this (allow-override) entry, with a note\n"
		       "    --[no-]boot               boot the series in QEMU before sending (khsend.boot)\n"
		       "    --lang <tag>              the language of the explanations and messages (khsend.lang)\n\n"
		       "The other options go to b4 send: see 'b4 send -h'.\n");
		ret = EXIT_CLEAN;
		goto out_early;
	}
	if (a.web_auth) {
		/* Authenticating with the web endpoint sends no patches. */
		ret = run_b4(&a.rest, &env, 0, NULL);
		ret = ret < 0 ? EXIT_ERROR : ret;
		goto out_early;
	}
	ctx_init(&ctx);
	outgoing_init(&o, &ctx, &a.policies, &a.allow);

	identity = b4_identity();
	server = b4_smtpserver(identity);
	if (!a.dry_run) {
		if (!server)
			die(_("sendemail.smtpserver is not set, so b4 would send through its web endpoint or an "
			      "SMTP server on localhost, which khsend cannot vouch for; set it to a "
			      "sendmail-compatible program (for example msmtp or /usr/sbin/sendmail)"));
		if (!strchr(server, '/'))
			die(_("sendemail.smtpserver is '%s', a network SMTP server, which b4 0.12 reaches "
			      "with Python's smtplib; khsend can only vouch for what goes out through a "
			      "program (set sendemail.smtpserver to msmtp or another sendmail-compatible "
			      "program that talks to the server), or send with khsend (git send-email)"),
			    server);
		if (b4_transport_argv(server, &transport))
			die(_("cannot split sendemail.smtpserver '%s' into a command as b4 does"), server);
	}
	signing = !a.no_sign && !truthy(config_get("b4.send-no-patatt-sign"));

	/* b4's transport is khsend's, in both runs (so the preview never picks the web endpoint). */
	shim = transport_shim_command();
	if (strchr(shim, '$'))
		die(_("khsend is installed in '%s'; b4 expands '$' in sendemail.smtpserver, so khsend "
		      "cannot hand b4 its path (install it somewhere without a '$')"), khsend_self_path());
	config_env_init(&cfg, &env, &undo);
	config_env_add(&cfg, "sendemail.smtpserver", shim);
	if (identity) {
		char *key = xstrfmt("sendemail.%s.smtpserver", identity);

		config_env_add(&cfg, key, shim);
		free(key);
	}
	config_env_finish(&cfg);

	/* 1. The exact messages, written out by b4 itself. */
	preview = xstrfmt("%s/b4-preview", ctx_tmpdir(&ctx));
	strvec_pushv(&preview_args, a.rest.v);
	strvec_pushl(&preview_args, "-o", preview, "--no-sign", NULL);
	rc = run_b4(&preview_args, &env, 1, &log);
	if (rc) {
		fwrite(log.buf, 1, log.len, stderr);
		error(_("'b4 send -o' could not prepare the series (it %s); nothing was sent"),
		      rc < 0 ? "could not be run" : "failed");
		goto out;
	}
	if (list_preview(preview, &files))
		goto out;
	if (!files.nr) {
		fwrite(log.buf, 1, log.len, stderr);
		error(_("b4 has no messages to send on this branch; nothing was sent"));
		goto out;
	}
	for (size_t i = 0; i < files.nr; i++) {
		char *name = xstrfmt("b4 message %zu (%s)", i + 1, base_name(files.v[i]));

		rc = series_add_file(&s, files.v[i], name);
		free(name);
		if (rc)
			goto out;
	}

	/* 2. Check them as a series, then boot them: before b4 sends. */
	if ((ret = outgoing_check(&o, &s, 1)) != EXIT_CLEAN)
		goto out;
	if (detector_count(&o.ck.det, POLICY_ANNOTATE) && signing && !a.dry_run) {
		error(_("this series needs a note for the reviewers below a '---' line, and b4 signs "
		        "each message (patatt) before khsend could add it: a note added afterwards would "
		        "break the signature. Send it with --no-sign (the note is then added), or remove "
		        "the change; nothing was sent"));
		ret = EXIT_FINDING;
		goto out;
	}
	if ((ret = outgoing_boot(&o, &s, a.boot)) != EXIT_CLEAN)
		goto out;
	ret = EXIT_ERROR;

	/* 3. The real b4 send: khsend's transport holds every message until the last, then relays. */
	if (outgoing_spool(&o, &s, &transport, s.nr))
		goto out;
	strvec_pushf(&env, "%s=%s", SPOOL_ENV, o.spool.dir);
	rc = run_b4(&a.rest, &env, 0, NULL);
	if (!a.dry_run) {
		size_t held = spool_count(&o.spool), sent = 0;

		for (size_t i = 1; i <= held; i++)
			sent += spool_was_sent(&o.spool, i);
		if (!rc && sent != s.nr) {
			error(_("b4 handed khsend %zu of the %zu checked messages and says it is done; "
			        "khsend sent %zu of them (b4 may have rerolled the branch all the same)"),
			      held, s.nr, sent);
			ret = EXIT_ERROR;
			goto out;
		}
	}
	ret = rc < 0 ? EXIT_ERROR : rc;
out:
	outgoing_release(&o);
	series_release(&s);
	ctx_release(&ctx);
out_early:
	free(shim);
	free(preview);
	strbuf_release(&log);
	strvec_clear(&preview_args);
	strvec_clear(&env);
	strvec_clear(&undo);
	strvec_clear(&files);
	strvec_clear(&transport);
	b4_args_release(&a);
	return ret;
}
