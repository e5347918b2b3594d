#!/usr/bin/env bats
# khsend send, khsend b4's checks and the hooks are valgrind-clean: no invalid
# access, no leak (the sanitizer build covers the shims git send-email and b4 run).

load test_helper

setup() {
	common_setup
	[ -z "${KHSEND_SAN:-}" ] || skip "the sanitizer build is checked by ASan instead"
	clone_mini_kernel linux
	cd linux || return 1
}

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --track-fds=no --trace-children=no "$KHSEND" "$@"
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
