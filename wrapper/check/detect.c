#define _GNU_SOURCE
/* detect: collect occurrences per entry, pair them off, report what is left. */
#include "check/detect.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <stdlib.h>
#include <string.h>

/* What we keep of a message that had an occurrence; the message itself is gone by then. */
struct seen_message {
	size_t index;
	char *name, *subject, *commit, *file;
};

struct occurrence {
	size_t msg;		/* into d->msgs */
	char *path;		/* old path for removals, new path for additions */
	char *key;		/* the file's new path: renames pair up */
	int line;
	char *text;
	char *partner;		/* removals: the added line in the same place, if any */
	size_t left;		/* occurrences not balanced yet */
	unsigned removed:1;
};

struct diff_line {
	char *text;
	int lineno;
};

void
detector_init(struct detector *d, const struct policy *policy, const struct strvec *allow)
{
	memset(d, 0, sizeof(*d));
	strvec_init(&d->renamed_to);
	strvec_init(&d->renamed_from);
	d->policy = policy;
	d->allow = allow;
	d->occ = xcalloc(policy->nr, sizeof(*d->occ));
	d->occ_nr = xcalloc(policy->nr, sizeof(*d->occ_nr));
	d->occ_alloc = xcalloc(policy->nr, sizeof(*d->occ_alloc));
}

static size_t
remember_message(struct detector *d, const struct message *msg)
{
	struct seen_message *m;

	if (d->msgs_nr && d->msgs[d->msgs_nr - 1]->index == msg->index)
		return d->msgs_nr - 1;
	m = xcalloc(1, sizeof(*m));
	m->index = msg->index;
	m->name = xstrdup(msg->name);
	m->subject = xstrdup(msg->subject ? msg->subject : "");
	m->commit = msg->commit ? xstrdup(msg->commit) : NULL;
	m->file = msg->file ? xstrdup(msg->file) : NULL;
	ALLOC_GROW(d->msgs, d->msgs_nr + 1, d->msgs_alloc);
	d->msgs[d->msgs_nr] = m;
	return d->msgs_nr++;
}

static void
add_occurrence(struct detector *d, size_t entry, size_t msg, const char *path, const char *key,
	       const struct diff_line *line, const char *partner, size_t left, int removed)
{
	struct occurrence *o;

	ALLOC_GROW(d->occ[entry], d->occ_nr[entry] + 1, d->occ_alloc[entry]);
	o = &d->occ[entry][d->occ_nr[entry]++];
	o->msg = msg;
	o->path = xstrdup(path);
	o->key = xstrdup(key);
	o->line = line->lineno;
	o->text = xstrdup(line->text);
	o->partner = partner ? xstrdup(partner) : NULL;
	o->left = left;
	o->removed = (unsigned)removed;
}

struct block {
	struct diff_line *del, *add;
	size_t ndel, nadd, adel, aadd;
};

/*
 * One run of removed lines and the added lines after it.  The k-th removed
 * line is paired with the k-th added one, so that an edit which keeps the
 * string on its line balances at once; anything else is left for later.
 */
static void
settle_block(struct detector *d, const struct message *msg, const char *old_path,
	     const char *new_path, const size_t *entries, size_t nentries, struct block *b)
{
	size_t n = b->ndel > b->nadd ? b->ndel : b->nadd;

	for (size_t i = 0; i < nentries; i++) {
		const struct policy_entry *e = d->policy->v[entries[i]];

		for (size_t k = 0; k < n; k++) {
			size_t c = k < b->ndel ? policy_entry_count(e, b->del[k].text) : 0;
			size_t a = k < b->nadd ? policy_entry_count(e, b->add[k].text) : 0;
			size_t kept = c < a ? c : a;

			if (c > kept)
				add_occurrence(d, entries[i], remember_message(d, msg), old_path, new_path,
					       &b->del[k], k < b->nadd ? b->add[k].text : NULL, c - kept, 1);
			if (a > kept)
				add_occurrence(d, entries[i], remember_message(d, msg), new_path, new_path,
					       &b->add[k], NULL, a - kept, 0);
		}
	}
	for (size_t k = 0; k < b->ndel; k++)
		free(b->del[k].text);
	for (size_t k = 0; k < b->nadd; k++)
		free(b->add[k].text);
	b->ndel = b->nadd = 0;
}

