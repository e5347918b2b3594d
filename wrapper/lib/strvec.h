/* SPDX-License-Identifier: GPL-2.0-only */
/* strvec: a NULL-terminated array of strings that owns its memory (after git's strvec.h). */
#ifndef KHSEND_STRVEC_H
#define KHSEND_STRVEC_H

#include <stddef.h>

extern const char *empty_strvec[];

struct strvec {
	const char **v;		/* never NULL; v[nr] == NULL */
	size_t nr;
	size_t alloc;
};

#define STRVEC_INIT { empty_strvec, 0, 0 }

void strvec_init(struct strvec *vec);
const char *strvec_push(struct strvec *vec, const char *s);
/* Take ownership of a malloc()ed string. */
const char *strvec_push_nodup(struct strvec *vec, char *s);
__attribute__((format(printf, 2, 3)))
const char *strvec_pushf(struct strvec *vec, const char *fmt, ...);
void strvec_pushl(struct strvec *vec, ...);	/* NULL-terminated */
void strvec_pushv(struct strvec *vec, const char **items);
void strvec_clear(struct strvec *vec);
int strvec_contains(const struct strvec *vec, const char *s);
/* Sort by strcmp(), as Perl's sort and ls do in the C locale. */
void strvec_sort(struct strvec *vec);

#endif
