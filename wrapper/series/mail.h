/*
 * mail: the one reader of a mail's header block in khsend.
 *
 * Headers are only read to name and sort messages (subject, author,
 * Message-Id, is it a cover letter) and to find where the body starts.
 * What a mail *means* to git (the commit message and the patch, decoded)
 * always comes from git mailinfo or is proven to be the same bytes
 * (series/message.c).
 */
#ifndef KHSEND_MAIL_H
#define KHSEND_MAIL_H

#include "lib/strbuf.h"

struct mail_header {
	char *name;
	char *value;		/* unfolded and trimmed, encoded words left as they are */
};

struct mail_headers {
	struct mail_header *v;
	size_t nr, alloc;
	size_t body;		/* offset of the body in the buffer read */
};

#define MAIL_HEADERS_INIT { NULL, 0, 0, 0 }

/*
 * Read the header block at the start of `buf` (after an optional mbox
 * "From " line; CRLF or LF).  Returns 1 and fills `h` if `buf` starts with
 * one ("Name: value" lines up to an empty line or the end), 0 if it does
 * not (a bare diff, for instance: h->body is then 0).
 */
int mail_headers_parse(struct mail_headers *h, const char *buf, size_t len);
/* The first value of a header (case-insensitive name), or NULL. */
const char *mail_header(const struct mail_headers *h, const char *name);
/* How many times a header occurs. */
size_t mail_header_count(const struct mail_headers *h, const char *name);
void mail_headers_release(struct mail_headers *h);

/* Is this "[PATCH 0/3]"-style subject the one of a cover letter? */
int subject_is_cover(const char *subject);

/* Length of the line at p (with its "\n"), not past end. */
size_t mail_line_len(const char *p, const char *end);
/* Does the line start a header field ("Name: ...", as git mailinfo reads one)? */
int mail_is_header_line(const char *p, size_t n);

#endif
