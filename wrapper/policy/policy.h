/*
 * policy: the maintainer's YAML list of protected strings (khsend-policy(5)).
 *
 * A policy is untrusted data.  Nothing in it is ever run, opened or
 * fetched: strings are matched, paths are matched as patterns, and the
 * explanation is printed with control characters removed.
 */
#ifndef KHSEND_POLICY_H
#define KHSEND_POLICY_H

#include "policy/glob.h"
#include "lib/strvec.h"

#include "lib/repo.h"
#include "policy/bounded-regex.h"
#include <stddef.h>

#define POLICY_VERSION 1

enum policy_action {
	POLICY_WARN,		/* say so, send anyway */
	POLICY_ANNOTATE,	/* send with a note below the "---" */
	POLICY_BLOCK,		/* send nothing */
};

struct policy_entry {
	char *id;
	char *string;		/* a literal, or NULL when regex is used */
	char *regex_src;	/* a PCRE2 pattern, or NULL */
	struct bounded_regex regex;
	unsigned ignore_case:1;
	unsigned case_change_ignored:1;	/* Borked -> borked is no alteration */
	unsigned allow_override:1;
	unsigned disabled:1;	/* only in a layer being merged: removes the id */
	enum policy_action action;
	struct strvec paths;	/* empty: every path */
	struct path_glob *globs;	/* paths, compiled */
	char *explain;
	struct strvec see;
	char *origin;		/* "file:line" that defined it */
	/* Only for the lexicon's entries (policy/lexicon.h), never read from a policy: */
	char *lexicon;			/* its category, or NULL for a policy entry */
	unsigned in_string:1;		/* a match counts only inside a C string literal */
	struct strvec stop_words;	/* matches (in any case) that never count */
};

struct policy {
	struct policy_entry **v;
	size_t nr, alloc;
	struct strvec files;	/* the files read, lowest layer first */
};

#define POLICY_INIT { NULL, 0, 0, STRVEC_INIT }

/*
 * Parse one policy document and merge it over `p`.  Every problem is
 * printed as "name:line:col: message"; the return value is their number
 * (0: the layer was merged).
 */
int policy_parse(struct policy *p, const char *name, const char *buf, size_t len);
/* Read a file and policy_parse() it; a file that cannot be read counts as one problem. */
int policy_load_file(struct policy *p, const char *path);

/*
 * Load the layers, lowest first: system (or the built-in copy), user,
 * the repository's .khsend.yaml, then every khsend.policy config value
 * (absolute paths are files; relative ones are in the repository).  What
 * is in the repository is read from `base` (NULL: HEAD), the commit the
 * change under review applies to, never from its work tree or index.
 * With `explicit_files`, exactly those files are read instead.
 * Returns the number of problems (all of them printed).
 */
int policy_load(struct policy *p, const struct strvec *explicit_files, const struct repo *repo, const char *base);

void policy_release(struct policy *p);
const struct policy_entry *policy_find(const struct policy *p, const char *id);

const char *policy_action_name(enum policy_action a);
/* The system policy file: $KHSEND_SYSTEM_POLICY, else DATADIR/policy.yaml. */
const char *policy_system_path(void);

/* Does the entry cover this path (relative to the tree top)? */
int policy_entry_covers(const struct policy_entry *e, const char *path);
/* Non-overlapping occurrences of the entry's string in a NUL-terminated line. */
size_t policy_entry_count(const struct policy_entry *e, const char *line);
/* The first occurrence in text[start..len), as [*so, *eo): 1, or 0 for none. */
int policy_entry_find(const struct policy_entry *e, const char *text, size_t len, size_t start, size_t *so,
		      size_t *eo);
/* Free an entry (policy_release() frees those of a policy). */
void policy_entry_free(struct policy_entry *e);

/*
 * Called when an entry's regex reached its work bound on a text of `len`
 * bytes: there is no answer.  By default it dies (exit 2) naming the entry.
 */
extern void (*policy_too_much_work)(const struct policy_entry *e, size_t len);
/* The string or regex as shown to people: "arch topology borken" or /regex/. */
const char *policy_entry_pattern(const struct policy_entry *e, char *buf, size_t size);

#endif
