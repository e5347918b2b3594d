/*
 * khsend [khsend options] [git send-email options] <files|dirs|mbox|revisions>...
 *
 * The series is built in a private directory (copies of the files named,
 * git format-patch for revisions), checked as a whole, annotated where the
 * policy says so, and only then handed to the real git send-email, as a
 * child with an argv vector: its own options untouched and in order, then
 * the checked files.
 *
 * git send-email 2.39 runs an editor after its sendemail-validate check
 * (--annotate, --compose, [e]dit at the confirm prompt), so an edit could
 * send what was never checked.  khsend gives it an editor that is khsend
 * itself ("khsend hook editor", see editor_main()): it runs the user's
 * editor, then checks the whole series again, and a block, or an edit that
 * changes the lines the patch removes or keeps, makes it exit non-zero, so
 * git send-email stops ("the editor exited uncleanly") before sending.
 *
 * Exit status: 1 when a block finding (or a refused edit) stopped it and
 * nothing (more) was sent; 2 for an error of khsend's (bad option, policy,
 * unreadable file, git format-patch failing, a note it cannot add); else
 * git send-email's own.
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
#include "send/sendemail-options.h"
#include "series/series.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INPUT_BYTES (256u << 20)

/*
 * What git send-email runs as its editor: a constant, so nothing of the
 * user's or the policy's ends up in the shell string send-email builds
 * ("sh -c '<editor> \"$@\"'"); $KHSEND_SELF is set in its environment.
 */
#define EDITOR_COMMAND "\"$KHSEND_SELF\" hook editor"

struct khsend_options {
	struct strvec policies;
	struct strvec allow;
	int boot;		/* -1: not given */
};

#define KHSEND_OPTIONS_INIT { STRVEC_INIT, STRVEC_INIT, -1 }

static void
khsend_options_release(struct khsend_options *ko)
{
	strvec_clear(&ko->policies);
	strvec_clear(&ko->allow);
}

/*
 * Take khsend's own options out, wherever they stand before "--"; skip the
 * value of a git send-email option, so "--subject --boot" keeps its subject.
 */
static void
take_khsend_options(int argc, const char **argv, struct khsend_options *ko, struct strvec *rest)
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
				die("%s needs a value (%s)", a, a[2] == 'p' ? "a policy file" : "a policy entry id");
			strvec_push(a[2] == 'p' ? &ko->policies : &ko->allow, argv[++i]);
			continue;
		}
		if (skip_prefix(a, "--policy=", &v) || skip_prefix(a, "--allow=", &v)) {
			if (!*v)
				die("%.8s needs a value", a);
			strvec_push(a[2] == 'p' ? &ko->policies : &ko->allow, v);
			continue;
		}
		if (!strcmp(a, "--boot") || !strcmp(a, "--no-boot")) {
			ko->boot = a[2] == 'b';
			continue;
		}
		words = sendemail_option_words(argv, (size_t)argc, (size_t)i);
		strvec_push(rest, a);
		if (words == 2)
			strvec_push(rest, argv[++i]);
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
		die_errno("cannot find where this khsend is (/proc/self/exe)");
	path[n] = '\0';
	return path;
}

/* ---- the state the editor wrapper reads: what was checked, and how ---- */

struct send_state {
	char *dir;
	struct strvec files, names;	/* the series, as handed to git send-email */
	struct strvec policies, allow;
	struct strvec restore_env;	/* undoes our environment for the user's editor */
	struct strvec identity;		/* zero or one */
	int booted;
};

#define SEND_STATE_INIT { NULL, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, 0 }

static char *
state_path(const struct send_state *st, const char *name)
{
	return xstrfmt("%s/%s", st->dir, name);
}

static void
state_write_list(const struct send_state *st, const char *name, const struct strvec *v)
{
	char *p = state_path(st, name);

	if (write_list_file(p, v))
		die("cannot write khsend's state for git send-email's editor");
	free(p);
}

static int
state_read_list(const struct send_state *st, const char *name, struct strvec *v)
{
	char *p = state_path(st, name);
	int ret = read_list_file(p, v);

	free(p);
	return ret;
}

