// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot: the pipeline of khsend boot, stage by stage: lock the tree's
 * cache, apply the series on the base in the private work tree, work out
 * the config, answer from the result cache if this source was booted
 * before, else build, pack the initramfs, boot, judge (against the base's
 * own boot when the console complains), report, and put the work tree
 * back on the base.  A Ctrl-C at any point ends the children's process
 * groups (boot-child.c) and still resets the work tree.
 */
#define _GNU_SOURCE
#include "boot/boot.h"
#include "boot/boot-internal.h"
#include "boot/boot-cache.h"
#include "lib/config.h"
#include "lib/path.h"
#include "lib/repo.h"
#include "series/series.h"
#include "lib/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

volatile sig_atomic_t boot_interrupted;

/* Everything one run knows; released in one place. */
struct boot_run {
	const struct boot_options *opts;
	int timeout, memory_mb;
	const struct series *series;
	struct boot_tree tree;
	const char *tree_from;		/* why this tree, for the report; NULL: the default tree */
	struct base_choice bc;
	struct strbuf tip, tip_tree;
	struct strvec mails;		/* the ones with a diff */
	struct strvec touched;		/* .c and .h files the series changes */
	int kconfig_touched;		/* it changes a Kconfig file: the config follows the tip */
	struct strvec chased;		/* kconfig-chase.py's lines: "ok SYM DEP..." / "fail SYM why" */
	struct strbuf params;		/* what else decides a verdict (boot_params()) */
	struct strbuf cc;		/* the compiler's first line of --version */
	struct strvec symbols;		/* CONFIG_ symbols added for them */
	struct strvec no_rule;		/* touched files no Makefile rule was found for */
	struct strvec unmet;		/* fragment lines the final .config lacks */
	struct strbuf fragment;		/* the whole fragment this build uses */
	struct strbuf key;
	char *scratch, *logs, *build_log, *serial_log, *fragment_path, *init_binary;
	char *shipped_fragment;		/* data/boot.config, the fragment's first part */
	struct strbuf header;		/* the tree, the base, the series */
	struct strbuf report;		/* the rest, kept in the result cache */
	struct strbuf series_line;
	int applied;
};

static void
on_signal(int sig)
{
	boot_interrupted = sig;
}

static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction saved_actions[3];

static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: a blocking flock() must wake up */
	sigemptyset(&sa.sa_mask);
	boot_interrupted = 0;
	for (size_t i = 0; i < 3; i++)
		sigaction(caught_signals[i], &sa, &saved_actions[i]);
}

static void
restore_signals(void)
{
	for (size_t i = 0; i < 3; i++)
		sigaction(caught_signals[i], &saved_actions[i], NULL);
}

