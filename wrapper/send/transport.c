// SPDX-License-Identifier: GPL-2.0-only
/* transport: find the user's transport, hold messages in the spool, check them as delivered, relay. */
#define _GNU_SOURCE
#include "send/transport.h"
#include "khsend.h"
#include "check/annotate.h"
#include "check/check.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/quote.h"
#include "lib/run-command.h"
#include "lib/usage.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MESSAGE_BYTES (64u << 20)

/* sendemail.<identity>.<key> over sendemail.<key>, as git send-email's read_config() takes them. */
static const char *
sendemail_config(const char *identity, const char *key)
{
	const char *v = NULL;

	if (identity) {
		char *k = xstrfmt("sendemail.%s.%s", identity, key);

		v = config_get(k);
		free(k);
	}
	if (!v) {
		char *k = xstrfmt("sendemail.%s", key);

		v = config_get(k);
		free(k);
	}
	return v;
}

/* git send-email's "sendmail-cmd=s" and "smtp-server=s" words, the last of each. */
static const char *
cli_value(const struct sendemail_args *se, const char *name)
{
	const char *v = NULL;
	size_t n = strlen(name);

	for (size_t i = 0; i < se->parsed.nr; i++)
		if (!strncmp(se->parsed.v[i], name, n) && se->parsed.v[i][n] == '=')
			v = se->parsed.v[i] + n + 1;
	return v;
}

int
transport_of_send_email(const struct sendemail_args *se, struct strvec *argv, char **server)
{
	const char *identity = se->no_identity ? NULL : se->identity ? se->identity : config_get("sendemail.identity");
	const char *cmd = cli_value(se, "sendmail-cmd"), *smtp = cli_value(se, "smtp-server");
	char *found = NULL;

	*server = NULL;
	if (!cmd)
		cmd = sendemail_config(identity, "sendmailcmd");
	if (!smtp)
		smtp = sendemail_config(identity, "smtpserver");
	if (!cmd && !smtp) {
		/* git send-email's own search, then its fallback to localhost */
		static const char *const paths[] = { "/usr/sbin/sendmail", "/usr/lib/sendmail" };

		for (size_t i = 0; i < 2 && !found; i++)
			if (!access(paths[i], X_OK))
				found = xstrdup(paths[i]);
		if (!found) {
			const char *path = getenv("PATH");
			char *copy = xstrdup(path ? path : ""), *save = NULL;

			for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
				char *p = xstrfmt("%s/sendmail", dir);

				if (!access(p, X_OK))
					found = p;
				else
					free(p);
			}
			free(copy);
		}
		if (found) {
			cmd = found;
		} else {
			*server = xstrdup("localhost");
			return -1;
		}
	}
	if (cmd) {
		/* The user's own command, run exactly as git send-email runs it. */
		strvec_pushl(argv, "sh", "-c", NULL);
		strvec_pushf(argv, "%s \"$@\"", cmd);
		strvec_push(argv, "-");
	} else if (*smtp == '/') {
		strvec_push(argv, smtp);
	} else {
		*server = xstrdup(smtp);
		return -1;
	}
	free(found);
	return 0;
}

char *
transport_shim_command(void)
{
	struct strbuf sb = STRBUF_INIT;

	sq_quote(&sb, khsend_self_path());
	strbuf_addstr(&sb, " hook transport");
	return strbuf_detach(&sb, NULL);
}

void
diff_region(const struct strbuf *patch, struct strbuf *out)
{
	const char *p = patch->buf, *end = patch->buf + patch->len, *start = NULL;

	for (; p < end; p += mail_line_len(p, end)) {
		size_t n = mail_line_len(p, end);

		if (!start && (starts_with(p, "diff ") || (starts_with(p, "--- ") && p + n < end && starts_with(p + n, "+++ "))))
			start = p;
		if (start && n == 4 && !strncmp(p, "-- \n", 4))
			break;
	}
	if (start)
		strbuf_add(out, start, (size_t)(p - start));
}

int
spool_keep_booted(const struct spool *sp, const struct series *s)
{
	char *dir = xstrfmt("%s/booted", sp->dir);
	int ret = 0;

	if (mkdir_p(dir, 1))
		ret = error_errno(_("cannot create '%s'"), dir);
	for (size_t i = 0; i < s->nr && !ret; i++) {
		struct strbuf region = STRBUF_INIT;
		char *f = xstrfmt("%s/%04zu", dir, i + 1);

		diff_region(&s->v[i]->patch, &region);
		if (region.len)
			ret = write_file_buf(f, region.buf, region.len);
		strbuf_release(&region);
		free(f);
	}
	free(dir);
	return ret;
}