static void
state_save(struct send_state *st, const struct outgoing *o)
{
	char *checked = state_path(st, "checked");

	if (mkdir_p(checked, 1))
		die_errno("cannot create '%s'", checked);
	for (size_t i = 0; i < o->nr; i++) {
		char *snap = xstrfmt("%s/%04zu", checked, i + 1);

		strvec_push(&st->files, o->v[i].file);
		strvec_push(&st->names, o->v[i].name);
		if (copy_file(snap, o->v[i].file))
			die("cannot keep a copy of what was checked");
		free(snap);
	}
	free(checked);
	state_write_list(st, "files", &st->files);
	state_write_list(st, "names", &st->names);
	state_write_list(st, "policies", &st->policies);
	state_write_list(st, "allow", &st->allow);
	state_write_list(st, "restore-env", &st->restore_env);
	state_write_list(st, "identity", &st->identity);
	if (st->booted) {
		char *p = state_path(st, "booted");

		if (write_file_buf(p, "", 0))
			die("cannot write khsend's state");
		free(p);
	}
}

static int
state_load(struct send_state *st)
{
	const char *dir = getenv("KHSEND_SEND_STATE");
	char *p;

	if (!dir || !*dir)
		return error("'khsend hook editor' is the editor khsend gives git send-email; "
			     "it only runs under khsend");
	st->dir = xstrdup(dir);
	if (state_read_list(st, "files", &st->files) || state_read_list(st, "names", &st->names) ||
	    state_read_list(st, "policies", &st->policies) || state_read_list(st, "allow", &st->allow) ||
	    state_read_list(st, "restore-env", &st->restore_env) ||
	    state_read_list(st, "identity", &st->identity) || st->files.nr != st->names.nr)
		return error_errno("cannot read khsend's state in '%s'", dir);
	p = state_path(st, "booted");
	st->booted = file_exists(p);
	free(p);
	return 0;
}

static void
state_release(struct send_state *st)
{
	free(st->dir);
	strvec_clear(&st->files);
	strvec_clear(&st->names);
	strvec_clear(&st->policies);
	strvec_clear(&st->allow);
	strvec_clear(&st->restore_env);
	strvec_clear(&st->identity);
}

/* ---- khsend (send) ---- */

/* Run git send-email and wait, as system() does: ^C is for the child. */
static int
run_send_email(struct child_process *cp)
{
	struct sigaction ign, old_int, old_quit;
	int rc;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	rc = run_command(cp);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (rc < 0)
		return EXIT_ERROR;
	return rc;
}

/*
 * Would git send-email ask "Do you really want to send <file>?" about these
 * names (handle_backup(): a name that is the one before it plus a suffix
 * not starting with a letter or digit, like "x.patch~")?  Then the files
 * are handed over one by one, under names that keep those relations.
 */
static int
backup_like_names(const struct strvec *files)
{
	for (size_t i = 1; i < files->nr; i++) {
		const char *last = files->v[i - 1], *f = files->v[i];
		size_t n = strlen(last);

		if (strlen(f) > n && !strncmp(f, last, n) && !isalnum((unsigned char)f[n]))
			return 1;
	}
	return 0;
}

/* -h, --dump-aliases, --git-completion-helper: nothing is sent, hand over as is. */
static int
pass_through(const struct strvec *args)
{
	struct child_process cp = CHILD_PROCESS_INIT;

	strvec_pushl(&cp.args, "git", "send-email", NULL);
	strvec_pushv(&cp.args, args->v);
	return run_send_email(&cp);
}

/*
 * The identity git send-email will use: --identity, else sendemail.identity
 * (asked of git itself, so "git -c" counts); --no-identity: none.  Its
 * sendemail.<id>.editor would win over sendemail.editor.
 */
static void
effective_identity(const struct sendemail_args *se, struct strvec *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf sb = STRBUF_INIT;

	if (se->no_identity)
		return;
	if (se->identity) {
		strvec_push(out, se->identity);
		return;
	}
	strvec_pushl(&cp.args, "git", "config", "--get", "sendemail.identity", NULL);
	cp.no_stderr = 1;
	if (!capture_command(&cp, &sb)) {
		strbuf_strip_eol(&sb);
		if (sb.len)
			strvec_push(out, sb.buf);
	}
	strbuf_release(&sb);
}

