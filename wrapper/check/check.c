// SPDX-License-Identifier: GPL-2.0-only
/* check: filter, read like git, detect, and settle with the result when the base is at hand. */
#define _GNU_SOURCE
#include "check/check.h"
#include "check/result.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/usage.h"
#include "policy/lexicon.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The policy file a repository gives khsend; a series never gets to change the one it is checked with. */
#define REPO_POLICY_NAME ".khsend.yaml"

/*
 * Lines that move, hide or replace text without spelling it out: a
 * rename or copy (a joke's file under a name no entry covers), a binary
 * patch.  git reads them only at the start of a line of a file's header.
 */
static const char *const markers[] = {
	"rename from ", "rename to ", "rename old ", "rename new ", "copy from ", "copy to ",
	"GIT binary patch", "Binary files ",
};

/* A line of a file's header that names the repository's policy file. */
static int
names_policy_file(const char *line, size_t len)
{
	return (starts_with(line, "diff ") || starts_with(line, "--- ") || starts_with(line, "+++ ") ||
		starts_with(line, "rename ") || starts_with(line, "copy ")) &&
	       memmem(line, len, REPO_POLICY_NAME, strlen(REPO_POLICY_NAME));
}

static int
is_marker(const char *line, size_t len)
{
	/* Most lines start with none of the markers' letters. */
	if (!strchr("rcGBd-+", *line))
		return 0;
	for (size_t i = 0; i < sizeof(markers) / sizeof(*markers); i++)
		if (*line == *markers[i] && starts_with(line, markers[i]))
			return 1;
	return names_policy_file(line, len);
}

/*
 * One pass over the patch git apply gets: every line but context far
 * from a change (a removal, an addition, the context line on either side
 * of them, a file header, binary data) through the filter.  A removal
 * that holds a protected string, or a word of it, is in one of them, and
 * so is each marker.  Is the message to be read line by line?  *has_patch
 * says whether it holds a diff at all.
 */
static int
filter_patch(const struct checker *c, const struct strbuf *patch, int *has_patch)
{
	const char *p = patch->buf, *end = patch->buf + patch->len;
	int gated = 0, changed = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* A context line next to a change: a joke may span both. */
		int next_changed = nl && nl + 1 < end && (nl[1] == '+' || nl[1] == '-');
		int context = *p == ' ' && !changed && !next_changed;

		changed = n && (*p == '+' || *p == '-');
		if (!context && n) {
			if (!*has_patch && strchr("@GB", *p) && (starts_with(p, "@@ -") ||
				starts_with(p, "GIT binary patch") || starts_with(p, "Binary files ")))
				*has_patch = 1;
			/* A marker is a header line: not a line the hunk adds or removes (or a "---"/"+++" one). */
			if (!gated && (!strchr("+-", *p) || starts_with(p, "--- ") || starts_with(p, "+++ ")) &&
			    is_marker(p, n))
				gated = 1;
			if (matcher_scan(c->matcher, p, n, c->hits))
				gated = 1;
		}
		p += n + 1;
	}
	return gated;
}

/*
 * The policy and, after it, the lexicon's warn-only entries (unless
 * khsend.lexicon is false): a change to a word kernel authors use as a
 * joke, where no entry says anything, gets a warning.
 */
static const struct policy *
with_lexicon(struct checker *c, const struct policy *policy)
{
	int on = 1;

	if (config_get_bool("khsend.lexicon", &on) < 0 || !on)
		return policy;
	if (lexicon_load(&c->lexicon, getenv("KHSEND_LEXICON"))) {
		warning(_("the lexicon could not be read: no warnings for words it lists"));
		policy_release(&c->lexicon);
		return policy;
	}
	c->all.nr = c->all.alloc = policy->nr + c->lexicon.nr;
	c->all.v = xcalloc(c->all.alloc + 1, sizeof(*c->all.v));
	/* (An empty policy has no array at all: memcpy() may not be given NULL.) */
	if (policy->nr)
		memcpy(c->all.v, policy->v, policy->nr * sizeof(*policy->v));
	if (c->lexicon.nr)
		memcpy(c->all.v + policy->nr, c->lexicon.v, c->lexicon.nr * sizeof(*c->lexicon.v));
	return &c->all;
}