/* Leave as the signal asked, once the work tree is back in order. */
static void
die_of_signal(void)
{
	int sig = boot_interrupted;

	progress_clear();
	note("interrupted; the build and QEMU were stopped");
	run_exit_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

int
boot_compile_parse(const char *value)
{
	if (!strcmp(value, "missing"))
		return BOOT_COMPILE_MISSING;
	if (!strcmp(value, "all"))
		return BOOT_COMPILE_ALL;
	if (!strcmp(value, "none"))
		return BOOT_COMPILE_NONE;
	return -1;
}

void
boot_options_from_config(struct boot_options *opts)
{
	static char *tree;	/* lives as long as the options may */
	const char *value;

	if (!opts->tree && (value = config_get("khsend.tree"))) {
		free(tree);
		tree = expand_user_path(value);
		opts->tree = tree;
		opts->tree_from = "khsend.tree";
	}
	if (!opts->compile && (value = config_get("khsend.compileTest"))) {
		int mode = boot_compile_parse(value);

		if (mode < 0)
			die("khsend.compileTest '%s': expected missing, all or none", value);
		opts->compile = (enum boot_compile)mode;
	}
	if (!opts->timeout && (value = config_get("khsend.bootTimeout"))) {
		char *end;
		long n = strtol(value, &end, 10);

		if (*end || n <= 0 || n > 86400)
			die("khsend.bootTimeout '%s': expected seconds (1 to 86400)", value);
		opts->timeout = (int)n;
	}
	if (!opts->memory_mb && (value = config_get("khsend.bootMemory"))) {
		char *end;
		long n = strtol(value, &end, 10);

		/* git's "256M" spelling as well as a bare number of MiB */
		if (*end == 'M' || *end == 'm')
			end++;
		if (*end || n < 32 || n > 65536)
			die("khsend.bootMemory '%s': expected MiB (32 to 65536)", value);
		opts->memory_mb = (int)n;
	}
}

/* Keep the mails that carry a diff; a cover letter has nothing to apply. */
static int
select_mails(struct boot_run *r, const struct series *s)
{
	size_t skipped = 0;

	for (size_t i = 0; i < s->nr; i++) {
		struct message *msg = s->v[i];

		if (message_decode(msg, r->scratch))
			return -1;
		if (message_has_patch(msg)) {
			/* git am runs in the private tree: the path must not depend on our cwd. */
			char *abs = msg->file ? realpath(msg->file, NULL) : NULL;

			if (!abs)
				return error_errno("cannot resolve '%s'", msg->file ? msg->file : msg->name);
			strvec_push_nodup(&r->mails, abs);
		} else {
			skipped++;
		}
	}
	if (!r->mails.nr)
		return error("the series has no patch to apply (%zu %s without a diff)", skipped,
			     skipped == 1 ? "message" : "messages");
	strbuf_addf(&r->series_line, "  series: %zu %s applied", r->mails.nr,
		    r->mails.nr == 1 ? "patch" : "patches");
	if (skipped)
		strbuf_addf(&r->series_line, " (%zu without a diff skipped)", skipped);
	strbuf_addch(&r->series_line, '\n');
	return 0;
}

/* The tree for people: its path and why it was taken. */
static void
describe_tree(const struct boot_run *r, struct strbuf *out)
{
	if (r->tree.user_tree)
		strbuf_addf(out, "%s (%s)", r->tree.user_tree, r->tree_from);
	else
		strbuf_addstr(out, "the default tree (linux-source 6.1)");
}

/*
 * git's words, without its advice about "git am --continue" (we already
 * undid it), the bases tried, and what the user can do about it.
 */
static void
print_am_failure(const struct boot_run *r, const struct strbuf *why)
{
	struct strbuf shown = STRBUF_INIT, tree = STRBUF_INIT;

	for (const char *p = why->buf; *p;) {
		const char *nl = strchrnul(p, '\n');

		if (!starts_with(p, "hint:") && !starts_with(p, "When you have resolved") &&
		    !starts_with(p, "If you prefer to skip") && !starts_with(p, "To restore the original")) {
			strbuf_addstr(&shown, "    ");
			strbuf_add(&shown, p, (size_t)(nl - p));
			strbuf_addch(&shown, '\n');
		}
		p = *nl ? nl + 1 : nl;
	}
	describe_tree(r, &tree);
	if (r->bc.tried.nr > 1) {
		strbuf_addstr(&shown, "  bases tried:");
		for (size_t i = 0; i < r->bc.tried.nr; i++)
			strbuf_addf(&shown, "%s %s", i ? "," : "", r->bc.tried.v[i]);
		strbuf_addch(&shown, '\n');
	}
	sanitize_terminal(shown.buf);
	sanitize_terminal(tree.buf);
	error("the series does not apply to %.12s (%s) in %s; git am said:\n%s"
	      "  to boot it where it was written: --tree <dir> (or once: git config khsend.tree <dir>)\n"
	      "  names the kernel checkout, --base <rev> a commit of it; --no-boot sends without "
	      "the boot", r->bc.oid.buf, r->bc.how, tree.buf, shown.buf);
	strbuf_release(&shown);
	strbuf_release(&tree);
}

/* Each line of `text` that names a .c or .h file; note a Kconfig file among them. */
static void
push_source_files(struct boot_run *r, const struct strbuf *text)
{
	for (const char *p = text->buf; *p;) {
		const char *nl = strchrnul(p, '\n');
		size_t len = (size_t)(nl - p);
		char *path = xstrndup(p, len);

		if (ends_with(path, ".c") || ends_with(path, ".h"))
			strvec_push(&r->touched, path);
		if (starts_with(base_name(path), "Kconfig") || starts_with(path, "scripts/kconfig/") ||
		    starts_with(path, "kernel/configs/") || starts_with(path, "arch/x86/configs/"))
			r->kconfig_touched = 1;
		free(path);
		p = *nl ? nl + 1 : nl;
	}
}

/* The shipped fragment plus CONFIG_X=y for what builds each touched file. */
static int
make_fragment(struct boot_run *r)
{
	struct strbuf extra = STRBUF_INIT;

	r->shipped_fragment = shipped_file(INSTALLED_DATA, "boot.config", "../data/boot.config");
	if (strbuf_read_file(&r->fragment, r->shipped_fragment, 1 << 20) < 0)
		return error_errno("cannot read the boot config fragment '%s'", r->shipped_fragment);
	for (size_t i = 0; i < r->touched.nr; i++) {
		struct strvec syms = STRVEC_INIT;

		if (!ends_with(r->touched.v[i], ".c"))
			continue;	/* a header is built with the files that include it */
		if (!kconfig_symbols_for(r->tree.src, r->touched.v[i], &syms))
			strvec_push(&r->no_rule, r->touched.v[i]);
		for (size_t j = 0; j < syms.nr; j++) {
			char *line = xstrfmt("\nCONFIG_%s=y\n", syms.v[j]);

			if (!strvec_contains(&r->symbols, syms.v[j]) && !strstr(r->fragment.buf, line)) {
				strvec_push(&r->symbols, syms.v[j]);
				strbuf_addf(&extra, "CONFIG_%s=y\n", syms.v[j]);
			}
			free(line);
		}
		strvec_clear(&syms);
	}
	if (extra.len)
		strbuf_addf(&r->fragment, "# for the files the series touches\n%s", extra.buf);
	strbuf_release(&extra);
	return 0;
}

/* What else decides the verdict: the boot parameters, the compiler, our init. */
static void
boot_params(struct boot_run *r, struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf cc = STRBUF_INIT, init = STRBUF_INIT, hash = STRBUF_INIT;

	strvec_pushl(&cp.args, "gcc", "--version", NULL);
	strvec_push(&cp.env, "LC_ALL=C");
	capture_command(&cp, &cc);
	strbuf_setlen(&cc, strchrnul(cc.buf, '\n') - cc.buf);
	strbuf_reset(&r->cc);
	strbuf_addbuf(&r->cc, &cc);
	if (strbuf_read_file(&init, r->init_binary, 16 << 20) >= 0)
		hash_hex(&hash, init.buf, init.len);
	/* The compile-test's mode changes the report and the verdict too. */
	strbuf_addf(out, "timeout=%d memory=%d cc=%s init=%s compile-test=%d", r->timeout,
		    r->memory_mb, cc.buf, hash.buf,
		    (int)(r->opts->compile ? r->opts->compile : BOOT_COMPILE_MISSING));
	strbuf_release(&cc);
	strbuf_release(&init);
	strbuf_release(&hash);
}

static int
open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		error_errno("cannot create the log '%s'", path);
	return fd;
}

