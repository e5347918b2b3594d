/*
 * patch: the files a patch changes, the way git apply reads them, and
 * their lines, the way libgit2 reads them, used only when the two agree.
 *
 * git apply knows things no other reader does: which lines make a file
 * header, how "a/kernel//sched/x.c", a C-quoted name or a name with a
 * timestamp after it is cut down to a path, where a "diff --git" section
 * ends and a plain "diff -u" one starts.  So the names, the number of
 * files and, per file, the lines it adds and removes and whether it is
 * binary come from "git apply --numstat -z" (once with -p1, as git am
 * applies it, and once with -p0, for a diff.noprefix patch a maintainer
 * might apply with -p0).  libgit2's parse gives the lines themselves; if
 * it finds other files or other counts than git, khsend cannot vouch for
 * its reading and refuses the patch.
 */
#define _GNU_SOURCE
#include "series/message.h"
#include "lib/lg2.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/strvec.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * One file of "git apply --numstat": git apply names a file by its new
 * name (its old one if it is deleted), or, with -R, by its old name
 * (its new one if it is created) -- and then lists the files last first.
 */
struct numstat {
	char *name;
	unsigned long added, removed;
	int binary;
};

static void
numstat_clear(struct numstat *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
}

static int
parse_count(const char **p, const char *end, unsigned long *out, int *binary)
{
	char *stop;

	if (*p < end && **p == '-') {
		*binary = 1;
		*out = 0;
		(*p)++;
	} else {
		errno = 0;
		*out = strtoul(*p, &stop, 10);
		if (errno || stop == *p)
			return -1;
		*p = stop;
	}
	if (*p >= end || **p != '\t')
		return -1;
	(*p)++;
	return 0;
}

static char *
take_name(const char **p, const char *end)
{
	const char *nul = memchr(*p, '\0', (size_t)(end - *p));
	char *name;

	if (!nul)
		return NULL;
	name = xstrndup(*p, (size_t)(nul - *p));
	*p = nul + 1;
	return name;
}

/*
 * "git apply --numstat -z -p<n> [-R]" of the patch: "<added>\t<removed>\t<path>\0"
 * per file; "-\t-\t" for a binary file.  Returns 0, or -1 with git's own complaint.
 */
static int
run_numstat(const struct message *msg, const char *scratch, int strip, int reverse, int quiet,
	    struct numstat **out, size_t *nr)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf res = STRBUF_INIT, err = STRBUF_INIT;
	size_t alloc = 0;
	const char *p, *end;
	int rc, ret = -1;

	*out = NULL;
	*nr = 0;
	strvec_pushl(&cp.args, "git", "apply", "--numstat", "-z", "--allow-empty", NULL);
	strvec_pushf(&cp.args, "-p%d", strip);
	if (reverse)
		strvec_push(&cp.args, "-R");
	/* Read as a patch on its own, never against a repository git might find. */
	strvec_pushl(&cp.env, "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", NULL);
	strvec_pushf(&cp.env, "GIT_CEILING_DIRECTORIES=%s", scratch);
	cp.dir = scratch;
	rc = pipe_command(&cp, msg->patch.buf, msg->patch.len, &res, &err);
	if (rc && quiet) {
		goto out;
	} else if (rc) {
		char why[64];

		strbuf_trim(&err);
		error("git apply cannot read the patch in '%s' (it %s%s%s), so git am would not apply it "
		      "either; khsend does not check what git cannot read", msg->name,
		      describe_outcome(rc, why, sizeof(why)), err.len ? ": " : "", err.buf);
		goto out;
	}
	for (p = res.buf, end = res.buf + res.len; p < end;) {
		struct numstat n = { NULL, 0, 0, 0 };

		if (parse_count(&p, end, &n.added, &n.binary) || parse_count(&p, end, &n.removed, &n.binary))
			goto bad;
		if (!(n.name = take_name(&p, end)))
			goto bad;
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = n;
	}
	ret = 0;
	goto out;
bad:
	error("cannot make sense of what 'git apply --numstat' says about '%s'", msg->name);
	numstat_clear(*out, *nr);
	*out = NULL;
	*nr = 0;
out:
	strbuf_release(&res);
	strbuf_release(&err);
	return ret;
}

static int
has_line(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = text; *p;) {
		if (!strncmp(p, prefix, n))
			return 1;
		p = strchrnul(p, '\n');
		if (*p)
			p++;
	}
	return 0;
}