/* A lexicon warning on a line a policy entry already reports says nothing new. */
/* Whether an entry of the policy (not a lexicon guess) matches this text anywhere it applies. */
static int
policy_knows(const struct policy *p, const char *text)
{
	size_t so, eo, len = strlen(text);

	for (size_t i = 0; i < p->nr; i++)
		if (!p->v[i]->lexicon && policy_entry_find(p->v[i], text, len, 0, &so, &eo))
			return 1;
	return 0;
}

static int
same_place(const struct finding *f, const struct finding *g)
{
	return g->index == f->index && g->line == f->line && !strcmp(g->file, f->file);
}

/*
 * A lexicon guess says "no entry speaks for this word".  It goes when an
 * entry does speak: on the same line, or for the same word elsewhere (the
 * maintainer chose where it is a joke); and one guess per line is enough.
 */
static void
drop_shadowed(struct checker *c)
{
	struct detector *d = &c->det;

	for (size_t i = 0; i < d->nr; i++) {
		const struct finding *f = &d->findings[i];
		int drop = f->entry->lexicon && f->matched && policy_knows(c->policy, f->matched);

		if (!f->entry->lexicon)
			continue;
		for (size_t j = 0; j < d->nr && !drop; j++) {
			const struct finding *g = &d->findings[j];

			drop = j != i && same_place(f, g) && (!g->entry->lexicon || j < i);
		}
		if (drop)
			detector_drop_finding(d, i--);
	}
}

void
checker_init(struct checker *c, const struct policy *policy, const struct strvec *allow,
	     const struct repo *repo, const char *scratch)
{
	memset(c, 0, sizeof(*c));
	c->policy = with_lexicon(c, policy);
	c->repo = repo;
	c->scratch = scratch;
	c->matcher = matcher_new(c->policy);
	c->hits = xcalloc(c->policy->nr ? c->policy->nr : 1, 1);
	detector_init(&c->det, c->policy, allow);
	c->det.matcher = c->matcher;
	strvec_init(&c->patches);
	strvec_init(&c->policy_changes);
	strvec_init(&c->refusals);
	strvec_init(&c->touched);
	strbuf_init(&c->result_why, 0);
	c->want_result = repo != NULL;
}

void
checker_set_base(struct checker *c, const char *base)
{
	free(c->base);
	c->base = base ? xstrdup(base) : NULL;
}

int
checker_set_origin(struct checker *c, const char *origin, const char *tip)
{
	struct strbuf out = STRBUF_INIT;
	int rc;

	free(c->origin);
	c->origin = xstrdup(origin);
	/* The files renamed since then stay covered under their new names, line by line too. */
	rc = repo_capture(c->repo, &out, "diff-tree", "-r", "-z", "-M", "--diff-filter=R", "--name-status",
			  origin, tip, NULL);
	if (rc) {
		strbuf_release(&out);
		return error(_("git diff-tree cannot compare %s with %s"), origin, tip);
	}
	for (const char *p = out.buf, *end = out.buf + out.len; p < end;) {
		/* "R<score>\0<old>\0<new>\0" */
		const char *old = p + strlen(p) + 1, *new = old < end ? old + strlen(old) + 1 : end;

		if (new >= end)
			break;
		detector_add_rename(&c->det, old, new);
		p = new + strlen(new) + 1;
	}
	strbuf_release(&out);
	return 0;
}

static int
is_policy_file(const char *path)
{
	return path && !strcmp(base_name(path), REPO_POLICY_NAME);
}

/* What the lines alone cannot judge: a policy file, a binary change to a protected file. */
static void
note_special_files(struct checker *c, const struct message *msg)
{
	for (size_t i = 0; i < msg->files_nr; i++) {
		const struct patch_file *f = &msg->files[i];
		const char *path = f->new_path ? f->new_path : f->old_path;

		if (is_policy_file(f->old_path) || is_policy_file(f->new_path))
			strvec_pushf(&c->policy_changes, "%s\t%s", msg->name, path);
		if (!f->binary)
			continue;
		for (size_t k = 0; k < c->policy->nr; k++) {
			const struct policy_entry *e = c->policy->v[k];

			/* An entry for every file would refuse every binary patch: only named files count. */
			if (e->paths.nr && detector_covers(&c->det, e, f)) {
				strvec_pushf(&c->refusals, "'%s' changes %s, which policy entry '%s' protects, "
					     "as a binary patch: khsend cannot see which lines it changes",
					     msg->name, path, e->id);
				break;
			}
		}
	}
}

