/*
 * outgoing: the series khsend is about to send, as files in its private
 * directory.  Every file the user named is copied once (a FIFO is read
 * once) and never read again; revisions become files through git
 * format-patch, as git send-email makes them.  What is checked, annotated
 * and handed to git send-email (or compared with what b4 sends) is these
 * files and nothing else.
 */
#ifndef KHSEND_OUTGOING_H
#define KHSEND_OUTGOING_H

#include "check/detect.h"
#include "lib/strvec.h"

#include <git2.h>

struct outgoing_msg {
	char *file;		/* the private copy: exactly what is checked and sent */
	char *name;		/* what the user calls it, for reports */
};

struct outgoing {
	char *dir;		/* the private directory */
	struct outgoing_msg *v;
	size_t nr, alloc;
	size_t annotated;	/* patches that got a note */
	int cover;		/* the cover letter that got the summary, or -1 */
	char *gathered;		/* outgoing_gather()'s directory, or NULL */
};

void outgoing_init(struct outgoing *o, const char *dir);
void outgoing_release(struct outgoing *o);

/*
 * Copy a file named on the command line.  An mbox holding several mails is
 * split, one file per mail, byte for byte.  The copy keeps the name's
 * prefix relations (git send-email's backup-file check compares names).
 */
int outgoing_add_file(struct outgoing *o, const char *path);
/* `git format-patch -o <private dir> <revs>` as git send-email runs it; its files, in order. */
int outgoing_add_revisions(struct outgoing *o, const struct strvec *revs, git_repository *repo);
/* A file that is private already (b4's output). */
void outgoing_add_private(struct outgoing *o, const char *file, const char *name);

/* Read every file and run the detector over the whole series; 0 or -1 (reported). */
int outgoing_check(struct outgoing *o, struct detector *d, const char *tmpdir);
/*
 * Write the notes for the detector's annotate findings into the files, and
 * the summary into the cover letter if there is one; 0 or -1 (reported).
 */
int outgoing_annotate(struct outgoing *o, const struct detector *d);

/*
 * Move the files into one directory, named NNNN-<name> in series order,
 * so git send-email can be given the directory: it runs one "git rev-parse"
 * per argument.  Returns the directory (owned by o) or NULL (reported).
 */
const char *outgoing_gather(struct outgoing *o);

/*
 * The boot smoke test (boot_series()) on exactly these files, as they go
 * out; the tree and limits come from khsend.tree and friends.  Its exit
 * status: EXIT_CLEAN booted clean, EXIT_FINDING did not, EXIT_ERROR.
 */
int outgoing_boot(const struct outgoing *o, git_repository *repo);

/* Which message of the series a finding is in (its index in o->v). */
size_t outgoing_index(const struct finding *f);

#endif
