// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-initramfs: the guest's whole userspace is khsend's static init,
 * packed as /init by the gen_init_cpio the kernel build itself made (so
 * no cpio tool is needed), next to the /dev/console the kernel opens for
 * init's output.  The nonce travels on the kernel command line, so one
 * archive serves every boot.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
initramfs_make(const char *build, const char *init_binary, const char *cpio, const char *scratch)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf list = STRBUF_INIT, err = STRBUF_INIT;
	char *gen = xstrfmt("%s/usr/gen_init_cpio", build);
	char *list_path = xstrfmt("%s/initramfs.list", scratch);
	int fd = -1, rc = -1;

	if (access(init_binary, X_OK)) {
		error_errno("cannot use the boot init '%s' (was khsend built with 'make'?)", init_binary);
		goto out;
	}
	/* gen_init_cpio splits its list on white space. */
	if (strpbrk(init_binary, " \t\n")) {
		error("the boot init's path '%s' has white space, which gen_init_cpio cannot take",
		      init_binary);
		goto out;
	}
	if (access(gen, X_OK)) {
		error_errno("the kernel build has no usr/gen_init_cpio (is CONFIG_BLK_DEV_INITRD set?)");
		goto out;
	}
	strbuf_addf(&list, "dir /dev 0755 0 0\n"
			   "nod /dev/console 0600 0 0 c 5 1\n"
			   "file /init %s 0755 0 0\n", init_binary);
	if (write_file_buf(list_path, list.buf, list.len))
		goto out;
	fd = open(cpio, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error_errno("cannot create '%s'", cpio);
		goto out;
	}
	strvec_pushl(&cp.args, gen, list_path, NULL);
	cp.out = fd;
	if (pipe_command(&cp, NULL, 0, NULL, &err)) {
		error("gen_init_cpio failed: %s", err.buf);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0 && close(fd) && !rc)
		rc = error_errno("cannot write '%s'", cpio);
	free(gen);
	free(list_path);
	strbuf_release(&list);
	strbuf_release(&err);
	return rc;
}
