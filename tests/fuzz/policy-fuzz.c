/*
 * libFuzzer target: the policy loader, then matching with whatever it
 * accepted -- and the one-pass filter held to its promise: a line an
 * entry matches always holds the entry's literal.
 */
#include "policy/matcher.h"
#include "policy/policy.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A regex that reaches its work bound has no answer; khsend dies then, the fuzzer goes on. */
static int exhausted;

static void
too_much_work(const struct policy_entry *e, size_t len)
{
	exhausted = 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p = POLICY_INIT;
	struct matcher *m;
	char *buf = xmalloc(size + 1);
	unsigned char *hits;
	static const char *lines[] = {
		"\t\t\tpr_err(\"BUG: arch topology borken\\n\");",
		"Read the Fscking Papers!",
		"",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
	};
	static const char *paths[] = { "kernel/sched/topology.c", "Documentation/RCU/RTFP.txt", "a/b/c/d/e/f.h" };

	policy_too_much_work = too_much_work;
	exhausted = 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	policy_parse(&p, "fuzz.yaml", buf, size);
	m = matcher_new(&p);
	hits = calloc(p.nr ? p.nr : 1, 1);
	for (size_t i = 0; i < p.nr; i++) {
		for (size_t k = 0; k < sizeof(lines) / sizeof(*lines); k++) {
			size_t so, eo;

			policy_entry_count(p.v[i], lines[k]);
			policy_entry_find(p.v[i], lines[k], strlen(lines[k]), 0, &so, &eo);
		}
		for (size_t k = 0; k < sizeof(paths) / sizeof(*paths); k++)
			policy_entry_covers(p.v[i], paths[k]);
	}
	/* The filter never misses: each line of the input that an entry matches marks the entry. */
	for (char *line = buf, *nl; line && line - buf < 4096; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		memset(hits, 0, p.nr);
		matcher_scan(m, line, strlen(line), hits);
		for (size_t i = 0; i < p.nr; i++)
			if (policy_entry_count(p.v[i], line) && !hits[i] && !exhausted) {
				fprintf(stderr, "filter missed entry %s on line \"%s\"\n", p.v[i]->id, line);
				abort();
			}
	}
	free(hits);
	matcher_free(m);
	policy_release(&p);
	free(buf);
	return 0;
}
