// SPDX-License-Identifier: GPL-2.0-only
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
#include "lib/i18n.h"
#include "lib/lg2.h"
#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/strvec.h"
#include "lib/usage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	for (size_t i = 0; v && i < nr; i++)
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
 * "git apply --numstat -z -p<n> [-R]" of the patch text: "<added>\t<removed>\t<path>\0"
 * per file; "-\t-\t" for a binary file.  Returns 0, or -1 (git's complaint in `err`).
 */
static int
run_numstat(const struct strbuf *patch, const char *scratch, int strip, int reverse, struct numstat **out,
	    size_t *nr, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf res = STRBUF_INIT;
	size_t alloc = 0;
	const char *p, *end;
	int rc, ret = -1;

	*out = NULL;
	*nr = 0;
	strvec_pushl(&cp.args, "git", "apply", "--numstat", "-z", "--allow-empty", NULL);
	strvec_pushf(&cp.args, "-p%d", strip);
	if (reverse)
		strvec_push(&cp.args, "-R");
	/* Read as patches on their own, never against a repository git might find. */
	strvec_pushl(&cp.env, "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", NULL);
	strvec_pushf(&cp.env, "GIT_CEILING_DIRECTORIES=%s", scratch);
	cp.dir = scratch;
	rc = pipe_command(&cp, patch->buf, patch->len, &res, err);
	if (rc) {
		char why[64];

		strbuf_trim(err);
		describe_outcome(rc, why, sizeof(why));
		strbuf_insert(err, 0, ": ", 2);
		strbuf_insert(err, 0, why, strlen(why));
		goto out;
	}
	for (p = res.buf, end = res.buf + res.len; p < end;) {
		struct numstat n = { NULL, 0, 0, 0 };

		if (parse_count(&p, end, &n.added, &n.binary) || parse_count(&p, end, &n.removed, &n.binary) ||
		    !(n.name = take_name(&p, end))) {
			strbuf_reset(err);
			strbuf_addstr(err, "cannot make sense of what 'git apply --numstat' says");
			numstat_clear(*out, *nr);
			*out = NULL;
			*nr = 0;
			goto out;
		}
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = n;
	}
	ret = 0;
out:
	strbuf_release(&res);
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
		return error(_("the patch in '%s' holds a NUL byte; khsend cannot read it as git does"), msg->name);
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
		error(_("cannot read the patch in '%s': '%.*s' is repeated in one file's header"),
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
	return error(_("khsend reads the patch in '%s' differently from git apply (%s), so it cannot "
		       "vouch for what it would change; it refuses to pass it"), msg->name, what);
}

/* The four readings: -p1 and -p0, forward (new names) and reverse (old names). */
enum { P1, P1_REVERSE, P0, P0_REVERSE, READINGS };

/* One message's part of the readings: where its files start in each, and how many there are. */
struct reading {
	struct numstat *ns[READINGS];
	size_t nr[READINGS];
};

/*
 * Hold libgit2's lines against git's reading of one message's `n` files
 * (their new names in fwd[], their old ones in rev[], both in the
 * patch's order; rev NULL: no renames, the old names are the new ones)
 * and fill msg->files; -1 (reported) if they disagree.
 */
static int
assign_files(struct message *msg, const struct numstat *fwd1, const struct numstat *rev1,
	     const struct numstat *fwd0, const struct numstat *rev0, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(msg->diff, i);
		const struct numstat *fwd = &fwd1[i], *rev = rev1 ? &rev1[i] : fwd;
		int binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
		int created = d->status == GIT_DELTA_ADDED, deleted = d->status == GIT_DELTA_DELETED;
		int moved = d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED;
		size_t adds = 0, dels = 0;
		char what[256];
		struct patch_file *f;

		if (!binary) {
			git_patch *patch = NULL;
			int rc = git_patch_from_diff(&patch, msg->diff, i);

			if (rc < 0)
				return lg2_error(rc, "cannot read the lines of a file in", msg->name);
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
		if (*what)
			return disagree(msg, what);
		ALLOC_GROW(msg->files, msg->files_nr + 1, msg->files_alloc);
		f = &msg->files[msg->files_nr++];
		memset(f, 0, sizeof(*f));
		f->created = (unsigned)created;
		f->deleted = (unsigned)deleted;
		f->renamed = d->status == GIT_DELTA_RENAMED;
		f->copied = d->status == GIT_DELTA_COPIED;
		f->old_path = created ? NULL : xstrdup(rev->name);
		f->new_path = deleted ? NULL : xstrdup(fwd->name);
		f->old_p0 = created || !rev0 ? NULL : xstrdup(rev0[i].name);
		f->new_p0 = deleted || !fwd0 ? NULL : xstrdup(fwd0[i].name);
		f->added = fwd->added;
		f->removed = fwd->removed;
		f->binary = (unsigned)binary;
		f->delta = i;
	}
	msg->diff_read = 1;
	return 0;
}

/*
 * One reading of the patches, given to git as one text (one process for
 * them all; a patch's files are read the same wherever it stands, its
 * end being made a line end), split per message by libgit2's count of
 * files (want[]); -R lists all the files last first.  0, or -1 if git
 * cannot read them, or counts another number of files (`err` says why).
 */
static int
split_reading(struct numstat *ns, size_t nr, size_t nmsg, const size_t *want, int r, struct reading *per,
	      struct strbuf *err)
{
	size_t total = 0, at = 0;
	int reverse = r == P1_REVERSE || r == P0_REVERSE;

	for (size_t k = 0; k < nmsg; k++)
		total += want[k];
	if (nr != total) {
		strbuf_addf(err, "git sees %zu %s in it, khsend %zu", nr, nr == 1 ? "file" : "files", total);
		numstat_clear(ns, nr);
		return -1;
	}
	for (size_t k = 0; k < nmsg; k++) {
		per[k].ns[r] = xcalloc(want[k] ? want[k] : 1, sizeof(*ns));
		per[k].nr[r] = want[k];
		for (size_t i = 0; i < want[k]; i++)
			per[k].ns[r][i] = ns[reverse ? total - 1 - (at + i) : at + i];
		at += want[k];
	}
	free(ns);	/* the names now belong to per[] */
	return 0;
}

static int
read_split(const struct strbuf *text, size_t nmsg, const size_t *want, const char *scratch, int r,
	   struct reading *per, struct strbuf *err)
{
	struct numstat *ns;
	size_t nr;

	if (run_numstat(text, scratch, r < P0 ? 1 : 0, r == P1_REVERSE || r == P0_REVERSE, &ns, &nr, err))
		return -1;
	return split_reading(ns, nr, nmsg, want, r, per, err);
}

static void
reading_clear(struct reading *r)
{
	for (int k = 0; k < READINGS; k++) {
		numstat_clear(r->ns[k], r->nr[k]);
		r->ns[k] = NULL;
		r->nr[k] = 0;
	}
}

/* git reads a rename or a copy only from these lines of a file's header. */
static int
may_rename(const struct strbuf *patch)
{
	return has_line(patch->buf, "rename from ") || has_line(patch->buf, "rename old ") ||
	       has_line(patch->buf, "copy from ");
}

/*
 * Could a -p0 reading name a file differently from "a/<path>"?  Only if
 * some header line does not use git's a/ and b/ prefixes (a diff.noprefix
 * patch, a plain diff -u, a removed line that looks like a header).
 */
static int
may_lack_prefixes(const struct strbuf *patch)
{
	for (const char *p = patch->buf; *p;) {
		if ((starts_with(p, "diff --git ") && !starts_with(p, "diff --git a/")) ||
		    (starts_with(p, "--- ") && !starts_with(p, "--- a/") && !starts_with(p, "--- /dev/null")) ||
		    (starts_with(p, "+++ ") && !starts_with(p, "+++ b/") && !starts_with(p, "+++ /dev/null")))
			return 1;
		p = strchrnul(p, '\n');
		if (*p)
			p++;
	}
	return 0;
}

int
messages_read_diff(struct message **msgs, size_t n, const char *scratch)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct reading *per = xcalloc(n ? n : 1, sizeof(*per));
	size_t *want = xcalloc(n ? n : 1, sizeof(*want)), *which = xcalloc(n ? n : 1, sizeof(*which));
	size_t nfiles = 0, nr = 0;
	struct numstat *first = NULL;
	int ret = -1, reverse = 0, p0 = 0;

	for (size_t k = 0; k < n; k++) {
		struct message *msg = msgs[k];

		if (msg->diff_read)
			continue;
		message_clear_diff(msg);
		if (message_decode(msg, scratch))
			goto out;
		strbuf_addbuf(&text, &msg->patch);
		if (text.len && text.buf[text.len - 1] != '\n')
			strbuf_addch(&text, '\n');
		which[nfiles++] = k;
		/* The other readings only when they can tell something new. */
		reverse |= may_rename(&msg->patch);
		p0 |= may_lack_prefixes(&msg->patch);
	}
	if (!nfiles) {
		ret = 0;
		goto out;
	}
	/* git's reading first: what git cannot read is refused with git's reason. */
	if (run_numstat(&text, scratch, 1, 0, &first, &nr, &err)) {
		if (nfiles > 1)
			goto one_by_one;
		error(_("git apply cannot read the patch in '%s' (it %s), so git am would not apply it either; "
		        "khsend does not check what git cannot read"), msgs[which[0]]->name, err.buf);
		goto out;
	}
	for (size_t k = 0; k < nfiles; k++) {
		struct message *msg = msgs[which[k]];

		if (patch_read_lines(msg, &msg->diff))
			goto out;
		want[k] = msg->diff ? git_diff_num_deltas(msg->diff) : 0;
	}
	if (split_reading(first, nr, nfiles, want, P1, per, &err) ||
	    (reverse && read_split(&text, nfiles, want, scratch, P1_REVERSE, per, &err))) {
		first = NULL;
		if (nfiles > 1)
			goto one_by_one;
		disagree(msgs[which[0]], err.buf);
		goto out;
	}
	first = NULL;
	/*
	 * -p0 is only a second reading: git cannot read a/x b/x headers that
	 * way (binary or mode-only changes), and then it was no
	 * diff.noprefix patch.  One such patch must not cost the others theirs.
	 */
	strbuf_reset(&err);
	if (p0 && (read_split(&text, nfiles, want, scratch, P0, per, &err) ||
		   (reverse && read_split(&text, nfiles, want, scratch, P0_REVERSE, per, &err)))) {
		for (size_t k = 0; k < nfiles; k++) {
			for (int r = P0; r <= P0_REVERSE; r++) {
				numstat_clear(per[k].ns[r], per[k].nr[r]);
				per[k].ns[r] = NULL;
				per[k].nr[r] = 0;
			}
			if (nfiles > 1 && !read_split(&msgs[which[k]]->patch, 1, &want[k], scratch, P0, &per[k], &err) &&
			    reverse)
				read_split(&msgs[which[k]]->patch, 1, &want[k], scratch, P0_REVERSE, &per[k], &err);
		}
	}
	for (size_t k = 0; k < nfiles; k++) {
		struct reading *r = &per[k];

		if (!r->ns[P0] || (reverse && !r->ns[P0_REVERSE])) {
			for (int i = P0; i <= P0_REVERSE; i++) {
				numstat_clear(r->ns[i], r->nr[i]);
				r->ns[i] = NULL;
				r->nr[i] = 0;
			}
		}
		/* Without a rename or copy, every file's old name is its new one. */
		if (assign_files(msgs[which[k]], r->ns[P1], reverse ? r->ns[P1_REVERSE] : NULL, r->ns[P0],
				 reverse ? r->ns[P0_REVERSE] : r->ns[P0], want[k])) {
			message_clear_diff(msgs[which[k]]);
			goto out;
		}
	}
	ret = 0;
	goto out;
one_by_one:
	/* Someone's patch upset git, or the count: read them one by one, to say whose. */
	ret = 0;
	for (size_t k = 0; k < nfiles && !ret; k++)
		ret = messages_read_diff(&msgs[which[k]], 1, scratch);
out:
	numstat_clear(first, nr);
	for (size_t k = 0; k < n; k++)
		reading_clear(&per[k]);
	strbuf_release(&text);
	strbuf_release(&err);
	free(per);
	free(want);
	free(which);
	return ret;
}

int
message_read_diff(struct message *msg, const char *scratch)
{
	return messages_read_diff(&msg, 1, scratch);
}
