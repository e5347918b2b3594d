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
#include "check/annotate.h"
#include "check/detect.h"
#include "lib/gitutil.h"
#include "series/outgoing.h"
#include "lib/path.h"
#include "check/report.h"
#include "lib/run-command.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

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

struct b4_args {
	struct strvec policies, allow, rest;
	int boot;
	int dry_run;		/* -d/--dry-run or -o/--output-dir: b4 sends nothing */
	int no_sign;
	int web_auth;
	int help;
};

static void
parse_b4_args(int argc, const char **argv, struct b4_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v, *opt;

		if (!strcmp(arg, "--policy") || !strcmp(arg, "--allow")) {
			if (i + 1 >= argc || !*argv[i + 1])
				die("%s needs a value", arg);
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

static int
git_config_value(const char *key, struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;

	strvec_pushl(&cp.args, "git", "config", "--get", key, NULL);
	cp.no_stderr = 1;
	rc = capture_command(&cp, out);
	strbuf_strip_eol(out);
	return !rc && out->len;
}

/* b4 0.12's get_sendemail_config(): sendemail.<b4.sendemail-identity>.* over sendemail.*. */
static char *
b4_identity(void)
{
	struct strbuf sb = STRBUF_INIT;

	if (git_config_value("b4.sendemail-identity", &sb))
		return strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	return NULL;
}

static char *
b4_smtpserver(const char *identity)
{
	struct strbuf sb = STRBUF_INIT;

	if (identity) {
		char *key = xstrfmt("sendemail.%s.smtpserver", identity);
		int found = git_config_value(key, &sb);

		free(key);
		if (found)
			return strbuf_detach(&sb, NULL);
		strbuf_reset(&sb);
	}
	if (git_config_value("sendemail.smtpserver", &sb))
		return strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	return NULL;
}

static int
truthy(const char *v)
{
	return !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "y");
}

/* os.path.expandvars(): $name and ${name} that are set in the environment. */
static void
expandvars(const char *s, struct strbuf *out)
{
	while (*s) {
		const char *name = NULL, *val;
		size_t len = 0, skip = 0;

		if (*s == '$' && s[1] == '{' && strchr(s + 2, '}')) {
			name = s + 2;
			len = (size_t)(strchr(s + 2, '}') - name);
			skip = len + 3;
		} else if (*s == '$' && (isalnum((unsigned char)s[1]) || s[1] == '_')) {
			name = s + 1;
			while (isalnum((unsigned char)name[len]) || name[len] == '_')
				len++;
			skip = len + 1;
		}
		if (name) {
			char *n = xstrndup(name, len);

			val = getenv(n);
			free(n);
			if (val) {
				strbuf_addstr(out, val);
				s += skip;
				continue;
			}
		}
		strbuf_addch(out, *s++);
	}
}

/* os.path.expanduser() of a leading "~" or "~user". */
static char *
expanduser(const char *s)
{
	size_t i = strcspn(s, "/");
	const char *home = NULL;
	char *user;
	struct passwd *pw;

	if (*s != '~')
		return xstrdup(s);
	if (i == 1) {
		home = getenv("HOME");
		if (!home && (pw = getpwuid(getuid())))
			home = pw->pw_dir;
	} else {
		user = xstrndup(s + 1, i - 1);
		pw = getpwnam(user);
		free(user);
		if (pw)
			home = pw->pw_dir;
	}
	if (!home)
		return xstrdup(s);
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, home);
		while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
			strbuf_setlen(&sb, sb.len - 1);
		strbuf_addstr(&sb, s + i);
		if (!sb.len)
			strbuf_addch(&sb, '/');
		return strbuf_detach(&sb, NULL);
	}
}

/*
 * shlex.shlex(s, posix=True) with whitespace_split, as b4 splits the
 * server: quotes, backslash escapes, and "#" comments.  0 or -1.
 */
