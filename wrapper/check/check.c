/* check: filter, read like git, detect, and settle with the result when the base is at hand. */
#define _GNU_SOURCE
#include "check/check.h"
#include "check/result.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The policy file a repository gives khsend; a series never gets to change the one it is checked with. */
#define REPO_POLICY_NAME ".khsend.yaml"

/*
 * Text that can move, hide or replace lines without spelling them out:
 * a rename or copy (a joke's file under a name no entry covers), a
 * binary patch, a change to khsend's own policy file.
 */
static const char *const markers[] = {
	"rename from", "rename to", "rename old", "rename new", "copy from", "copy to",
	"GIT binary patch", "Binary files", REPO_POLICY_NAME,
};

static int
has_marker(const char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(markers) / sizeof(*markers); i++)
		if (memmem(buf, len, markers[i], strlen(markers[i])))
			return 1;
	return 0;
}

void
checker_init(struct checker *c, const struct policy *policy, const struct strvec *allow,
	     const struct repo *repo, const char *scratch)
{
	memset(c, 0, sizeof(*c));
	c->policy = policy;
	c->repo = repo;
	c->scratch = scratch;
	c->matcher = matcher_new(policy);
	c->hits = xcalloc(policy->nr ? policy->nr : 1, 1);
	detector_init(&c->det, policy, allow);
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
		return error("git diff-tree cannot compare %s with %s", origin, tip);
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

	if (!c->want_result || !message_has_patch(msg))
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

int
checker_add(struct checker *c, struct message *msg)
{
	const char *text;
	size_t len, hits;
	int marked;

	c->det.messages++;
	if (message_decode(msg, c->scratch))
		return -1;
	/* The mail's bytes if they are what git reads, else what git mailinfo decoded. */
	text = msg->plain ? msg->raw.buf : msg->patch.buf;
	len = msg->plain ? msg->raw.len : msg->patch.len;
	memset(c->hits, 0, c->policy->nr);
	hits = matcher_scan(c->matcher, text, len, c->hits);
	marked = has_marker(text, len);
	if (message_has_patch(msg))
		c->det.patches++;
	if (keep_patch(c, msg))
		return -1;
	if (!hits && !marked)
		return 0;
	c->gated++;
	if (message_read_diff(msg, c->scratch))
		return -1;
	if (msg->files_nr) {
		size_t h = detector_remember(&c->det, msg);

		for (size_t i = 0; i < msg->files_nr; i++) {
			const struct patch_file *f = &msg->files[i];

			ALLOC_GROW(c->touched_by, c->touched.nr + 1, c->touched_alloc);
			c->touched_by[c->touched.nr] = h;
			strvec_push(&c->touched, f->old_path ? f->old_path : f->new_path);
		}
	}
	note_special_files(c, msg);
	return detector_add(&c->det, msg, c->hits);
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

		if (counts[k].after >= counts[k].before) {
			detector_drop_entry(&c->det, e);
		} else if (!detector_has_entry(&c->det, e)) {
			char *text = xstrfmt("(%zu of %zu occurrences are gone once git applies the series; "
					     "khsend's line-by-line reading did not show where)",
					     counts[k].before - counts[k].after, counts[k].before);
			size_t msg = c->det.msgs_nr ? message_for(c, counts[k].file) : (size_t)-1;

			if (msg != (size_t)-1)
				detector_add_finding(&c->det, e, msg, counts[k].file ? counts[k].file : "(the series)",
						     text);
			else
				detector_add_series_finding(&c->det, e, counts[k].file ? counts[k].file : "(the series)",
							    text);
			free(text);
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
	result_counts_release(counts, c->policy->nr);
	free(counts);
	strbuf_release(&why);
	return rc < 0 ? -1 : 0;
}

int
checker_finish_index(struct checker *c, const char *tree, const char *index_file)
{
	struct result_count *counts = xcalloc(c->policy->nr ? c->policy->nr : 1, sizeof(*counts));
	int rc;

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
	detector_finish(&c->det);
	if (c->want_result && settle_with_result(c))
		return -1;
	if (c->refusals.nr && !c->result_done) {
		for (size_t i = 0; i < c->refusals.nr; i++)
			error("%s", c->refusals.v[i]);
		return error("khsend refuses what it cannot judge; apply the series in your kernel tree "
			     "(its base must be there) so khsend can check the result, or send the change "
			     "as a text patch");
	}
	return 0;
}

void
checker_release(struct checker *c)
{
	detector_release(&c->det);
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
