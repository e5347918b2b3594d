/* mail: read a header block, the way the rest of khsend needs it. */
#define _GNU_SOURCE
#include "series/mail.h"
#include "lib/usage.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t
mail_line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
}

/*
 * git mailinfo's is_rfc2822_header(): a field name of printable ASCII but
 * the colon (RFC 5322 3.6.8, empty allowed), then ':'; mbox "From " and
 * ">From " lines count as headers too.  The name's length, or -1.
 */
static long
field_name_len(const char *p, size_t n)
{
	size_t i = 0;

	if ((n >= 5 && !memcmp(p, "From ", 5)) || (n >= 6 && !memcmp(p, ">From ", 6)))
		return 0;
	while (i < n && (unsigned char)p[i] >= 33 && (unsigned char)p[i] <= 126 && p[i] != ':')
		i++;
	return i < n && p[i] == ':' ? (long)i : -1;
}

int
mail_is_header_line(const char *p, size_t n)
{
	return field_name_len(p, n) > 0;
}

/* The line as git mailinfo sees it: without trailing whitespace. */
static size_t
rtrimmed_len(const char *p, size_t n)
{
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return n;
}

static void
add_header(struct mail_headers *h, const char *name, size_t namelen, struct strbuf *value)
{
	struct mail_header *m;

	strbuf_trim(value);
	ALLOC_GROW(h->v, h->nr + 1, h->alloc);
	m = &h->v[h->nr++];
	m->name = xstrndup(name, namelen);
	m->value = strbuf_detach(value, NULL);
}

int
mail_headers_parse(struct mail_headers *h, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	struct strbuf value = STRBUF_INIT;
	const char *name = NULL;
	size_t namelen = 0;
	int any = 0;

	h->body = 0;
	/* git mailsplit and git mailinfo both skip leading whitespace. */
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (p < end) {
		size_t n = mail_line_len(p, end), c = rtrimmed_len(p, n);
		long k;

		if (!c) {
			p += n;
			break;	/* the empty line: the body follows */
		}
		if (any && (*p == ' ' || *p == '\t')) {
			/* A continuation: unfolding takes out the line break only. */
			if (name)
				strbuf_add(&value, p, c);
			p += n;
			continue;
		}
		if ((k = field_name_len(p, c)) < 0)
			break;	/* not a header: the body starts with this line */
		any = 1;
		if (name)
			add_header(h, name, namelen, &value);
		name = NULL;
		if (!k && (*p == 'F' || *p == '>')) {
			/* the mbox "From " line: a header to git, but not one to keep */
			p += n;
			continue;
		}
		name = p;
		namelen = (size_t)k;
		strbuf_add(&value, p + k + 1, c - (size_t)k - 1);
		p += n;
	}
	if (!any) {
		strbuf_release(&value);
		return 0;
	}
	if (name)
		add_header(h, name, namelen, &value);
	else
		strbuf_release(&value);
	h->body = (size_t)(p - buf);
	return 1;
}

const char *
mail_header(const struct mail_headers *h, const char *name)
{
	for (size_t i = 0; i < h->nr; i++)
		if (!strcasecmp(h->v[i].name, name))
			return h->v[i].value;
	return NULL;
}

size_t
mail_header_count(const struct mail_headers *h, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nr; i++)
		n += !strcasecmp(h->v[i].name, name);
	return n;
}

void
mail_headers_release(struct mail_headers *h)
{
	for (size_t i = 0; i < h->nr; i++) {
		free(h->v[i].name);
		free(h->v[i].value);
	}
	free(h->v);
	memset(h, 0, sizeof(*h));
}

int
subject_is_cover(const char *subject)
{
	/* "[PATCH 0/3]", "[PATCH v2 00/10]", "[RFC 0/2]", "[0/3]" */
	for (const char *p = strstr(subject, "0/"); p; p = strstr(p + 1, "0/")) {
		const char *q = p, *d = p + 2;

		while (q > subject && q[-1] == '0')
			q--;
		if (q > subject && q[-1] != ' ' && q[-1] != '[')
			continue;
		if (!isdigit((unsigned char)*d))
			continue;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == ']')
			return 1;
	}
	return 0;
}
