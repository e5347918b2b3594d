// SPDX-License-Identifier: GPL-2.0-only
/* bounded-regex: PCRE2 with a work bound proportional to the text. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "policy/bounded-regex.h"
#include "lib/usage.h"

#include <pcre2.h>
#include <stdint.h>

/*
 * PCRE2 counts the backtracking steps of one match call.  A sane pattern
 * takes a few per byte; a pattern that backtracks over the whole line at
 * every position (the square of the line, or worse) runs into this soon.
 */
#define STEPS_PER_BYTE 64
#define STEPS_MIN 20000
/* Nesting of groups: kernel jokes need a few levels; libyaml and PCRE2 need not see more. */
#define PARENS_LIMIT 16

static pcre2_match_context *
match_context(size_t len)
{
	static pcre2_match_context *mctx;
	size_t steps = STEPS_MIN + STEPS_PER_BYTE * len;

	if (!mctx) {
		mctx = pcre2_match_context_create(NULL);
		if (!mctx)
			die("out of memory");
		/* Only the interpreter heeds these two; JIT has its own stack limit. */
		pcre2_set_depth_limit(mctx, 10000);
		pcre2_set_heap_limit(mctx, 20 * 1024);	/* KiB */
	}
	pcre2_set_match_limit(mctx, steps > UINT32_MAX ? UINT32_MAX : (uint32_t)steps);
	return mctx;
}

int
bounded_regex_compile(struct bounded_regex *re, const char *src, int ignore_case, struct strbuf *err,
		      size_t *offset)
{
	/* No UTF: a (*UTF) in the pattern would make invalid UTF-8 in a patch an error. */
	uint32_t options = PCRE2_NEVER_UTF | PCRE2_NEVER_UCP | PCRE2_NEVER_BACKSLASH_C |
			   (ignore_case ? PCRE2_CASELESS : 0);
	pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
	PCRE2_SIZE erroffset = 0;
	int errcode = 0;
	pcre2_code *code;

	if (!cctx)
		die("out of memory");
	pcre2_set_parens_nest_limit(cctx, PARENS_LIMIT);
	pcre2_set_max_pattern_length(cctx, 65536);	/* the lexicon's categories are long alternations */
	code = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, options, &errcode, &erroffset, cctx);
	pcre2_compile_context_free(cctx);
	if (!code) {
		PCRE2_UCHAR msg[256];

		if (pcre2_get_error_message(errcode, msg, sizeof(msg)) < 0)
			strbuf_addf(err, "PCRE2 error %d", errcode);
		else
			strbuf_addstr(err, (const char *)msg);
		*offset = erroffset;
		return -1;
	}
	re->code = code;
	re->searches = 0;
	re->match = pcre2_match_data_create_from_pattern(code, NULL);
	if (!re->match)
		die("out of memory");
	return 0;
}

void
bounded_regex_free(struct bounded_regex *re)
{
	pcre2_match_data_free(re->match);
	pcre2_code_free(re->code);
	re->code = re->match = NULL;
}

/* Searches before a regex is compiled by the JIT too. */
#define JIT_AFTER 8

/*
 * The JIT's vector loads read a few bytes past the subject, which valgrind
 * cannot tell from a bug (PCRE2 knows only when built for valgrind): under
 * valgrind the interpreter answers, as it answers the same.
 */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND() RUNNING_ON_VALGRIND
#endif
#endif
#ifndef UNDER_VALGRIND
#define UNDER_VALGRIND() 0
#endif

enum bounded_result
bounded_regex_search(struct bounded_regex *re, const char *text, size_t len, size_t start, size_t *so,
		     size_t *eo)
{
	PCRE2_SIZE *ov;
	int rc;

	/*
	 * The JIT is faster where a regex is used often, and the interpreter
	 * gives the same answers: most of a policy's regexes (the lexicon's
	 * hundreds) are never searched at all, or a few times, so compiling
	 * them all up front would cost more than it saves.
	 */
	if (re->searches < JIT_AFTER && ++re->searches == JIT_AFTER && !UNDER_VALGRIND())
		pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
	rc = pcre2_match(re->code, (PCRE2_SPTR)text, len, start, 0, re->match, match_context(len - start));

	if (rc == PCRE2_ERROR_NOMATCH)
		return REGEX_NO_MATCH;
	if (rc < 0)
		return REGEX_TOO_MUCH_WORK;	/* a limit, or the JIT's stack: no answer either way */
	ov = pcre2_get_ovector_pointer(re->match);
	*so = ov[0];
	*eo = ov[1];
	return REGEX_MATCH;
}