/*
 * config + bzImage into the tree's build directory; 0, 1 failed (the log
 * has why), -1.  `commit`: the base's commit id, or the series' tip tree
 * when the series changes a Kconfig file: with the fragment and the
 * compiler, it decides the .config.
 */
static int
build(struct boot_run *r, const char *commit, int log_fd, struct build_stats *st)
{
	struct strbuf in = STRBUF_INIT, stamp = STRBUF_INIT;
	int rc;

	progress_stage("config");
	strbuf_addf(&in, "khsend config v1\n%s\n%s\n%s", commit, r->cc.buf, r->fragment.buf);
	hash_hex(&stamp, in.buf, in.len);
	rc = kconfig_make_config(&r->tree, r->shipped_fragment, &r->symbols, stamp.buf, &r->chased,
				 log_fd);
	strbuf_release(&in);
	strbuf_release(&stamp);
	if (rc)
		return rc;
	progress_done("tinyconfig + fragment%s", r->symbols.nr ? " + the touched files' symbols" : "");
	progress_stage("build");
	rc = run_make(&r->tree, "bzImage", log_fd, "build", st);
	if (!rc)
		progress_done("%u %s compiled", st->compiled, files_word(st->compiled));
	return rc;
}

static void
make_nonce(char *buf, size_t size)
{
	unsigned char raw[8];
	size_t got = 0;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno != EINTR)
			die_errno("getrandom");
		if (n > 0)
			got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw) && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
}

static int
boot_kernel(struct boot_run *r, const char *log_path, char *nonce, size_t nonce_size,
	    struct qemu_run *run)
{
	char *kernel = xstrfmt("%s/arch/x86/boot/bzImage", r->tree.build);
	char *cpio = xstrfmt("%s/initramfs.cpio", r->scratch);
	struct qemu_params p = { kernel, cpio, nonce, r->memory_mb, r->timeout, log_path,
				 r->tree.cache };
	int rc;

	make_nonce(nonce, nonce_size);
	rc = initramfs_make(r->tree.build, r->init_binary, cpio, r->scratch);
	if (!rc) {
		progress_stage("boot");
		rc = qemu_boot(&p, run);
		if (!rc && run->end != QEMU_INTERRUPTED)
			progress_done("%s, QEMU %s", run->accel,
				      run->end == QEMU_EXITED ? "exited" : "was stopped");
	}
	free(kernel);
	free(cpio);
	return rc;
}

/*
 * The base's own serial log for this config, booting it once if needed.
 * 1 and the log in `out`, 0 if it could not be had (said why), -1 interrupted.
 */
