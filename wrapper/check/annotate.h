/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * annotate: khsend's note for the reviewers.  A patch that changes a
 * string whose policy says "annotate" (or one the contributor --allow'ed)
 * goes out with a short note below its "---" line, where git am drops it,
 * and the cover letter, if the series has one, gets a summary before its
 * "-- " signature.  Both name the policy entry, the file and the joke.
 *
 * Only plain bodies are annotated (no Content-Transfer-Encoding, 7bit,
 * 8bit or binary; not multipart): khsend does not re-encode mails.  The
 * note is ASCII unless the mail declares 8bit.  Annotating again replaces
 * the older note, so the editor wrapper can re-annotate an edited patch.
 */
#ifndef KHSEND_ANNOTATE_H
#define KHSEND_ANNOTATE_H

#include "check/detect.h"
#include "series/series.h"
#include "lib/strbuf.h"

/* The first line of every note: how khsend finds (and replaces) its own. */
#define ANNOTATE_MARKER "Note from khsend:"

/*
 * Put the note for `findings` (all in this patch) into the mail in `raw`.
 * Returns 0, or -1 after an error naming `name` if the body is encoded or
 * has no patch in it.
 */
int annotate_patch(struct strbuf *raw, const char *name, const struct finding *const *findings, size_t nr);

/* The series summary of `findings` (from any patch) for a cover letter; 0 or -1 as above. */
int annotate_cover(struct strbuf *raw, const char *name, const struct finding *const *findings, size_t nr);

/* Take khsend's note out of a mail (a patch or a cover letter); 1 if there was one. */
int annotate_strip(struct strbuf *raw);

/*
 * The notes of the detector's annotate findings, in the files of a kept
 * series (each patch's own, and the summary in its cover letter), and
 * khsend's notes taken out of any other plain mail (a note an edit made
 * untrue).  A mail that is not plain must carry its notes already.
 * 0, or -1 (reported).
 */
int annotate_series(const struct series *s, const struct detector *d, const char *scratch);

#endif
