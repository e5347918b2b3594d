// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
/* detect: collect occurrences per entry, pair them off, report what is left. */
#include "check/detect.h"
#include "policy/matcher.h"
#include "check/matches.h"
#include "lib/lg2.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <stdint.h>
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
	char *matched;		/* the text the entry matched */
	unsigned left:1;	/* not balanced yet */
	unsigned removed:1;
};

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

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
	       const struct diff_line *line, const char *partner, const char *matched, int removed)
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
	o->matched = xstrdup(matched);
	o->left = 1;
	o->removed = (unsigned)removed;
}

struct block {
	struct diff_line *del, *add;
	size_t ndel, nadd, adel, aadd;
	/* The unchanged lines around the run, if any: a joke may span into them. */
	struct diff_line before, after;
};

/*
 * One run of removed lines and the added lines after it.  Occurrences of
 * the same text pair off at once, wherever they are in the run (an edit
 * that keeps the string, a re-wrapped comment); a case-only change of a
 * protected string is an alteration unless the entry says otherwise.  What
 * is left is kept for pairing across the series (a moved line).
 */
/* One side of a block as lines to search: the context before, the run, the context after. */
static size_t
side_lines(const struct block *b, const struct diff_line *run, size_t n, const char **text,
	   const struct diff_line **line)
{
	size_t k = 0;

	if (b->before.text) {
		line[k] = &b->before;
		text[k++] = b->before.text;
	}
	for (size_t i = 0; i < n; i++) {
		line[k] = &run[i];
		text[k++] = run[i].text;
	}
	if (b->after.text) {
		line[k] = &b->after;
		text[k++] = b->after.text;
	}
	return k;
}

static void
settle_block(struct detector *d, const struct message *msg, const char *old_path,
	     const char *new_path, const size_t *entries, size_t nentries, struct block *b)
{
	const char **del = xcalloc(b->ndel + 2, sizeof(*del)), **add = xcalloc(b->nadd + 2, sizeof(*add));
	const struct diff_line **del_line = xcalloc(b->ndel + 2, sizeof(*del_line));
	const struct diff_line **add_line = xcalloc(b->nadd + 2, sizeof(*add_line));
	size_t ndel = side_lines(b, b->del, b->ndel, del, del_line);
	size_t nadd = side_lines(b, b->add, b->nadd, add, add_line);
	size_t first_del = b->before.text ? 1 : 0;
	struct matches_text del_text, add_text;
	unsigned char *hits = NULL;

	/* A patch of a whole tree holds every literal somewhere; a run holds a few. */
	if (d->matcher && nentries > 1 && (b->ndel || b->nadd)) {
		hits = xcalloc(d->policy->nr ? d->policy->nr : 1, 1);
		for (size_t k = 0; k < ndel; k++)
			matcher_scan(d->matcher, del[k], strlen(del[k]), hits);
		for (size_t k = 0; k < nadd; k++)
			matcher_scan(d->matcher, add[k], strlen(add[k]), hits);
	}
	matches_text_init(&del_text, del, ndel);
	matches_text_init(&add_text, add, nadd);
	for (size_t i = 0; (b->ndel || b->nadd) && i < nentries; i++) {
		const struct policy_entry *e = d->policy->v[entries[i]];
		struct matches gone = MATCHES_INIT, came = MATCHES_INIT;

		if (hits && !hits[entries[i]])
			continue;
		matches_find_in(e, &del_text, &gone);
		matches_find_in(e, &add_text, &came);
		matches_pair(e, &gone, &came);
		for (size_t k = 0; k < gone.nr; k++) {
			/* The added line in the same place of the run, if there is one. */
			size_t at = gone.v[k].line >= first_del ? gone.v[k].line - first_del : 0;

			if (!gone.v[k].used)
				add_occurrence(d, entries[i], detector_remember(d, msg), old_path, new_path,
					       del_line[gone.v[k].line], at < b->nadd ? b->add[at].text : NULL,
					       gone.v[k].text, 1);
		}
		for (size_t k = 0; k < came.nr; k++)
			if (!came.v[k].used)
				add_occurrence(d, entries[i], detector_remember(d, msg), new_path, new_path,
					       add_line[came.v[k].line], NULL, came.v[k].text, 0);
		matches_clear(&gone);
		matches_clear(&came);
	}
	matches_text_release(&del_text);
	matches_text_release(&add_text);
	free(hits);
	free(del);
	free(add);
	free(del_line);
	free(add_line);
	for (size_t k = 0; k < b->ndel; k++)
		free(b->del[k].text);
	for (size_t k = 0; k < b->nadd; k++)
		free(b->add[k].text);
	b->ndel = b->nadd = 0;
}