static int
base_boot_log(struct boot_run *r, struct strbuf *out, char **path_out)
{
	struct strbuf hash = STRBUF_INIT;
	char *dir = xstrfmt("%s/base", r->tree.dir), *path, *build_log;
	struct qemu_run run = QEMU_RUN_INIT;
	struct build_stats st = { 0, 0 };
	char nonce[17];
	int fd, rc, ret = 0;

	hash_hex(&hash, r->fragment.buf, r->fragment.len);
	path = xstrfmt("%s/%s-%.12s.log", dir, r->bc.oid.buf, hash.buf);
	build_log = xstrfmt("%s/%s-%.12s.build.log", dir, r->bc.oid.buf, hash.buf);
	*path_out = path;
	if (strbuf_read_file(out, path, 64 << 20) >= 0) {
		ret = 1;
		goto out;
	}
	if (mkdir_p(dir, 0)) {
		error_errno("cannot create '%s'", dir);
		goto out;
	}
	note("the console complained; booting the base %.12s alone once, to tell "
	     "pre-existing problems from new ones", r->bc.oid.buf);
	if (tree_reset(&r->tree, r->bc.oid.buf))
		goto out;
	r->applied = 0;
	fd = open_log(build_log);
	if (fd < 0)
		goto out;
	rc = build(r, r->bc.oid.buf, fd, &st);
	close(fd);
	if (rc < 0 && boot_interrupted) {
		ret = -1;
		goto out;
	}
	if (rc) {
		warning("the base does not build with this config (see '%s'); nothing to compare with",
			build_log);
		goto out;
	}
	if (boot_kernel(r, path, nonce, sizeof(nonce), &run))
		goto out;
	if (run.end == QEMU_INTERRUPTED) {
		unlink(path);
		ret = -1;
		goto out;
	}
	strbuf_addbuf(out, &run.log);
	ret = 1;
out:
	qemu_run_release(&run);
	strbuf_release(&hash);
	free(dir);
	free(build_log);
	return ret;
}

/* The chase's line for a symbol ("ok SYM ..." / "fail SYM ..."): what follows SYM, or NULL. */
static const char *
chased_line(const struct boot_run *r, const char *verdict, const char *sym)
{
	size_t vlen = strlen(verdict), slen = strlen(sym);

	for (size_t i = 0; i < r->chased.nr; i++) {
		const char *l = r->chased.v[i];

		if (!strncmp(l, verdict, vlen) && l[vlen] == ' ' && !strncmp(l + vlen + 1, sym, slen) &&
		    (l[vlen + 1 + slen] == ' ' || !l[vlen + 1 + slen]))
			return l + vlen + 1 + slen + (l[vlen + 1 + slen] ? 1 : 0);
	}
	return NULL;
}

/* "dir/x.c" -> "dir/x.o" */
static char *
object_of(const char *source)
{
	return xstrfmt("%.*s.o", (int)(strlen(source) - 2), source);
}

/* The objects the compile-test builds: touched .c files (all, or those not booted) and includers. */
static void
compile_objects(struct boot_run *r, const int *booted, struct strvec *objects)
{
	enum boot_compile mode = r->opts->compile ? r->opts->compile : BOOT_COMPILE_MISSING;

	if (mode == BOOT_COMPILE_NONE)
		return;
	for (size_t i = 0; i < r->touched.nr; i++) {
		const char *path = r->touched.v[i];
		char *source = NULL, *object;

		if (ends_with(path, ".c") && (mode == BOOT_COMPILE_ALL || !booted[i]))
			source = xstrdup(path);
		else if (ends_with(path, ".h") && !booted[i])
			source = kconfig_includer(r->tree.src, path);
		if (!source)
			continue;
		object = object_of(source);
		if (!strvec_contains(objects, object))
			strvec_push(objects, object);
		free(object);
		free(source);
	}
}

/* Why the compile-test did not build `path` (its own object, or nothing of it). */
static void
explain_not_compiled(struct boot_run *r, const struct compile_test *ct, const char *path,
		     struct strbuf *out)
{
	char *object = ends_with(path, ".c") ? object_of(path) : NULL;
	size_t olen = object ? strlen(object) : 0;

	for (size_t i = 0; object && i < ct->off.nr; i++) {
		const char *sym = ct->off.v[i] + olen + 1, *why;

		if (strncmp(ct->off.v[i], object, olen) || ct->off.v[i][olen] != '\t')
			continue;
		strbuf_addf(out, "CONFIG_%s is off even in allmodconfig", sym);
		why = chased_line(r, "fail", sym);
		if (why)
			strbuf_addf(out, ": %s", why);
		free(object);
		return;
	}
	if (object && strvec_contains(&ct->failed, object))
		strbuf_addf(out, "the compile-test FAILED; see %s", ct->log);
	else if (object && !strvec_contains(&ct->built, object))
		strbuf_addstr(out, "no compile-test (--compile-test=none)");
	else if (!object)
		strbuf_addstr(out, "no file khsend compiled includes it");
	else
		strbuf_addstr(out, "its object was built, but not from it");
	free(object);
}

