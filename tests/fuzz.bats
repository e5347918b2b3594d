#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# A short libFuzzer run over the two parsers of untrusted input: the policy
# loader and the series reader (mbox splitting, headers, libgit2's patch
# parser, the detector).  The seed and the number of inputs are fixed, so a
# failure here is the same on every machine and every run; exploring is for
# longer runs: build-fuzz/*-fuzz -max_total_time=N CORPUS, or FUZZ_SEED=0
# (a fresh seed) and FUZZ_RUNS=N here.

load test_helper

setup_file() {
	make -s -C "$ROOT" fuzz >&3 2>&1
}

setup() {
	common_setup
	FUZZ_RUNS=${FUZZ_RUNS:-60000}
	FUZZ_SEED=${FUZZ_SEED:-1}
}

# fuzz TARGET CORPUS: a clean finish, and no crash, leak, OOM or timeout input left behind.
fuzz() {
	run "$ROOT/build-fuzz/$1-fuzz" -seed="$FUZZ_SEED" -runs="$FUZZ_RUNS" -timeout=10 -rss_limit_mb=1024 \
		-close_fd_mask=3 -artifact_prefix="$BATS_TEST_TMPDIR/" "$2"
	assert_success
	assert_output --partial "Done $FUZZ_RUNS runs"
	run ls "$BATS_TEST_TMPDIR"
	refute_output --regexp '(crash|leak|oom|timeout)-'
}

@test "the policy loader survives ${FUZZ_RUNS:-60000} fuzzed inputs" {
	mkdir corpus
	cp "$ROOT/policy.yaml" corpus/
	printf 'version: 1\nentries:\n  - &a\n    id: x\n    regex: "(a+)+"\n  - *a\n' > corpus/alias.yaml
	printf 'version: 1\ndefaults: {action: warn}\nentries: [{id: y, string: "z", explain: e, paths: ["**/*.c"]}]\n' > corpus/flow.yaml
	# GNU's \< \> and a top-level | hold no literal of their own: the filter must not take them for one
	printf 'version: 1\nentries:\n  - id: borked\n    regex: %s\n    explain: e\n# Borked, dragons\n' \
		"'\\<[Bb]orked\\>|\\<[Dd]ragons\\>'" > corpus/edges.yaml
	fuzz policy corpus
}

@test "the series reader survives ${FUZZ_RUNS:-60000} fuzzed inputs" {
	mkdir corpus
	cp "$ROOT"/tests/fixtures/*.patch corpus/
	clone_mini_kernel linux
	(
		cd linux &&
		make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'fix' &&
		git mv kernel/exit.c kernel/exit2.c && git commit -qm 'rename' &&
		git format-patch -q --stdout -2 > ../corpus/series.mbox &&
		git format-patch -q --stdout -1 | sed 's/$/\r/' > ../corpus/crlf.patch
	)
	fuzz patch corpus
}
