/* SPDX-License-Identifier: GPL-2.0-only */
/* usage: messages and the exit statuses every khsend command shares. */
#ifndef KHSEND_USAGE_H
#define KHSEND_USAGE_H

/* Exit statuses (khsend(1), EXIT STATUS). */
enum {
	EXIT_CLEAN = 0,		/* nothing blocks; booted clean; sent */
	EXIT_FINDING = 1,	/* a block finding, a failed build/boot, a stale policy */
	EXIT_ERROR = 2,		/* bad input, bad policy, a tool that failed */
};

/* Shown before every message: "khsend", or "khsend (sendemail-validate)" in a hook. */
extern const char *program_name;

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die_errno(const char *fmt, ...);
/* error() returns -1 so that "return error(...)" reads well. */
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error_errno(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
/* A plain informational line on stderr ("khsend: ..."). */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);
__attribute__((noreturn, format(printf, 3, 4)))
void BUG_fl(const char *file, int line, const char *fmt, ...);
#define BUG(...) BUG_fl(__FILE__, __LINE__, __VA_ARGS__)

/* Flush stdout: 0, or -1 after "cannot write to standard output" (closed, full, ...). */
int flush_stdout(void);

/* Called by die() before exiting, e.g. to remove temporary directories. */
void set_die_cleanup(void (*fn)(void));

/* Replace terminal control characters so untrusted text cannot inject escapes. */
void sanitize_terminal(char *s);

#endif
