#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# khsend check as checkpatch.pl answers, for b4's per-patch check commands
# (b4.prep-perpatch-check-cmd, b4.am-perpatch-check-cmd, b4 >= 0.14): the
# contract read from b4 0.14's own source (LoreMessage.run_local_check), then
# the real b4 0.14 code running khsend (Debian 13's b4 package, unpacked into
# the test cache by tests/compat/newer-b4.sh; Debian 12's b4 is 0.12).

load test_helper

# The line the kernel's b4 configuration gives checkpatch, with khsend in its place.
B4_CHECK='khsend check - -q --terse --no-summary --mailback --showfile'

setup() {
	common_setup
	clone_mini_kernel linux
	cd linux || return 1
}

# The patch of HEAD as b4 hands it over: the mail, on standard input.
head_patch() {
	git format-patch -1 --stdout
}

@test "checkpatch mode: a clean patch prints nothing at all and exits 0" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	head_patch > "$BATS_TEST_TMPDIR/clean.patch"
	# Exactly as b4 runs it: argv split by shlex, the patch on stdin, from the top of the tree.
	read -ra argv <<< "$B4_CHECK"
	run --separate-stderr "${argv[@]}" < "$BATS_TEST_TMPDIR/clean.patch"
	assert_success
	assert_output ''
	[ -z "$stderr" ]
	# The plain text report would have said something: the options are what keep it quiet.
	run --separate-stderr khsend check - < "$BATS_TEST_TMPDIR/clean.patch"
	assert_output 'khsend: 1 message checked, no protected string is changed'
}

@test "checkpatch mode: one ERROR, WARNING or CHECK line per finding, as checkpatch prints them" {
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: fix a typo'
	read -ra argv <<< "$B4_CHECK"
	run --separate-stderr "${argv[@]}" < <(head_patch)
	assert_failure 1
	assert_output 'kernel/sched/topology.c:2196: ERROR: "arch topology borken" is kept on purpose (khsend explain sched-topology-borken)'
	[ -z "$stderr" ]
	git reset -q --hard HEAD~1
	make_commit kernel/sched/core.c 's/here be dragons\./here are dragons./' 'sched/core: reword a comment'
	run --separate-stderr "${argv[@]}" < <(head_patch)
	assert_failure 1
	assert_output --regexp '^kernel/sched/core\.c:[0-9]+: WARNING: "be dragons" is kept on purpose \(khsend explain here-be-dragons\)$'
	git reset -q --hard HEAD~1
	make_commit include/scsi/scsi_device.h 's/unsigned borken:1;/unsigned broken:1;/' 'scsi: rename borken'
	run --separate-stderr "${argv[@]}" < <(head_patch)
	assert_failure 1
	assert_output --regexp '^include/scsi/scsi_device\.h:[0-9]+: CHECK: /BLIST_BORKEN\|->borken\|borken:1/ is kept on purpose \(khsend explain scsi-borken-identifiers\)$'
}

@test "checkpatch mode: --terse names the input's line, the full form is checkpatch's, the summary counts as it does" {
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: fix a typo'
	head_patch > "$BATS_TEST_TMPDIR/fix.patch"
	n=$(grep -n '^-.*arch topology borken' "$BATS_TEST_TMPDIR/fix.patch" | cut -d: -f1)
	# checkpatch counts each hunk's @@ line and its new side: here 1 + 7.
	run -1 khsend check - -q --terse --no-summary < "$BATS_TEST_TMPDIR/fix.patch"
	assert_output "-:$n: ERROR: \"arch topology borken\" is kept on purpose (khsend explain sched-topology-borken)"
	# A file is named by its name, and the summary is checkpatch's.
	run -1 khsend check --terse "$BATS_TEST_TMPDIR/fix.patch"
	assert_line --index 0 "$BATS_TEST_TMPDIR/fix.patch:$n: ERROR: \"arch topology borken\" is kept on purpose (khsend explain sched-topology-borken)"
	assert_line --index 1 "total: 1 errors, 0 warnings, 8 lines checked"
	run -1 khsend check --format=checkpatch - < "$BATS_TEST_TMPDIR/fix.patch"
	assert_output - <<EOF
ERROR: "arch topology borken" is kept on purpose (khsend explain sched-topology-borken)
#$n: FILE: kernel/sched/topology.c:2196:
-			pr_err("BUG: arch topology borken\n");
+			pr_err("BUG: arch topology broken\n");

total: 1 errors, 0 warnings, 8 lines checked

"[PATCH] sched/topology: fix a typo" changes text kept on purpose, please review ('khsend check' explains it).
EOF
	# A clean patch: the summary and the closing words, which -q drops, as checkpatch -q does.
	git reset -q --hard HEAD~1
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	run -0 khsend check --format=checkpatch - < <(head_patch)
	assert_line --index 0 'total: 0 errors, 0 warnings, 8 lines checked'
	assert_line --index 1 '"[PATCH] kprobes: fix a typo in a comment" changes no string khsend'"'"'s policy protects.'
	run -0 khsend check - -q < <(head_patch)
	assert_output ''
}

