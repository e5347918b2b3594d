// SPDX-License-Identifier: GPL-2.0-only
/* color: decide once per stream whether escapes are welcome there. */
#include "lib/color.h"
#include "lib/config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum color_mode mode = COLOR_AUTO;
static int mode_given;		/* --color or --no-color: git's color.ui does not count then */
static int decided[3] = { -1, -1, -1 };

int
color_parse_mode(const char *s)
{
	if (!strcmp(s, "auto"))
		return COLOR_AUTO;
	if (!strcmp(s, "always") || !strcmp(s, "true"))
		return COLOR_ALWAYS;
	if (!strcmp(s, "never") || !strcmp(s, "false"))
		return COLOR_NEVER;
	return -1;
}

void
color_set_mode(enum color_mode m)
{
	mode = m;
	mode_given = 1;
	decided[1] = decided[2] = -1;
}

int
want_color(int fd)
{
	const char *term;

	if (fd < 1 || fd > 2)
		return 0;
	if (decided[fd] >= 0)
		return decided[fd];
	if (!mode_given) {
		/*
		 * git's color.ui, read as git reads it: "true" is "auto" there
		 * (since git 1.8.4), and so a hook speaks as git around it does.
		 */
		const char *ui = config_get("color.ui");

		if (ui && (!strcmp(ui, "never") || !strcmp(ui, "false")))
			mode = COLOR_NEVER;
		else if (ui && !strcmp(ui, "always"))
			mode = COLOR_ALWAYS;
	}
	if (mode == COLOR_ALWAYS)
		decided[fd] = 1;
	else if (mode == COLOR_NEVER)
		decided[fd] = 0;
	else {
		/* https://no-color.org: any non-empty NO_COLOR turns colour off. */
		const char *nc = getenv("NO_COLOR");

		term = getenv("TERM");
		decided[fd] = isatty(fd) && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
	}
	return decided[fd];
}

const char *
color_code(int fd, const char *code)
{
	return code && want_color(fd) ? code : "";
}