static int
shlex_split(const char *s, struct strvec *out)
{
	struct strbuf tok = STRBUF_INIT;
	int have = 0;

	while (*s) {
		char c = *s++;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			if (have)
				strvec_push(out, tok.buf);
			strbuf_reset(&tok);
			have = 0;
		} else if (c == '#') {
			while (*s && *s != '\n')
				s++;
			if (have)
				strvec_push(out, tok.buf);
			strbuf_reset(&tok);
			have = 0;
		} else if (c == '\\') {
			if (!*s)
				goto bad;
			strbuf_addch(&tok, *s++);
			have = 1;
		} else if (c == '\'') {
			const char *end = strchr(s, '\'');

			if (!end)
				goto bad;
			strbuf_add(&tok, s, (size_t)(end - s));
			s = end + 1;
			have = 1;
		} else if (c == '"') {
			for (;; s++) {
				if (!*s)
					goto bad;
				if (*s == '"')
					break;
				if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
					s++;
				strbuf_addch(&tok, *s);
			}
			s++;
			have = 1;
		} else {
			strbuf_addch(&tok, c);
			have = 1;
		}
	}
	if (have)
		strvec_push(out, tok.buf);
	strbuf_release(&tok);
	return 0;
bad:
	strbuf_release(&tok);
	return -1;
}

/* The transport b4 would have run for this server: its argv, "-i" added as b4 adds it. */
static int
user_transport(const char *server, struct strvec *argv)
{
	struct strbuf sb = STRBUF_INIT;
	char *expanded;
	int ret;

	expandvars(server, &sb);
	expanded = expanduser(sb.buf);
	ret = shlex_split(expanded, argv);
	if (!ret && !argv->nr)
		ret = -1;
	if (!ret && !strvec_contains(argv, "-i"))
		strvec_push(argv, "-i");
	free(expanded);
	strbuf_release(&sb);
	return ret;
}

/* Single quotes for shlex: our own path is the one thing we put into b4's server string. */
static char *
transport_value(void)
{
	const char *self = khsend_self_path();
	struct strbuf sb = STRBUF_INIT;

	if (strchr(self, '$'))
		die("khsend is installed in '%s'; b4 expands '$' in sendemail.smtpserver, so khsend "
		    "cannot hand b4 its path (install it somewhere without a '$')", self);
	strbuf_addch(&sb, '\'');
	for (const char *c = self; *c; c++) {
		if (*c == '\'')
			strbuf_addstr(&sb, "'\"'\"'");
		else
			strbuf_addch(&sb, *c);
	}
	strbuf_addstr(&sb, "' hook b4-transport");
	return strbuf_detach(&sb, NULL);
}

/*
 * What must be the same in b4's preview and in the real send: the subject
 * and the body, with line ends made LF (b4 writes CRLF when it sends).
 */
static void
content_key(const char *raw, size_t len, struct strbuf *key)
{
	const char *p = raw, *end = raw + len;
	struct strbuf subject = STRBUF_INIT;
	int in_subject = 0;

	/* Of the headers only the Subject counts (unfolded). */
	while (p < end) {
		const char *line = p, *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		p = nl ? nl + 1 : end;
		if (n && line[n - 1] == '\r')
			n--;
		if (!n)
			break;	/* the empty line: the body follows */
		if (in_subject && (*line == ' ' || *line == '\t')) {
			strbuf_add(&subject, line, n);
			continue;
		}
		in_subject = n >= 8 && !strncasecmp(line, "Subject:", 8);
		if (in_subject)
			strbuf_add(&subject, line + 8, n - 8);
	}
	strbuf_trim(&subject);
	strbuf_addbuf(key, &subject);
	strbuf_addch(key, '\n');
	for (; p < end; p++)
		if (!(*p == '\r' && p + 1 < end && p[1] == '\n'))
			strbuf_addch(key, *p);
	strbuf_release(&subject);
}

