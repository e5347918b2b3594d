#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Bad inputs get a clear message naming them and exit status 2; nothing is modified.

load test_helper

setup() {
	common_setup
	clone_mini_kernel linux
	cd linux || return 1
}

@test "a missing file that is not a revision either is named" {
	run -2 --separate-stderr khsend check no-such.patch
	assert_output ''
	[ "${stderr_lines[0]}" = "khsend: error: 'no-such.patch': no such file, and not a revision in this repository" ]
}

@test "outside a repository a missing file is named as such" {
	cd "$BATS_TEST_TMPDIR"
	run -2 khsend check no-such.patch
	assert_output "khsend: error: 'no-such.patch': no such file or directory (and this is not a git repository, so it is not a revision either)"
}

@test "a range that does not resolve is an error" {
	run -2 khsend check master..no-such-branch
	assert_output --partial "khsend: error: 'master..no-such-branch': no such file, and not a revision in this repository"
	# Options go to git format-patch with the revisions, as git send-email hands them on.
	run -2 khsend check --cc=someone master
	assert_output "khsend: error: git format-patch made no patches of '--cc=someone master'"
	run -2 khsend check --no-such-option -1
	assert_output --partial "khsend: error: git format-patch exited with status 128 on '--no-such-option -1'"
}

@test "a file that is neither a mail nor a patch is an error naming it" {
	echo 'just some notes, no patch here' > notes.txt
	run -2 khsend check notes.txt
	assert_output "khsend: error: 'notes.txt' is neither a mail nor a patch (expected the output of git format-patch or git diff)"
	: > empty.patch
	run -2 khsend check empty.patch
	assert_output "khsend: error: 'empty.patch' is empty, neither a mail nor a patch"
	head -c 100 /bin/ls > binary.patch
	run -2 khsend check binary.patch
	assert_output "khsend: error: 'binary.patch' is a binary file, neither a mail nor a patch"
}

@test "one bad file in a series stops the check with status 2" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	git format-patch -q -1 -o good
	echo nonsense > notes.txt
	run -2 khsend check good notes.txt
	assert_output --partial "'notes.txt' is neither a mail nor a patch"
	refute_output --partial 'messages checked'
}

@test "a broken diff inside a mail is reported with git apply's reason" {
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	git format-patch -q --stdout -1 | sed 's/^@@ -[0-9]*,[0-9]* /@@ -x,y /' > broken.patch
	run -2 khsend check broken.patch
	assert_output "khsend: error: git apply cannot read the patch in 'broken.patch' (it exited with status 128: error: corrupt patch at line 9), so git am would not apply it either; khsend does not check what git cannot read"
}

@test "a rename header given twice is refused, not guessed at" {
	git mv kernel/exit.c kernel/exit2.c
	git commit -qm 'exit: rename'
	git format-patch -q --stdout -1 | sed 's|^rename to .*|&\nrename to kernel/exit3.c|' > twice.patch
	run -2 khsend check twice.patch
	assert_output "khsend: error: cannot read the patch in 'twice.patch': 'rename to kernel/exit3.c' is repeated in one file's header"
	git format-patch -q --stdout -1 > once.patch
	run -0 khsend check once.patch
}

@test "a name that is both a file and a revision needs disambiguating, as in git send-email" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	git format-patch -q --stdout -1 > master
	run -2 khsend check master
	assert_output --partial "khsend: error: File 'master' exists but it could also be the range of commits"
	assert_output --partial '* Saying "./master" if you mean a file; or'
	run -0 khsend check ./master
	run -0 khsend check --no-format-patch master
	run -0 khsend check --format-patch master~1
}

@test "the patches and the repository are left exactly as they were" {
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	git format-patch -q -1 -o out
	echo 'an untracked file' > untracked.txt
	sed -i 's/immmediately/immediately/' kernel/kprobes.c
	git add kernel/kprobes.c
	sed -i 's/suspeneded/suspended/' kernel/acct.c
	local before after
	before=$(git rev-parse HEAD; git write-tree; git diff; git status --porcelain; sha1sum out/* untracked.txt)
	run -1 khsend check out
	run -1 khsend check -1
	run -1 khsend check --format=json out/0001-sched-topology-fix-a-typo.patch
	after=$(git rev-parse HEAD; git write-tree; git diff; git status --porcelain; sha1sum out/* untracked.txt)
	[ "$before" = "$after" ]
}

@test "usage errors exit 2 and name the problem" {
	run -2 khsend check
	assert_line 'khsend: error: name the patches to check'
	run -2 khsend check --format=xml x
	assert_line 'khsend: error: --format=xml: expected text, json or checkpatch'
	run -2 khsend check --frobnicate x
	assert_line --partial "khsend: error: git format-patch exited with status 128 on '--frobnicate x'"
	run -2 khsend check --policy
	assert_line "khsend: error: option '--policy' needs a value"
	run -2 khsend nonsense
	assert_line "khsend: error: 'nonsense' is not a khsend command (see 'khsend --help')"
	run -0 khsend check -h
	assert_line --partial 'usage: khsend check'
}
