/*
 * result: what the series does to the tree, as git applies it.
 *
 * The series is applied with "git apply --cached" (what git am runs)
 * onto its base in a private index; "git diff-index -M" lists what
 * changed, with git's own rename detection; each entry's string is
 * looked for in the old and new blobs of the files it
 * covers (a renamed file under either name), and paired off the way
 * detect.c pairs a run of lines (check/matches.h).  One that is gone is
 * an alteration, whatever any other reader made of the patches.
 */
#ifndef KHSEND_RESULT_H
#define KHSEND_RESULT_H

#include "lib/repo.h"
#include "lib/strvec.h"
#include "policy/matcher.h"
#include "policy/policy.h"

struct result_count {
	size_t before, after;	/* occurrences in the files the entry covers */
	size_t gone;		/* of those before, the ones not there after (check/matches.h) */
	char *file;		/* a file the entry covers where one is gone, or NULL */
	int line;		/* the first one gone: its line in that file before the series */
	char *removed;		/* ...and the line */
};

/*
 * Apply `patches` (files, in order) onto `base` in a private index in
 * `scratch` and count; out[] has one slot per policy entry.  `origin`
 * (or NULL) is an older tree whose names still count: a file renamed
 * since stays covered under its new name (git am's ORIG_HEAD, where a
 * session of several patches began).  Returns 1 when counted, 0 when the
 * series does not apply there (`why` says git's reason), -1 on an error
 * (reported).
 */
int result_apply_and_count(const struct repo *repo, const char *base, const char *origin,
			   const struct strvec *patches, const struct policy *p, const struct matcher *m,
			   const char *scratch, struct result_count *out, struct strbuf *why);

/*
 * Count what an index already holds against a tree (git am's
 * pre-applypatch, git commit's pre-commit): index_file NULL is the
 * repository's own index; `origin` as above.  1 when counted, -1 on an
 * error (reported).
 */
int result_count_index(const struct repo *repo, const char *tree, const char *index_file, const char *origin,
		       const struct policy *p, const struct matcher *m, struct result_count *out);

void result_counts_release(struct result_count *out, size_t nr);

#endif
