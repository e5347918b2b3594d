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

# "khsend scan" of the whole tree reads 78,000 files and takes minutes: run it
# once per file, keep stdout and stderr, and print the path of stdout.
tree_scan() {
	local out=$BATS_FILE_TMPDIR/scan.out
	if [ ! -f "$out" ]; then
		khsend scan "$(full_tree)" > "$out.tmp" 2> "$BATS_FILE_TMPDIR/scan.err" || return 1
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}

@test "every entry of the shipped policy matches in linux-source 6.1" {
	local tree
	tree=$(full_tree)
	run -0 --separate-stderr khsend scan --stale "$tree"
	assert_output ''
	[ "$stderr" = "khsend: 0 of $(khsend policy list | wc -l) entries match nowhere" ]
	run -0 cat "$(tree_scan)"
	assert_line 'kernel/sched/topology.c:2196: sched-topology-borken: 			pr_err("BUG: arch topology borken\n");'
	assert_line 'arch/x86/kernel/fpu/signal.c:364: fpu-histerical-raisins: 	 * to be ignored for histerical raisins. The legacy state is folded'
	assert_line 'Documentation/RCU/RTFP.txt:1: rcu-rtfp-title: Read the Fscking Papers!'
	local n
	n=$(khsend policy list | wc -l)
	[ "$n" -ge 120 ]
	[[ "$(cat "$BATS_FILE_TMPDIR/scan.err")" =~ ^"khsend: $n of $n entries found ("[0-9]+" files read)"$ ]]
}

# One representative line for each kind of joke that the first policy missed
# (tools/lexicon/REVIEW.md lists them all).
@test "the shipped policy covers every kind of joke in linux-source 6.1" {
	run -0 cat "$(tree_scan)"
	# the same pun in another file or another spelling
	assert_line 'fs/nfs/nfs4xdr.c:3738: borken-comments: 	/* Ignore borken servers that return unrequested attrs */'
	assert_line 'drivers/tty/tty_jobctrl.c:258: hysterical-raisons:  *		BTM is taken for hysterical raisons, and held when'
	# soundalike names for old jargon
	assert_line 'arch/sparc/kernel/ttable_32.S:87: vendor-name-puns: t_bad88:BAD_TRAP(0x88)                      /* Slowaris System Call          */'
	# mock-archaic English
	assert_line 'Documentation/networking/tc-actions-env-rules.rst:10: tc-actions-thou-shalt: 1) If you stealeth or borroweth any packet thou shalt be branching'
	assert_line 'arch/parisc/kernel/syscall.S:155: ye-olde: 	xor     %r1,%r30,%r30                   /* ye olde xor trick */'
	# leetspeak
	assert_line 'fs/xfs/xfs_log_recover.c:2787: b0rked-leetspeak: 		 * AGI is b0rked. Don'"'"'t process it.'
	assert_line 'drivers/usb/gadget/udc/aspeed-vhub/epn.c:745: w00t-leetspeak: 	/* Woot, we are online ! */'
	# jargon for users
	assert_line 'drivers/irqchip/irq-gic-v3.c:1112: luser-jargon: 	 * Kindly inform the luser.'
	# lines quoted from films and TV shows
	assert_line 'drivers/net/usb/kaweth.c:984: kaweth-ill-be-back: 		dev_info(dev, "Firmware loaded.  I'"'"'ll be back...\n");'
	assert_line 'drivers/media/pci/pluto2/pluto2.c:330: star-trek-dead-jim: 		/* It'"'"'s dead Jim */'
	# playful exclamations in messages, in their many spellings
	assert_line 'crypto/xor.c:132: exclaim-in-messages: 		printk(KERN_WARNING "xor: Yikes!  No memory available.\n");'
	assert_line 'lib/raid6/algos.c:187: exclaim-in-messages: 		pr_err("raid6: Yikes! No algorithm found!\n");'
	assert_line 'arch/powerpc/platforms/pseries/hotplug-cpu.c:58: pseries-alas-i-survived: 	panic("Alas, I survived.\n");'
	# deliberate misspellings the first policy left out: annotate or warn
	assert_line 'arch/sparc/kernel/smp_64.c:149: bolixed-slang: 	panic("SMP bolixed\n");'
	assert_line 'Documentation/scsi/ChangeLog.sym53c8xx:413: brocken-changelog: 	  quite brocken. :-)'
	assert_line 'arch/arm64/kvm/hyp/vgic-v3-sr.c:779: vgic-fscked-up: 	/* If priorities or group do not match, the guest has fscked-up. */'
	# words that codespell itself "fixes"
	assert_line 'fs/lockd/clntlock.c:135: borken-comments: 	/* A borken server might ask us to block even if we didn'"'"'t'
	# identifiers: warn only, and never the comment entries
	assert_line 'arch/sparc/kernel/wof.S:196: bolixed-identifiers: spwin_user_stack_is_bolixed:'
	assert_line 'drivers/scsi/scsi_scan.c:331: scsi-borken-identifiers: 	sdev->borken = 1;'
	assert_line 'drivers/usb/core/hub.c:92: blinkenlights: module_param(blinkenlights, bool, S_IRUGO);'
	refute_line --regexp '^drivers/scsi/scsi_scan.c:331: borken-comments: '
	refute_line --regexp '^include/scsi/scsi_device.h:191: borken-comments: '
	refute_line --regexp '^arch/sparc/kernel/wof.S:196: bolixed-slang: '
}

@test "identifiers and rude words only warn; tree-wide entries never block" {
	run -0 khsend policy list
	local id
	for id in scsi-borken-identifiers bolixed-identifiers sparc-penguin-identifiers get-maintainer-chief-penguins blinkenlights vgic-fscked-up brocken-changelog; do
		assert_line --regexp "^$id +warn "
	done
	for id in here-be-dragons borken-comments borked-slang b0rked-leetspeak bolixed-slang exclaim-in-messages automagic-jargon luser-jargon; do
		assert_line --regexp "^$id +annotate "
	done
}

@test "no genuine typo in the packaged tree is protected" {
	local file line typo fix
	run -0 cat "$(tree_scan)"
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

@test "--suggest proposes the lexicon's words that no entry protects, as a policy to edit" {
	clone_mini_kernel linux
	run -0 --separate-stderr khsend scan --suggest linux
	printf '%s\n' "$output" > suggested.yaml
	# A word no entry protects is proposed, with where it is...
	assert_line '  - id: exclamations-argh'
	assert_line --partial '  #   fs/lockd/clntlock.c:275:'
	# ...a joke the shipped policy protects is not.
	refute_line --partial 'borken'
	[[ "$stderr" =~ ^khsend:\ [0-9]+\ suggestions\ to\ review ]]
	# What it prints is a policy that loads, and every entry it proposes is found where it says.
	run -0 khsend policy check suggested.yaml
	run -0 khsend scan --policy suggested.yaml --stale linux
	# The same words, in the same order, on every run.
	run -0 --separate-stderr khsend scan --suggest linux
	[ "$output" = "$(cat suggested.yaml)" ]
	run -2 khsend scan --suggest --stale linux
	assert_output --partial '--stale and --suggest do not go together'
}
