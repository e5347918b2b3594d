/* libFuzzer target: the policy loader, then matching with whatever it accepted. */
#include "policy/policy.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p = POLICY_INIT;
	char *buf = xmalloc(size + 1);
	static const char *lines[] = {
		"\t\t\tpr_err(\"BUG: arch topology borken\\n\");",
		"Read the Fscking Papers!",
		"",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
	};
	static const char *paths[] = { "kernel/sched/topology.c", "Documentation/RCU/RTFP.txt", "a/b/c/d/e/f.h" };

	memcpy(buf, data, size);
	buf[size] = '\0';
	policy_parse(&p, "fuzz.yaml", buf, size);
	for (size_t i = 0; i < p.nr; i++) {
		for (size_t k = 0; k < sizeof(lines) / sizeof(*lines); k++) {
			policy_entry_count(p.v[i], lines[k]);
			policy_entry_occurs_in(p.v[i], lines[k], strlen(lines[k]));
		}
		for (size_t k = 0; k < sizeof(paths) / sizeof(*paths); k++)
			policy_entry_covers(p.v[i], paths[k]);
	}
	policy_release(&p);
	free(buf);
	return 0;
}
