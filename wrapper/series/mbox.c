// SPDX-License-Identifier: GPL-2.0-only
/* mbox: git mailsplit's is_from_line(), byte for byte. */
#include "series/mbox.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int
mbox_is_from_line(const char *line, size_t len)
{
	const char *colon;

	if (len < 20 || memcmp("From ", line, 5))
		return 0;
	colon = line + len - 2;
	line += 5;
	for (;;) {
		if (colon < line)
			return 0;
		if (*--colon == ':')
			break;
	}
	if (!isdigit((unsigned char)colon[-4]) || !isdigit((unsigned char)colon[-2]) ||
	    !isdigit((unsigned char)colon[-1]) || !isdigit((unsigned char)colon[1]) ||
	    !isdigit((unsigned char)colon[2]))
		return 0;
	/* the year; strtol stops at the end of the line, which ends in a newline or a NUL */
	return strtol(colon + 3, NULL, 10) > 90;
}
