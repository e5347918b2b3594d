#!/usr/bin/env bats
# khsend's git hooks: installed by khsend install-hooks, run by real git am, git send-email, git commit.

load test_helper

setup() {
	common_setup
	clone_mini_kernel linux
	cd linux || return 1
	hooks=$(git rev-parse --git-path hooks)
}

@test "install-hooks installs the four hooks, calling the khsend that installed them" {
	run khsend install-hooks
	assert_success
	for h in sendemail-validate applypatch-msg pre-applypatch pre-commit; do
		[ -x "$hooks/$h" ]
		grep -qx "khsend=$KHSEND" "$hooks/$h"
		head -3 "$hooks/$h" | grep -q "^# khsend's $h hook"
		# The rest is the hook in hooks/, as shipped.
		diff <(grep -v '^khsend=' "$ROOT/hooks/$h") <(grep -v '^khsend=' "$hooks/$h")
	done
	run khsend install-hooks
	assert_success
	assert_output --partial "is installed already"
}

@test "install-hooks never overwrites a hook of the user's without --force" {
	mkdir -p "$hooks"
	printf '#!/bin/sh\necho mine\n' > "$hooks/pre-commit"
	chmod +x "$hooks/pre-commit"
	run khsend install-hooks
	assert_failure 1
	assert_output --partial "pre-commit' is there already"
	[ "$(cat "$hooks/pre-commit")" = "$(printf '#!/bin/sh\necho mine')" ]
	[ -x "$hooks/sendemail-validate" ]
	run khsend install-hooks --force pre-commit
	assert_success
	grep -qx "khsend=$KHSEND" "$hooks/pre-commit"
	[ "$(cat "$hooks/pre-commit.khsend-old")" = "$(printf '#!/bin/sh\necho mine')" ]
	run khsend install-hooks no-such-hook
	assert_failure 2
}

@test "install-hooks honours core.hooksPath" {
	git config core.hooksPath "$BATS_TEST_TMPDIR/myhooks"
	khsend install-hooks
	[ -x "$BATS_TEST_TMPDIR/myhooks/applypatch-msg" ]
	[ ! -e .git/hooks/applypatch-msg ]
}

