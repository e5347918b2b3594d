// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-compile: the compile-test.  The booted kernel is small, so most of
 * a driver series is never compiled by it.  Each touched .c file it lacks
 * is compiled on its own ("make dir/x.o", all of them in one make -k) in
 * a second build directory of the same private tree, compile/, which is
 * allmodconfig less what only slows each file down or turns this
 * compiler's warnings into errors (data/compile.config).  The directory
 * stays between runs: only what the series changed is compiled again.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* allmodconfig with the shipped KCONFIG_ALLCONFIG, unless the stamp says it is done. */
static int
configure(const struct boot_tree *t, const char *build, const char *stamp, int log_fd)
{
	char *stamp_path = xstrfmt("%s/.khsend-config", build);
	char *allconfig = shipped_file(INSTALLED_DATA, "compile.config", "../data/compile.config");
	char *env_allconfig = xstrfmt("KCONFIG_ALLCONFIG=%s", allconfig);
	const char *targets[] = { "allmodconfig", NULL };
	const char *env[] = { env_allconfig, NULL };
	struct make_job job = { build, targets, env, 0, log_fd, "compile-test config" };
	struct strbuf have = STRBUF_INIT, want = STRBUF_INIT;
	int rc = 0;

	/* The caller's stamp (base, compiler) and the shipped fragment as it is now. */
	strbuf_addf(&want, "%s\n", stamp);
	if (strbuf_read_file(&want, allconfig, 1 << 20) < 0) {
		rc = error_errno("cannot read '%s'", allconfig);
		goto out;
	}
	if (strbuf_read_file(&have, stamp_path, 0) >= 0 && !strcmp(have.buf, want.buf) &&
	    kconfig_state(build, "64BIT") == 2)
		goto out;
	unlink(stamp_path);
	progress_stage("compile-test config");
	rc = run_make_in(t, &job, NULL);
	if (!rc && write_file_buf(stamp_path, want.buf, want.len))
		rc = -1;
	if (!rc)
		progress_done("allmodconfig + data/compile.config");
out:
	strbuf_release(&have);
	strbuf_release(&want);
	free(stamp_path);
	free(allconfig);
	free(env_allconfig);
	return rc;
}

/* The first symbol that builds dir/x.c which this config leaves off, or NULL. */
static char *
off_symbol(const char *src, const char *build, const char *object)
{
	struct strvec syms = STRVEC_INIT;
	char *source = xstrfmt("%.*s.c", (int)(strlen(object) - 2), object), *off = NULL;

	if (kconfig_symbols_for(src, source, &syms))
		for (size_t i = 0; i < syms.nr && !off; i++)
			if (kconfig_state(build, syms.v[i]) == 0)
				off = xstrdup(syms.v[i]);
	strvec_clear(&syms);
	free(source);
	return off;
}

/* dir/x.o and dir/.x.o.cmd: so that what is there after make, make built now. */
static void
remove_object(const char *build, const char *object)
{
	const char *slash = strrchr(object, '/');
	char *path = xstrfmt("%s/%s", build, object);
	char *cmd = slash ? xstrfmt("%s/%.*s/.%s.cmd", build, (int)(slash - object), object, slash + 1)
			  : xstrfmt("%s/.%s.cmd", build, object);

	unlink(path);
	unlink(cmd);
	free(path);
	free(cmd);
}

int
compile_test_run(const struct boot_tree *t, const char *stamp, const char *log_dir,
		 struct compile_test *ct)
{
	struct strvec targets = STRVEC_INIT;
	int fd, rc;

	ct->build = xstrfmt("%s/compile", t->dir);
	ct->log = xstrfmt("%s/compile-test.log", log_dir);
	if (mkdir_p(ct->build, 0))
		return error_errno("cannot create '%s'", ct->build);
	fd = open(ct->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_errno("cannot create the log '%s'", ct->log);
	rc = configure(t, ct->build, stamp, fd);
	if (rc) {
		close(fd);
		if (rc > 0 && !boot_interrupted)
			error("the compile-test's allmodconfig failed (see '%s')", ct->log);
		return -1;
	}
	for (size_t i = 0; i < ct->objects.nr; i++) {
		char *off = off_symbol(t->src, ct->build, ct->objects.v[i]);

		if (off) {
			strvec_pushf(&ct->off, "%s\t%s", ct->objects.v[i], off);
			free(off);
			continue;
		}
		remove_object(ct->build, ct->objects.v[i]);
		strvec_push(&targets, ct->objects.v[i]);
	}
	if (targets.nr) {
		struct make_job job = { ct->build, targets.v, NULL, 1, fd, "compile-test" };

		progress_stage("compile-test");
		rc = run_make_in(t, &job, &ct->st);
		if (rc >= 0)
			progress_done("%zu %s, %u compiled", targets.nr,
				      targets.nr == 1 ? "object" : "objects", ct->st.compiled);
	}
	close(fd);
	for (size_t i = 0; rc >= 0 && i < targets.nr; i++) {
		char *path = xstrfmt("%s/%s", ct->build, targets.v[i]);

		strvec_push(file_exists(path) ? &ct->built : &ct->failed, targets.v[i]);
		free(path);
	}
	strvec_clear(&targets);
	return rc < 0 ? -1 : 0;
}

void
compile_test_release(struct compile_test *ct)
{
	strvec_clear(&ct->objects);
	strvec_clear(&ct->built);
	strvec_clear(&ct->failed);
	strvec_clear(&ct->off);
	free(ct->log);
	free(ct->build);
	ct->log = ct->build = NULL;
}