/* The context line `l` ends the run before it and begins the next. */
static void
set_context(struct diff_line *slot, const git_diff_line *l)
{
	size_t len = l ? l->content_len : 0;

	free(slot->text);
	slot->text = NULL;
	if (!l)
		return;
	while (len && (l->content[len - 1] == '\n' || l->content[len - 1] == '\r'))
		len--;
	slot->text = xstrndup(l->content, len);
	slot->lineno = l->old_lineno;
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
scan_patch(struct detector *d, const struct message *msg, const struct patch_file *f, const char *key,
	   git_patch *patch, const size_t *entries, size_t nentries)
{
	/* git apply's names; a deleted file has no new path worth keying on: use its old one. */
	const char *old_path = f->old_path ? f->old_path : f->new_path;
	const char *new_path = key;
	struct block b = { 0 };

	for (size_t h = 0; h < git_patch_num_hunks(patch); h++) {
		int nlines = git_patch_num_lines_in_hunk(patch, h);

		set_context(&b.before, NULL);
		for (int i = 0; i < nlines; i++) {
			const git_diff_line *l;

			if (git_patch_get_line_in_hunk(&l, patch, h, (size_t)i) < 0)
				continue;
			if (l->origin == GIT_DIFF_LINE_DELETION) {
				if (b.nadd) {
					settle_block(d, msg, old_path, new_path, entries, nentries, &b);
					set_context(&b.before, NULL);
				}
				push_line(&b.del, &b.ndel, &b.adel, l, l->old_lineno);
			} else if (l->origin == GIT_DIFF_LINE_ADDITION) {
				push_line(&b.add, &b.nadd, &b.aadd, l, l->new_lineno);
			} else if (l->origin == GIT_DIFF_LINE_CONTEXT) {
				set_context(&b.after, l);
				settle_block(d, msg, old_path, new_path, entries, nentries, &b);
				/* this line is the next run's context before */
				free(b.before.text);
				b.before = b.after;
				b.after.text = NULL;
			}
		}
		settle_block(d, msg, old_path, new_path, entries, nentries, &b);
	}
	set_context(&b.before, NULL);
	set_context(&b.after, NULL);
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

/* The lines one side of a file's patch has, as sorted hashes; -1 if they cannot be read. */
static int
line_hashes(const struct message *msg, const struct patch_file *f, int origin, uint64_t **out, size_t *nr)
{
	git_patch *patch = NULL;
	size_t alloc = 0;

	*out = NULL;
	*nr = 0;
	if (git_patch_from_diff(&patch, msg->diff, f->delta) < 0 || !patch)
		return -1;
	for (size_t h = 0; h < git_patch_num_hunks(patch); h++) {
		int n = git_patch_num_lines_in_hunk(patch, h);

		for (int i = 0; i < n; i++) {
			const git_diff_line *l;
			uint64_t hash = 14695981039346656037ULL;	/* FNV-1a */

			if (git_patch_get_line_in_hunk(&l, patch, h, (size_t)i) < 0 || l->origin != origin)
				continue;
			for (size_t k = 0; k < l->content_len; k++)
				hash = (hash ^ (unsigned char)l->content[k]) * 1099511628211ULL;
			ALLOC_GROW(*out, *nr + 1, alloc);
			(*out)[(*nr)++] = hash;
		}
	}
	git_patch_free(patch);
	if (*nr)
		qsort(*out, *nr, sizeof(**out), cmp_u64);
	return 0;
}

/* Lines two sorted lists have in common (as a multiset), out of the larger: 0..100. */
static unsigned
similarity(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, common = 0, most = na > nb ? na : nb;

	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			common++;
			i++;
			j++;
		} else if (a[i] < b[j]) {
			i++;
		} else {
			j++;
		}
	}
	return most ? (unsigned)(common * 100 / most) : 0;
}

/*
 * A rename written as a deletion and an addition (--no-renames, or a tool
 * that knows no renames): pair a deleted file that an entry covers with
 * the added file most like it, as git's rename detection would (half of
 * the lines the same, -M50%), so that its jokes are still followed.
 */