/* Keep the patch as git apply will get it, for the result check. */
static int
keep_patch(struct checker *c, const struct message *msg)
{
	char *file;

	if (!c->want_result)
		return 0;
	file = xstrfmt("%s/result-%06zu.patch", c->scratch, msg->index);
	if (write_file_buf(file, msg->patch.buf, msg->patch.len)) {
		free(file);
		return -1;
	}
	strvec_push_nodup(&c->patches, file);
	return 0;
}

int
checker_follow_unpublished(struct checker *c)
{
	struct strbuf base = STRBUF_INIT, mb = STRBUF_INIT;
	int ret = 0;

	if (!c->repo || !c->base || c->origin || !repo_resolves(c->repo, c->base, &base) ||
	    !repo_resolves(c->repo, "@{upstream}", NULL) ||
	    repo_capture(c->repo, &mb, "merge-base", base.buf, "@{upstream}", NULL) || !strcmp(mb.buf, base.buf))
		goto out;
	ret = checker_set_origin(c, mb.buf, base.buf);
out:
	strbuf_release(&base);
	strbuf_release(&mb);
	return ret;
}

/* The messages held for one git apply per reading: their lines, in series order. */
static int
flush_pending(struct checker *c)
{
	int ret = 0;

	if (!c->pending_nr)
		return 0;
	if (messages_read_diff(c->pending, c->pending_nr, c->scratch))
		ret = -1;
	for (size_t k = 0; k < c->pending_nr; k++) {
		struct message *msg = c->pending[k];

		if (!ret && msg->files_nr) {
			size_t h = detector_remember(&c->det, msg);

			for (size_t i = 0; i < msg->files_nr; i++) {
				const struct patch_file *f = &msg->files[i];

				ALLOC_GROW(c->touched_by, c->touched.nr + 1, c->touched_alloc);
				c->touched_by[c->touched.nr] = h;
				strvec_push(&c->touched, f->old_path ? f->old_path : f->new_path);
			}
		}
		if (!ret) {
			note_special_files(c, msg);
			ret = detector_add(&c->det, msg, c->pending_hits + k * c->policy->nr);
		}
		if (c->owns_pending) {
			message_release(msg);
			free(msg);
		}
	}
	c->pending_nr = 0;
	return ret;
}

/* Gated messages wait for the others, up to this many, to share git's readings. */
#define PENDING_MAX 4096

static int
add_message(struct checker *c, struct message *msg, int own)
{
	int has_patch = 0, gated;

	c->det.messages++;
	if (message_decode(msg, c->scratch))
		return -1;
	memset(c->hits, 0, c->policy->nr);
	gated = filter_patch(c, &msg->patch, &has_patch);
	c->det.patches += has_patch;
	if (has_patch && keep_patch(c, msg))
		return -1;
	if (!gated)
		return 0;
	c->gated++;
	c->owns_pending = own;
	ALLOC_GROW(c->pending, c->pending_nr + 1, c->pending_alloc);
	c->pending_hits = xrealloc(c->pending_hits, c->pending_alloc * (c->policy->nr ? c->policy->nr : 1));
	memcpy(c->pending_hits + c->pending_nr * c->policy->nr, c->hits, c->policy->nr);
	c->pending[c->pending_nr++] = own ? message_move(msg) : msg;
	return c->pending_nr < PENDING_MAX ? 0 : flush_pending(c);
}

int
checker_add(struct checker *c, struct message *msg)
{
	return add_message(c, msg, 0);
}

int
checker_add_owned(struct checker *c, struct message *msg)
{
	return add_message(c, msg, 1);
}