/* Every delivered diff must be one that booted, when the series was booted before sending. */
static int
check_booted(const struct spool *sp, const struct series *s, const char *scratch)
{
	char *dir = xstrfmt("%s/booted", sp->dir);
	struct strvec booted = STRVEC_INIT;
	int ret = 0;

	if (!is_dir(dir)) {
		free(dir);
		return 0;
	}
	if (read_dir_sorted(dir, &booted)) {
		ret = error_errno(_("cannot read '%s'"), dir);
		free(dir);
		return ret;
	}
	for (size_t i = 0; i < s->nr && !ret; i++) {
		struct strbuf now = STRBUF_INIT;
		int found = 0;

		if (message_decode(s->v[i], scratch)) {
			ret = -1;
			break;
		}
		diff_region(&s->v[i]->patch, &now);
		for (size_t k = 0; k < booted.nr && !found && now.len; k++) {
			struct strbuf was = STRBUF_INIT;
			char *f = xstrfmt("%s/%s", dir, booted.v[k]);

			found = strbuf_read_file(&was, f, MAX_MESSAGE_BYTES) >= 0 && was.len == now.len &&
				!memcmp(was.buf, now.buf, now.len);
			strbuf_release(&was);
			free(f);
		}
		if (now.len && !found)
			ret = error(_("%s (\"%s\") changes the code after the boot smoke test, so what would "
				      "be sent is not what booted"), s->v[i]->name, s->v[i]->subject);
		strbuf_release(&now);
	}
	strvec_clear(&booted);
	free(dir);
	return ret;
}

/* One message to the user's transport, with the arguments it came with. */
static int
relay_one(const struct spool *sp, const struct strvec *transport, const struct message *msg)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strvec args = STRVEC_INIT;
	struct strbuf raw = STRBUF_INIT;
	size_t from = 0;
	int rc;

	if (spool_args(sp, msg->index, &args) || strbuf_read_file(&raw, msg->file, MAX_MESSAGE_BYTES) < 0) {
		strvec_clear(&args);
		strbuf_release(&raw);
		return -1;
	}
	/* b4 adds "-i" to our command; the user's may have its own already. */
	if (args.nr && !strcmp(args.v[0], "-i") && strvec_contains(transport, "-i"))
		from = 1;
	strvec_pushv(&cp.args, transport->v);
	for (size_t i = from; i < args.nr; i++)
		strvec_push(&cp.args, args.v[i]);
	/* The user's transport sees none of khsend's settings. */
	strvec_push(&cp.env, SPOOL_ENV);
	rc = pipe_command(&cp, raw.buf, raw.len, NULL, NULL);
	if (rc) {
		char why[64];

		error(_("%s exited uncleanly: it %s"), transport->v[0], describe_outcome(rc, why, sizeof(why)));
	}
	strvec_clear(&args);
	strbuf_release(&raw);
	return rc ? -1 : 0;
}

/*
 * A signal during the relay: the message being handed over is finished
 * (a half-told transport is worse than a whole one), then khsend stops and
 * says which messages left; a second signal is passed on to the transport.
 */
static volatile sig_atomic_t relay_stop;

static void
stop_relay(int sig)
{
	if (relay_stop)
		stop_running_children(sig);
	relay_stop = sig;
}

static void
say_what_left(const struct series *s, size_t sent)
{
	if (sent == 1)
		note(_("message 1 (\"%s\") was sent"), s->v[0]->subject);
	else if (sent)
		note(_("messages 1 to %zu were sent"), sent);
	else
		note(_("nothing was sent"));
	if (sent + 1 == s->nr)
		note(_("message %zu (\"%s\") was not sent"), s->nr, s->v[s->nr - 1]->subject);
	else if (sent < s->nr)
		note(_("messages %zu to %zu were not sent"), sent + 1, s->nr);
}

static int
relay_all(const struct spool *sp, const struct series *s)
{
	static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct strvec transport = STRVEC_INIT;
	struct sigaction stop, old[4];
	size_t sent = 0;
	int ret = EXIT_CLEAN;

	if (spool_get_list(sp, "transport", &transport) || !transport.nr) {
		strvec_clear(&transport);
		error(_("khsend's transport has no transport of yours to hand the messages to"));
		return EXIT_ERROR;
	}
	memset(&stop, 0, sizeof(stop));
	stop.sa_handler = stop_relay;
	relay_stop = 0;
	for (size_t i = 0; i < 4; i++)
		sigaction(caught[i], &stop, &old[i]);
	for (size_t i = 0; i < s->nr && !relay_stop; i++) {
		if (spool_was_sent(sp, s->v[i]->index)) {
			sent++;
			continue;
		}
		if (relay_one(sp, &transport, s->v[i])) {
			error(_("message %zu of %zu (\"%s\") was not sent, nor was any after it"), i + 1, s->nr,
			      s->v[i]->subject);
			if (sent)
				note(Q_("%zu message before it was sent", "%zu messages before it were sent", sent),
				     sent);
			else
				note(_("nothing was sent"));
			ret = EXIT_ERROR;
			break;
		}
		spool_mark_sent(sp, s->v[i]->index);
		sent++;
	}
	for (size_t i = 0; i < 4; i++)
		sigaction(caught[i], &old[i], NULL);
	if (relay_stop && ret == EXIT_CLEAN) {
		error(_("khsend was stopped (%s) while it handed the messages to %s"), strsignal(relay_stop),
		      transport.v[0]);
		say_what_left(s, sent);
		strvec_clear(&transport);
		exit_by_signal(relay_stop);
	}
	strvec_clear(&transport);
	return ret;
}

