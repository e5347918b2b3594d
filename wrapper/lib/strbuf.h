/* SPDX-License-Identifier: GPL-2.0-only */
/* strbuf: a growable, always NUL-terminated byte buffer (after git's strbuf.h). */
#ifndef KHSEND_STRBUF_H
#define KHSEND_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Invariants: `buf` is never NULL and buf[len] == '\0'.  A buffer set up
 * with STRBUF_INIT owns no memory until something is added to it.
 */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller, who must free() it; sb is reset. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb) { strbuf_setlen(sb, 0); }

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other);
void strbuf_addchars(struct strbuf *sb, int c, size_t n);
__attribute__((format(printf, 2, 3)))
void strbuf_addf(struct strbuf *sb, const char *fmt, ...);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_insert(struct strbuf *sb, size_t pos, const void *data, size_t len);

void strbuf_rtrim(struct strbuf *sb);
void strbuf_trim(struct strbuf *sb);
/* Remove one trailing "\n" or "\r\n". */
void strbuf_strip_eol(struct strbuf *sb);

/* Read to EOF; return 0 or -1 with errno set.  Caps input at `limit` bytes (0: no cap). */
int strbuf_read_fd(struct strbuf *sb, int fd, size_t limit);
int strbuf_read_file(struct strbuf *sb, const char *path, size_t limit);
/* Read one line (without its newline); return 0, or EOF at end of input. */
int strbuf_getline(struct strbuf *sb, FILE *fp);


int starts_with(const char *s, const char *prefix);
int skip_prefix(const char *s, const char *prefix, const char **out);
int ends_with(const char *s, const char *suffix);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
__attribute__((format(printf, 1, 2)))
char *xstrfmt(const char *fmt, ...);

#define ALLOC_GROW(x, nr, alloc) \
	do { \
		if ((nr) > (alloc)) { \
			(alloc) = (alloc) < 16 ? 16 : (alloc) * 2; \
			if ((alloc) < (nr)) \
				(alloc) = (nr); \
			(x) = xrealloc((x), (alloc) * sizeof(*(x))); \
		} \
	} while (0)

#endif