/*
 * libgit2 parses only git's own diff format: give each file of a plain
 * unified diff a "diff --git" header.  The names are placeholders, as git
 * apply's names are the ones used; only the hunks matter here.
 */
static void
plain_diff_to_git(const char *text, struct strbuf *out)
{
	const char *p = text;
	size_t n = 0;

	while (*p) {
		const char *nl = strchrnul(p, '\n'), *next = *nl ? nl + 1 : nl;
		const char *nl2 = strchrnul(next, '\n'), *after = *nl2 ? nl2 + 1 : nl2;

		if (starts_with(p, "--- ") && starts_with(next, "+++ ") && starts_with(after, "@@ -")) {
			int created = starts_with(p + 4, "/dev/null") && strchr("\t\n \r", p[13]);
			int deleted = starts_with(next + 4, "/dev/null") && strchr("\t\n \r", next[13]);

			n++;
			strbuf_addf(out, "diff --git a/f%zu b/f%zu\n", n, n);
			if (created)
				strbuf_addstr(out, "new file mode 100644\n");
			if (deleted)
				strbuf_addstr(out, "deleted file mode 100644\n");
			strbuf_addf(out, created ? "--- /dev/null\n" : "--- a/f%zu\n", n);
			strbuf_addf(out, deleted ? "+++ /dev/null\n" : "+++ b/f%zu\n", n);
			p = after;
			continue;
		}
		strbuf_add(out, p, (size_t)(next - p));
		p = next;
	}
}

/*
 * A file's header with "rename from" (or to, or copy from/to) twice: git
 * apply takes the last one, but libgit2 1.5 keeps the first and leaks the
 * second (patch_parse.c, parse_header_rename).  No git writes such a
 * header, so refuse it rather than guess.  Returns the repeated line.
 */
static const char *
repeated_rename_header(const char *text)
{
	static const char *const names[] = { "rename from ", "rename to ", "copy from ", "copy to " };
	unsigned seen = 0;
	int in_header = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchrnul(p, '\n');

		if (starts_with(p, "diff --git ")) {
			in_header = 1;
			seen = 0;
		} else if (starts_with(p, "--- ") || starts_with(p, "@@ ") ||
			   starts_with(p, "Binary files ") || starts_with(p, "GIT binary patch")) {
			in_header = 0;
		} else if (in_header) {
			for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
				if (!starts_with(p, names[i]))
					continue;
				if (seen & (1u << i))
					return p;
				seen |= 1u << i;
			}
		}
		p = *nl ? nl + 1 : nl;
	}
	return NULL;
}

int
patch_read_lines(struct message *msg, git_diff **out)
{
	struct strbuf converted = STRBUF_INIT;
	const char *text = msg->patch.buf, *repeated;
	size_t len = msg->patch.len;
	int rc;

	*out = NULL;
	if (memchr(text, '\0', len))
		return error("the patch in '%s' holds a NUL byte; khsend cannot read it as git does", msg->name);
	if (!has_line(text, "diff --git ")) {
		plain_diff_to_git(text, &converted);
		text = converted.buf;
		len = converted.len;
	}
	if (!has_line(text, "diff --git ")) {
		strbuf_release(&converted);
		return 0;
	}
	if ((repeated = repeated_rename_header(text))) {
		error("cannot read the patch in '%s': '%.*s' is repeated in one file's header",
		      msg->name, (int)(strchrnul(repeated, '\n') - repeated), repeated);
		strbuf_release(&converted);
		return -1;
	}
	lg2_init();
	rc = git_diff_from_buffer(out, text, len);
	strbuf_release(&converted);
	if (rc < 0) {
		*out = NULL;
		return lg2_error(rc, "cannot read the patch in", msg->name);
	}
	return 0;
}

static int
disagree(const struct message *msg, const char *what)
{
	return error("khsend reads the patch in '%s' differently from git apply (%s), so it cannot "
		     "vouch for what it would change; it refuses to pass it", msg->name, what);
}

/* The four readings: -p1 and -p0, forward (new names) and reverse (old names). */
enum { P1, P1_REVERSE, P0, P0_REVERSE, READINGS };

