# SPDX-License-Identifier: GPL-2.0-only
# Suite-wide setup: a mini kernel tree of real linux-source 6.1 files.
#
# Extracting the whole tarball takes a while, so the files the tests need
# (tests/kernel-files.txt) are taken out once and kept in the test cache,
# as a git repository with one base commit, like the one khsend setup makes.

setup_suite() {
	# shellcheck source=tests/test_helper.bash
	. "$BATS_TEST_DIRNAME/test_helper.bash"
	make_mini_kernel
}