static void
pair_deleted_with_added(struct detector *d, const struct message *msg, const unsigned char *candidates,
			struct strvec *pairs)
{
	for (size_t i = 0; i < msg->files_nr; i++) {
		const struct patch_file *del = &msg->files[i];
		uint64_t *gone;
		size_t ngone, best = SIZE_MAX;
		unsigned best_score = 49;
		int covered = 0;

		if (!del->deleted || del->binary)
			continue;
		for (size_t k = 0; k < d->policy->nr && !covered; k++)
			covered = candidates[k] && detector_covers(d, d->policy->v[k], del);
		if (!covered || line_hashes(msg, del, GIT_DIFF_LINE_DELETION, &gone, &ngone))
			continue;
		for (size_t j = 0; j < msg->files_nr; j++) {
			const struct patch_file *add = &msg->files[j];
			uint64_t *came;
			size_t ncame;
			unsigned score;

			if (!add->created || add->binary || line_hashes(msg, add, GIT_DIFF_LINE_ADDITION, &came, &ncame))
				continue;
			score = similarity(gone, ngone, came, ncame);
			if (score > best_score) {
				best_score = score;
				best = j;
			}
			free(came);
		}
		free(gone);
		if (best != SIZE_MAX) {
			detector_add_rename(d, del->old_path, msg->files[best].new_path);
			strvec_pushl(pairs, del->old_path, msg->files[best].new_path, NULL);
		}
	}
}

/*
 * The name occurrences in a file pair up under: its new name (git's, or
 * the added file a deletion was paired with), else its old one.
 */
static const char *
key_of(const struct patch_file *f, const struct strvec *pairs)
{
	if (f->new_path)
		return f->new_path;
	for (size_t i = 0; i + 1 < pairs->nr; i += 2)
		if (!strcmp(pairs->v[i], f->old_path))
			return pairs->v[i + 1];
	return f->old_path;
}

int
detector_add(struct detector *d, const struct message *msg, const unsigned char *candidates)
{
	size_t *covering = xcalloc(d->policy->nr ? d->policy->nr : 1, sizeof(*covering));
	struct strvec pairs = STRVEC_INIT;
	int ret = 0;

	if (!msg->diff_read)
		BUG("detector_add() on '%s' before its diff was read", msg->name);
	pair_deleted_with_added(d, msg, candidates, &pairs);
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
			scan_patch(d, msg, f, key_of(f, &pairs), patch, covering, ncover);
		git_patch_free(patch);
	}
	remember_renames(d, msg);
	strvec_clear(&pairs);
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
	    const char *removed, const char *added, const char *matched)
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
	f->matched = xstrdup(matched ? matched : entry->string ? entry->string : removed);
	f->note = NULL;
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
			for (int pass = 0; pass < MATCHES_PASSES; pass++)
				for (size_t i = 0; i < n; i++)
					for (size_t j = 0; j < n && occ[i].removed && occ[i].left; j++)
						if (!occ[j].removed && occ[j].left && may_pair(&occ[i], &occ[j], how) &&
						    matches_kept(d->policy->v[e], occ[i].matched, occ[j].matched, pass))
							occ[i].left = occ[j].left = 0;
		/* One finding a line: "stealeth or borroweth" is one change to read. */
		for (size_t i = 0, last = SIZE_MAX; i < n; i++) {
			if (!occ[i].removed || !occ[i].left)
				continue;
			if (last != SIZE_MAX && occ[last].msg == occ[i].msg && occ[last].line == occ[i].line &&
			    !strcmp(occ[last].path, occ[i].path))
				continue;
			add_finding(d, d->policy->v[e], occ[i].msg, occ[i].path, occ[i].line, occ[i].text,
				    occ[i].partner, occ[i].matched);
			last = i;
		}
	}
	sort_findings(d);
}

void
detector_add_finding(struct detector *d, const struct policy_entry *e, size_t msg, const char *file, int line,
		     const char *removed, const char *note)
{
	struct seen_message *m;

	if (msg == (size_t)-1) {
		/* No message the lines were read of touched it: the change is the series' as a whole. */
		m = xcalloc(1, sizeof(*m));
		m->name = xstrdup("the series");
		m->subject = xstrdup("");
		ALLOC_GROW(d->msgs, d->msgs_nr + 1, d->msgs_alloc);
		d->msgs[d->msgs_nr] = m;
		msg = d->msgs_nr++;
	}
	add_finding(d, e, msg, file, line, removed, NULL, NULL);
	d->findings[d->nr - 1].note = note ? xstrdup(note) : NULL;
	sort_findings(d);
}

void
detector_drop_finding(struct detector *d, size_t i)
{
	free(d->findings[i].file);
	free(d->findings[i].removed);
	free(d->findings[i].added);
	free(d->findings[i].matched);
	free(d->findings[i].note);
	memmove(d->findings + i, d->findings + i + 1, (d->nr - i - 1) * sizeof(*d->findings));
	d->nr--;
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
			free(d->findings[i].matched);
			free(d->findings[i].note);
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
			free(d->occ[e][i].matched);
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
		free(d->findings[i].matched);
		free(d->findings[i].note);
	}
	free(d->findings);
	strvec_clear(&d->renamed_to);
	strvec_clear(&d->renamed_from);
	memset(d, 0, sizeof(*d));
}
