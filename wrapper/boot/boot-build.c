// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-build: make in the private tree, out of tree (O=) in the
 * persistent build directory, so the next run recompiles only what the
 * series changed; ccache (when installed) keeps even a fresh build
 * directory cheap.  make's output goes to the log, and kbuild's "  CC
 * file" lines feed the progress line.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct make_progress {
	const char *stage;
	unsigned compiled;
	char last[160];
};

static int
make_line(const char *line, void *data)
{
	struct make_progress *mp = data;
	const char *file;

	if (skip_prefix(line, "  CC      ", &file)) {
		mp->compiled++;
		snprintf(mp->last, sizeof(mp->last), "%s", file);
	}
	return 0;
}

static void
make_tick(void *data)
{
	struct make_progress *mp = data;

	if (mp->stage && mp->compiled)
		progress_update("%u %s compiled%s%s", mp->compiled, files_word(mp->compiled),
				*mp->last ? ", now " : "", mp->last);
	else if (mp->stage)
		progress_update("make is running");
}

/* The environment make gets: ours, less whatever would steer kbuild elsewhere. */
static void
make_env(struct child_process *cp, const char *cache)
{
	strvec_pushl(&cp->env, "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS",
		     "KBUILD_OUTPUT", "KBUILD_EXTMOD", "KBUILD_VERBOSE", "KCONFIG_CONFIG",
		     "KCONFIG_ALLCONFIG", "KCFLAGS", "KCPPFLAGS", "KAFLAGS", "ARCH", "SRCARCH",
		     "CROSS_COMPILE", "LLVM", "CC", "LD", "O", "V", "W", "C", "M", "GIT_DIR",
		     "GIT_WORK_TREE", NULL);
	/* The same inputs give the same objects: no dates or host names in the build. */
	strvec_pushl(&cp->env, "LC_ALL=C", "KBUILD_BUILD_USER=khsend", "KBUILD_BUILD_HOST=khsend",
		     "KBUILD_BUILD_VERSION=1",
		     "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970", NULL);
	/* One ccache for every tree; paths under the cache become relative, so trees share hits. */
	strvec_pushf(&cp->env, "CCACHE_DIR=%s/ccache", cache);
	strvec_pushf(&cp->env, "CCACHE_BASEDIR=%s", cache);
	/* kbuild asks for -MMD anyway: on a miss, no extra preprocessor run (the cold build). */
	strvec_push(&cp->env, "CCACHE_DEPEND=1");
}

static int
have_ccache(void)
{
	static int have = -1;

	if (have < 0) {
		char *path = locate_in_path("ccache", getenv("PATH"));

		have = path != NULL;
		free(path);
	}
	return have;
}

int
run_make_in(const struct boot_tree *t, const struct make_job *job, struct build_stats *st)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct make_progress mp = { job->stage, 0, "" };
	struct watch w = { job->log_fd, NULL, -1, make_line, make_tick, &mp };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double start = monotonic_seconds();
	enum watch_end end;
	int outcome;

	strvec_pushl(&cp.args, "make", "-C", t->src, NULL);
	strvec_pushf(&cp.args, "O=%s", job->build ? job->build : t->build);
	strvec_pushf(&cp.args, "-j%ld", ncpu > 0 ? ncpu : 1);
	if (job->keep_going)
		strvec_push(&cp.args, "-k");
	strvec_push(&cp.args, "ARCH=x86_64");
	if (have_ccache()) {
		strvec_push(&cp.args, "CC=ccache gcc");
		/*
		 * CCACHE_BASEDIR turns the source paths relative ("../src/init/main.c"),
		 * which kbuild's own -fmacro-prefix-map no longer strips from __FILE__:
		 * strip that prefix too, so WARNING lines name "init/main.c".
		 */
		strvec_push(&cp.args, "KCFLAGS=-fmacro-prefix-map=../src/=");
	}
	strvec_pushv(&cp.args, job->targets);
	make_env(&cp, t->cache);
	if (job->env)
		strvec_pushv(&cp.env, job->env);
	end = watch_command(&cp, &w, &outcome);
	if (st) {
		st->compiled += mp.compiled;
		st->seconds += monotonic_seconds() - start;
	}
	if (end != WATCH_EXITED)
		return -1;
	return outcome ? 1 : 0;
}

int
run_make(const struct boot_tree *t, const char *target, int log_fd, const char *stage,
	 struct build_stats *st)
{
	const char *targets[] = { target, NULL };
	struct make_job job = { NULL, targets, NULL, 0, log_fd, stage };

	return run_make_in(t, &job, st);
}

void
build_failure_excerpt(const char *log_path, struct strbuf *out)
{
	struct strbuf log = STRBUF_INIT;
	const char **lines = NULL;
	size_t nr = 0, alloc = 0, first = (size_t)-1, from, to;

	if (strbuf_read_file(&log, log_path, 64 << 20) < 0) {
		strbuf_release(&log);
		return;
	}
	for (char *p = log.buf; *p;) {
		char *nl = strchrnul(p, '\n');
		int more = *nl != '\0';

		*nl = '\0';
		ALLOC_GROW(lines, nr + 1, alloc);
		lines[nr++] = p;
		p = more ? nl + 1 : nl;
	}
	/* The compiler's first error says more than make's "Error 1" after it. */
	for (size_t i = 0; i < nr && first == (size_t)-1; i++)
		if (strstr(lines[i], "error:") || strstr(lines[i], "Error:"))
			first = i;
	for (size_t i = 0; i < nr && first == (size_t)-1; i++)
		if (strstr(lines[i], "***"))
			first = i;
	if (first == (size_t)-1)
		first = nr > 20 ? nr - 20 : 0;
	from = first > 3 ? first - 3 : 0;
	to = first + 25 < nr ? first + 25 : nr;
	for (size_t i = from; i < to; i++)
		strbuf_addf(out, "    %s\n", lines[i]);
	free(lines);
	strbuf_release(&log);
}
