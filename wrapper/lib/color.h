/* SPDX-License-Identifier: GPL-2.0-only */
/* color: ANSI colours, only on a terminal, honouring NO_COLOR and --color. */
#ifndef KHSEND_COLOR_H
#define KHSEND_COLOR_H

#define COLOR_RESET "\033[m"
#define COLOR_BOLD "\033[1m"
#define COLOR_RED "\033[31m"
#define COLOR_GREEN "\033[32m"
#define COLOR_YELLOW "\033[33m"
#define COLOR_CYAN "\033[36m"
#define COLOR_DIM "\033[2m"

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

/* Parse "auto", "always", "never" (and git's true/false); -1 if unknown. */
int color_parse_mode(const char *s);
void color_set_mode(enum color_mode mode);
/* Whether fd 1 or 2 gets colour. */
int want_color(int fd);
/* The code itself, or "" when fd gets no colour. */
const char *color_code(int fd, const char *code);

#endif
