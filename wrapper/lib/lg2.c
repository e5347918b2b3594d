// SPDX-License-Identifier: GPL-2.0-only
/* lg2: libgit2 on demand. */
#include "lib/lg2.h"
#include "lib/usage.h"

static int started;

void
lg2_init(void)
{
	if (!started && git_libgit2_init() >= 0)
		started = 1;
}

void
lg2_shutdown(void)
{
	if (started)
		git_libgit2_shutdown();
	started = 0;
}

int
lg2_error(int code, const char *what, const char *extra)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "no further details";

	if (extra)
		error("%s '%s': %s (libgit2 error %d)", what, extra, msg, code);
	else
		error("%s: %s (libgit2 error %d)", what, msg, code);
	git_error_clear();
	return -1;
}