static void
absolute_paths(const struct strvec *in, struct strvec *out)
{
	for (size_t i = 0; i < in->nr; i++) {
		char *abs = realpath(in->v[i], NULL);

		strvec_push(out, abs ? abs : in->v[i]);
		free(abs);
	}
}

int
cmd_send(int argc, const char **argv)
{
	struct khsend_options ko = KHSEND_OPTIONS_INIT;
	struct strvec args = STRVEC_INIT, files = STRVEC_INIT, revs = STRVEC_INIT;
	struct sendemail_args se = SENDEMAIL_ARGS_INIT;
	struct series_options sopts = { NULL, -1, NULL };
	struct send_state st = SEND_STATE_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	struct khsend_ctx ctx;
	struct outgoing out;
	struct detector det;
	struct config_env cfg;
	const char *editor;
	char *blocked;
	int ret;

	take_khsend_options(argc, argv, &ko, &args);
	sendemail_args_parse(&se, args.v, args.nr);
	if (se.help) {
		/* git send-email's own -h exits 1, and its options are its to document. */
		printf("usage: khsend send [--policy <file>]... [--allow <id>]... [--[no-]boot]\n"
		       "              [git send-email options] <files|directories|mbox|revisions>...\n"
		       "   or: khsend [the same]   (\"send\" may be left out)\n\n"
		       "    --policy <file>           use exactly these policy files, in order\n"
		       "    --allow <id>              send a change to this (allow-override) entry, with a note\n"
		       "    --[no-]boot               boot the series in QEMU before sending (khsend.boot)\n\n"
		       "Every git send-email option is handed on untouched: see 'git send-email -h'.\n");
		ret = EXIT_CLEAN;
		goto out_early;
	}
	if (se.dump_aliases || se.completion_helper) {
		ret = pass_through(&args);
		goto out_early;
	}

	ctx_init(&ctx, &ko.policies);
	ctx_check_allow(&ctx, &ko.allow);
	st.booted = ctx_want_boot(&ctx, ko.boot);
	sopts.repo = ctx.repo;
	sopts.format_patch = se.format_patch;
	if (series_classify(&se.rest, &sopts, &files, &revs)) {
		ret = EXIT_ERROR;
		goto out_ctx;
	}
	outgoing_init(&out, ctx_tmpdir(&ctx));
	detector_init(&det, &ctx.policy, &ko.allow);

	/* Nothing to send: git send-email says so itself ("No patch files specified!"). */
	if (!files.nr && !revs.nr) {
		ret = pass_through(&se.opts);
		goto out;
	}
	for (size_t i = 0; i < files.nr; i++)
		if (outgoing_add_file(&out, files.v[i])) {
			ret = EXIT_ERROR;
			goto out;
		}
	if (revs.nr && outgoing_add_revisions(&out, &revs, ctx.repo)) {
		ret = EXIT_ERROR;
		goto out;
	}
	if (!out.nr) {
		ret = pass_through(&se.opts);
		goto out;
	}
	if (outgoing_check(&out, &det, ctx_tmpdir(&ctx))) {
		ret = EXIT_ERROR;
		goto out;
	}
	report_text(stderr, &det, REPORT_SEND);
	if (detector_blocked(&det)) {
		ret = EXIT_FINDING;
		goto out;
	}
	if (outgoing_annotate(&out, &det)) {
		note("nothing was sent");
		ret = EXIT_ERROR;
		goto out;
	}
	if (out.annotated)
		note("%zu %s a note for the reviewers below the '---' line%s", out.annotated,
		     out.annotated == 1 ? "patch gets" : "patches get",
		     out.cover >= 0 ? ", and the cover letter a summary" : "");
	/* The boot smoke test: after the check and the notes, before anything is sent. */
	if (st.booted && (ret = outgoing_boot(&out, ctx.repo)) != EXIT_CLEAN) {
		note("nothing was sent");
		goto out;
	}

	/*
	 * One directory argument rather than one per file: git send-email runs
	 * "git rev-parse" for each argument (30 patches: ~90 ms).
	 */
	if (!backup_like_names(&files) && !outgoing_gather(&out)) {
		ret = EXIT_ERROR;
		goto out;
	}

	/* What the editor wrapper needs, in a private directory of its own. */
	st.dir = xstrfmt("%s/state", ctx_tmpdir(&ctx));
	if (mkdir_p(st.dir, 1))
		die_errno("cannot create '%s'", st.dir);
	absolute_paths(&ko.policies, &st.policies);
	strvec_pushv(&st.allow, ko.allow.v);
	effective_identity(&se, &st.identity);

	config_env_init(&cfg, &cp.env, &st.restore_env);
	config_env_add(&cfg, "sendemail.editor", EDITOR_COMMAND);
	if (st.identity.nr) {
		char *key = xstrfmt("sendemail.%s.editor", st.identity.v[0]);

		config_env_add(&cfg, key, EDITOR_COMMAND);
		free(key);
	}
	config_env_finish(&cfg);
	editor = getenv("GIT_EDITOR");
	if (editor)
		strvec_pushf(&st.restore_env, "GIT_EDITOR=%s", editor);
	else
		strvec_push(&st.restore_env, "GIT_EDITOR");
	strvec_push(&cp.env, "GIT_EDITOR=" EDITOR_COMMAND);
	strvec_pushf(&cp.env, "KHSEND_SELF=%s", khsend_self_path());
	strvec_pushf(&cp.env, "KHSEND_SEND_STATE=%s", st.dir);
	/* Our own sendemail-validate hook need not check these files again. */
	strvec_pushf(&cp.env, "KHSEND_CHECKED_DIR=%s", out.dir);
	state_save(&st, &out);

	strvec_pushl(&cp.args, "git", "send-email", NULL);
	strvec_pushv(&cp.args, se.opts.v);
	if (out.gathered)
		strvec_push(&cp.args, out.gathered);
	else
		for (size_t i = 0; i < out.nr; i++)
			strvec_push(&cp.args, out.v[i].file);
	ret = run_send_email(&cp);

	blocked = state_path(&st, "blocked");
	if (file_exists(blocked)) {
		note("git send-email stopped at an edit that khsend refused (see above); "
		     "nothing after it was sent");
		ret = EXIT_FINDING;
	}
	free(blocked);
out:
	detector_release(&det);
	outgoing_release(&out);
out_ctx:
	ctx_release(&ctx);
out_early:
	child_process_clear(&cp);
	state_release(&st);
	sendemail_args_release(&se);
	khsend_options_release(&ko);
	strvec_clear(&args);
	strvec_clear(&files);
	strvec_clear(&revs);
	return ret;
}

