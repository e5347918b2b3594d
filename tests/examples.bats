#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The example series in examples/: real patches against linux-source 6.1.

load test_helper

setup() {
	common_setup
	EXAMPLES=$ROOT/examples
}

@test "the shipped examples are what make-examples.sh makes from linux-source 6.1" {
	mkdir made
	run "$EXAMPLES/make-examples.sh" "$MINI_KERNEL" "$PWD/made"
	assert_success
	run diff -r -x README.md -x make-examples.sh "$EXAMPLES" made
	assert_success
}

@test "the examples apply to linux-source 6.1 with git am" {
	clone_mini_kernel linux
	cd linux
	git am -q "$EXAMPLES/borken-fix.patch"
	run git show -s --format='%an <%ae> %ad' HEAD
	assert_output 'Zhen Lei <thunder.leizhen@huawei.com> Wed May 26 10:18:56 2021 +0800'
	grep -q 'pr_err("BUG: arch topology broken\\n");' kernel/sched/topology.c
	git reset -q --hard HEAD~1
	git am -q "$EXAMPLES"/typo-fixes/000[1-9]-*.patch
	run git log --format=%s -3
	assert_line 'Documentation/RCU: Fix two typos in RTFP.txt'
	run grep -c 'traveral' Documentation/RCU/RTFP.txt
	assert_output 0
	grep -qx 'Read the Fscking Papers!' Documentation/RCU/RTFP.txt
}

@test "khsend check blocks the borken fix and lets the typo series through" {
	run "$KHSEND" check --format=json "$EXAMPLES/borken-fix.patch"
	assert_failure 1
	jq -e '.blocked and (.findings | length) == 1 and .findings[0].file == "kernel/sched/topology.c"
		and .findings[0].line == 2196 and .findings[0].id == "sched-topology-borken"' <<<"$output"
	run "$KHSEND" check "$EXAMPLES/typo-fixes"
	assert_success
	assert_output 'khsend: 4 messages checked, no protected string is changed'
}