/*
 * Boot coverage (the touched files the booted kernel was built from),
 * then the compile-test of the rest, and per file where it was compiled.
 * 0, with *compile_failed set when a compile-test object failed; -1.
 */
static int
coverage_and_compile(struct boot_run *r, int *compile_failed)
{
	struct compile_test ct = COMPILE_TEST_INIT;
	struct strbuf stamp = STRBUF_INIT, in = STRBUF_INIT, why = STRBUF_INIT;
	size_t nr = r->touched.nr, booted_nr = 0, compiled_nr = 0;
	int *booted, *compiled, ret = 0;

	*compile_failed = 0;
	if (!nr) {
		strbuf_addstr(&r->report, "  coverage: the series changes no .c or .h file\n");
		return 0;
	}
	booted = xcalloc(nr, sizeof(*booted));
	compiled = xcalloc(nr, sizeof(*compiled));
	if (coverage_mark(r->tree.src, r->tree.build, NULL, &r->touched, booted)) {
		strbuf_addstr(&r->report, "  coverage: unknown (the build's records could not be read)\n");
		goto out;
	}
	compile_objects(r, booted, &ct.objects);
	if (ct.objects.nr) {
		strbuf_addf(&in, "khsend compile v1\n%s\n%s\n",
			    r->kconfig_touched ? r->tip_tree.buf : r->bc.oid.buf, r->cc.buf);
		hash_hex(&stamp, in.buf, in.len);
		if (compile_test_run(&r->tree, stamp.buf, r->logs, &ct)) {
			ret = -1;
			goto out;
		}
		if (coverage_mark(r->tree.src, ct.build, &ct.built, &r->touched, compiled))
			strbuf_addstr(&r->report, "  compile-test: its records could not be read\n");
		*compile_failed = ct.failed.nr > 0;
		strbuf_addf(&r->report, "  compile-test: allmodconfig, %zu built, %zu failed, %zu off, "
			    "%.1f s (log: %s)\n", ct.built.nr, ct.failed.nr, ct.off.nr, ct.st.seconds,
			    ct.log);
	}
	for (size_t i = 0; i < nr; i++) {
		booted_nr += !!booted[i];
		compiled_nr += booted[i] || compiled[i];
	}
	if (!booted_nr)
		strbuf_addf(&r->report, "  coverage: NONE of the touched files is in the booted kernel; "
			    "the boot tests nothing the series changed; %zu of %zu compiled\n",
			    compiled_nr, nr);
	else
		strbuf_addf(&r->report, "  coverage: %zu of %zu touched files booted, %zu of %zu "
			    "compiled\n", booted_nr, nr, compiled_nr, nr);
	for (size_t i = 0; i < nr; i++) {
		if (booted[i]) {
			strbuf_addf(&r->report, "    booted:       %s\n", r->touched.v[i]);
		} else if (compiled[i]) {
			strbuf_addf(&r->report, "    compiled:     %s (compile-test only)\n",
				    r->touched.v[i]);
		} else {
			strbuf_reset(&why);
			explain_not_compiled(r, &ct, r->touched.v[i], &why);
			strbuf_addf(&r->report, "    not compiled: %s (%s)\n", r->touched.v[i], why.buf);
		}
	}
	if (ct.failed.nr) {
		struct strbuf excerpt = STRBUF_INIT;

		build_failure_excerpt(ct.log, &excerpt);
		sanitize_terminal(excerpt.buf);
		strbuf_addf(&r->report, "  compile-test log excerpt:\n%s", excerpt.buf);
		strbuf_release(&excerpt);
	}
out:
	free(booted);
	free(compiled);
	compile_test_release(&ct);
	strbuf_release(&stamp);
	strbuf_release(&in);
	strbuf_release(&why);
	return ret;
}

static void
report_config(struct boot_run *r)
{
	strbuf_addstr(&r->report, "  config: tinyconfig + data/boot.config");
	for (size_t i = 0; i < r->symbols.nr; i++)
		strbuf_addf(&r->report, " + CONFIG_%s=y", r->symbols.v[i]);
	strbuf_addch(&r->report, '\n');
	for (size_t i = 0; i < r->symbols.nr; i++) {
		const char *deps = chased_line(r, "ok", r->symbols.v[i]);

		if (!deps || !*deps)
			continue;
		strbuf_addf(&r->report, "    CONFIG_%s=y needs (and so got):", r->symbols.v[i]);
		for (const char *p = deps; *p;) {
			size_t len = strcspn(p, " ");

			strbuf_addf(&r->report, " CONFIG_%.*s=y", (int)len, p);
			p += len;
			while (*p == ' ')
				p++;
		}
		strbuf_addch(&r->report, '\n');
	}
	for (size_t i = 0; i < r->unmet.nr; i++) {
		const char *sym = r->unmet.v[i] + strlen("CONFIG_");
		char *name = xstrndup(sym, strcspn(sym, "="));
		const char *why = chased_line(r, "fail", name);

		if (why)
			strbuf_addf(&r->report, "    not enabled: %s (cannot be on x86_64 here: %s)\n",
				    r->unmet.v[i], why);
		else
			strbuf_addf(&r->report, "    not enabled: %s (its dependencies are not met here)\n",
				    r->unmet.v[i]);
		free(name);
	}
	for (size_t i = 0; i < r->no_rule.nr; i++)
		strbuf_addf(&r->report, "    no Makefile rule names %s (#included elsewhere, "
			    "or built by a rule khsend does not read)\n", r->no_rule.v[i]);
}

