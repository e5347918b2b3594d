/*
 * libFuzzer target: the series reader and the detector, from raw bytes.
 * The input is written to a file and read the way "khsend check FILE"
 * reads it (mbox splitting, header parsing, libgit2's patch parser), with
 * a policy whose entries match common text so the detector runs often.
 */
#include "check/detect.h"
#include "lib/path.h"
#include "series/series.h"
#include "lib/strbuf.h"

#include <git2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static char *tmpdir, *input;

static int
add(struct message *msg, void *d)
{
	return detector_add(d, msg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec inputs = STRVEC_INIT;
	struct series_options opts = { NULL, -1, NULL };
	struct detector d;

	if (!tmpdir) {
		git_libgit2_init();
		if (policy_parse(&policy, "fuzz-policy.yaml", fuzz_policy, sizeof(fuzz_policy) - 1))
			abort();
		tmpdir = make_temp_dir("khsend-fuzz");
		remove_at_exit(tmpdir);
		input = xstrfmt("%s/input.patch", tmpdir);
	}
	if (write_file_buf(input, (const char *)data, size))
		abort();
	opts.tmpdir = tmpdir;
	strvec_push(&inputs, input);
	detector_init(&d, &policy, NULL);
	if (!series_read(&inputs, &opts, add, &d))
		detector_finish(&d);
	detector_release(&d);
	strvec_clear(&inputs);
	return 0;
}
