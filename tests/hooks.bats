#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# khsend's git hooks: installed by khsend install-hooks, run by real git am, git send-email, git commit.

load test_helper

setup() {
	common_setup
	clone_mini_kernel linux
	cd linux || return 1
	hooks=$(git rev-parse --git-path hooks)
}

@test "install-hooks installs the four hooks as shipped: they find khsend at run time" {
	run khsend install-hooks
	assert_success
	for h in sendemail-validate applypatch-msg pre-applypatch pre-commit; do
		[ -x "$hooks/$h" ]
		cmp "$ROOT/hooks/$h" "$hooks/$h"
		! grep -q "$KHSEND" "$hooks/$h"
	done
	run khsend install-hooks
	assert_success
	assert_output --partial "is installed already"
}

@test "the hooks run the khsend on PATH, or khsend.path, so moving khsend breaks nothing" {
	khsend install-hooks
	bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin"
	# khsend moves: a copy elsewhere, and the old place is gone from PATH.
	cp "$KHSEND" "$bin/khsend"
	PATH="$bin:/usr/bin:/bin"
	sed -i 's/immmediately/immediately/' kernel/kprobes.c
	git add kernel/kprobes.c
	run git commit -q -m 'kprobes: fix a typo'
	assert_success
	assert_output ''
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_output --partial 'block: sched-topology-borken'
	git am --abort
	# No khsend at all: git am and git send-email stop, git commit warns and goes on.
	rm "$bin/khsend"
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_output --partial "applypatch-msg: error: cannot run khsend ('khsend' is not on PATH)"
	git am --abort
	run "$hooks/sendemail-validate" "$ROOT/tests/fixtures/borken.patch"
	assert_failure 1
	assert_output --partial "sendemail-validate: error: cannot run khsend"
	echo '/* more */' >> kernel/kprobes.c
	git add kernel/kprobes.c
	run git commit -q -m 'kprobes: more'
	assert_success
	assert_output --partial "pre-commit: warning: khsend was not run"
	# khsend.path names a fixed one.
	git config khsend.path "$KHSEND"
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_output --partial 'block: sched-topology-borken'
	git am --abort
}

@test "install-hooks says when the hooks will not find khsend" {
	PATH=/usr/bin:/bin
	run --separate-stderr "$KHSEND" install-hooks pre-commit
	assert_success
	[ "$stderr" = "khsend: warning: 'khsend' is not on your PATH, so the hooks cannot run it; put it there, or run 'git config khsend.path $KHSEND'" ]
	git config khsend.path /nowhere/khsend
	run --separate-stderr "$KHSEND" install-hooks pre-commit
	assert_success
	assert_equal "$stderr" "khsend: warning: khsend.path is '/nowhere/khsend', which is not an executable file; the hooks will stop git am and git send-email until it is"
}

@test "install-hooks never overwrites a hook of the user's without --force; uninstall-hooks puts it back" {
	mkdir -p "$hooks"
	printf '#!/bin/sh\necho mine "$@"\n' > "$hooks/pre-commit"
	chmod +x "$hooks/pre-commit"
	run khsend install-hooks
	assert_failure 1
	assert_output --partial "pre-commit' is a hook of your own; left as it is"
	[ "$(cat "$hooks/pre-commit")" = "$(printf '#!/bin/sh\necho mine "$@"')" ]
	[ -x "$hooks/sendemail-validate" ]
	run khsend install-hooks --force pre-commit
	assert_success
	assert_output --partial 'yours is now pre-commit.khsend-old and runs after it'
	cmp "$ROOT/hooks/pre-commit" "$hooks/pre-commit"
	# Both run: khsend's warning, then the user's hook.
	sed -i 's/arch topology borken/arch topology broken/' kernel/sched/topology.c
	git add kernel/sched/topology.c
	run git commit -q -m 'sched/topology: fix a typo'
	assert_success
	assert_output --partial 'block: sched-topology-borken'
	assert_line 'mine'
	# A second --force would lose the first old hook: refused.
	printf '#!/bin/sh\necho other\n' > "$hooks/pre-commit"
	run khsend install-hooks --force pre-commit
	assert_failure 2
	assert_output --partial 'pre-commit.khsend-old'"' is there already"
	khsend install-hooks --force pre-commit 2>/dev/null || true
	cp "$ROOT/hooks/pre-commit" "$hooks/pre-commit"
	# uninstall-hooks removes khsend's and puts the user's back.
	run khsend uninstall-hooks
	assert_success
	assert_line "removed khsend's $hooks/pre-commit; yours is back"
	assert_line "removed $hooks/sendemail-validate"
	[ "$(cat "$hooks/pre-commit")" = "$(printf '#!/bin/sh\necho mine "$@"')" ]
	run bash -c 'ls -A "$1" | grep -v "\.sample$"' _ "$hooks"
	assert_output pre-commit
	# A hook that is not khsend's is never removed.
	run khsend uninstall-hooks pre-commit
	assert_failure 1
	assert_output --partial "pre-commit' is not khsend's hook; left as it is"
	[ -e "$hooks/pre-commit" ]
	run khsend install-hooks no-such-hook
	assert_failure 2
	run khsend uninstall-hooks pre-comit
	assert_failure 2
	assert_output --partial "did you mean 'pre-commit'?"
}