/* Judge the boot, booting the base for comparison when there is anything to compare. */
static int
judge(struct boot_run *r, struct qemu_run *run, const char *nonce, int compile_failed)
{
	struct verdict v = VERDICT_INIT;
	struct strbuf excerpt = STRBUF_INIT, base = STRBUF_INIT;
	char *base_path = NULL;
	const char *why = NULL;
	int ret, compared = 0;

	verdict_scan(&v, &run->log, nonce);
	if (v.nr) {
		int rc = base_boot_log(r, &base, &base_path);

		if (rc < 0) {
			ret = -1;
			goto out;
		}
		if (rc > 0) {
			verdict_compare_base(&v, &base);
			compared = 1;
		}
	}
	if (run->end == QEMU_TIMED_OUT)
		why = "timed out: no clean shutdown within the time limit";
	else if (run->end == QEMU_HALTED)
		why = "the kernel halted instead of restarting";
	else if (v.panicked && verdict_new_problems(&v))
		why = "kernel panic";
	else if (verdict_new_problems(&v))
		why = "the kernel complained on the console";
	else if (!v.marker)
		why = "init never ran (no marker on the console)";
	else if (compile_failed)
		why = "a touched file does not compile in the compile-test (allmodconfig)";
	else if (!v.shut_down || run->outcome != 0)
		why = "QEMU did not end with a clean shutdown";
	ret = why ? EXIT_FINDING : EXIT_CLEAN;
	if (!why)
		strbuf_addf(&r->report, "  verdict: PASS: init ran and the kernel shut down cleanly%s\n",
			    v.nr ? " (the console's complaints are all pre-existing)" : "");
	else
		strbuf_addf(&r->report, "  verdict: FAIL: %s\n", why);
	if (why) {
		verdict_excerpt(&v, &run->log, &excerpt);
		sanitize_terminal(excerpt.buf);
		strbuf_addf(&r->report, "  serial console excerpt:\n%s", excerpt.buf);
	}
	if (v.nr > verdict_new_problems(&v)) {
		strbuf_addf(&r->report, "  pre-existing (the base %.12s prints them too; not blamed on "
			    "the series):\n", r->bc.oid.buf);
		for (size_t i = 0; i < v.nr; i++)
			if (v.problems[i].preexisting)
				strbuf_addf(&r->report, "    %s\n", v.problems[i].text);
	}
	if (v.nr && !compared)
		strbuf_addstr(&r->report, "  (the base could not be booted for comparison; every "
			      "complaint counts)\n");
	if (base_path && compared)
		strbuf_addf(&r->report, "  base serial log: %s\n", base_path);
out:
	verdict_release(&v);
	strbuf_release(&excerpt);
	strbuf_release(&base);
	free(base_path);
	return ret;
}

static int
touched_files(struct boot_run *r)
{
	struct strbuf out = STRBUF_INIT;

	if (tree_git_capture(&r->tree, &out, "diff", "--name-only", "--no-renames",
			     "--diff-filter=d", r->bc.oid.buf, "HEAD", "--", NULL)) {
		strbuf_release(&out);
		return -1;
	}
	push_source_files(r, &out);
	strbuf_release(&out);
	return 0;
}

/* Print the report, keep it unless the verdict says more about this machine than the series. */
static void
finish_report(struct boot_run *r, int code, int cacheable)
{
	/* The console's lines are the guest's bytes: no terminal escapes get through. */
	sanitize_terminal(r->header.buf);
	sanitize_terminal(r->report.buf);
	fputs(r->header.buf, stdout);
	fputs(r->report.buf, stdout);
	fflush(stdout);
	if (cacheable)
		results_store(&r->tree, r->key.buf, r->report.buf, code);
}

