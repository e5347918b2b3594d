#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# khsend cache: what khsend boot keeps, listed and pruned.  A cache laid
# out by hand the way khsend boot lays it out (no kernel is built here).

load test_helper

setup() {
	common_setup
	export KHSEND_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	# An old tree for a user's checkout, used 60 days ago, and the default tree, used now.
	make_tree linux-0123456789ab /home/u/linux '60 days ago'
	make_tree default default now
}

# make_tree KEY ORIGIN WHEN: trees/KEY with a source, a build, three runs and their verdicts.
make_tree() {
	local dir=$KHSEND_CACHE_DIR/trees/$1 run
	mkdir -p "$dir"/{src,build,compile,logs,results,base}
	printf '%s' "$2" > "$dir/origin"
	head -c 200000 /dev/zero > "$dir/build/vmlinux"
	head -c 100000 /dev/zero > "$dir/compile/x.o"
	head -c 50000 /dev/zero > "$dir/src/Makefile"
	for run in run1 run2 run3; do
		mkdir "$dir/logs/$run"
		echo log > "$dir/logs/$run/build.log"
		echo 'exit 0' > "$dir/results/$run"
	done
	touch -d '3 days ago' "$dir/logs/run1" "$dir/results/run1"
	touch -d '2 days ago' "$dir/logs/run2" "$dir/results/run2"
	touch -d '1 day ago' "$dir/logs/run3" "$dir/results/run3"
	echo 'old base log' > "$dir/base/0123-abcd.log"
	touch -d '90 days ago' "$dir/base/0123-abcd.log"
	: > "$dir/lock"
	touch -d "$3" "$dir/lock"
}

@test "khsend cache lists each tree, what it is for, when it was used and its size" {
	run --separate-stderr "$KHSEND" cache
	assert_success
	assert_line "khsend cache: $KHSEND_CACHE_DIR"
	assert_line "  $KHSEND_CACHE_DIR/trees/default"
	assert_line --regexp '^    for linux-source 6.1 \(the default tree\), last used [0-9-]+ [0-9:]+, 3 runs kept$'
	assert_line --regexp '^    for /home/u/linux, last used [0-9-]+ [0-9:]+, 3 runs kept$'
	assert_line --regexp '^    src [0-9.]+ KiB, build 19[0-9.]+ KiB, compile [0-9.]+ KiB, logs [0-9.]+ KiB$'
	assert_line --regexp '^  total: [0-9.]+ KiB$'
	# The most recently used tree first.
	[[ "$output" == *"trees/default"*"trees/linux-0123456789ab"* ]]
	run "$KHSEND" cache list
	assert_success
	run --separate-stderr "$KHSEND" cache list --keep 3
	assert_failure 2
}

@test "khsend cache prune keeps the newest runs, and drops old trees and old base logs" {
	run --separate-stderr "$KHSEND" cache prune --dry-run --keep 1 --max-age 30
	assert_success
	assert_line "would remove $KHSEND_CACHE_DIR/trees/default/logs/run1 (4.0 KiB, an older run's logs)"
	assert_line --partial "would remove $KHSEND_CACHE_DIR/trees/linux-0123456789ab ("
	[ -d "$KHSEND_CACHE_DIR/trees/linux-0123456789ab" ]
	[ -d "$KHSEND_CACHE_DIR/trees/default/logs/run1" ]
	run --separate-stderr "$KHSEND" cache prune --keep 1 --max-age 30
	assert_success
	# The default tree keeps its newest run and that run's verdict; the old base log goes.
	run ls "$KHSEND_CACHE_DIR/trees/default/logs" "$KHSEND_CACHE_DIR/trees/default/results"
	assert_output "$KHSEND_CACHE_DIR/trees/default/logs:
run3

$KHSEND_CACHE_DIR/trees/default/results:
run3"
	[ ! -e "$KHSEND_CACHE_DIR/trees/default/base/0123-abcd.log" ]
	[ -d "$KHSEND_CACHE_DIR/trees/default/build" ]
	# The tree nobody used for 60 days is gone.
	[ ! -e "$KHSEND_CACHE_DIR/trees/linux-0123456789ab" ]
}

@test "khsend cache prune --keep keeps the most recent trees whatever their age" {
	run --separate-stderr "$KHSEND" cache prune --keep 2 --max-age 30
	assert_success
	[ -d "$KHSEND_CACHE_DIR/trees/linux-0123456789ab/src" ]
	run ls "$KHSEND_CACHE_DIR/trees/linux-0123456789ab/logs"
	assert_output "run2
run3"
}

@test "over the size limit the least recently used builds go first, and the newest tree stays" {
	run --separate-stderr "$KHSEND" cache prune --keep 5 --max-age 0 --max-size 600K
	assert_success
	assert_line --partial "removed $KHSEND_CACHE_DIR/trees/linux-0123456789ab/compile ("
	assert_line --partial "removed $KHSEND_CACHE_DIR/trees/linux-0123456789ab/build ("
	[ -d "$KHSEND_CACHE_DIR/trees/linux-0123456789ab/src" ]
	[ -d "$KHSEND_CACHE_DIR/trees/default/build" ]
	# With room for almost nothing, only the most recently used tree is left.
	run --separate-stderr "$KHSEND" cache prune --keep 5 --max-age 0 --max-size 1K
	assert_success
	[ ! -e "$KHSEND_CACHE_DIR/trees/linux-0123456789ab" ]
	[ -d "$KHSEND_CACHE_DIR/trees/default/src" ]
	[[ "$stderr" == *"the cache still holds"* ]]
}

@test "the limits come from khsend.cache* when no option is given, and bad ones are errors" {
	git config --global khsend.cacheKeep 1
	git config --global khsend.cacheMaxAge 0
	run --separate-stderr "$KHSEND" cache prune
	assert_success
	run ls "$KHSEND_CACHE_DIR/trees/linux-0123456789ab/logs"
	assert_output run3
	git config --global khsend.cacheMaxSize lots
	run --separate-stderr "$KHSEND" cache prune
	assert_failure 2
	[[ "$stderr" == *"khsend.cacheMaxSize 'lots': expected a size"* ]]
	run --separate-stderr "$KHSEND" cache prune --keep many
	assert_failure 2
	[[ "$stderr" == *"--keep 'many': expected a whole number"* ]]
	run --separate-stderr "$KHSEND" cache tidy
	assert_failure 2
}

@test "a tree another khsend is using is left alone" {
	lock=$KHSEND_CACHE_DIR/trees/linux-0123456789ab/lock
	flock "$lock" sleep 30 3>&- &
	holder=$!
	for _ in $(seq 50); do
		flock -n "$lock" true || break
		sleep 0.1
	done
	run --separate-stderr "$KHSEND" cache prune --keep 0 --max-age 30
	kill "$holder"
	assert_success
	[[ "$stderr" == *"'$KHSEND_CACHE_DIR/trees/linux-0123456789ab' is in use by another khsend; left alone"* ]]
	[ -d "$KHSEND_CACHE_DIR/trees/linux-0123456789ab/logs/run1" ]
}