static void
push_line(struct diff_line **v, size_t *nr, size_t *alloc, const git_diff_line *l, int lineno)
{
	size_t len = l->content_len;

	while (len && (l->content[len - 1] == '\n' || l->content[len - 1] == '\r'))
		len--;
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[*nr].text = xstrndup(l->content, len);
	(*v)[*nr].lineno = lineno;
	(*nr)++;
}

static int
scan_patch(struct detector *d, const struct message *msg, git_patch *patch,
	   const size_t *entries, size_t nentries)
{
	const git_diff_delta *delta = git_patch_get_delta(patch);
	const char *old_path = delta->old_file.path, *new_path = delta->new_file.path;
	struct block b = { 0 };

	/* A deleted file has no new path worth keying on: use its old one. */
	if (delta->status == GIT_DELTA_DELETED)
		new_path = old_path;
	for (size_t h = 0; h < git_patch_num_hunks(patch); h++) {
		int nlines = git_patch_num_lines_in_hunk(patch, h);

		for (int i = 0; i < nlines; i++) {
			const git_diff_line *l;

			if (git_patch_get_line_in_hunk(&l, patch, h, (size_t)i) < 0)
				continue;
			if (l->origin == GIT_DIFF_LINE_DELETION) {
				if (b.nadd)
					settle_block(d, msg, old_path, new_path, entries, nentries, &b);
				push_line(&b.del, &b.ndel, &b.adel, l, l->old_lineno);
			} else if (l->origin == GIT_DIFF_LINE_ADDITION) {
				push_line(&b.add, &b.nadd, &b.aadd, l, l->new_lineno);
			} else if (l->origin == GIT_DIFF_LINE_CONTEXT) {
				settle_block(d, msg, old_path, new_path, entries, nentries, &b);
			}
		}
		settle_block(d, msg, old_path, new_path, entries, nentries, &b);
	}
	free(b.del);
	free(b.add);
	return 0;
}

static int delta_covered(const struct detector *d, const struct policy_entry *e,
			 const git_diff_delta *delta);
static const char *original_name(const struct detector *d, const char *path);
static void remember_renames(struct detector *d, git_diff *diff);

/*
 * The text of the patch's "+" and "-" lines, without the sign: the only
 * place an alteration can be.  NULs become newlines so that the C string
 * searches below see everything.
 */
static void
changed_lines(const struct strbuf *patch, struct strbuf *out)
{
	const char *p = patch->buf, *end = patch->buf + patch->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t linelen = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (linelen > 1 && (*p == '+' || *p == '-')) {
			size_t at = out->len;

			strbuf_add(out, p + 1, linelen - 1);
			strbuf_addch(out, '\n');
			for (size_t i = at; i < out->len; i++)
				if (!out->buf[i])
					out->buf[i] = '\n';
		}
		p += linelen + 1;
	}
}

/*
 * The files named by "diff --git a/P b/P" lines.  Returns -1 when a header
 * has any other shape (a rename, a quoted name) or there is none (a plain
 * diff -u): then nobody is ruled out.
 */
static int
touched_paths(const struct strbuf *patch, struct strvec *out)
{
	const char *p = patch->buf;

	if (strstr(p, "\nrename from ") || strstr(p, "\ncopy from "))
		return -1;
	while ((p = strstr(p, "diff --git "))) {
		const char *line = p + 11, *nl = strchrnul(line, '\n');
		size_t n = (size_t)(nl - line), half;

		if (p != patch->buf && p[-1] != '\n') {
			p = line;
			continue;
		}
		half = (n - 1) / 2;
		if (n < 7 || n % 2 == 0 || line[half] != ' ' || strncmp(line, "a/", 2) ||
		    strncmp(line + half + 1, "b/", 2) || memcmp(line + 2, line + half + 3, half - 2) ||
		    memchr(line, '"', n))
			return -1;
		strvec_push_nodup(out, xstrndup(line + 2, half - 2));
		p = nl;
	}
	return out->nr ? 0 : -1;	/* no git headers: a plain diff, names unknown */
}

