#!/usr/bin/env bats
# khsend scan: where each entry occurs, and --stale for entries whose joke is gone.

load test_helper

# The whole packaged tree, extracted once into the test cache.
full_tree() {
	local tree=$KHSEND_TEST_CACHE/linux-source-6.1-full
	if [ ! -f "$tree/.complete" ]; then
		rm -rf "$tree" "$tree.tmp"
		mkdir -p "$tree.tmp"
		tar -xJf "$KERNEL_TARBALL" -C "$tree.tmp"
		mv "$tree.tmp/linux-source-6.1" "$tree"
		rmdir "$tree.tmp"
		touch "$tree/.complete"
	fi
	echo "$tree"
}

setup() {
	common_setup
}

@test "every entry of the shipped policy matches in linux-source 6.1" {
	local tree
	tree=$(full_tree)
	run -0 --separate-stderr khsend scan --stale "$tree"
	assert_output ''
	[ "$stderr" = "khsend: 0 of $(khsend policy list | wc -l) entries match nowhere" ]
	run -0 --separate-stderr khsend scan "$tree"
	assert_line 'kernel/sched/topology.c:2196: sched-topology-borken: 			pr_err("BUG: arch topology borken\n");'
	assert_line 'arch/x86/kernel/fpu/signal.c:364: fpu-histerical-raisins: 	 * to be ignored for histerical raisins. The legacy state is folded'
	assert_line 'Documentation/RCU/RTFP.txt:1: rcu-rtfp-title: Read the Fscking Papers!'
}

@test "no genuine typo in the packaged tree is protected" {
	local tree file line typo fix
	tree=$(full_tree)
	run -0 khsend scan "$tree"
	while IFS=: read -r file line typo fix; do
		refute_line --regexp "^$file:$line: "
	done < <(grep -E '^[a-zA-Z].*:[0-9]+:' "$ROOT/tests/fixtures/genuine-typos-6.1.txt")
}

@test "--stale names the entries that match nowhere and exits 1" {
	clone_mini_kernel linux
	cat > p.yaml <<'EOF2'
version: 1
entries:
  - id: topology
    string: "arch topology borken"
    paths: ["kernel/sched/topology.c"]
    explain: x
  - id: gone
    string: "this joke was removed long ago"
    explain: y
  - id: elsewhere
    string: "arch topology borken"
    paths: ["drivers/**"]
    explain: z
EOF2
	run -1 --separate-stderr khsend scan --policy p.yaml --stale linux
	assert_line --regexp '^gone: matches nowhere in linux \(defined at p.yaml:7\)$'
	assert_line --regexp '^elsewhere: matches nowhere in linux \(defined at p.yaml:10\)$'
	refute_line --partial 'topology:'
	[ "$stderr" = 'khsend: 2 of 3 entries match nowhere' ]
	run -0 --separate-stderr khsend scan --policy p.yaml linux
	assert_output 'kernel/sched/topology.c:2196: topology: 			pr_err("BUG: arch topology borken\n");'
	local files
	files=$(grep -vc '^#' "$ROOT/tests/kernel-files.txt")
	[ "$stderr" = "khsend: 1 of 3 entries found ($files files read); 'khsend scan --stale' lists the others" ]
}

@test "scan of something that is not a directory is an error" {
	run -2 khsend scan /nonexistent
	assert_output "khsend: error: '/nonexistent' is not a directory"
}
