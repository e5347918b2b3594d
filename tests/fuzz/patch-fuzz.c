// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a mail as khsend reads it in-process -- the header
 * reader, the plain/MIME decision, the split of a plain body where git
 * mailinfo splits it, the policy's one-pass filter, libgit2's reading of
 * the patch and the detector over its lines.  (What git itself reads --
 * git mailinfo, git apply --numstat -- is not fuzzed here: it runs in a
 * child process; tests/differential.bats holds khsend's readings against
 * git's.)
 */
#include "check/detect.h"
#include "lib/lg2.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "policy/matcher.h"
#include "series/message.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_policy[] =
	"version: 1\n"
	"entries:\n"
	"  - id: literal\n"
	"    string: \"e\"\n"
	"    explain: a letter\n"
	"  - id: anchored\n"
	"    string: \"borken\"\n"
	"    paths: [\"kernel/**\", \"*.h\"]\n"
	"    explain: a joke\n"
	"  - id: pattern\n"
	"    regex: \"[Ff]s(ck|ed)|^x\"\n"
	"    ignore-case: true\n"
	"    action: annotate\n"
	"    explain: a pattern\n";

static struct policy policy = POLICY_INIT;
static struct matcher *matcher;

/* The detector wants git apply's names; here libgit2's stand in for them. */
static void
files_from_libgit2(struct message *msg)
{
	for (size_t i = 0; msg->diff && i < git_diff_num_deltas(msg->diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(msg->diff, i);
		struct patch_file *f;

		ALLOC_GROW(msg->files, msg->files_nr + 1, msg->files_alloc);
		f = &msg->files[msg->files_nr++];
		memset(f, 0, sizeof(*f));
		f->created = d->status == GIT_DELTA_ADDED;
		f->deleted = d->status == GIT_DELTA_DELETED;
		f->renamed = d->status == GIT_DELTA_RENAMED;
		f->old_path = f->created ? NULL : xstrdup(d->old_file.path);
		f->new_path = f->deleted ? NULL : xstrdup(d->new_file.path);
		f->binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
		f->delta = i;
	}
	msg->diff_read = 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct message msg = MESSAGE_INIT;
	unsigned char hits[3] = { 0 };
	struct detector d;

	if (!matcher) {
		lg2_init();
		if (policy_parse(&policy, "fuzz-policy.yaml", fuzz_policy, sizeof(fuzz_policy) - 1))
			abort();
		matcher = matcher_new(&policy);
	}
	strbuf_add(&msg.raw, data, size);
	msg.index = 1;
	if (message_set_raw(&msg, "fuzz.patch", msg.raw.buf, msg.raw.len) || !msg.plain) {
		message_release(&msg);
		return 0;
	}
	if (message_decode(&msg, NULL))
		abort();	/* a plain mail decodes in-process, without fail */
	matcher_scan(matcher, msg.raw.buf, msg.raw.len, hits);
	message_has_patch(&msg);
	free(message_base_commit(&msg));
	if (!patch_read_lines(&msg, &msg.diff)) {
		files_from_libgit2(&msg);
		detector_init(&d, &policy, NULL);
		detector_add(&d, &msg, hits);
		detector_finish(&d);
		detector_release(&d);
	}
	message_release(&msg);
	return 0;
}