/* b4's -o output: NNNN-<slug>.eml, in series order. */
static int
list_preview(const char *dir, struct strvec *files)
{
	struct strvec names = STRVEC_INIT;

	if (read_dir_sorted(dir, &names))
		return error_errno("b4 wrote no messages into '%s'", dir);
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

static int
count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += ends_with(de->d_name, suffix);
	closedir(d);
	return n;
}

int
cmd_b4(int argc, const char **argv)
{
	struct b4_args a = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, -1, 0, 0, 0, 0 };
	struct strvec preview_args = STRVEC_INIT, env = STRVEC_INIT, undo = STRVEC_INIT;
	struct strvec files = STRVEC_INIT, transport = STRVEC_INIT;
	struct strbuf log = STRBUF_INIT, sb = STRBUF_INIT;
	struct khsend_ctx ctx;
	struct outgoing out;
	struct detector det;
	struct config_env cfg;
	char *identity = NULL, *server = NULL, *value = NULL, *state = NULL, *preview = NULL;
	int signing, rc, ret = EXIT_ERROR;

	parse_b4_args(argc, argv, &a);
	if (a.help) {
		printf("usage: khsend b4 [--policy <file>]... [--allow <id>]... [--[no-]boot] [b4 send options]\n\n"
		       "    --policy <file>           use exactly these policy files, in order\n"
		       "    --allow <id>              send a change to this (allow-override) entry, with a note\n"
		       "    --[no-]boot               boot the series in QEMU before sending (khsend.boot)\n\n"
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
	ctx_init(&ctx, &a.policies);
	ctx_check_allow(&ctx, &a.allow);
	outgoing_init(&out, ctx_tmpdir(&ctx));
	detector_init(&det, &ctx.policy, &a.allow);

	identity = b4_identity();
	server = b4_smtpserver(identity);
	if (!a.dry_run) {
		if (!server)
			die("sendemail.smtpserver is not set, so b4 would send through its web endpoint or an "
			    "SMTP server on localhost, which khsend cannot vouch for; set it to a "
			    "sendmail-compatible program (for example msmtp or /usr/sbin/sendmail)");
		if (!strchr(server, '/'))
			die("sendemail.smtpserver is '%s', a network SMTP server, which b4 0.12 reaches "
			    "with Python's smtplib; khsend can only vouch for what goes out through a "
			    "program (set sendemail.smtpserver to msmtp or another sendmail-compatible "
			    "program that talks to the server), or send with khsend (git send-email)",
			    server);
		if (user_transport(server, &transport))
			die("cannot split sendemail.smtpserver '%s' into a command as b4 does", server);
	}
	signing = !a.no_sign && !(git_config_value("b4.send-no-patatt-sign", &sb) && truthy(sb.buf));

	/* b4's transport is khsend's, in both runs (so the preview never picks the web endpoint). */
	value = transport_value();
	config_env_init(&cfg, &env, &undo);
	config_env_add(&cfg, "sendemail.smtpserver", value);
	if (identity) {
		char *key = xstrfmt("sendemail.%s.smtpserver", identity);

		config_env_add(&cfg, key, value);
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
		error("'b4 send -o' could not prepare the series (it %s); nothing was sent",
		      rc < 0 ? "could not be run" : "failed");
		goto out;
	}
	if (list_preview(preview, &files))
		goto out;
	if (!files.nr) {
		fwrite(log.buf, 1, log.len, stderr);
		error("b4 has no messages to send on this branch; nothing was sent");
		goto out;
	}
	for (size_t i = 0; i < files.nr; i++) {
		char *name = xstrfmt("b4 message %zu (%s)", i + 1, base_name(files.v[i]));

		outgoing_add_private(&out, files.v[i], name);
		free(name);
	}

	/* 2. Check them as a series. */
	if (outgoing_check(&out, &det, ctx_tmpdir(&ctx)))
		goto out;
	report_text(stderr, &det, REPORT_SEND);
	if (detector_blocked(&det)) {
		ret = EXIT_FINDING;
		goto out;
	}
	if (detector_count(&det, POLICY_ANNOTATE) && signing && !a.dry_run) {
		error("this series needs a note for the reviewers below a '---' line, and b4 signs "
		      "each message (patatt) before khsend could add it: a note added afterwards would "
		      "break the signature. Send it with --no-sign (the note is then added), or take "
		      "the change out; nothing was sent");
		ret = EXIT_FINDING;
		goto out;
	}
	/* The boot smoke test, on the messages b4 wrote: after the check, before b4 sends. */
	if (ctx_want_boot(&ctx, a.boot) && (ret = outgoing_boot(&out, ctx.repo)) != EXIT_CLEAN) {
		note("nothing was sent");
		goto out;
	}

	/* 3. What the transport needs to accept exactly these messages. */
	state = xstrfmt("%s/b4-state", ctx_tmpdir(&ctx));
	{
		char *keys = xstrfmt("%s/keys", state), *spool = xstrfmt("%s/spool", state);
		struct strvec pol = STRVEC_INIT;

		if (mkdir_p(keys, 1) || mkdir_p(spool, 1))
			die_errno("cannot create '%s'", state);
		for (size_t i = 0; i < out.nr; i++) {
			struct strbuf raw = STRBUF_INIT, key = STRBUF_INIT;
			char *kf = xstrfmt("%s/%04zu", keys, i + 1);

			if (strbuf_read_file(&raw, out.v[i].file, MAX_MESSAGE_BYTES) < 0)
				die_errno("cannot read '%s'", out.v[i].file);
			content_key(raw.buf, raw.len, &key);
			if (write_file_buf(kf, key.buf, key.len))
				die("cannot write khsend's state for b4");
			strbuf_release(&raw);
			strbuf_release(&key);
			free(kf);
		}
		for (size_t i = 0; i < a.policies.nr; i++) {
			char *abs = realpath(a.policies.v[i], NULL);

			strvec_push(&pol, abs ? abs : a.policies.v[i]);
			free(abs);
		}
		free(keys);
		keys = xstrfmt("%s/transport", state);
		if (write_list_file(keys, &transport))
			die("cannot write khsend's state for b4");
		free(keys);
		keys = xstrfmt("%s/policies", state);
		if (write_list_file(keys, &pol))
			die("cannot write khsend's state for b4");
		free(keys);
		keys = xstrfmt("%s/allow", state);
		if (write_list_file(keys, &a.allow))
			die("cannot write khsend's state for b4");
		free(keys);
		free(spool);
		strvec_clear(&pol);
	}
	strvec_pushf(&env, "KHSEND_B4_STATE=%s", state);
	strvec_pushf(&env, "KHSEND_B4_COUNT=%zu", out.nr);

	/* 4. The real b4 send: the user answers its prompt; the transport does the rest. */
	rc = run_b4(&a.rest, &env, 0, NULL);
	{
		char *refused = xstrfmt("%s/refused", state), *spool = xstrfmt("%s/spool", state);
		int relayed = count_files(spool, ".relayed"), arrived = count_files(spool, ".eml");

		if (file_exists(refused)) {
			ret = EXIT_FINDING;
		} else if (!rc && !a.dry_run && relayed != (int)out.nr) {
			error("b4 handed khsend %d of the %zu checked messages and says it is done; "
			      "khsend delivered %d of them (b4 may have rerolled the branch all the same)",
			      arrived, out.nr, relayed);
			ret = EXIT_ERROR;
		} else {
			ret = rc < 0 ? EXIT_ERROR : rc;
		}
		free(refused);
		free(spool);
	}
out:
	detector_release(&det);
	outgoing_release(&out);
	ctx_release(&ctx);
out_early:
	free(identity);
	free(server);
	free(value);
	free(state);
	free(preview);
	strbuf_release(&log);
	strbuf_release(&sb);
	strvec_clear(&preview_args);
	strvec_clear(&env);
	strvec_clear(&undo);
	strvec_clear(&files);
	strvec_clear(&transport);
	strvec_clear(&a.policies);
	strvec_clear(&a.allow);
	strvec_clear(&a.rest);
	return ret;
}

/* ---- khsend hook b4-transport -i [-f <from>] <rcpt>...: what b4 runs once per message ---- */

static int
refuse(const char *state, const char *fmt, const char *arg)
{
	char *p = xstrfmt("%s/refused", state), *spool = xstrfmt("%s/spool", state);
	int relayed = count_files(spool, ".relayed");

	error(fmt, arg);
	if (relayed)
		note("the %d checked messages before it were delivered; this one was not", relayed);
	else
		note("nothing was sent: khsend holds every message until the whole series has come");
	free(spool);
	write_file_buf(p, "", 0);
	free(p);
	return EXIT_FINDING;
}

static int
relay(const struct strvec *transport, const char *msgfile, const char *argsfile)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf msg = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec tail = STRVEC_INIT;
	int rc;

	if (strbuf_read_file(&msg, msgfile, MAX_MESSAGE_BYTES) < 0 || read_list_file(argsfile, &tail)) {
		strbuf_release(&msg);
		return error_errno("cannot read '%s'", msgfile);
	}
	strvec_pushv(&cp.args, transport->v);
	strvec_pushv(&cp.args, tail.v);
	/* The user's own transport, with the user's own config. */
	strvec_pushl(&cp.env, "KHSEND_B4_STATE", "KHSEND_B4_COUNT", NULL);
	rc = pipe_command(&cp, msg.buf, msg.len, &out, &err);
	fwrite(out.buf, 1, out.len, stderr);
	fwrite(err.buf, 1, err.len, stderr);
	if (rc) {
		char why[64];

		error("'%s' %s", transport->v[0], describe_outcome(rc, why, sizeof(why)));
	}
	strbuf_release(&msg);
	strbuf_release(&out);
	strbuf_release(&err);
	strvec_clear(&tail);
	return rc ? -1 : 0;
}

