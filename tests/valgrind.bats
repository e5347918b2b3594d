#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# khsend's own code is valgrind-clean: no invalid access, no leak, on the
# main paths (the sanitizer build covers the rest of the suite).

load test_helper

setup() {
	common_setup
	[ -z "${KHSEND_SAN:-}" ] || skip "the sanitizer build is checked by ASan instead"
	clone_mini_kernel linux
	cd linux || return 1
}

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --track-fds=no "$KHSEND" "$@"
}

@test "check, policy, explain and scan run clean under valgrind" {
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	make_commit kernel/exit.c '/Aiee, killing/d' 'exit: drop a panic'
	git mv kernel/acct.c kernel/acct2.c && git commit -qm 'rename'
	git format-patch -q --stdout --cover-letter -3 > series.mbox
	run -1 vg check series.mbox
	assert_output --partial 'sched-topology-borken'
	run -1 vg check --format=json master~3..master
	assert_output --partial '"blocked": true'
	run -0 vg check master~1..master
	run -2 vg check no-such-file
	printf 'version: 1\nentries:\n  - id: A\n    regex: "a("\n' > bad.yaml
	run -2 vg policy check bad.yaml
	assert_output --partial 'bad.yaml:3:9:'
	run -0 vg policy list --format=json
	run -0 vg explain rcu-rtfp-title
	run -1 vg scan --stale .
	run -0 vg scan --policy "$ROOT/policy.yaml" kernel
}

@test "send (clean, annotated, blocked), install-hooks and the hooks run clean under valgrind" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	make_commit kernel/sched/core.c 's/here be dragons\./here are dragons./' 'sched/core: reword a comment'
	sm=$(make_sendmail vg)
	run -0 vg --no-boot --to=list@example.org --confirm=never --smtp-server="$sm" --cover-letter --force -2
	[ "$(sent_count vg)" -eq 3 ]
	grep -q '^Note from khsend' "$BATS_TEST_TMPDIR/vg/msgtxt3"
	run -1 vg --no-boot --to=list@example.org --confirm=never --smtp-server="$sm" "$ROOT/tests/fixtures/borken.patch"
	[ "$(sent_count vg)" -eq 3 ]
	run -0 vg hook sendemail-args --to a -v 2 --policy p HEAD
	run -0 vg install-hooks
	run -1 vg hook sendemail-validate "$ROOT/tests/fixtures/borken.patch"
	sed -i 's/arch topology borken/arch topology broken/' kernel/sched/topology.c
	git add kernel/sched/topology.c
	run -0 vg hook pre-commit
	assert_output --partial 'sched-topology-borken'
}
