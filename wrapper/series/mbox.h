/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mbox: where one mail ends and the next begins, by git mailsplit's own
 * rule (builtin/mailsplit.c): a file that does not start with a "From "
 * line is one mail; otherwise each "From " line that ends in something
 * like a date starts the next one.
 */
#ifndef KHSEND_MBOX_H
#define KHSEND_MBOX_H

#include <stddef.h>

/* git mailsplit's is_from_line(); `len` counts the newline if the line has one. */
int mbox_is_from_line(const char *line, size_t len);

#endif
