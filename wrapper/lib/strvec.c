// SPDX-License-Identifier: GPL-2.0-only
/* strvec: argument and environment vectors for child processes. */
#include "lib/strvec.h"
#include "lib/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *empty_strvec[] = { NULL };

void
strvec_init(struct strvec *vec)
{
	vec->v = empty_strvec;
	vec->nr = vec->alloc = 0;
}

const char *
strvec_push_nodup(struct strvec *vec, char *s)
{
	if (vec->v == empty_strvec)
		vec->v = NULL;
	ALLOC_GROW(vec->v, vec->nr + 2, vec->alloc);
	vec->v[vec->nr++] = s;
	vec->v[vec->nr] = NULL;
	return s;
}

const char *
strvec_push(struct strvec *vec, const char *s)
{
	return strvec_push_nodup(vec, xstrdup(s));
}

const char *
strvec_pushf(struct strvec *vec, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strvec_push_nodup(vec, strbuf_detach(&sb, NULL));
}

void
strvec_pushl(struct strvec *vec, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, vec);
	while ((s = va_arg(ap, const char *)))
		strvec_push(vec, s);
	va_end(ap);
}

void
strvec_pushv(struct strvec *vec, const char **items)
{
	for (; *items; items++)
		strvec_push(vec, *items);
}

void
strvec_clear(struct strvec *vec)
{
	if (vec->v != empty_strvec) {
		for (size_t i = 0; i < vec->nr; i++)
			free((char *)vec->v[i]);
		free(vec->v);
	}
	strvec_init(vec);
}

int
strvec_contains(const struct strvec *vec, const char *s)
{
	for (size_t i = 0; i < vec->nr; i++)
		if (!strcmp(vec->v[i], s))
			return 1;
	return 0;
}

static int
cmp_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void
strvec_sort(struct strvec *vec)
{
	if (vec->nr)
		qsort(vec->v, vec->nr, sizeof(*vec->v), cmp_strings);
}