@test "install-hooks updates an older khsend's hook without --force" {
	mkdir -p "$hooks"
	# As khsend 1.0 installed it: an absolute path written in.
	sed 's|^hook=pre-commit$|khsend=/old/place/bin/khsend|' "$ROOT/hooks/pre-commit" > "$hooks/pre-commit"
	run khsend install-hooks pre-commit
	assert_success
	assert_output "updated $hooks/pre-commit (an older khsend's)"
	cmp "$ROOT/hooks/pre-commit" "$hooks/pre-commit"
	run khsend uninstall-hooks pre-commit
	assert_success
	[ ! -e "$hooks/pre-commit" ]
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

@test "git am speaks to the maintainer, names the patch once, and says how to apply it anyway" {
	khsend install-hooks
	head=$(git rev-parse HEAD)
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_line 'khsend: this patch makes 1 change to text kept that way on purpose: kernel'
	refute_output --partial 'Thank you for your work'
	refute_output --partial 'Sending it'
	assert_line '  in [PATCH 1/1] sched/topology: Fix a spelling mistake in error message'
	assert_line "git am does not apply a patch with a change marked 'block' as it is; the ways"
	assert_line 'on are below.'
	assert_line 'khsend: 1 change stops git am, 0 only explained'
	gitdir=$(cd "$(git rev-parse --git-dir)" && pwd)
	assert_line "khsend (applypatch-msg): to apply it all the same: git apply --index $gitdir/rebase-apply/patch && KHSEND_ALLOW=sched-topology-borken git am --continue"
	# The way on it printed works, and only for this run.
	git apply --index "$gitdir/rebase-apply/patch"
	KHSEND_ALLOW=sched-topology-borken git am --continue
	git log -1 --format=%s | grep -qx 'sched/topology: Fix a spelling mistake in error message'
	grep -q 'arch topology broken' kernel/sched/topology.c
	git reset -q --hard "$head"
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	git am --abort
	# For the repository: git config khsend.allow; the joke is still explained.
	git config --add khsend.allow sched-topology-borken
	run git am "$ROOT/tests/fixtures/borken.patch"
	assert_success
	assert_output --partial '"borken" is not a typo.'
	assert_output --partial 'You allowed a change (KHSEND_ALLOW or git config khsend.allow), so it goes in.'
	git reset -q --hard "$head"
	# An id that is no entry stops git am, with a suggestion.
	git config --unset-all khsend.allow
	KHSEND_ALLOW=sched-topology-broken run git am "$ROOT/tests/fixtures/borken.patch"
	assert_failure
	assert_output --partial "KHSEND_ALLOW or khsend.allow names 'sched-topology-broken', which is no policy entry; did you mean 'sched-topology-borken'?"
	git am --abort
}

@test "the hooks honour git's color.ui" {
	khsend install-hooks pre-commit
	sed -i 's/arch topology borken/arch topology broken/' kernel/sched/topology.c
	git add kernel/sched/topology.c
	esc=$(printf '\033')
	# Not a terminal: no colour, unless color.ui says always.
	run git commit -q -m 'sched/topology: fix a typo'
	refute_output --partial "$esc["
	git reset -q --soft HEAD~1
	run git -c color.ui=always commit -q -m 'sched/topology: fix a typo'
	assert_output --partial "${esc}[31mblock"
	git reset -q --soft HEAD~1
	# On a terminal: colour, unless color.ui says never.
	run script -qec 'TERM=xterm git commit -q -m "sched/topology: fix a typo"' /dev/null
	assert_output --partial "${esc}[31mblock"
	git reset -q --soft HEAD~1
	run script -qec 'TERM=xterm git -c color.ui=never commit -q -m "sched/topology: fix a typo"' /dev/null
	assert_output --partial 'block: sched-topology-borken'
	refute_output --partial "$esc["
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
