/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run-command: child processes from an argv vector, never a shell string
 * (after git's run-command.h).
 *
 * The caller's lifecycle:
 *   1. struct child_process cp = CHILD_PROCESS_INIT;
 *   2. strvec_pushl(&cp.args, "git", "mailsplit", ..., NULL);
 *   3. optionally set cp.dir, cp.env, the stdio fields and the flags;
 *   4. start_command(&cp), then read cp.out / write cp.in if pipes were asked for;
 *   5. finish_command(&cp) waits and returns the outcome;
 *   or run_command() for 4+5, capture_command()/pipe_command() to collect output.
 *
 * Outcome: the child's exit code; 128 + signal number if a signal ended it;
 * -1 with errno set if it could not be started (ENOENT: not found).
 */
#ifndef KHSEND_RUN_COMMAND_H
#define KHSEND_RUN_COMMAND_H

#include "lib/strbuf.h"
#include "lib/strvec.h"

#include <sys/types.h>

struct child_process {
	struct strvec args;
	/* "VAR=value" sets VAR and a bare "VAR" removes it, on top of our environment. */
	struct strvec env;
	const char *dir;	/* chdir() here before exec */
	/*
	 * Standard streams: 0 inherits ours; -1 asks for a pipe, whose
	 * parent end replaces the field after start_command(); >0 is an
	 * fd the child gets (and that the caller still owns).
	 */
	int in;
	int out;
	int err;
	unsigned no_stdin:1;		/* /dev/null */
	unsigned no_stdout:1;
	unsigned no_stderr:1;
	unsigned stdout_to_stderr:1;
	unsigned clean_env:1;		/* start from an empty environment, then apply env */
	unsigned new_process_group:1;	/* setpgid(0, 0): killable as a group */
	unsigned silent_exec_failure:1;	/* no error message if the program is missing */
	pid_t pid;
};

#define CHILD_PROCESS_INIT { STRVEC_INIT, STRVEC_INIT, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 }

void child_process_init(struct child_process *cp);
void child_process_clear(struct child_process *cp);

int start_command(struct child_process *cp);
int finish_command(struct child_process *cp);
int run_command(struct child_process *cp);

/*
 * Run the command with `in` (may be NULL) on its stdin and collect stdout
 * and stderr (either may be NULL: inherited) without deadlocking.
 */
int pipe_command(struct child_process *cp, const char *in, size_t in_len,
		 struct strbuf *out, struct strbuf *err);
static inline int
capture_command(struct child_process *cp, struct strbuf *out)
{
	return pipe_command(cp, NULL, 0, out, NULL);
}

/*
 * run_command() for a child that talks to the user, as system() runs it:
 * ^C and ^\ are left to the child; SIGTERM and SIGHUP sent to khsend are
 * passed on to it, and *caught (may be NULL) says which came, or 0.
 */
int run_command_in_foreground(struct child_process *cp, int *caught);

/*
 * From a signal handler: pass `sig` on to every child still running, give
 * them 2 s to go, then SIGKILL; so that none outlives khsend.
 */
void stop_running_children(int sig);

/* Send a signal to the child (its whole group if it has one); 0 or -1. */
int kill_command(struct child_process *cp, int sig);

/*
 * Wait for at most `timeout_ms` (-1: forever); return 1 if the child
 * exited (and store its outcome as finish_command() would), 0 on timeout.
 */
int wait_command_timeout(struct child_process *cp, int timeout_ms, int *outcome);

/* Resolve a program name through PATH as execvp would; malloc()ed or NULL. */
char *locate_in_path(const char *file, const char *path);

/* Describe an outcome for a message: "exited with status 3", "was killed by signal 9". */
const char *describe_outcome(int outcome, char *buf, size_t size);

#endif