int
spool_deliver(const struct spool *sp, enum report_mode mode, int relay)
{
	struct strvec policies = STRVEC_INIT, allow = STRVEC_INIT;
	struct series s = SERIES_INIT;
	struct khsend_ctx ctx;
	struct checker ck;
	char *base = spool_get(sp, "base"), *applies = spool_get(sp, "applies");
	int have_ck = 0, ret = EXIT_ERROR;

	ctx_init(&ctx);
	if (spool_get_list(sp, "policies", &policies) || spool_get_list(sp, "allow", &allow) ||
	    spool_load(sp, &s))
		goto out;
	if (!s.nr) {
		ret = EXIT_CLEAN;
		goto out;
	}
	ctx_load_policy(&ctx, &policies, base && *base ? base : NULL);
	ctx_check_allow(&ctx, &allow);
	checker_init(&ck, &ctx.policy, &allow, ctx.repo, ctx_tmpdir(&ctx));
	have_ck = 1;
	if (ctx.repo)
		checker_set_base(&ck, base && *base ? base : "HEAD");
	ck.force_result = applies && !strcmp(applies, "yes");
	if (checker_follow_unpublished(&ck) || check_series(&ck, &s)) {
		note(_("nothing was sent: khsend holds every message until the whole series has come"));
		goto out;
	}
	if (ck.force_result && ck.result_state < 0) {
		error(_("the series as git send-email or b4 delivered it no longer applies to %.12s, where it "
		        "applied when khsend checked it: an edit changed the lines a patch removes or keeps "
		        "(git apply says: %s)"), base && *base ? base : "HEAD", ck.result_why.buf);
		note(_("nothing was sent"));
		ret = EXIT_FINDING;
		goto out;
	}
	if (detector_blocked(&ck.det)) {
		report_text(stderr, &ck, mode);
		note(_("git send-email or b4 handed over a series that changes a protected string "
		       "(an edit after khsend's first look?); nothing was sent"));
		ret = EXIT_FINDING;
		goto out;
	}
	if (check_booted(sp, &s, ctx_tmpdir(&ctx))) {
		note(_("nothing was sent (send again through khsend, which boots it again)"));
		ret = EXIT_FINDING;
		goto out;
	}
	if (annotate_series(&s, &ck.det, ctx_tmpdir(&ctx))) {
		note(_("nothing was sent"));
		goto out;
	}
	ret = relay ? relay_all(sp, &s) : EXIT_CLEAN;
out:
	if (have_ck)
		checker_release(&ck);
	series_release(&s);
	ctx_release(&ctx);
	strvec_clear(&policies);
	strvec_clear(&allow);
	free(base);
	free(applies);
	return ret;
}

int
transport_main(int argc, const char **argv)
{
	struct spool sp = { NULL };
	struct strvec args = STRVEC_INIT;
	struct strbuf msg = STRBUF_INIT;
	char *expect;
	size_t n;
	int ret = EXIT_CLEAN;

	program_name = "khsend (transport)";
	if (spool_from_env(&sp))
		return EXIT_ERROR;
	if (strbuf_read_fd(&msg, 0, MAX_MESSAGE_BYTES) < 0)
		die_errno(_("cannot read the message"));
	for (int i = 1; i < argc; i++)
		strvec_push(&args, argv[i]);
	n = spool_hold(&sp, msg.buf, msg.len, &args);
	expect = spool_get(&sp, "expect");
	if (!n) {
		ret = EXIT_ERROR;
	} else if (expect && n > strtoul(expect, NULL, 10)) {
		error(_("message %zu is one more than khsend checked; nothing more is sent"), n);
		ret = EXIT_FINDING;
	} else if (expect && n == strtoul(expect, NULL, 10)) {
		/* b4: the last message; b4 hears from its exit status whether the series went. */
		ret = spool_deliver(&sp, REPORT_SEND, 1);
	}
	free(expect);
	strbuf_release(&msg);
	strvec_clear(&args);
	spool_release(&sp);
	return ret;
}
