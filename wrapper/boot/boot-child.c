// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-child: make and QEMU run for minutes, so they get a process group
 * of their own (a Ctrl-C on the terminal reaches only khsend, which then
 * ends the whole group) and their output is read as it comes: copied to a
 * log, cut into lines for the caller, with a deadline.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double
monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *
shipped_file(enum installed_dir dir, const char *name, const char *in_build)
{
	char *installed = installed_path(dir, name);
	char exe[PATH_MAX];
	ssize_t n;

	if (!access(installed, R_OK))
		return installed;
	/* A binary in the build directory: the file of the source tree or the build. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash, *path;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			path = xstrfmt("%s/%s", exe, in_build);
			if (!access(path, R_OK)) {
				free(installed);
				return path;
			}
			free(path);
		}
	}
	return installed;
}

static void
write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* a full disk must not stop the watch; the log is a copy */
		buf += n;
		len -= (size_t)n;
	}
}

/* Hand each complete line to line_fn; keep the unfinished rest in `pending`. */
static int
feed_lines(struct watch *w, struct strbuf *pending)
{
	size_t start = 0;
	int stop = 0;

	for (;;) {
		char *nl = memchr(pending->buf + start, '\n', pending->len - start);

		if (!nl)
			break;
		*nl = '\0';
		if (nl > pending->buf + start && nl[-1] == '\r')
			nl[-1] = '\0';
		if (w->line_fn && !stop)
			stop = w->line_fn(pending->buf + start, w->data);
		start = (size_t)(nl - pending->buf) + 1;
	}
	memmove(pending->buf, pending->buf + start, pending->len - start);
	strbuf_setlen(pending, pending->len - start);
	return stop;
}

/* SIGTERM lets make remove half-written targets; SIGKILL for whatever is left. */
static void
end_group(struct child_process *cp, pid_t pgid, int *outcome)
{
	if (cp->pid <= 0)
		return;
	kill_command(cp, SIGTERM);
	if (!wait_command_timeout(cp, 3000, outcome)) {
		kill_command(cp, SIGKILL);
		wait_command_timeout(cp, -1, outcome);
	}
	/* The leader is gone; a grandchild may still hold the group. */
	kill(-pgid, SIGKILL);
}

/* WATCH_EXITED to go on waiting, or why to stop. */
static enum watch_end
must_stop(double deadline)
{
	if (boot_interrupted)
		return WATCH_INTERRUPTED;
	if (deadline >= 0 && monotonic_seconds() >= deadline)
		return WATCH_TIMED_OUT;
	return WATCH_EXITED;
}

enum watch_end
watch_command(struct child_process *cp, struct watch *w, int *outcome)
{
	struct strbuf pending = STRBUF_INIT;
	double deadline = w->timeout_ms < 0 ? -1 : monotonic_seconds() + w->timeout_ms / 1000.0;
	enum watch_end end = WATCH_EXITED;
	int fds[2], open_fd;
	pid_t pgid;

	*outcome = -1;
	if (pipe2(fds, O_CLOEXEC))
		die_errno("cannot create a pipe");
	cp->no_stdin = 1;
	cp->out = fds[1];
	cp->err = fds[1];
	cp->new_process_group = 1;
	if (start_command(cp) < 0) {
		close(fds[0]);
		close(fds[1]);
		child_process_clear(cp);
		return WATCH_NOT_STARTED;
	}
	close(fds[1]);
	pgid = cp->pid;
	open_fd = fds[0];

	while (open_fd >= 0) {
		struct pollfd pfd = { .fd = open_fd, .events = POLLIN };
		int rc;

		if ((end = must_stop(deadline)) != WATCH_EXITED)
			break;
		rc = poll(&pfd, 1, 200);
		if (rc < 0 && errno != EINTR)
			die_errno("poll");
		if (rc > 0) {
			ssize_t n;

			strbuf_grow(&pending, 65536);
			n = read(open_fd, pending.buf + pending.len, 65536);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(open_fd);
				open_fd = -1;
				/* A last line without a newline still counts. */
				if (pending.len)
					strbuf_addch(&pending, '\n');
			} else {
				if (w->log_fd >= 0)
					write_all(w->log_fd, pending.buf + pending.len, (size_t)n);
				if (w->keep)
					strbuf_add(w->keep, pending.buf + pending.len, (size_t)n);
				strbuf_setlen(&pending, pending.len + (size_t)n);
			}
			if (feed_lines(w, &pending)) {
				end = WATCH_STOPPED;
				break;
			}
		}
		if (w->tick_fn)
			w->tick_fn(w->data);
	}

	if (end == WATCH_EXITED) {
		/* Output closed: the child is ending; it may still need a moment. */
		while (!wait_command_timeout(cp, 200, outcome))
			if ((end = must_stop(deadline)) != WATCH_EXITED)
				break;
	}
	if (end != WATCH_EXITED) {
		int ignored;

		end_group(cp, pgid, &ignored);
	}
	if (open_fd >= 0)
		close(open_fd);
	child_process_clear(cp);
	strbuf_release(&pending);
	return end;
}
