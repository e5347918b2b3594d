// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-init: the whole userspace of a khsend smoke-test boot.
 *
 * Linked statically and packed as /init into the initramfs.  The kernel
 * hands unknown "name=value" boot parameters to init as environment
 * variables, so khsend_nonce=... from the kernel command line arrives
 * here; printing it proves that this boot (not an earlier one) reached
 * userspace.  Then restart: the kernel shuts down ("reboot: Restarting
 * system"), resets the machine through the keyboard controller (no ACPI
 * needed), and QEMU, run with -no-reboot, exits by itself: the other half
 * of a "clean" verdict.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

static void
say(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

int
main(void)
{
	const char *nonce = getenv("khsend_nonce");
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY);

	if (fd < 0)
		fd = 1;
	if (!nonce || !*nonce) {
		say(fd, "khsend-init: no khsend_nonce on the kernel command line\n");
	} else {
		/* The marker khsend looks for; the command line echo never has this prefix. */
		say(fd, "KHSEND-INIT-OK ");
		say(fd, nonce);
		say(fd, "\n");
	}
	sync();
	reboot(RB_AUTOBOOT);
	/* Still here: let the kernel say why (init exiting panics, which ends QEMU). */
	say(fd, "khsend-init: reboot(RB_AUTOBOOT) failed\n");
	return 1;
}
