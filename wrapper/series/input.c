// SPDX-License-Identifier: GPL-2.0-only
/* input: files, directories and revisions, as git send-email tells them apart. */
#include "series/input.h"
#include "lib/i18n.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <stdlib.h>
#include <string.h>

/* A directory contributes its regular files (and FIFOs), sorted by name. */
static int
add_directory(struct strvec *files, const char *dir)
{
	struct strvec names = STRVEC_INIT;

	if (read_dir_sorted(dir, &names))
		return error_errno(_("Failed to opendir %s"), dir);
	for (size_t i = 0; i < names.nr; i++) {
		char *path = xstrfmt("%s/%s", dir, names.v[i]);

		if (is_regular_or_fifo(path) && !is_dir(path))
			strvec_push_nodup(files, path);
		else
			free(path);
	}
	strvec_clear(&names);
	return 0;
}

/* git send-email's is_format_patch_arg(): 1 revision, 0 file, -1 ambiguous (reported). */
static int
is_format_patch_arg(const struct repo *repo, int format_patch, const char *arg)
{
	if (!repo_resolves(repo, arg, NULL))
		return 0;
	if (format_patch >= 0)
		return format_patch;
	error(_("File '%s' exists but it could also be the range of commits\n"
	        "to produce patches for.  Please disambiguate by...\n\n"
	        "    * Saying \"./%s\" if you mean a file; or\n"
	        "    * Giving --format-patch option if you mean a range."), arg, arg);
	return -1;
}

int
input_classify(const struct strvec *inputs, const struct repo *repo, int format_patch,
	       struct strvec *files, struct strvec *revs)
{
	for (size_t i = 0; i < inputs->nr; i++) {
		const char *f = inputs->v[i];
		int rev;

		if (!strcmp(f, "--")) {
			for (; i < inputs->nr; i++)
				strvec_push(revs, inputs->v[i]);
			break;
		}
		if (!strcmp(f, "-")) {
			strvec_push(files, f);
			continue;
		}
		if (is_dir(f) || is_regular_or_fifo(f)) {
			rev = is_format_patch_arg(repo, format_patch, f);
			if (rev < 0)
				return -1;
			if (!rev) {
				if (is_dir(f) ? add_directory(files, f) : (strvec_push(files, f), 0))
					return -1;
				continue;
			}
		}
		strvec_push(revs, f);
	}
	return 0;
}
