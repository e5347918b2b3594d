// SPDX-License-Identifier: GPL-2.0-only
/*
 * run-command: fork and exec with an argv vector and an explicit
 * environment.  Between fork() and exec only async-signal-safe calls are
 * made; an exec failure travels back to the parent over a close-on-exec
 * pipe, as git's run-command.c does.
 */
#define _GNU_SOURCE
#include "lib/run-command.h"
#include "lib/i18n.h"
#include "lib/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/*
 * The children now running, so that a fatal signal can be passed on to
 * them before khsend goes (git's clean_on_exit): a SIGTERM sent to khsend
 * alone must not leave a git or a sendmail running on its own.
 */
static pid_t running[32];
static unsigned char running_group[32];

static void
track_child(pid_t pid, int group)
{
	for (size_t i = 0; i < sizeof(running) / sizeof(*running); i++)
		if (!running[i]) {
			running_group[i] = (unsigned char)group;
			running[i] = pid;
			return;
		}
}

static void
untrack_child(pid_t pid)
{
	for (size_t i = 0; i < sizeof(running) / sizeof(*running); i++)
		if (running[i] == pid)
			running[i] = 0;
}

/* Async-signal-safe: pass `sig` on, give each child 2 s to go, then SIGKILL. */
void
stop_running_children(int sig)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	for (size_t i = 0; i < sizeof(running) / sizeof(*running); i++)
		if (running[i] > 0)
			kill(running_group[i] ? -running[i] : running[i], sig);
	for (size_t i = 0; i < sizeof(running) / sizeof(*running); i++) {
		pid_t pid = running[i];
		int status;

		if (pid <= 0)
			continue;
		for (int t = 0; t < 100 && waitpid(pid, &status, WNOHANG) == 0; t++)
			nanosleep(&tick, NULL);
		if (waitpid(pid, &status, WNOHANG) == 0) {
			kill(running_group[i] ? -pid : pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		running[i] = 0;
	}
}

void
child_process_init(struct child_process *cp)
{
	struct child_process blank = CHILD_PROCESS_INIT;

	*cp = blank;
}

void
child_process_clear(struct child_process *cp)
{
	strvec_clear(&cp->args);
	strvec_clear(&cp->env);
}

char *
locate_in_path(const char *file, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = path;

	if (strchr(file, '/'))
		return xstrdup(file);
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *end = strchrnul(p, ':');
		struct stat st;

		strbuf_reset(&sb);
		if (end != p) {
			strbuf_add(&sb, p, (size_t)(end - p));
			strbuf_addch(&sb, '/');
		}
		strbuf_addstr(&sb, file);
		if (!stat(sb.buf, &st) && S_ISREG(st.st_mode) && !access(sb.buf, X_OK))
			return strbuf_detach(&sb, NULL);
		if (!*end)
			break;
		p = end + 1;
	}
	strbuf_release(&sb);
	return NULL;
}

static int
env_name_matches(const char *entry, const char *name, size_t namelen)
{
	return !strncmp(entry, name, namelen) && entry[namelen] == '=';
}

/* One "VAR=value" (set) or "VAR" (unset) applied to envp[0..*nr). */
static const char **
apply_env(const char **envp, size_t *nr, size_t *alloc, const char *mod, struct strvec *owned)
{
	const char *eq = strchr(mod, '=');
	size_t namelen = eq ? (size_t)(eq - mod) : strlen(mod);
	size_t j, k;

	for (j = k = 0; j < *nr; j++)
		if (!env_name_matches(envp[j], mod, namelen))
			envp[k++] = envp[j];
	*nr = k;
	if (eq) {
		ALLOC_GROW(envp, *nr + 2, *alloc);
		envp[(*nr)++] = strvec_push(owned, mod);
	}
	return envp;
}

/*
 * environ (or nothing) with cp->env applied; the strings are borrowed.
 * A LANGUAGE that khsend set for its own messages is the user's again.
 */
static const char **
prepare_envp(const struct child_process *cp, struct strvec *owned)
{
	const char **envp;
	size_t nr = 0, alloc = 0;

	envp = NULL;
	ALLOC_GROW(envp, 1, alloc);
	if (!cp->clean_env) {
		for (char **e = environ; *e; e++) {
			ALLOC_GROW(envp, nr + 2, alloc);
			envp[nr++] = *e;
		}
		if (i18n_child_env())
			envp = apply_env(envp, &nr, &alloc, i18n_child_env(), owned);
	}
	for (size_t i = 0; i < cp->env.nr; i++)
		envp = apply_env(envp, &nr, &alloc, cp->env.v[i], owned);
	ALLOC_GROW(envp, nr + 1, alloc);
	envp[nr] = NULL;
	return envp;
}

static const char *
lookup_env(const char **envp, const char *name)
{
	size_t n = strlen(name);

	for (; *envp; envp++)
		if (env_name_matches(*envp, name, n))
			return *envp + n + 1;
	return NULL;
}

/* Only async-signal-safe calls from here until exec. */
static void
child_die(int notify_fd, int err)
{
	ssize_t unused = write(notify_fd, &err, sizeof(err));

	(void)unused;
	_exit(127);
}

static void
child_dup(int notify_fd, int from, int to)
{
	if (from == to) {
		/* Our own pipe landed on a standard fd: keep it across exec. */
		if (fcntl(to, F_SETFD, 0) < 0)
			child_die(notify_fd, errno);
	} else if (dup2(from, to) < 0) {
		child_die(notify_fd, errno);
	}
}

int
start_command(struct child_process *cp)
{
	int fdin[2] = { -1, -1 }, fdout[2] = { -1, -1 }, fderr[2] = { -1, -1 };
	int notify[2], null_fd = -1, child_err = 0;
	struct strvec owned = STRVEC_INIT;
	const char **envp;
	char *prog;
	ssize_t n;

	if (!cp->args.nr)
		BUG("start_command() without a program");
	envp = prepare_envp(cp, &owned);
	prog = locate_in_path(cp->args.v[0], lookup_env(envp, "PATH"));
	if (!prog) {
		if (!cp->silent_exec_failure)
			error("cannot run '%s': not found in PATH", cp->args.v[0]);
		free(envp);
		strvec_clear(&owned);
		errno = ENOENT;
		return -1;
	}
	if ((cp->in < 0 && pipe2(fdin, O_CLOEXEC)) ||
	    (cp->out < 0 && pipe2(fdout, O_CLOEXEC)) ||
	    (cp->err < 0 && pipe2(fderr, O_CLOEXEC)) ||
	    pipe2(notify, O_CLOEXEC))
		die_errno("cannot create a pipe for '%s'", cp->args.v[0]);
	if (cp->no_stdin || cp->no_stdout || cp->no_stderr) {
		null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null_fd < 0)
			die_errno("cannot open /dev/null");
	}

	fflush(NULL);
	cp->pid = fork();
	if (cp->pid < 0)
		die_errno("cannot fork '%s'", cp->args.v[0]);
	if (!cp->pid) {
		sigset_t all;
		struct sigaction sa;

		/* Give the child our default dispositions and an empty mask. */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				sigaction(sig, &sa, NULL);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		if (cp->new_process_group)
			setpgid(0, 0);

		if (cp->no_stdin)
			child_dup(notify[1], null_fd, 0);
		else if (cp->in < 0)
			child_dup(notify[1], fdin[0], 0);
		else if (cp->in > 0)
			child_dup(notify[1], cp->in, 0);
		if (cp->no_stdout)
			child_dup(notify[1], null_fd, 1);
		else if (cp->stdout_to_stderr)
			child_dup(notify[1], 2, 1);
		else if (cp->out < 0)
			child_dup(notify[1], fdout[1], 1);
		else if (cp->out > 0)
			child_dup(notify[1], cp->out, 1);
		if (cp->no_stderr)
			child_dup(notify[1], null_fd, 2);
		else if (cp->err < 0)
			child_dup(notify[1], fderr[1], 2);
		else if (cp->err > 0)
			child_dup(notify[1], cp->err, 2);
		/* Keep no stray descriptors (bats' fd 3 among them) beyond stdio. */
		if (notify[1] > 3)
			close_range(3, (unsigned)notify[1] - 1, 0);
		close_range((unsigned)notify[1] + 1, ~0U, 0);
		if (cp->dir && chdir(cp->dir))
			child_die(notify[1], errno);
		execve(prog, (char *const *)cp->args.v, (char *const *)envp);
		child_die(notify[1], errno);
	}

	close(notify[1]);
	while ((n = read(notify[0], &child_err, sizeof(child_err))) < 0 && errno == EINTR)
		;
	close(notify[0]);
	if (null_fd >= 0)
		close(null_fd);
	if (fdin[0] >= 0)
		close(fdin[0]);
	if (fdout[1] >= 0)
		close(fdout[1]);
	if (fderr[1] >= 0)
		close(fderr[1]);
	free(envp);
	strvec_clear(&owned);

	if (n == (ssize_t)sizeof(child_err)) {
		int status;

		while (waitpid(cp->pid, &status, 0) < 0 && errno == EINTR)
			;
		cp->pid = -1;
		if (fdin[1] >= 0)
			close(fdin[1]);
		if (fdout[0] >= 0)
			close(fdout[0]);
		if (fderr[0] >= 0)
			close(fderr[0]);
		if (!cp->silent_exec_failure || child_err != ENOENT) {
			errno = child_err;
			error_errno("cannot run '%s'", prog);
		}
		free(prog);
		errno = child_err;
		return -1;
	}
	free(prog);
	track_child(cp->pid, cp->new_process_group);
	if (cp->in < 0)
		cp->in = fdin[1];
	if (cp->out < 0)
		cp->out = fdout[0];
	if (cp->err < 0)
		cp->err = fderr[0];
	return 0;
}

