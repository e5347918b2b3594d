// SPDX-License-Identifier: GPL-2.0-only
/* strbuf: growable buffers and the allocation wrappers everything else uses. */
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char strbuf_slopbuf[1];

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (allocating %zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory (allocating %zu x %zu bytes)", n, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die("out of memory (allocating %zu bytes)", n);
	return q;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;
	size_t len = strnlen(s, n);

	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xstrfmt(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

void
strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *
strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	strbuf_grow(sb, 0);
	p = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return p;
}

void
strbuf_grow(struct strbuf *sb, size_t extra)
{
	int fresh = !sb->alloc;

	if (SIZE_MAX - sb->len - 1 < extra)
		die("buffer too large (%zu + %zu bytes)", sb->len, extra);
	if (fresh)
		sb->buf = NULL;
	if (sb->len + extra + 1 > sb->alloc) {
		size_t want = sb->len + extra + 1;
		size_t alloc = sb->alloc < 64 ? 64 : sb->alloc;

		while (alloc < want)
			alloc = alloc + alloc / 2;
		sb->buf = xrealloc(sb->buf, alloc);
		sb->alloc = alloc;
	}
	if (fresh)
		sb->buf[0] = '\0';
}

void
strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > (sb->alloc ? sb->alloc - 1 : 0))
		BUG("strbuf_setlen() beyond buffer");
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	strbuf_setlen(sb, sb->len + len);
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void
strbuf_addbuf(struct strbuf *sb, const struct strbuf *other)
{
	strbuf_add(sb, other->buf, other->len);
}

void
strbuf_addchars(struct strbuf *sb, int c, size_t n)
{
	strbuf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	strbuf_setlen(sb, sb->len + n);
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed for '%s'", fmt);
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	strbuf_setlen(sb, sb->len + (size_t)n);
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void
strbuf_insert(struct strbuf *sb, size_t pos, const void *data, size_t len)
{
	if (pos > sb->len)
		BUG("strbuf_insert() beyond end");
	strbuf_grow(sb, len);
	memmove(sb->buf + pos + len, sb->buf + pos, sb->len - pos);
	memcpy(sb->buf + pos, data, len);
	strbuf_setlen(sb, sb->len + len);
}

void
strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && strchr(" \t\r\n", sb->buf[sb->len - 1]))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

void
strbuf_trim(struct strbuf *sb)
{
	size_t skip = 0;

	strbuf_rtrim(sb);
	while (skip < sb->len && strchr(" \t\r\n", sb->buf[skip]))
		skip++;
	if (skip) {
		memmove(sb->buf, sb->buf + skip, sb->len - skip);
		strbuf_setlen(sb, sb->len - skip);
	}
}

void
strbuf_strip_eol(struct strbuf *sb)
{
	if (sb->len && sb->buf[sb->len - 1] == '\n')
		sb->len--;
	if (sb->len && sb->buf[sb->len - 1] == '\r')
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

int
strbuf_read_fd(struct strbuf *sb, int fd, size_t limit)
{
	for (;;) {
		ssize_t n;

		strbuf_grow(sb, 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		strbuf_setlen(sb, sb->len + (size_t)n);
		if (limit && sb->len > limit) {
			errno = EFBIG;
			return -1;
		}
	}
}

int
strbuf_read_file(struct strbuf *sb, const char *path, size_t limit)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret, saved;

	if (fd < 0)
		return -1;
	ret = strbuf_read_fd(sb, fd, limit);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int
strbuf_getline(struct strbuf *sb, FILE *fp)
{
	int c;

	strbuf_reset(sb);
	while ((c = getc(fp)) != EOF) {
		if (c == '\n')
			return 0;
		strbuf_addch(sb, c);
	}
	return sb->len ? 0 : EOF;
}

int
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
skip_prefix(const char *s, const char *prefix, const char **out)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n))
		return 0;
	*out = s + n;
	return 1;
}

int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}