static int
covers_any(const struct detector *d, const struct policy_entry *e, const struct strvec *paths)
{
	for (size_t i = 0; i < paths->nr; i++)
		if (policy_entry_covers(e, paths->v[i]) || policy_entry_covers(e, original_name(d, paths->v[i])))
			return 1;
	return 0;
}

int
detector_add(struct detector *d, struct message *msg)
{
	size_t *candidates, ncand = 0, *covering;
	struct strbuf changed = STRBUF_INIT;
	struct strvec paths = STRVEC_INIT;
	int paths_known = 0;
	git_diff *diff;
	int ret = 0;

	d->messages++;
	candidates = xcalloc(d->policy->nr ? d->policy->nr : 1, sizeof(*candidates));
	covering = xcalloc(d->policy->nr ? d->policy->nr : 1, sizeof(*covering));
	/*
	 * Cheap filters first: an entry whose files the patch does not touch,
	 * or whose string is in none of its changed lines, cannot be altered
	 * by it.  Only a rename still matters then, for the patches after it.
	 */
	if (!msg->diff_parsed) {
		changed_lines(&msg->patch, &changed);
		paths_known = !touched_paths(&msg->patch, &paths);
	}
	for (size_t i = 0; i < d->policy->nr; i++) {
		const struct policy_entry *e = d->policy->v[i];

		if (msg->diff_parsed ||
		    ((!paths_known || covers_any(d, e, &paths)) && policy_entry_occurs_in(e, changed.buf, changed.len)))
			candidates[ncand++] = i;
	}
	if (!msg->diff_parsed && !ncand && !strstr(msg->patch.buf, "\nrename from ")) {
		if (strstr(msg->patch.buf, "\n@@ -") || starts_with(msg->patch.buf, "@@ -"))
			d->patches++;
		goto out;
	}
	if (message_diff(msg, &diff)) {
		ret = -1;
		goto out;
	}
	if (!diff)
		goto out;
	d->patches++;
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *delta = git_diff_get_delta(diff, i);
		size_t ncover = 0;
		git_patch *patch = NULL;
		int rc;

		if (delta->flags & GIT_DIFF_FLAG_BINARY)
			continue;
		for (size_t k = 0; k < ncand; k++) {
			const struct policy_entry *e = d->policy->v[candidates[k]];

			if (delta_covered(d, e, delta))
				covering[ncover++] = candidates[k];
		}
		if (!ncover)
			continue;
		rc = git_patch_from_diff(&patch, diff, i);
		if (rc < 0) {
			ret = error("cannot read the diff of '%s' in '%s'", delta->new_file.path, msg->name);
			break;
		}
		if (patch)
			scan_patch(d, msg, patch, covering, ncover);
		git_patch_free(patch);
	}
	remember_renames(d, diff);
out:
	strbuf_release(&changed);
	strvec_clear(&paths);
	free(candidates);
	free(covering);
	return ret;
}

/* The name a file had before the series renamed it (itself if it was never renamed). */
static const char *
original_name(const struct detector *d, const char *path)
{
	for (size_t i = d->renamed_to.nr; i-- > 0;)
		if (!strcmp(d->renamed_to.v[i], path))
			return d->renamed_from.v[i];
	return path;
}

/* An entry covers a file under its old, new or pre-series name. */
static int
delta_covered(const struct detector *d, const struct policy_entry *e, const git_diff_delta *delta)
{
	return policy_entry_covers(e, delta->old_file.path) ||
	       policy_entry_covers(e, delta->new_file.path) ||
	       policy_entry_covers(e, original_name(d, delta->old_file.path));
}

static void
remember_renames(struct detector *d, git_diff *diff)
{
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *delta = git_diff_get_delta(diff, i);

		if (delta->status != GIT_DELTA_RENAMED || !strcmp(delta->old_file.path, delta->new_file.path))
			continue;
		strvec_push(&d->renamed_from, original_name(d, delta->old_file.path));
		strvec_push(&d->renamed_to, delta->new_file.path);
	}
}