static int
run_pipeline(struct boot_run *r)
{
	struct qemu_run run = QEMU_RUN_INIT;
	struct build_stats st = { 0, 0 };
	struct strbuf why = STRBUF_INIT, cached = STRBUF_INIT;
	struct strbuf desc = STRBUF_INIT;
	char nonce[17];
	int rc, code, ret = EXIT_ERROR, fd, compile_failed = 0;

	if (base_choose(&r->tree, r->opts->base, r->series, &r->bc))
		goto out;
	rc = base_apply(&r->tree, r->series, &r->mails, r->scratch, &r->bc, &why);
	r->applied = r->bc.applied;
	if (boot_interrupted)
		goto out;
	if (rc) {
		if (rc > 0)
			print_am_failure(r, &why);
		goto out;
	}
	/* The header says how this run found the tree and base: not kept with the verdict. */
	describe_tree(r, &desc);
	strbuf_addf(&r->header, "khsend boot: %s, base %.12s (%s)\n", desc.buf, r->bc.oid.buf,
		    r->bc.how);
	strbuf_addbuf(&r->header, &r->series_line);
	if (tree_git_capture(&r->tree, &r->tip, "rev-parse", "HEAD", NULL) ||
	    tree_git_capture(&r->tree, &r->tip_tree, "rev-parse", "HEAD^{tree}", NULL) ||
	    touched_files(r) || make_fragment(r))
		goto out;

	boot_params(r, &r->params);
	results_key(&r->key, r->tip_tree.buf, r->fragment.buf, r->params.buf);
	if (results_lookup(&r->tree, r->key.buf, &cached, &code)) {
		sanitize_terminal(r->header.buf);
		printf("%s  cached: this source (tree %.12s) was built and booted before with the same "
		       "config; not again\n%s", r->header.buf, r->tip_tree.buf, cached.buf);
		ret = code;
		goto out;
	}

	r->logs = xstrfmt("%s/logs/%s", r->tree.dir, r->key.buf);
	if (mkdir_p(r->logs, 0)) {
		error_errno("cannot create '%s'", r->logs);
		goto out;
	}
	r->build_log = xstrfmt("%s/build.log", r->logs);
	r->serial_log = xstrfmt("%s/serial.log", r->logs);
	r->fragment_path = xstrfmt("%s/fragment.config", r->logs);
	if (write_file_buf(r->fragment_path, r->fragment.buf, r->fragment.len))
		goto out;
	fd = open_log(r->build_log);
	if (fd < 0)
		goto out;
	rc = build(r, r->kconfig_touched ? r->tip_tree.buf : r->bc.oid.buf, fd, &st);
	close(fd);
	if (rc < 0)
		goto out;
	kconfig_unmet(r->tree.build, r->fragment_path, &r->unmet);
	report_config(r);
	if (rc > 0) {
		struct strbuf excerpt = STRBUF_INIT;

		build_failure_excerpt(r->build_log, &excerpt);
		sanitize_terminal(excerpt.buf);
		strbuf_addf(&r->report, "  build: FAILED (log: %s)\n  verdict: FAIL: the series does "
			    "not build\n  build log excerpt:\n%s", r->build_log, excerpt.buf);
		strbuf_release(&excerpt);
		finish_report(r, EXIT_FINDING, 1);
		ret = EXIT_FINDING;
		goto out;
	}
	if (coverage_and_compile(r, &compile_failed))
		goto out;
	strbuf_addf(&r->report, "  build: %u %s compiled in %.1f s (log: %s)\n", st.compiled,
		    files_word(st.compiled), st.seconds, r->build_log);
	if (boot_kernel(r, r->serial_log, nonce, sizeof(nonce), &run) ||
	    run.end == QEMU_INTERRUPTED)
		goto out;
	strbuf_addf(&r->report, "  boot: %s, %.1f s (serial log: %s)\n", run.accel, run.seconds,
		    r->serial_log);
	ret = judge(r, &run, nonce, compile_failed);
	if (ret < 0) {
		ret = EXIT_ERROR;
		goto out;
	}
	/* A timeout may be this machine's load, not the series: never answer it from the cache. */
	finish_report(r, ret, run.end != QEMU_TIMED_OUT);
out:
	qemu_run_release(&run);
	strbuf_release(&why);
	strbuf_release(&cached);
	strbuf_release(&desc);
	return ret;
}

static void
boot_run_release(struct boot_run *r)
{
	tree_release(&r->tree);
	base_choice_release(&r->bc);
	strbuf_release(&r->tip);
	strbuf_release(&r->tip_tree);
	strvec_clear(&r->mails);
	strvec_clear(&r->touched);
	strvec_clear(&r->chased);
	strbuf_release(&r->params);
	strbuf_release(&r->cc);
	strvec_clear(&r->symbols);
	strvec_clear(&r->no_rule);
	strvec_clear(&r->unmet);
	strbuf_release(&r->fragment);
	strbuf_release(&r->key);
	strbuf_release(&r->report);
	strbuf_release(&r->header);
	strbuf_release(&r->series_line);
	free(r->scratch);
	free(r->logs);
	free(r->build_log);
	free(r->serial_log);
	free(r->fragment_path);
	free(r->shipped_fragment);
	free(r->init_binary);
}

