/* SPDX-License-Identifier: GPL-2.0-only */
/* json: just enough JSON output for --format=json. */
#ifndef KHSEND_JSON_H
#define KHSEND_JSON_H

#include "lib/strbuf.h"

/* Append a JSON string; bytes that are not UTF-8 become U+FFFD. */
void json_add_string(struct strbuf *sb, const char *s);
/* Length of the valid UTF-8 sequence at s (NUL-terminated), or 0 if it is not one. */
size_t utf8_len(const unsigned char *s);
/* Append a string, or null for NULL. */
void json_add_string_or_null(struct strbuf *sb, const char *s);

#endif