enum pairing { SAME_MESSAGE_AND_FILE, SAME_FILE, ANYWHERE };

static int
may_pair(const struct occurrence *r, const struct occurrence *a, enum pairing how)
{
	switch (how) {
	case SAME_MESSAGE_AND_FILE:
		return r->msg == a->msg && !strcmp(r->key, a->key);
	case SAME_FILE:
		return !strcmp(r->key, a->key);
	case ANYWHERE:
		return 1;
	}
	return 0;
}

static int
allowed(const struct detector *d, const struct policy_entry *e)
{
	return d->allow && e->allow_override && strvec_contains(d->allow, e->id);
}

static int
cmp_findings(const void *x, const void *y)
{
	const struct finding *a = x, *b = y;
	int c;

	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if ((c = strcmp(a->file, b->file)))
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

void
detector_finish(struct detector *d)
{
	for (size_t e = 0; e < d->policy->nr; e++) {
		struct occurrence *occ = d->occ[e];
		size_t n = d->occ_nr[e];

		/* Balance leftovers: nearest first, so a move within a patch pairs with itself. */
		for (int how = SAME_MESSAGE_AND_FILE; how <= ANYWHERE; how++)
			for (size_t i = 0; i < n; i++) {
				if (!occ[i].removed)
					continue;
				for (size_t j = 0; j < n && occ[i].left; j++) {
					size_t t;

					if (occ[j].removed || !occ[j].left || !may_pair(&occ[i], &occ[j], how))
						continue;
					t = occ[i].left < occ[j].left ? occ[i].left : occ[j].left;
					occ[i].left -= t;
					occ[j].left -= t;
				}
			}
		for (size_t i = 0; i < n; i++) {
			const struct policy_entry *entry = d->policy->v[e];
			const struct seen_message *m = d->msgs[occ[i].msg];
			struct finding *f;

			if (!occ[i].removed || !occ[i].left)
				continue;
			ALLOC_GROW(d->findings, d->nr + 1, d->alloc);
			f = &d->findings[d->nr++];
			memset(f, 0, sizeof(*f));
			f->entry = entry;
			f->allowed = (unsigned)allowed(d, entry);
			f->action = f->allowed ? POLICY_ANNOTATE : entry->action;
			f->index = m->index;
			f->patch = m->name;
			f->subject = m->subject;
			f->commit = m->commit;
			f->msgfile = m->file;
			f->file = xstrdup(occ[i].path);
			f->line = occ[i].line;
			f->removed = xstrdup(occ[i].text);
			f->added = occ[i].partner ? xstrdup(occ[i].partner) : NULL;
		}
	}
	if (d->nr)	/* qsort() may not be given NULL, even for no elements */
		qsort(d->findings, d->nr, sizeof(*d->findings), cmp_findings);
}

int
detector_blocked(const struct detector *d)
{
	return detector_count(d, POLICY_BLOCK) > 0;
}

size_t
detector_count(const struct detector *d, enum policy_action action)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr; i++)
		n += d->findings[i].action == action;
	return n;
}

void
detector_release(struct detector *d)
{
	for (size_t e = 0; e < d->policy->nr; e++) {
		for (size_t i = 0; i < d->occ_nr[e]; i++) {
			free(d->occ[e][i].path);
			free(d->occ[e][i].key);
			free(d->occ[e][i].text);
			free(d->occ[e][i].partner);
		}
		free(d->occ[e]);
	}
	free(d->occ);
	free(d->occ_nr);
	free(d->occ_alloc);
	for (size_t i = 0; i < d->msgs_nr; i++) {
		free(d->msgs[i]->name);
		free(d->msgs[i]->subject);
		free(d->msgs[i]->commit);
		free(d->msgs[i]->file);
		free(d->msgs[i]);
	}
	free(d->msgs);
	for (size_t i = 0; i < d->nr; i++) {
		free(d->findings[i].file);
		free(d->findings[i].removed);
		free(d->findings[i].added);
	}
	free(d->findings);
	strvec_clear(&d->renamed_to);
	strvec_clear(&d->renamed_from);
	memset(d, 0, sizeof(*d));
}
