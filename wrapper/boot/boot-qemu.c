// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-qemu: one boot of the built kernel in qemu-system-x86_64, the
 * serial console on QEMU's stdout, "-no-reboot panic=-1" so that a panic
 * ends QEMU at once, and a deadline after which the process group is
 * killed.  KVM is used only when /dev/kvm opens and a KVM boot really
 * gets going: on nested machines /dev/kvm can open and the guest then
 * hangs, so the first KVM boot has a short deadline, and the answer is
 * remembered until the machine reboots (its boot_id changes).
 */
#include "boot/boot-internal.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Long enough for a KVM guest to print its banner, short enough not to hurt when it hangs. */
#define KVM_PROBE_SECONDS 15

struct console {
	size_t lines;
	int halted;
	const char *accel;
};

static int
console_line(const char *line, void *data)
{
	struct console *c = data;

	c->lines++;
	/* A kernel that halts instead (no way to reset) stops here, and QEMU would wait for ever. */
	if (strstr(line, "reboot: System halted")) {
		c->halted = 1;
		return 1;
	}
	return 0;
}

static void
console_tick(void *data)
{
	struct console *c = data;

	progress_update("%s, %zu lines of console output", c->accel, c->lines);
}

static int
run_once(const struct qemu_params *p, const char *accel, int timeout, struct qemu_run *run)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct console con = { 0, 0, accel };
	struct watch w = { -1, &run->log, timeout * 1000, console_line, console_tick, &con };
	double start = monotonic_seconds();
	enum watch_end end;

	strbuf_reset(&run->log);
	w.log_fd = open(p->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w.log_fd < 0)
		return error_errno("cannot create the serial log '%s'", p->log_path);
	strvec_pushl(&cp.args, "qemu-system-x86_64", "-nodefaults", "-nographic", "-no-reboot",
		     "-serial", "stdio", "-smp", "1", "-accel", accel, NULL);
	strvec_push(&cp.args, "-m");
	strvec_pushf(&cp.args, "%d", p->memory_mb);
	strvec_pushl(&cp.args, "-kernel", p->kernel, "-initrd", p->initrd, "-append", NULL);
	strvec_pushf(&cp.args, "console=ttyS0 panic=-1 khsend_nonce=%s", p->nonce);
	strvec_push(&cp.env, "LC_ALL=C");
	end = watch_command(&cp, &w, &run->outcome);
	close(w.log_fd);
	run->seconds = monotonic_seconds() - start;
	run->accel = accel;
	switch (end) {
	case WATCH_EXITED:
		run->end = QEMU_EXITED;
		break;
	case WATCH_TIMED_OUT:
		run->end = QEMU_TIMED_OUT;
		break;
	case WATCH_STOPPED:
		run->end = con.halted ? QEMU_HALTED : QEMU_TIMED_OUT;
		break;
	case WATCH_INTERRUPTED:
		run->end = QEMU_INTERRUPTED;
		break;
	case WATCH_NOT_STARTED:
		run->end = QEMU_NOT_STARTED;
		return -1;
	}
	return 0;
}

static char *
accel_memo_path(const char *cache)
{
	struct strbuf id = STRBUF_INIT;
	char *path;

	if (strbuf_read_file(&id, "/proc/sys/kernel/random/boot_id", 256) < 0) {
		strbuf_release(&id);
		return NULL;
	}
	strbuf_trim(&id);
	path = xstrfmt("%s/accel-%s", cache, id.buf);
	strbuf_release(&id);
	return path;
}

static void
remember_accel(const char *memo, const char *accel)
{
	if (memo)
		write_file_buf(memo, accel, strlen(accel));
}

static int
kvm_opens(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* The guest ended by itself, and it was a kernel that ran (its banner is its first line). */
static int
boot_finished(const struct qemu_run *run)
{
	return (run->end == QEMU_EXITED || run->end == QEMU_HALTED) &&
	       strstr(run->log.buf, "Linux version ") != NULL;
}

int
qemu_boot(const struct qemu_params *p, struct qemu_run *run)
{
	char *memo = accel_memo_path(p->cache);
	struct strbuf known = STRBUF_INIT;
	int rc;

	if (memo && strbuf_read_file(&known, memo, 16) >= 0 &&
	    (!strcmp(known.buf, "kvm") || !strcmp(known.buf, "tcg"))) {
		rc = run_once(p, !strcmp(known.buf, "kvm") ? "kvm" : "tcg", p->timeout, run);
		goto out;
	}
	if (!kvm_opens()) {
		rc = run_once(p, "tcg", p->timeout, run);
		goto out;
	}
	rc = run_once(p, "kvm", p->timeout < KVM_PROBE_SECONDS ? p->timeout : KVM_PROBE_SECONDS, run);
	if (rc || run->end == QEMU_INTERRUPTED)
		goto out;
	if (boot_finished(run)) {
		remember_accel(memo, "kvm");
		goto out;
	}
	progress_clear();
	note("/dev/kvm opens, but a KVM guest did not start within %d s; booting with TCG instead",
	     KVM_PROBE_SECONDS);
	rc = run_once(p, "tcg", p->timeout, run);
	/* Only when TCG did what KVM did not is KVM to blame (a hanging kernel hangs in both). */
	if (!rc && boot_finished(run))
		remember_accel(memo, "tcg");
out:
	free(memo);
	strbuf_release(&known);
	return rc;
}

void
qemu_run_release(struct qemu_run *run)
{
	strbuf_release(&run->log);
}