static int
decode_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int
finish_command(struct child_process *cp)
{
	int status, ret = -1;

	if (cp->pid > 0) {
		pid_t w;

		while ((w = waitpid(cp->pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (w == cp->pid)
			ret = decode_status(status);
		untrack_child(cp->pid);
		cp->pid = -1;
	}
	child_process_clear(cp);
	return ret;
}

int
run_command(struct child_process *cp)
{
	if (start_command(cp) < 0) {
		child_process_clear(cp);
		return -1;
	}
	return finish_command(cp);
}

/*
 * As system() does, for a child that talks to the user (git send-email's
 * prompt, b4): ^C and ^\ reach it from the terminal and are its to act
 * on; a SIGTERM or SIGHUP sent to khsend alone is passed on to it.
 */
static volatile sig_atomic_t pass_to, passed;

static void
pass_signal(int sig)
{
	passed = sig;
	if (pass_to > 0)
		kill((pid_t)pass_to, sig);
}

int
run_command_in_foreground(struct child_process *cp, int *caught)
{
	static const int ignored[] = { SIGINT, SIGQUIT }, passed_on[] = { SIGTERM, SIGHUP };
	struct sigaction ign, fwd, old[4];
	int rc;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	memset(&fwd, 0, sizeof(fwd));
	fwd.sa_handler = pass_signal;
	passed = 0;
	for (size_t i = 0; i < 2; i++) {
		sigaction(ignored[i], &ign, &old[i]);
		sigaction(passed_on[i], &fwd, &old[2 + i]);
	}
	if (start_command(cp)) {
		rc = -1;
	} else {
		pass_to = cp->pid;
		rc = finish_command(cp);
		pass_to = 0;
	}
	for (size_t i = 0; i < 2; i++) {
		sigaction(ignored[i], &old[i], NULL);
		sigaction(passed_on[i], &old[2 + i], NULL);
	}
	if (caught)
		*caught = passed;
	return rc;
}

int
kill_command(struct child_process *cp, int sig)
{
	if (cp->pid <= 0)
		return -1;
	if (cp->new_process_group && !kill(-cp->pid, sig))
		return 0;
	return kill(cp->pid, sig);
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int
wait_command_timeout(struct child_process *cp, int timeout_ms, int *outcome)
{
	long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;

	for (;;) {
		int status;
		pid_t w = waitpid(cp->pid, &status, WNOHANG);

		if (w == cp->pid) {
			*outcome = decode_status(status);
			untrack_child(cp->pid);
			cp->pid = -1;
			return 1;
		}
		if (w < 0 && errno != EINTR) {
			*outcome = -1;
			untrack_child(cp->pid);
			cp->pid = -1;
			return 1;
		}
		if (deadline >= 0 && now_ms() >= deadline)
			return 0;
		poll(NULL, 0, 20);
	}
}

int
pipe_command(struct child_process *cp, const char *in, size_t in_len,
	     struct strbuf *out, struct strbuf *err)
{
	struct pollfd pfd[3];
	size_t written = 0;

	if (in)
		cp->in = -1;
	else if (!cp->in)
		cp->no_stdin = 1;
	if (out)
		cp->out = -1;
	if (err)
		cp->err = -1;
	if (start_command(cp) < 0) {
		child_process_clear(cp);
		return -1;
	}
	if (in && !in_len) {
		close(cp->in);
		in = NULL;
	}
	for (;;) {
		int nfds = 0, ix_in = -1, ix_out = -1, ix_err = -1;

		if (in) {
			ix_in = nfds;
			pfd[nfds++] = (struct pollfd){ .fd = cp->in, .events = POLLOUT };
		}
		if (out) {
			ix_out = nfds;
			pfd[nfds++] = (struct pollfd){ .fd = cp->out, .events = POLLIN };
		}
		if (err) {
			ix_err = nfds;
			pfd[nfds++] = (struct pollfd){ .fd = cp->err, .events = POLLIN };
		}
		if (!nfds)
			break;
		if (poll(pfd, (nfds_t)nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			die_errno("poll");
		}
		if (ix_in >= 0 && pfd[ix_in].revents) {
			ssize_t n = write(cp->in, in + written, in_len - written);

			if (n > 0)
				written += (size_t)n;
			if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == in_len) {
				close(cp->in);
				in = NULL;
			}
		}
		for (int k = 0; k < 2; k++) {
			int ix = k ? ix_err : ix_out;
			struct strbuf *sb = k ? err : out;
			ssize_t n;

			if (ix < 0 || !pfd[ix].revents)
				continue;
			strbuf_grow(sb, 8192);
			n = read(pfd[ix].fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
			if (n > 0) {
				strbuf_setlen(sb, sb->len + (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(pfd[ix].fd);
				if (k)
					err = NULL;
				else
					out = NULL;
			}
		}
	}
	return finish_command(cp);
}

const char *
describe_outcome(int outcome, char *buf, size_t size)
{
	if (outcome < 0)
		snprintf(buf, size, "could not be started");
	else if (outcome > 128)
		snprintf(buf, size, "was killed by signal %d (%s)", outcome - 128,
			 strsignal(outcome - 128));
	else
		snprintf(buf, size, "exited with status %d", outcome);
	return buf;
}