/*
 * --tree or khsend.tree; else the kernel checkout we are in (through a
 * private clone, never touched itself); else NULL, the default tree.
 */
static const char *
choose_tree(struct boot_run *r, char **owned)
{
	struct repo *repo;

	if (r->opts->tree) {
		r->tree_from = r->opts->tree_from ? r->opts->tree_from : "--tree";
		return r->opts->tree;
	}
	repo = repo_discover();
	if (repo && repo->worktree && is_kernel_tree(repo->worktree)) {
		*owned = xstrdup(repo->worktree);
		r->tree_from = "the repository you are in";
	}
	repo_free(repo);
	return *owned;
}

int
boot_series(const struct boot_options *opts, const struct series *series)
{
	struct boot_run r;
	struct strbuf cache = STRBUF_INIT;
	char *tree_path = NULL;
	int ret = EXIT_ERROR;

	memset(&r, 0, sizeof(r));
	r.opts = opts;
	r.tree = (struct boot_tree)BOOT_TREE_INIT;
	r.bc = (struct base_choice)BASE_CHOICE_INIT;
	r.series = series;
	strbuf_init(&r.tip, 0);
	strbuf_init(&r.tip_tree, 0);
	strbuf_init(&r.fragment, 0);
	strbuf_init(&r.key, 0);
	strbuf_init(&r.report, 0);
	strbuf_init(&r.header, 0);
	strbuf_init(&r.series_line, 0);
	strvec_init(&r.mails);
	strvec_init(&r.touched);
	strvec_init(&r.chased);
	strbuf_init(&r.params, 0);
	strbuf_init(&r.cc, 0);
	strvec_init(&r.symbols);
	strvec_init(&r.no_rule);
	strvec_init(&r.unmet);
	r.timeout = opts->timeout > 0 ? opts->timeout : BOOT_DEFAULT_TIMEOUT;
	r.memory_mb = opts->memory_mb > 0 ? opts->memory_mb : BOOT_DEFAULT_MEMORY_MB;
	r.init_binary = shipped_file(INSTALLED_LIBEXEC, "boot-init", "boot-init");
	r.scratch = make_temp_dir("khsend-boot");
	remove_at_exit(r.scratch);

	if (select_mails(&r, series))
		goto out;
	catch_signals();
	boot_cache_root(&cache);
	if (tree_open(&r.tree, cache.buf, choose_tree(&r, &tree_path)) == 0)
		ret = run_pipeline(&r);
	/* The work tree goes back to the base whatever happened, unless asked to keep it. */
	if (r.applied && r.bc.oid.len) {
		if (opts->keep && !boot_interrupted && r.tip.len) {
			if (!tree_reset(&r.tree, r.tip.buf))
				note("--keep: the series is left applied in '%s' (build: '%s')",
				     r.tree.src, r.tree.build);
		} else if (tree_reset(&r.tree, r.bc.oid.buf)) {
			warning("could not reset '%s' to the base", r.tree.src);
		}
	}
	/* Each run leaves its logs: the tree keeps the newest few (khsend.cacheKeep). */
	if (r.tree.lock_fd >= 0 && !boot_interrupted) {
		struct cache_prune p = { 0, 0, 0, 0, 1 };

		cache_prune_defaults(&p, NULL, NULL, NULL);
		if (p.keep < 1)
			p.keep = 1;	/* this run's logs, which the report names */
		cache_prune_runs(r.tree.dir, &p);
	}
	restore_signals();
	if (boot_interrupted) {
		boot_run_release(&r);
		strbuf_release(&cache);
		free(tree_path);
		die_of_signal();
	}
out:
	boot_run_release(&r);
	strbuf_release(&cache);
	free(tree_path);
	return ret;
}

int
boot_setup_default_tree(int force)
{
	struct boot_tree t = BOOT_TREE_INIT;
	struct strbuf cache = STRBUF_INIT;
	int ret = EXIT_ERROR;

	catch_signals();
	boot_cache_root(&cache);
	t.cache = xstrdup(cache.buf);
	t.dir = xstrfmt("%s/trees/default", cache.buf);
	t.src = xstrfmt("%s/src", t.dir);
	t.build = xstrfmt("%s/build", t.dir);
	/* tree_open() would set the tree up without --force; do its steps here with it. */
	if (mkdir_p(t.dir, 0))
		error_errno("cannot create '%s'", t.dir);
	else if (!tree_lock(&t) && !tree_setup_default(&t, force))
		ret = EXIT_CLEAN;
	restore_signals();
	tree_release(&t);
	strbuf_release(&cache);
	if (boot_interrupted)
		die_of_signal();
	return ret;
}
