// SPDX-License-Identifier: GPL-2.0-only
/* quote: git's sq_quote_buf(). */
#include "lib/quote.h"

#include <string.h>

void
sq_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '!')
			strbuf_addf(sb, "'\\%c'", *s);
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void
sq_quote_if_needed(struct strbuf *sb, const char *s)
{
	if (*s && !s[strcspn(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~=%")])
		strbuf_addstr(sb, s);
	else
		sq_quote(sb, s);
}