/* ---- khsend hook editor: the editor git send-email runs under khsend ---- */

static int
git_output(const struct strvec *env, struct strbuf *out, ...)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	va_list ap;
	const char *a;
	int rc;

	strvec_push(&cp.args, "git");
	va_start(ap, out);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&cp.args, a);
	va_end(ap);
	strvec_pushv(&cp.env, env->v);
	cp.no_stderr = 1;
	rc = capture_command(&cp, out);
	strbuf_strip_eol(out);
	return rc;
}

/* What git send-email would have run without khsend: sendemail[.<id>].editor, else git var GIT_EDITOR. */
static char *
user_editor(const struct send_state *st)
{
	struct strbuf sb = STRBUF_INIT;

	if (st->identity.nr) {
		char *key = xstrfmt("sendemail.%s.editor", st->identity.v[0]);
		int rc = git_output(&st->restore_env, &sb, "config", "--get", key, NULL);

		free(key);
		if (!rc && sb.len)
			return strbuf_detach(&sb, NULL);
		strbuf_reset(&sb);
	}
	if (!git_output(&st->restore_env, &sb, "config", "--get", "sendemail.editor", NULL) && sb.len)
		return strbuf_detach(&sb, NULL);
	strbuf_reset(&sb);
	if (git_output(&st->restore_env, &sb, "var", "GIT_EDITOR", NULL) || !sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

struct edited {
	char *path;
	struct strbuf before, after;
	long series;		/* index into the series, or -1 (the --compose intro) */
};

static long
map_to_series(const struct send_state *st, const char *path, const struct strbuf *content)
{
	char *real = realpath(path, NULL);
	long found = -1;

	for (size_t j = 0; real && j < st->files.nr && found < 0; j++) {
		char *other = realpath(st->files.v[j], NULL);

		if (other && !strcmp(other, real))
			found = (long)j;
		free(other);
	}
	free(real);
	/* A send-email that edits a copy of the file: find it by what it held. */
	for (size_t j = 0; j < st->files.nr && found < 0; j++) {
		struct strbuf sb = STRBUF_INIT;

		if (!strbuf_read_file(&sb, st->files.v[j], MAX_INPUT_BYTES) && sb.len == content->len &&
		    !memcmp(sb.buf, content->buf, sb.len))
			found = (long)j;
		strbuf_release(&sb);
	}
	return found;
}

/* The decoded patch of a mail held in memory. */
static int
patch_of(const char *name, const struct strbuf *raw, const char *tmpdir, struct strbuf *patch)
{
	struct message msg = MESSAGE_INIT;
	int ret = message_from_buffer(&msg, name, raw->buf, raw->len, tmpdir);

	if (!ret)
		strbuf_addbuf(patch, &msg.patch);
	message_release(&msg);
	return ret;
}

/*
 * The edit may change the commit message, the notes below "---" and the
 * added lines (which the check then covers); it may not change what the
 * patch says is in the tree, nor, once the series booted, the diff at all.
 */
static int
edit_is_checkable(const struct send_state *st, size_t j, const struct strbuf *now, const char *tmpdir)
{
	struct strbuf was = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
	struct strbuf pa = STRBUF_INIT, pb = STRBUF_INIT, da = STRBUF_INIT, db = STRBUF_INIT;
	char *snap = xstrfmt("%s/checked/%04zu", st->dir, j + 1);
	int ret = -1;

	if (strbuf_read_file(&was, snap, MAX_INPUT_BYTES) < 0) {
		error_errno("cannot read what khsend checked ('%s')", snap);
		goto out;
	}
	if (patch_of(st->names.v[j], &was, tmpdir, &a) || patch_of(st->names.v[j], now, tmpdir, &b))
		goto out;
	patch_preimage(a.buf, a.len, &pa, &da);
	patch_preimage(b.buf, b.len, &pb, &db);
	if (pa.len != pb.len || memcmp(pa.buf, pb.buf, pa.len)) {
		error("your edit of %s changes lines that the patch removes or keeps, so it would no "
		      "longer apply to the tree khsend checked it against; nothing more is sent",
		      st->names.v[j]);
		goto out;
	}
	if (st->booted && (da.len != db.len || memcmp(da.buf, db.buf, da.len))) {
		error("your edit of %s changes the diff after the boot smoke test, so what would be "
		      "sent is not what booted; nothing more is sent (send again through khsend)",
		      st->names.v[j]);
		goto out;
	}
	ret = 0;
out:
	free(snap);
	strbuf_release(&was);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&pa);
	strbuf_release(&pb);
	strbuf_release(&da);
	strbuf_release(&db);
	return ret;
}

/* Is a --compose intro worth a summary: some text besides its "GIT:" lines? */
static int
compose_has_body(const struct strbuf *raw)
{
	const char *p = strstr(raw->buf, "\n\n");

	if (!p)
		return 0;
	for (p += 2; *p;) {
		const char *nl = strchrnul(p, '\n');

		if (!starts_with(p, "GIT:"))
			for (const char *c = p; c < nl; c++)
				if (*c != ' ' && *c != '\t' && *c != '\r')
					return 1;
		p = *nl ? nl + 1 : nl;
	}
	return 0;
}

/*
 * Write the notes of this check's annotate findings into whatever will be
 * sent, and take out a note that no longer applies.
 */
static int
reannotate(const struct send_state *st, struct edited *ed, size_t ned, const struct detector *d)
{
	const struct finding **all = xcalloc(d->nr ? d->nr : 1, sizeof(*all));
	size_t nall = 0;
	int ret = 0;

	for (size_t i = 0; i < d->nr; i++)
		if (d->findings[i].action == POLICY_ANNOTATE && d->findings[i].index <= st->files.nr)
			all[nall++] = &d->findings[i];
	for (size_t k = 0; !ret && k < st->files.nr; k++) {
		const struct finding **mine = xcalloc(nall ? nall : 1, sizeof(*mine));
		const char *target = st->files.v[k];
		struct strbuf raw = STRBUF_INIT;
		size_t nmine = 0, len;

		for (size_t i = 0; i < nall; i++)
			if (all[i]->index == k + 1)
				mine[nmine++] = all[i];
		for (size_t i = 0; i < ned; i++)
			if (ed[i].series == (long)k)
				target = ed[i].path;
		if (strbuf_read_file(&raw, target, MAX_INPUT_BYTES) < 0) {
			ret = error_errno("cannot read '%s'", target);
		} else {
			struct strbuf was = STRBUF_INIT;

			strbuf_addbuf(&was, &raw);
			len = raw.len;
			if (nmine)
				ret = annotate_patch(&raw, st->names.v[k], mine, nmine);
			else if (nall && is_cover_letter(raw.buf, raw.len))
				ret = annotate_cover(&raw, st->names.v[k], all, nall);
			else
				annotate_strip(&raw);
			if (!ret && (raw.len != len || memcmp(raw.buf, was.buf, len)))
				ret = write_file_buf(target, raw.buf, raw.len);
			strbuf_release(&was);
		}
		strbuf_release(&raw);
		free(mine);
	}
	for (size_t i = 0; nall && !ret && i < ned; i++) {
		if (ed[i].series >= 0 || !compose_has_body(&ed[i].after))
			continue;
		if (!(ret = annotate_cover(&ed[i].after, ed[i].path, all, nall)))
			ret = write_file_buf(ed[i].path, ed[i].after.buf, ed[i].after.len);
	}
	free(all);
	return ret;
}

static void
mark_blocked(const struct send_state *st)
{
	char *p = state_path(st, "blocked");

	write_file_buf(p, "", 0);
	free(p);
}

static int
editor_main(int argc, const char **argv)
{
	struct send_state st = SEND_STATE_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	struct edited *ed = NULL;
	struct khsend_ctx ctx;
	struct detector det;
	size_t ned = (size_t)(argc > 1 ? argc - 1 : 0);
	char *editor = NULL;
	int rc, ret = EXIT_ERROR, have_ctx = 0;

	program_name = "khsend (editor)";
	if (state_load(&st))
		goto out;
	ed = xcalloc(ned ? ned : 1, sizeof(*ed));
	for (size_t i = 0; i < ned; i++) {
		ed[i].path = xstrdup(argv[i + 1]);
		strbuf_init(&ed[i].before, 0);
		strbuf_init(&ed[i].after, 0);
		if (strbuf_read_file(&ed[i].before, ed[i].path, MAX_INPUT_BYTES) < 0) {
			error_errno("cannot read '%s'", ed[i].path);
			goto out;
		}
		ed[i].series = map_to_series(&st, ed[i].path, &ed[i].before);
	}

	editor = user_editor(&st);
	if (!editor) {
		error("cannot find your editor (git var GIT_EDITOR failed)");
		goto out;
	}
	/*
	 * The one shell string khsend runs: the user's own configured editor,
	 * exactly as git send-email runs it (sh -c '<editor> "$@"' <editor>
	 * files...), with the file names as arguments.  It comes from the
	 * user's configuration, never from a policy.
	 */
	strvec_pushl(&cp.args, "sh", "-c", NULL);
	strvec_pushf(&cp.args, "%s \"$@\"", editor);
	strvec_push(&cp.args, editor);
	for (size_t i = 0; i < ned; i++)
		strvec_push(&cp.args, ed[i].path);
	strvec_pushv(&cp.env, st.restore_env.v);
	rc = run_command(&cp);
	if (rc) {
		ret = rc < 0 ? EXIT_ERROR : rc;
		goto out;
	}

	ctx_init(&ctx, &st.policies);
	have_ctx = 1;
	ctx_check_allow(&ctx, &st.allow);
	detector_init(&det, &ctx.policy, &st.allow);
	ret = EXIT_CLEAN;
	for (size_t i = 0; i < ned; i++)
		if (strbuf_read_file(&ed[i].after, ed[i].path, MAX_INPUT_BYTES) < 0) {
			error_errno("cannot read '%s' after editing", ed[i].path);
			ret = EXIT_ERROR;
		}
	/* The whole series as it stands now, edits included, then anything else edited. */
	for (size_t j = 0; ret == EXIT_CLEAN && j < st.files.nr + ned; j++) {
		struct message msg = MESSAGE_INIT;
		const struct strbuf *now = NULL;
		struct strbuf disk = STRBUF_INIT;
		const char *name;

		if (j < st.files.nr) {
			for (size_t i = 0; i < ned; i++)
				if (ed[i].series == (long)j)
					now = &ed[i].after;
			if (now && edit_is_checkable(&st, j, now, ctx_tmpdir(&ctx)))
				ret = EXIT_FINDING;
			if (!now && strbuf_read_file(&disk, st.files.v[j], MAX_INPUT_BYTES) < 0) {
				error_errno("cannot read '%s'", st.files.v[j]);
				ret = EXIT_ERROR;
			}
			if (!now)
				now = &disk;
			name = st.names.v[j];
		} else {
			if (ed[j - st.files.nr].series >= 0)
				continue;
			now = &ed[j - st.files.nr].after;
			name = ed[j - st.files.nr].path;
		}
		msg.index = j + 1;
		msg.name = xstrdup(name);
		if (ret != EXIT_CLEAN) {
			;
		} else if (j >= st.files.nr) {
			/* The --compose intro: only a diff in it could matter. */
			if (strstr(now->buf, "diff --git ") &&
			    (message_from_buffer(&msg, name, now->buf, now->len, ctx_tmpdir(&ctx)) ||
			     detector_add(&det, &msg)))
				ret = EXIT_ERROR;
		} else if (message_from_buffer(&msg, name, now->buf, now->len, ctx_tmpdir(&ctx)) ||
			   detector_add(&det, &msg)) {
			ret = EXIT_ERROR;
		}
		message_release(&msg);
		strbuf_release(&disk);
	}
	if (ret == EXIT_CLEAN) {
		detector_finish(&det);
		if (det.nr)
			report_text(stderr, &det, REPORT_SEND);
		if (detector_blocked(&det))
			ret = EXIT_FINDING;
		else if (reannotate(&st, ed, ned, &det))
			ret = EXIT_ERROR;
	}
	if (ret != EXIT_CLEAN) {
		/* Put back what was checked, and tell khsend why git send-email stopped. */
		for (size_t i = 0; i < ned; i++)
			write_file_buf(ed[i].path, ed[i].before.buf, ed[i].before.len);
		mark_blocked(&st);
		note("your edit was not kept: the files are back as khsend checked them, "
		     "and git send-email stops here");
	} else {
		note("your edit was checked again: %zu %s, nothing blocks", det.messages,
		     det.messages == 1 ? "message" : "messages");
	}
	detector_release(&det);
out:
	if (have_ctx)
		ctx_release(&ctx);
	for (size_t i = 0; ed && i < ned; i++) {
		free(ed[i].path);
		strbuf_release(&ed[i].before);
		strbuf_release(&ed[i].after);
	}
	free(ed);
	free(editor);
	child_process_clear(&cp);
	state_release(&st);
	return ret;
}

/* ---- khsend hook sendemail-args: how khsend reads a command line (for the tests) ---- */

static int
sendemail_args_main(int argc, const char **argv)
{
	struct khsend_options ko = KHSEND_OPTIONS_INIT;
	struct strvec args = STRVEC_INIT;
	struct sendemail_args se = SENDEMAIL_ARGS_INIT;

	take_khsend_options(argc, argv, &ko, &args);
	sendemail_args_parse(&se, args.v, args.nr);
	for (size_t i = 0; i < ko.policies.nr; i++)
		printf("khsend\tpolicy=%s\n", ko.policies.v[i]);
	for (size_t i = 0; i < ko.allow.nr; i++)
		printf("khsend\tallow=%s\n", ko.allow.v[i]);
	if (ko.boot >= 0)
		printf("khsend\tboot=%d\n", ko.boot);
	for (size_t i = 0; i < se.parsed.nr; i++)
		printf("opt\t%s\n", se.parsed.v[i]);
	for (size_t i = 0; i < se.opts.nr; i++)
		printf("word\t%s\n", se.opts.v[i]);
	for (size_t i = 0; i < se.rest.nr; i++)
		printf("rest\t%s\n", se.rest.v[i]);
	sendemail_args_release(&se);
	khsend_options_release(&ko);
	strvec_clear(&args);
	return EXIT_CLEAN;
}

int
send_hook(const char *name, int argc, const char **argv)
{
	if (!strcmp(name, "editor"))
		return editor_main(argc, argv);
	if (!strcmp(name, "sendemail-args"))
		return sendemail_args_main(argc, argv);
	return -1;
}