static int
transport_main(int argc, const char **argv)
{
	const char *state = getenv("KHSEND_B4_STATE"), *count = getenv("KHSEND_B4_COUNT");
	struct strbuf msg = STRBUF_INIT, key = STRBUF_INIT;
	struct strvec tail = STRVEC_INIT, transport = STRVEC_INIT, policies = STRVEC_INIT, allow = STRVEC_INIT;
	char *spool, *path, *subject = NULL;
	long n, k, match = -1;
	int ret = EXIT_ERROR;

	program_name = "khsend (b4 transport)";
	if (!state || !count || (n = strtol(count, NULL, 10)) <= 0)
		die("'khsend hook b4-transport' is the transport khsend gives b4; it only runs under 'khsend b4'");
	if (strbuf_read_fd(&msg, 0, MAX_MESSAGE_BYTES) < 0)
		die_errno("cannot read the message from b4");
	/* b4 calls "<server> -i [-f <from>] <rcpt>...": relay all but our -i, which the user's gets. */
	for (int i = (argc > 1 && !strcmp(argv[1], "-i")) ? 2 : 1; i < argc; i++)
		strvec_push(&tail, argv[i]);
	spool = xstrfmt("%s/spool", state);
	k = count_files(spool, ".eml") + 1;

	content_key(msg.buf, msg.len, &key);
	{
		const char *s = strstr(key.buf, "\n");

		subject = xstrndup(key.buf, s ? (size_t)(s - key.buf) : key.len);
	}
	for (long j = 1; j <= n && match < 0; j++) {
		struct strbuf want = STRBUF_INIT;
		char *kf = xstrfmt("%s/keys/%04ld", state, j), *used = xstrfmt("%s/keys/%04ld.used", state, j);

		if (!file_exists(used) && strbuf_read_file(&want, kf, MAX_MESSAGE_BYTES) >= 0 &&
		    want.len == key.len && !memcmp(want.buf, key.buf, key.len)) {
			match = j;
			if (write_file_buf(used, "", 0))
				die("cannot write khsend's state for b4");
		}
		strbuf_release(&want);
		free(kf);
		free(used);
	}
	if (match < 0 || k > n) {
		ret = refuse(state, "b4 is about to send a message that khsend did not check: \"%s\"", subject);
		goto out;
	}
	path = xstrfmt("%s/%04ld.eml", spool, k);
	if (write_file_buf(path, msg.buf, msg.len))
		die("cannot hold the message");
	free(path);
	path = xstrfmt("%s/%04ld.args", spool, k);
	if (write_list_file(path, &tail))
		die("cannot write khsend's state for b4");
	free(path);
	if (k < n) {
		ret = EXIT_CLEAN;	/* held until the last one */
		goto out;
	}

	/* The whole series is here: check it again as it will go out, annotate, relay. */
	{
		struct khsend_ctx ctx;
		struct outgoing o;
		struct detector d;
		char *f = xstrfmt("%s/transport", state), *p = xstrfmt("%s/policies", state);
		char *al = xstrfmt("%s/allow", state);

		if (read_list_file(f, &transport) || read_list_file(p, &policies) || read_list_file(al, &allow))
			die_errno("cannot read khsend's state in '%s'", state);
		free(f);
		free(p);
		free(al);
		ctx_init(&ctx, &policies);
		outgoing_init(&o, ctx_tmpdir(&ctx));
		detector_init(&d, &ctx.policy, &allow);
		for (long j = 1; j <= n; j++) {
			char *file = xstrfmt("%s/%04ld.eml", spool, j), *name = xstrfmt("b4 message %ld", j);

			outgoing_add_private(&o, file, name);
			free(file);
			free(name);
		}
		if (outgoing_check(&o, &d, ctx_tmpdir(&ctx))) {
			ret = refuse(state, "%s", "the series b4 handed over cannot be read");
		} else if (detector_blocked(&d)) {
			report_text(stderr, &d, REPORT_SEND);
			ret = refuse(state, "%s", "the series b4 handed over changes a protected string");
		} else {
			int signed_msgs = 0;

			for (size_t j = 0; j < o.nr; j++) {
				struct strbuf raw = STRBUF_INIT;

				if (strbuf_read_file(&raw, o.v[j].file, MAX_MESSAGE_BYTES) >= 0)
					signed_msgs += strcasestr(raw.buf, "\nX-Developer-Signature:") != NULL;
				strbuf_release(&raw);
			}
			if (detector_count(&d, POLICY_ANNOTATE) && signed_msgs)
				ret = refuse(state, "%s", "b4 signed these messages, and the note khsend must add "
					     "would break the signatures (send with --no-sign)");
			else if (outgoing_annotate(&o, &d))
				ret = refuse(state, "%s", "khsend cannot add its note to the messages b4 made");
			else
				ret = EXIT_CLEAN;
		}
		for (long j = 1; ret == EXIT_CLEAN && j <= n; j++) {
			char *m = xstrfmt("%s/%04ld.eml", spool, j), *args = xstrfmt("%s/%04ld.args", spool, j);

			if (relay(&transport, m, args)) {
				error("message %ld of %ld was not delivered; %ld before it %s", j, n, j - 1,
				      j == 2 ? "was" : "were");
				ret = EXIT_ERROR;
			} else {
				char *done = xstrfmt("%s/%04ld.relayed", spool, j);

				write_file_buf(done, "", 0);
				free(done);
			}
			free(m);
			free(args);
		}
		detector_release(&d);
		outgoing_release(&o);
		ctx_release(&ctx);
	}
out:
	free(spool);
	free(subject);
	strbuf_release(&msg);
	strbuf_release(&key);
	strvec_clear(&tail);
	strvec_clear(&transport);
	strvec_clear(&policies);
	strvec_clear(&allow);
	return ret;
}

int
b4_hook(const char *name, int argc, const char **argv)
{
	if (!strcmp(name, "b4-transport"))
		return transport_main(argc, argv);
	return -1;
}