# A patch made in another clone, as a maintainer gets it.
patch_from_contributor() {
	clone_mini_kernel "$BATS_TEST_TMPDIR/contributor"
	(cd "$BATS_TEST_TMPDIR/contributor" && make_commit "$1" "$2" "$3" &&
		git format-patch -q -1 -o "$BATS_TEST_TMPDIR/mail")
	ls "$BATS_TEST_TMPDIR"/mail/*.patch
}

@test "git am with the hooks stops the real borken patch, with the explanation and the reply command" {
	khsend install-hooks
	head=$(git rev-parse HEAD)
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_output --partial 'block: sched-topology-borken'
	assert_output --partial '"borken" is not a typo.'
	assert_output --partial 'khsend reply '
	assert_output --partial 'git am --skip'
	[ "$(git rev-parse HEAD)" = "$head" ]
	git diff --quiet HEAD
	grep -q 'arch topology borken' kernel/sched/topology.c
	git am --abort
}

@test "git am with the hooks accepts a genuine typo fix" {
	khsend install-hooks
	mail=$(patch_from_contributor kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment')
	run git am "$mail"
	assert_success
	refute_output --partial 'khsend'
	git log -1 --format=%s | grep -qx 'kprobes: fix a typo in a comment'
}

@test "the RTFP title fix is stopped too, and a warn entry only warns" {
	khsend install-hooks
	run git am "$ROOT/tests/fixtures/rtfp.patch"
	assert_failure
	assert_output --partial 'block: rcu-rtfp-title'
	git am --abort
	mail=$(patch_from_contributor include/scsi/scsi_device.h 's/unsigned borken:1;/unsigned broken:1;/' 'scsi: rename borken')
	run git am "$mail"
	assert_success
	assert_output --partial 'warn: scsi-borken-identifiers'
	git log -1 --format=%s | grep -qx 'scsi: rename borken'
}

@test "pre-applypatch stops a blocked patch on its own" {
	khsend install-hooks pre-applypatch
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_output --partial 'block: sched-topology-borken'
	git am --abort
}

@test "plain git send-email with the sendemail-validate hook: a blocked patch is rejected, a clean one goes out" {
	khsend install-hooks sendemail-validate
	sm=$(make_sendmail plain)
	run git send-email --to=list@example.org --confirm=never --smtp-server="$sm" "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_output --partial 'rejected by sendemail-validate hook'
	assert_output --partial 'block: sched-topology-borken'
	[ "$(sent_count plain)" -eq 0 ]
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	git send-email --to=list@example.org --confirm=never --smtp-server="$sm" -1
	[ "$(sent_count plain)" -eq 1 ]
}

@test "sendemail-validate: a patch that needs a note is sent with khsend instead" {
	khsend install-hooks sendemail-validate
	make_commit kernel/sched/core.c 's/here be dragons\./here are dragons./' 'sched/core: reword a comment'
	sm=$(make_sendmail plain)
	run git send-email --to=list@example.org --confirm=never --smtp-server="$sm" -1
	assert_failure
	assert_output --partial 'with khsend instead (same arguments), which adds the note'
	[ "$(sent_count plain)" -eq 0 ]
	# khsend itself passes the hook (the files are the ones it checked) and adds the note.
	khsend --no-boot --to=list@example.org --confirm=never --smtp-server="$sm" -1
	[ "$(sent_count plain)" -eq 1 ]
	grep -q '^Note from khsend' "$BATS_TEST_TMPDIR/plain/msgtxt1"
}

@test "sendemail-validate with git 2.41's file counter checks the series as a whole" {
	khsend install-hooks sendemail-validate
	# Patch 1 "fixes" the joke, patch 2 puts it back: as a series, nothing changes.
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: fix a typo'
	make_commit kernel/sched/topology.c 's/arch topology broken/arch topology borken/' 'Revert "sched/topology: fix a typo"'
	git format-patch -q -2 -o "$BATS_TEST_TMPDIR/series"
	set -- "$BATS_TEST_TMPDIR"/series/*.patch
	# Called as git >= 2.41 calls it: $1 the patch, $2 the headers, COUNTER/TOTAL.
	echo "To: list@example.org" > "$BATS_TEST_TMPDIR/headers"
	GIT_SENDEMAIL_FILE_COUNTER=1 GIT_SENDEMAIL_FILE_TOTAL=2 "$hooks/sendemail-validate" "$1" "$BATS_TEST_TMPDIR/headers"
	GIT_SENDEMAIL_FILE_COUNTER=2 GIT_SENDEMAIL_FILE_TOTAL=2 "$hooks/sendemail-validate" "$2" "$BATS_TEST_TMPDIR/headers"
	# Each alone (git 2.39), the first one is a fix of the joke.
	run "$hooks/sendemail-validate" "$1"
	assert_failure 1
	# The series that only "fixes" it is stopped at its last file.
	GIT_SENDEMAIL_FILE_COUNTER=1 GIT_SENDEMAIL_FILE_TOTAL=1 run "$hooks/sendemail-validate" "$1" "$BATS_TEST_TMPDIR/headers"
	assert_failure 1
	assert_output --partial 'block: sched-topology-borken'
	[ ! -e .git/khsend-validate ]
}

@test "pre-commit warns about a staged change of a protected string, and blocks only when told to" {
	khsend install-hooks pre-commit
	sed -i 's/arch topology borken/arch topology broken/' kernel/sched/topology.c
	git add kernel/sched/topology.c
	run git commit -q -m 'sched/topology: fix a typo'
	assert_success
	assert_output --partial 'block: sched-topology-borken'
	assert_output --partial "Please keep the lines marked 'block' as they are before you commit"
	git reset -q --hard HEAD~1
	git config khsend.preCommit block
	sed -i 's/arch topology borken/arch topology broken/' kernel/sched/topology.c
	git add kernel/sched/topology.c
	head=$(git rev-parse HEAD)
	run git commit -q -m 'sched/topology: fix a typo'
	assert_failure 1
	assert_output --partial 'git commit --no-verify'
	[ "$(git rev-parse HEAD)" = "$head" ]
	# An ordinary change says nothing.
	git checkout -q -- . && git reset -q
	sed -i 's/immmediately/immediately/' kernel/kprobes.c
	git add kernel/kprobes.c
	run git commit -q -m 'kprobes: fix a typo'
	assert_success
	assert_output ''
}