@test "checkpatch mode: what is not a patch is an error on stderr, exit 2, and no other format mixes in" {
	run --separate-stderr khsend check - -q --terse --no-summary --mailback --showfile <<< 'hello'
	assert_failure 2
	assert_output ''
	[ -n "$stderr" ]
	run -2 khsend check --format=json --terse -
	assert_output --partial '--format=json cannot be combined with checkpatch'"'"'s options'
	# In a repository without a commit (b4 is run in one), the lines alone decide.
	git init -q "$BATS_TEST_TMPDIR/empty"
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: fix a typo'
	head_patch > "$BATS_TEST_TMPDIR/fix.patch"
	cd "$BATS_TEST_TMPDIR/empty"
	run --separate-stderr khsend check - -q --terse --showfile --no-summary < "$BATS_TEST_TMPDIR/fix.patch"
	assert_failure 1
	assert_output --partial 'kernel/sched/topology.c:2196: ERROR:'
	[ -z "$stderr" ]
}

# ---- the real b4 0.14 ----

# Run Debian 13's b4 (0.14) on Debian 12's Python, from the test cache.
b4_014() {
	PYTHONPATH=$B4_PY /usr/bin/python3 -c 'import sys; sys.argv[0] = "b4"; from b4.command import cmd; cmd()' "$@"
}

load_b4_014() {
	B4_PY=$("$ROOT/tests/compat/newer-b4.sh" "$KHSEND_TEST_CACHE")
	run -0 b4_014 --version
	# Any release with the per-patch check commands.
	[[ $output =~ ^0\.(1[4-9]|[2-9][0-9])\. ]] || fail "b4 $output has no per-patch check commands"
}

@test "b4 0.14's prep --check runs khsend for each patch: a pass, then a fail naming the joke" {
	load_b4_014
	# b4 finds its cover letter among your own commits of the last year.
	unset GIT_AUTHOR_DATE GIT_COMMITTER_DATE
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	run -0 b4_014 prep -n typo-fixes
	git config b4.prep-perpatch-check-cmd "$B4_CHECK"
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	run -0 b4_014 prep --check
	assert_line --regexp ': kprobes: fix a typo in a comment$'
	assert_line 'Success: 1, Warning: 0, Error: 0'
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: fix a typo'
	run -0 b4_014 prep --check
	assert_line --regexp '  .* khsend: kernel/sched/topology\.c:2196: ERROR: "arch topology borken" is kept on purpose \(khsend explain sched-topology-borken\)$'
	assert_line 'Success: 1, Warning: 0, Error: 1'
	refute_output --partial 'Exited with error code'
}

@test "b4 0.14's am --check runs khsend on each received patch" {
	load_b4_014
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: fix a typo'
	git format-patch -q --thread --stdout -2 > "$BATS_TEST_TMPDIR/series.mbox"
	git reset -q --hard HEAD~2
	git config b4.am-perpatch-check-cmd 'khsend check - -q --terse --no-summary --mailback'
	run -0 b4_014 --offline-mode am --check -m "$BATS_TEST_TMPDIR/series.mbox" -o "$BATS_TEST_TMPDIR/out"
	# b4 strips checkpatch's "-:" from the line in the input.
	n=$(sed -n '/^Subject: .*sched\/topology/,$p' "$BATS_TEST_TMPDIR/series.mbox" | grep -n '^-.*arch topology borken' | cut -d: -f1)
	assert_line --regexp '^  \[PATCH 1/2\] kprobes: fix a typo in a comment$'
	assert_line --regexp '^    .* khsend: passed all checks$'
	assert_line --regexp '^    .* khsend: [0-9]+: ERROR: "arch topology borken" is kept on purpose \(khsend explain sched-topology-borken\)$'
	[ -n "$n" ]
}
