/*
 * series: read an outgoing series in every form git send-email 2.39 takes
 * (patch files, directories, an mbox of a whole series, revisions) into
 * messages, one at a time, so memory stays flat however long it is.
 */
#ifndef KHSEND_SERIES_H
#define KHSEND_SERIES_H

#include "lib/strbuf.h"
#include "lib/strvec.h"

#include <git2.h>

struct mail_header {
	char *name;
	char *value;		/* unfolded, as in the mail (encoded words left alone) */
};

struct message {
	size_t index;		/* 1-based position in the series */
	char *name;		/* for reports: the file, "file (message 3)" or a commit id */
	char *file;		/* the file holding exactly this message, or NULL for a commit */
	char *commit;		/* the commit id, when read from a repository */
	char *subject;		/* decoded, brackets kept: "[PATCH 1/3] sched: ..." */
	char *author;
	struct mail_header *headers;
	size_t headers_nr, headers_alloc;
	struct strbuf raw;	/* the bytes as they would be sent (mails only) */
	struct strbuf log;	/* the decoded commit message (or cover letter text) */
	struct strbuf patch;	/* the decoded patch: from the "---" line on */
	unsigned is_mail:1;
	unsigned encoded:1;	/* decoded by git mailinfo (base64, quoted-printable, ...) */
	git_diff *diff;		/* parsed on demand by message_diff() */
	unsigned diff_parsed:1;
};

struct series_options {
	git_repository *repo;	/* for revisions and the file-or-revision question; may be NULL */
	int format_patch;	/* like --[no-]format-patch: -1 unset, 0 files, 1 revisions */
	const char *tmpdir;	/* scratch space for mbox parts and git mailinfo */
};

/* Called for each message; a negative return stops the reading and is returned. */
typedef int (*message_fn)(struct message *msg, void *data);

/*
 * Read every input in git send-email's order: files and directories first,
 * then revisions.  Returns 0, the callback's negative value, or -1 after
 * printing an error naming the input.
 */
int series_read(const struct strvec *inputs, const struct series_options *opts,
		message_fn fn, void *data);

/*
 * Split arguments the way git send-email does: files (directories expanded,
 * sorted) into `files`, everything else into `revs` ("--" and all after it
 * go to revs).  Returns 0, or -1 after printing git's disambiguation error.
 */
int series_classify(const struct strvec *inputs, const struct series_options *opts,
		    struct strvec *files, struct strvec *revs);

/* Read one file holding one mail or patch (the hook and reply use this). */
int message_from_file(struct message *msg, const char *path, const char *tmpdir);
/* Read one mail already in memory; `name` is used in messages. */
int message_from_buffer(struct message *msg, const char *name, const char *buf, size_t len,
			const char *tmpdir);

/* The parsed diff, or NULL for a message without one; -1 and a message on a bad patch. */
int message_diff(struct message *msg, git_diff **out);
const char *message_header(const struct message *msg, const char *name);
/*
 * Offset in msg->raw of the line where the patch starts (the "---" line,
 * or the first diff line if there is none), or -1 if there is no patch or
 * the body is not plain text (base64, quoted-printable, multipart).
 */
long message_patch_offset(const struct message *msg);
/* Is the body transfer-encoded (anything but 7bit/8bit/binary) or multipart? */
int message_body_encoded(const struct message *msg);
void message_release(struct message *msg);

#define MESSAGE_INIT { 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, 0, 0, NULL, 0 }

/* Does this mbox hold more than one mail (a second "From " line)? */
int mbox_holds_several(const char *buf, size_t len);
/*
 * git mailsplit --keep-cr: one file per mail in `dir` (created), byte for
 * byte; their names are appended to `parts`.  0, or -1 with a message.
 */
int mbox_split(const char *path, const char *dir, struct strvec *parts);

/* Is this line where git mailinfo would start the patch? (mailinfo.c:patchbreak) */
int is_patch_break(const char *line, size_t len);

#endif
