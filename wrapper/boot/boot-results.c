// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-results: a verdict is a function of the source (the git tree id
 * of the series' tip), the config fragment it was built with (which, with
 * that tree, fixes the .config) and the boot parameters.  A v2 whose only
 * change is a commit message has the same tree, so it is answered from
 * here without a build or a boot.  Each entry is one file, written aside
 * and renamed into place, so a killed run never leaves half an answer.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/lg2.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
hash_hex(struct strbuf *out, const char *buf, size_t len)
{
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];

	/* libgit2's object hash is at hand and good enough for cache keys. */
	lg2_init();
	if (git_odb_hash(&oid, buf, len, GIT_OBJECT_BLOB) < 0)
		die("cannot hash a cache key");
	git_oid_tostr(hex, sizeof(hex), &oid);
	strbuf_reset(out);
	strbuf_addstr(out, hex);
}

void
results_key(struct strbuf *key, const char *tree_id, const char *fragment, const char *params)
{
	struct strbuf in = STRBUF_INIT;

	strbuf_addf(&in, "khsend boot result v2\ntree %s\nparams %s\nfragment\n%s", tree_id, params,
		    fragment);
	hash_hex(key, in.buf, in.len);
	strbuf_release(&in);
}

static char *
entry_path(const struct boot_tree *t, const char *key)
{
	return xstrfmt("%s/results/%s", t->dir, key);
}

int
results_lookup(const struct boot_tree *t, const char *key, struct strbuf *report, int *code)
{
	char *path = entry_path(t, key);
	struct strbuf sb = STRBUF_INIT;
	const char *rest;
	char *end;
	long n;
	int found = 0;

	if (strbuf_read_file(&sb, path, 16 << 20) >= 0 && skip_prefix(sb.buf, "exit ", &rest)) {
		n = strtol(rest, &end, 10);
		if (*end == '\n' && n >= 0 && n <= 2) {
			*code = (int)n;
			strbuf_addstr(report, end + 1);
			found = 1;
		}
	}
	strbuf_release(&sb);
	free(path);
	return found;
}

int
results_store(const struct boot_tree *t, const char *key, const char *report, int code)
{
	char *dir = xstrfmt("%s/results", t->dir);
	char *path = entry_path(t, key);
	char *tmp = xstrfmt("%s/.tmp-XXXXXX", dir);
	struct strbuf sb = STRBUF_INIT;
	int fd, rc = -1;

	if (mkdir_p(dir, 0)) {
		error_errno("cannot create '%s'", dir);
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		error_errno("cannot create a file in '%s'", dir);
		goto out;
	}
	close(fd);
	strbuf_addf(&sb, "exit %d\n%s", code, report);
	if (write_file_buf(tmp, sb.buf, sb.len) || rename(tmp, path)) {
		error_errno("cannot store the result in '%s'", path);
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	strbuf_release(&sb);
	free(dir);
	free(path);
	free(tmp);
	return rc;
}
