#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The README's main job (./quickstart.sh demo) as a stranger runs it: an
# empty environment, an empty HOME, no git identity, no git config.
# Only the kernel build cache is the suite's (tests/boot.bats fills it).

setup_file() {
	load test_helper
	[ -e "$KERNEL_TARBALL" ] && command -v qemu-system-x86_64 > /dev/null ||
		{ echo "# the demo needs linux-source-6.1 and qemu-system-x86" >&3; return 1; }
}

setup() {
	load test_helper
	bats_load_library bats-support
	bats_load_library bats-assert
	cd "$BATS_TEST_TMPDIR" || return 1
	mkdir home
}

@test "the demo works in an empty environment: no HOME config, no git identity" {
	run env -i HOME="$BATS_TEST_TMPDIR/home" PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		KHSEND="$KHSEND" KHSEND_CACHE_DIR="$KHSEND_TEST_CACHE/boot" "$ROOT/tools/demo.sh"
	assert_success
	refute_output --partial "identity unknown"
	refute_output --partial "Please tell me who you are"
	# The borken fix is blocked and explained ...
	assert_output --partial 'block: sched-topology-borken: "arch topology borken" is changed'
	assert_output --partial "(exit status 1: blocked, nothing sent)"
	# ... the typo series is booted and goes through git send-email's dry run ...
	assert_output --partial "verdict: PASS"
	assert_output --partial "Dry-OK. Log says:"
	# ... and the maintainer's reply is written.
	assert_output --partial "Subject: Re: [PATCH"
	# Nothing was written to the user's HOME but khsend's own cache and config directories.
	run find "$BATS_TEST_TMPDIR/home" -name .gitconfig
	assert_output ''
}
