// SPDX-License-Identifier: GPL-2.0-only
/* json: string escaping with UTF-8 validation, so the output always parses. */
#include "lib/json.h"

#include <string.h>

size_t
utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf && (s[1] & 0xc0) == 0x80)
		return 2;
	if (s[0] >= 0xe0 && s[0] <= 0xef && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) {
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))
			return 0;	/* overlong, or a surrogate */
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
	    (s[3] & 0xc0) == 0x80) {
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

void
json_add_string(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_addch(sb, '"');
	while (*p) {
		size_t n;

		switch (*p) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			p++;
			continue;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			p++;
			continue;
		case '\n':
			strbuf_addstr(sb, "\\n");
			p++;
			continue;
		case '\t':
			strbuf_addstr(sb, "\\t");
			p++;
			continue;
		case '\r':
			strbuf_addstr(sb, "\\r");
			p++;
			continue;
		default:
			break;
		}
		if (*p < 0x20 || *p == 0x7f) {
			strbuf_addf(sb, "\\u%04x", *p);
			p++;
			continue;
		}
		n = utf8_len(p);
		if (!n) {
			strbuf_addstr(sb, "\\ufffd");
			p++;
			continue;
		}
		strbuf_add(sb, p, n);
		p += n;
	}
	strbuf_addch(sb, '"');
}

void
json_add_string_or_null(struct strbuf *sb, const char *s)
{
	if (s)
		json_add_string(sb, s);
	else
		strbuf_addstr(sb, "null");
}
