// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-coverage: a smoke test says little about code it never compiled.
 * A touched file counts as booted when an object linked into vmlinux was
 * compiled from it: kbuild's .<obj>.o.cmd files list each object's
 * source and every file it #included (kernel/sched/topology.c, for one,
 * is compiled only inside kernel/sched/build_utility.o; a header, inside
 * every file that includes it), and the linked objects are the members of
 * vmlinux.a and the lib.a archives.  Stale .cmd files from an earlier
 * config are harmless: only linked objects are looked at.  The
 * compile-test's objects are read the same way.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/usage.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "a/b/../c" -> "a/c", "./" dropped; for comparing paths lexically. */
static char *
normalize_path(const char *path)
{
	char *copy = xstrdup(path), *save = NULL;
	const char **parts = NULL;
	size_t nr = 0, alloc = 0;
	struct strbuf out = STRBUF_INIT;

	for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			if (nr)
				nr--;
			continue;
		}
		ALLOC_GROW(parts, nr + 1, alloc);
		parts[nr++] = part;
	}
	for (size_t i = 0; i < nr; i++) {
		strbuf_addch(&out, '/');
		strbuf_addstr(&out, parts[i]);
	}
	free(parts);
	free(copy);
	return strbuf_detach(&out, NULL);
}

/* The members of a thin archive, as paths relative to the build directory. */
static int
archive_members(const char *build, const char *archive, struct strvec *members)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	char *path = xstrfmt("%s/%s", build, archive);
	int rc = 0;

	if (access(path, R_OK)) {
		free(path);
		return 0;
	}
	strvec_pushl(&cp.args, "ar", "t", path, NULL);
	strvec_push(&cp.env, "LC_ALL=C");
	cp.dir = build;
	if (capture_command(&cp, &out)) {
		rc = error("cannot list the members of '%s'", path);
	} else {
		for (char *p = out.buf; *p;) {
			char *nl = strchrnul(p, '\n');

			if (nl > p)
				strvec_push_nodup(members, xstrndup(p, (size_t)(nl - p)));
			p = *nl ? nl + 1 : nl;
		}
	}
	strbuf_release(&out);
	free(path);
	return rc;
}

/* Mark in `hit` each touched file (normalized full paths) that this .cmd file names. */
static void
scan_cmd_file(const char *build_real, const char *cmd_path, char **want, size_t nr, int *hit)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, cmd_path, 64 << 20) < 0) {
		strbuf_release(&sb);
		return;
	}
	for (char *p = sb.buf; *p;) {
		char *nl = strchrnul(p, '\n'), *tok = p, *end = nl, *full;
		const char *src;

		p = *nl ? nl + 1 : nl;
		/* "source_x.o := path", or "  path \" inside the deps_ list */
		if (skip_prefix(tok, "source_", &src)) {
			const char *eq = strstr(src, ":= ");

			if (!eq)
				continue;
			tok = (char *)eq + 3;
		}
		while (*tok == ' ' || *tok == '\t')
			tok++;
		while (end > tok && (end[-1] == ' ' || end[-1] == '\\' || end[-1] == '\t'))
			end--;
		if (end - tok < 3 || memchr(tok, ' ', (size_t)(end - tok)) ||
		    !(end[-2] == '.' && (end[-1] == 'c' || end[-1] == 'S' || end[-1] == 'h')))
			continue;
		*end = '\0';
		if (tok[0] == '/') {
			full = normalize_path(tok);
		} else {
			char *joined = xstrfmt("%s/%s", build_real, tok);

			full = normalize_path(joined);
			free(joined);
		}
		for (size_t i = 0; i < nr; i++)
			if (!strcmp(full, want[i]))
				hit[i] = 1;
		free(full);
	}
	strbuf_release(&sb);
}

int
coverage_mark(const char *src, const char *build, const struct strvec *objects,
	      const struct strvec *touched, int *hit)
{
	static const char *const archives[] = { "vmlinux.a", "lib/lib.a", "arch/x86/lib/lib.a", NULL };
	struct strvec members = STRVEC_INIT;
	char src_real[PATH_MAX], build_real[PATH_MAX];
	char **want;
	int rc = 0;

	if (!touched->nr)
		return 0;
	if (!realpath(src, src_real) || !realpath(build, build_real))
		return error_errno("cannot resolve '%s'", build);
	if (objects)
		strvec_pushv(&members, objects->v);
	for (size_t i = 0; !objects && archives[i] && !rc; i++)
		rc = archive_members(build_real, archives[i], &members);
	if (rc) {
		strvec_clear(&members);
		return -1;
	}
	want = xcalloc(touched->nr, sizeof(*want));
	for (size_t i = 0; i < touched->nr; i++) {
		char *full = xstrfmt("%s/%s", src_real, touched->v[i]);

		want[i] = normalize_path(full);
		free(full);
	}
	for (size_t m = 0; m < members.nr; m++) {
		/* ar prints members as the archive names them: absolute for an absolute archive. */
		char *obj = members.v[m][0] == '/' ? xstrdup(members.v[m])
						   : xstrfmt("%s/%s", build_real, members.v[m]);
		char *slash = strrchr(obj, '/'), *cmd;

		if (ends_with(obj, ".o")) {
			/* dir/x.o -> dir/.x.o.cmd */
			*slash = '\0';
			cmd = xstrfmt("%s/.%s.cmd", obj, slash + 1);
			scan_cmd_file(build_real, cmd, want, touched->nr, hit);
			free(cmd);
		}
		free(obj);
	}
	for (size_t i = 0; i < touched->nr; i++)
		free(want[i]);
	free(want);
	strvec_clear(&members);
	return 0;
}
