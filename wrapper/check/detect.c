#define _GNU_SOURCE
/* detect: collect occurrences per entry, pair them off, report what is left. */
#include "check/detect.h"
#include "lib/lg2.h"
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

size_t
detector_remember(struct detector *d, const struct message *msg)
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
				add_occurrence(d, entries[i], detector_remember(d, msg), old_path, new_path,
					       &b->del[k], k < b->nadd ? b->add[k].text : NULL, c - kept, 1);
			if (a > kept)
				add_occurrence(d, entries[i], detector_remember(d, msg), new_path, new_path,
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
scan_patch(struct detector *d, const struct message *msg, const struct patch_file *f, git_patch *patch,
	   const size_t *entries, size_t nentries)
{
	/* git apply's names; a deleted file has no new path worth keying on: use its old one. */
	const char *old_path = f->old_path ? f->old_path : f->new_path;
	const char *new_path = f->new_path ? f->new_path : f->old_path;
	struct block b = { 0 };

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

/* The name a file had before the series renamed it (itself if it was never renamed). */
static const char *
original_name(const struct detector *d, const char *path)
{
	for (size_t i = d->renamed_to.nr; i-- > 0;)
		if (!strcmp(d->renamed_to.v[i], path))
			return d->renamed_from.v[i];
	return path;
}

int
detector_covers(const struct detector *d, const struct policy_entry *e, const struct patch_file *f)
{
	const char *names[] = { f->old_path, f->new_path, f->old_p0, f->new_p0 };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (names[i] && (policy_entry_covers(e, names[i]) ||
				 policy_entry_covers(e, original_name(d, names[i]))))
			return 1;
	return 0;
}

void
detector_add_rename(struct detector *d, const char *from, const char *to)
{
	strvec_push(&d->renamed_from, original_name(d, from));
	strvec_push(&d->renamed_to, to);
}

static void
remember_renames(struct detector *d, const struct message *msg)
{
	for (size_t i = 0; i < msg->files_nr; i++) {
		const struct patch_file *f = &msg->files[i];

		if (!f->renamed || !strcmp(f->old_path, f->new_path))
			continue;
		detector_add_rename(d, f->old_path, f->new_path);
	}
}

int
detector_add(struct detector *d, const struct message *msg, const unsigned char *candidates)
{
	size_t *covering = xcalloc(d->policy->nr ? d->policy->nr : 1, sizeof(*covering));
	int ret = 0;

	if (!msg->diff_read)
		BUG("detector_add() on '%s' before its diff was read", msg->name);
	for (size_t i = 0; i < msg->files_nr && !ret; i++) {
		const struct patch_file *f = &msg->files[i];
		git_patch *patch = NULL;
		size_t ncover = 0;
		int rc;

		for (size_t k = 0; k < d->policy->nr; k++)
			if (candidates[k] && detector_covers(d, d->policy->v[k], f))
				covering[ncover++] = k;
		if (!ncover || f->binary)
			continue;
		rc = git_patch_from_diff(&patch, msg->diff, f->delta);
		if (rc < 0) {
			ret = lg2_error(rc, "cannot read the lines of a file in", msg->name);
			break;
		}
		if (patch)
			scan_patch(d, msg, f, patch, covering, ncover);
		git_patch_free(patch);
	}
	remember_renames(d, msg);
	free(covering);
	return ret;
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

static void
add_finding(struct detector *d, const struct policy_entry *entry, size_t msg, const char *file, int line,
	    const char *removed, const char *added)
{
	const struct seen_message *m = d->msgs[msg];
	struct finding *f;

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
	f->file = xstrdup(file);
	f->line = line;
	f->removed = xstrdup(removed);
	f->added = added ? xstrdup(added) : NULL;
}

static void
sort_findings(struct detector *d)
{
	if (d->nr)	/* qsort() may not be given NULL, even for no elements */
		qsort(d->findings, d->nr, sizeof(*d->findings), cmp_findings);
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
		for (size_t i = 0; i < n; i++)
			if (occ[i].removed && occ[i].left)
				add_finding(d, d->policy->v[e], occ[i].msg, occ[i].path, occ[i].line, occ[i].text,
					    occ[i].partner);
	}
	sort_findings(d);
}

void
detector_add_finding(struct detector *d, const struct policy_entry *e, size_t msg, const char *file,
		     const char *text)
{
	add_finding(d, e, msg, file, 0, text, NULL);
	sort_findings(d);
}

void
detector_add_series_finding(struct detector *d, const struct policy_entry *e, const char *file, const char *text)
{
	struct seen_message *m = xcalloc(1, sizeof(*m));

	m->index = 0;
	m->name = xstrdup("the series");
	m->subject = xstrdup("");
	ALLOC_GROW(d->msgs, d->msgs_nr + 1, d->msgs_alloc);
	d->msgs[d->msgs_nr++] = m;
	add_finding(d, e, d->msgs_nr - 1, file, 0, text, NULL);
	sort_findings(d);
}

void
detector_drop_entry(struct detector *d, const struct policy_entry *e)
{
	size_t out = 0;

	for (size_t i = 0; i < d->nr; i++) {
		if (d->findings[i].entry == e) {
			free(d->findings[i].file);
			free(d->findings[i].removed);
			free(d->findings[i].added);
			continue;
		}
		d->findings[out++] = d->findings[i];
	}
	d->nr = out;
}

int
detector_has_entry(const struct detector *d, const struct policy_entry *e)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->findings[i].entry == e)
			return 1;
	return 0;
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