int
message_read_diff(struct message *msg, const char *scratch)
{
	struct numstat *ns[READINGS] = { NULL };
	size_t nr[READINGS] = { 0 }, n, ndeltas;
	int ret = -1;

	if (msg->diff_read)
		return 0;
	if (message_decode(msg, scratch))
		return -1;
	message_clear_diff(msg);
	if (run_numstat(msg, scratch, 1, 0, 0, &ns[P1], &nr[P1]) ||
	    run_numstat(msg, scratch, 1, 1, 0, &ns[P1_REVERSE], &nr[P1_REVERSE]))
		goto out;
	n = nr[P1];
	/*
	 * -p0 is only a second reading: git cannot read a/x b/x headers that
	 * way (binary or mode-only changes), and then it was no diff.noprefix patch.
	 */
	if (run_numstat(msg, scratch, 0, 0, 1, &ns[P0], &nr[P0]) ||
	    run_numstat(msg, scratch, 0, 1, 1, &ns[P0_REVERSE], &nr[P0_REVERSE]) ||
	    nr[P0] != n || nr[P0_REVERSE] != n) {
		numstat_clear(ns[P0], nr[P0]);
		numstat_clear(ns[P0_REVERSE], nr[P0_REVERSE]);
		ns[P0] = ns[P0_REVERSE] = NULL;
		nr[P0] = nr[P0_REVERSE] = 0;
	}
	if (nr[P1_REVERSE] != n) {
		disagree(msg, "git apply sees a different number of files with -R");
		goto out;
	}
	if (patch_read_lines(msg, &msg->diff))
		goto out;
	ndeltas = msg->diff ? git_diff_num_deltas(msg->diff) : 0;
	if (ndeltas != n) {
		char what[96];

		snprintf(what, sizeof(what), "git sees %zu %s in it, khsend %zu", n, n == 1 ? "file" : "files",
			 ndeltas);
		disagree(msg, what);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(msg->diff, i);
		/* With -R, git apply lists the files in the opposite order. */
		const struct numstat *fwd = &ns[P1][i], *rev = &ns[P1_REVERSE][n - 1 - i];
		int binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
		int created = d->status == GIT_DELTA_ADDED, deleted = d->status == GIT_DELTA_DELETED;
		int moved = d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED;
		size_t adds = 0, dels = 0;
		char what[256];
		struct patch_file *f;

		if (!binary) {
			git_patch *patch = NULL;
			int rc = git_patch_from_diff(&patch, msg->diff, i);

			if (rc < 0) {
				lg2_error(rc, "cannot read the lines of a file in", msg->name);
				goto out;
			}
			if (patch)
				git_patch_line_stats(NULL, &adds, &dels, patch);
			git_patch_free(patch);
		}
		*what = '\0';
		if (binary != fwd->binary)
			snprintf(what, sizeof(what), "file %zu, %s: git sees %s, khsend %s", i + 1, fwd->name,
				 fwd->binary ? "a binary change" : "a text change",
				 binary ? "a binary change" : "a text change");
		else if (!binary && (adds != fwd->added || dels != fwd->removed))
			snprintf(what, sizeof(what), "file %zu, %s: git sees %lu added and %lu removed lines, "
				 "khsend %zu and %zu", i + 1, fwd->name, fwd->added, fwd->removed, adds, dels);
		else if (!created && !deleted && moved != (strcmp(fwd->name, rev->name) != 0))
			snprintf(what, sizeof(what), "file %zu: git sees %s to %s, khsend %s", i + 1, rev->name,
				 fwd->name, moved ? "a rename or copy" : "one name");
		if (*what) {
			disagree(msg, what);
			goto out;
		}
		ALLOC_GROW(msg->files, msg->files_nr + 1, msg->files_alloc);
		f = &msg->files[msg->files_nr++];
		memset(f, 0, sizeof(*f));
		f->created = (unsigned)created;
		f->deleted = (unsigned)deleted;
		f->renamed = d->status == GIT_DELTA_RENAMED;
		f->copied = d->status == GIT_DELTA_COPIED;
		f->old_path = created ? NULL : xstrdup(rev->name);
		f->new_path = deleted ? NULL : xstrdup(fwd->name);
		f->old_p0 = created || !ns[P0_REVERSE] ? NULL : xstrdup(ns[P0_REVERSE][n - 1 - i].name);
		f->new_p0 = deleted || !ns[P0] ? NULL : xstrdup(ns[P0][i].name);
		f->added = fwd->added;
		f->removed = fwd->removed;
		f->binary = (unsigned)binary;
		f->delta = i;
	}
	msg->diff_read = 1;
	ret = 0;
out:
	if (ret)
		message_clear_diff(msg);
	for (int r = 0; r < READINGS; r++)
		numstat_clear(ns[r], nr[r]);
	return ret;
}