/* The message that last touched `file`, among those the detector remembers. */
static size_t
message_for(const struct checker *c, const char *file)
{
	for (size_t i = c->touched.nr; i-- > 0;)
		if (file && !strcmp(c->touched.v[i], file))
			return c->touched_by[i];
	return c->det.msgs_nr - 1;
}

/* Settle the line-level findings with what the series does to the tree, as git applies it. */
static void
settle(struct checker *c, const struct result_count *counts)
{
	c->result_done = 1;
	for (size_t k = 0; k < c->policy->nr; k++) {
		const struct policy_entry *e = c->policy->v[k];

		if (!counts[k].gone) {
			detector_drop_entry(&c->det, e);
		} else if (!detector_has_entry(&c->det, e)) {
			size_t msg = c->det.msgs_nr ? message_for(c, counts[k].file) : (size_t)-1;

			detector_add_finding(&c->det, e, msg, counts[k].file ? counts[k].file : "(the series)",
					     counts[k].line, counts[k].removed ? counts[k].removed : "",
					     "(once git applies the series, this text is gone or changed)");
		}
	}
}

static int
settle_with_result(struct checker *c)
{
	struct result_count *counts;
	struct strbuf why = STRBUF_INIT;
	int rc;

	if (!c->base || !c->patches.nr || (!c->gated && !c->force_result))
		return 0;
	counts = xcalloc(c->policy->nr ? c->policy->nr : 1, sizeof(*counts));
	rc = result_apply_and_count(c->repo, c->base, c->origin, &c->patches, c->policy, c->matcher,
				    c->scratch, counts, &why);
	c->result_state = rc > 0 ? 1 : rc == 0 ? -1 : 0;
	strbuf_addbuf(&c->result_why, &why);
	if (rc > 0)
		settle(c, counts);
	drop_shadowed(c);
	result_counts_release(counts, c->policy->nr);
	free(counts);
	strbuf_release(&why);
	return rc < 0 ? -1 : 0;
}

int
checker_finish_index(struct checker *c, const char *tree, const char *index_file)
{
	struct result_count *counts;
	int rc;

	if (flush_pending(c))
		return -1;
	counts = xcalloc(c->policy->nr ? c->policy->nr : 1, sizeof(*counts));
	detector_finish(&c->det);
	rc = result_count_index(c->repo, tree, index_file, c->origin, c->policy, c->matcher, counts);
	if (rc > 0)
		settle(c, counts);
	result_counts_release(counts, c->policy->nr);
	free(counts);
	return rc < 0 ? -1 : 0;
}

int
checker_finish(struct checker *c)
{
	if (flush_pending(c))
		return -1;
	detector_finish(&c->det);
	if (c->want_result && settle_with_result(c))
		return -1;
	drop_shadowed(c);
	if (c->refusals.nr && !c->result_done) {
		for (size_t i = 0; i < c->refusals.nr; i++)
			error("%s", c->refusals.v[i]);
		return error(_("khsend refuses what it cannot judge; apply the series in your kernel tree "
			       "(its base must be there) so khsend can check the result, or send the change "
			       "as a text patch"));
	}
	return 0;
}

void
checker_release(struct checker *c)
{
	detector_release(&c->det);
	free(c->all.v);
	policy_release(&c->lexicon);
	matcher_free(c->matcher);
	free(c->hits);
	free(c->base);
	free(c->origin);
	for (size_t i = 0; i < c->patches.nr; i++)
		unlink(c->patches.v[i]);
	strvec_clear(&c->patches);
	strvec_clear(&c->policy_changes);
	strvec_clear(&c->refusals);
	strvec_clear(&c->touched);
	free(c->touched_by);
	for (size_t k = 0; c->owns_pending && k < c->pending_nr; k++) {
		message_release(c->pending[k]);
		free(c->pending[k]);
	}
	free(c->pending);
	free(c->pending_hits);
	strbuf_release(&c->result_why);
	memset(c, 0, sizeof(*c));
}

int
check_series(struct checker *c, const struct series *s)
{
	for (size_t i = 0; i < s->nr; i++)
		if (checker_add(c, s->v[i]))
			return -1;
	return checker_finish(c);
}
