#!/usr/bin/env bats
# khsend check: real patches against linux-source 6.1 through the shipped policy.

load test_helper

setup() {
	common_setup
	clone_mini_kernel linux
	cd linux || return 1
}

# The seed patch that started this project, as the contributor sent it.
@test "the seed's borken fix is blocked with the explanation of the joke" {
	run -1 khsend check "$ROOT/tests/fixtures/borken.patch"
	assert_line 'kernel/sched/topology.c:1940: block: sched-topology-borken: "arch topology borken" is changed'
	assert_line --partial 'in /'
	assert_line --regexp '^  -.*pr_err\("BUG: arch topology borken\\n"\);$'
	assert_line --regexp '^  \+.*pr_err\("BUG: arch topology broken\\n"\);$'
	assert_output --partial '"borken" is not a typo.'
	assert_output --partial 'Thank you for your work on the kernel!'
	assert_line 'khsend: 1 message checked: 1 change blocks, 0 notes for reviewers, 0 warnings'
}

@test "the seed's RTFP title fix is blocked" {
	run -1 khsend check --format=json "$ROOT/tests/fixtures/rtfp.patch"
	run -0 python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["blocked"] is True, d
f, = d["findings"]
assert f["id"] == "rcu-rtfp-title", f
assert (f["action"], f["index"], f["file"], f["line"]) == ("block", 1, "Documentation/RCU/RTFP.txt", 1), f
assert f["removed"] == "Read the Fscking Papers!" and f["added"] == "Read the Fucking Papers!", f
assert f["subject"] == "[PATCH] Documentation/rcu: fix a typo in RTFP", f
assert f["patch"].endswith("tests/fixtures/rtfp.patch"), f
assert "fsck" in f["explain"], f
print("ok")' "$output"
	assert_output ok
}

@test "the same fix made in the packaged tree is blocked at the 6.1 line number" {
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: Fix a spelling mistake'
	assert_file_changed kernel/sched/topology.c
	git format-patch -q -1 -o out
	run -1 khsend check out/0001-*.patch
	assert_line 'kernel/sched/topology.c:2196: block: sched-topology-borken: "arch topology borken" is changed'
	assert_line '  in out/0001-sched-topology-Fix-a-spelling-mistake.patch: [PATCH] sched/topology: Fix a spelling mistake'
}

@test "a genuine typo series over many files passes with no findings" {
	local n=0 file line typo fix
	while IFS=: read -r file line typo fix; do
		[ -f "$file" ] || continue
		sed -i "${line}s/${typo}/${fix}/" "$file"
		git add "$file"
		git commit -q -m "${file%%/*}: fix a typo in ${file##*/}" -m "'$typo' should be '$fix'."
		n=$((n + 1))
	done < <(grep -E '^[a-zA-Z].*:[0-9]+:' "$ROOT/tests/fixtures/genuine-typos-6.1.txt")
	[ "$n" -ge 20 ]
	git format-patch -q --cover-letter -o series master~"$n"..master
	[ "$(ls series | wc -l)" -eq $((n + 1)) ]
	run -0 khsend check series
	assert_output "khsend: $((n + 1)) messages checked, no protected string is changed"
}

@test "editing the line while keeping the string is not an alteration" {
	make_commit kernel/sched/topology.c 's/pr_err("BUG: arch topology borken/pr_warn("BUG: arch topology borken/' 'sched/topology: warn'
	assert_file_changed kernel/sched/topology.c
	run -0 khsend check -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
}

@test "moving or re-indenting a protected line is not an alteration" {
	# Move the panic() of make_task_dead() two lines up, and re-indent the topology line.
	python3 - kernel/exit.c <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
i = next(k for k, l in enumerate(lines) if "Aiee, killing interrupt handler!" in l)
line = lines.pop(i)
lines.insert(i - 3, line)
open(p, "w").write("\n".join(lines))
PY
	sed -i 's/^\t\t\tpr_err("BUG: arch topology borken/\t\tpr_err("BUG: arch topology borken/' kernel/sched/topology.c
	git commit -qam 'move and re-indent'
	run git show --stat HEAD
	assert_output --partial '2 files changed'
	run -0 khsend check -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
}

@test "deleting a protected line is an alteration" {
	make_commit kernel/sched/topology.c '/arch topology borken/d' 'sched/topology: drop a message'
	assert_file_changed kernel/sched/topology.c
	run -1 khsend check -1
	assert_line '  (the line is deleted)'
	run -1 khsend check --format=json -1
	assert_output --partial '"added": null'
}

@test "a joke wrapped onto two lines, or re-flowed in a comment, with its text intact is kept" {
	# A C string split in two, as checkpatch's line length makes people do.
	sed -i 's/^\t\t\tpr_err("BUG: arch topology borken\\n");/\t\t\tpr_err("BUG: arch topology "\n\t\t\t       "borken\\n");/' \
		kernel/sched/topology.c
	# A comment re-flowed: the pun now spans two lines.
	sed -i 's/^ \*\t\tBTM is taken for hysterical raisons, and held when$/ *\t\tBTM is taken for hysterical\n *\t\traisons, and held when/' \
		drivers/tty/tty_jobctrl.c
	git commit -qam 'wrap two lines'
	run git show --stat HEAD
	assert_output --partial '2 files changed, 4 insertions(+), 2 deletions(-)'
	run -0 khsend check -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
	# The same wrap that also "fixes" the pun is still caught.
	sed -i 's/^ \*\t\traisons, and held when$/ *\t\treasons, and held when/' drivers/tty/tty_jobctrl.c
	git commit -qam 'fix the wrapped pun'
	run -1 khsend check -2
	assert_line 'drivers/tty/tty_jobctrl.c:258: block: hysterical-raisons: "hysterical raisons" is changed'
	assert_line '  -'$' *\t\tBTM is taken for hysterical'
	# Outside the repository only the patches' lines tell, and they do too.
	git format-patch -q -2 -o "$BATS_TEST_TMPDIR/wrapped"
	cd "$BATS_TEST_TMPDIR"
	run -1 khsend check wrapped
	assert_line 'drivers/tty/tty_jobctrl.c:258: block: hysterical-raisons: "hysterical raisons" is changed'
	assert_line '  -'$' *\t\tBTM is taken for hysterical'
	assert_line '  +'$' *\t\treasons, and held when'
	assert_line 'khsend: 2 messages checked: 1 change blocks, 0 notes for reviewers, 0 warnings'
}

@test "a rename written as a deletion and an addition (--no-renames) keeps its jokes" {
	git mv kernel/sched/topology.c kernel/sched/topo.c
	git commit -qm 'sched: rename topology.c'
	git format-patch -q --no-renames -1 -o plain-rename
	grep -q '^deleted file mode' plain-rename/0001-*.patch
	make_commit kernel/sched/topo.c 's/topology borken/topology broken/' 'sched: fix it too'
	git format-patch -q --no-renames -2 -o fixed
	# Inside the repository (where the result is checked too), and outside it (no base to apply to).
	run -0 khsend check plain-rename
	assert_output 'khsend: 1 message checked, no protected string is changed'
	run -1 khsend check fixed
	assert_line --partial 'kernel/sched/topo.c:2196: block: sched-topology-borken'
	mv plain-rename fixed "$BATS_TEST_TMPDIR"
	cd "$BATS_TEST_TMPDIR"
	run -0 khsend check plain-rename
	assert_output 'khsend: 1 message checked, no protected string is changed'
	run -1 khsend check fixed
	assert_line --partial 'kernel/sched/topo.c:2196: block: sched-topology-borken'
	# git's own rename detection pairs the same two files.
	run git -C linux diff --stat -M HEAD~2 HEAD~1
	assert_output --partial 'kernel/sched/{topology.c => topo.c}'
}

@test "a change of case only is an alteration, unless the entry says case-change: ignore" {
	cat > ../case.yaml <<'EOF2'
version: 1
entries:
  - id: borken
    string: arch topology borken
    ignore-case: true
    explain: x
EOF2
	sed 's/    explain: x/    case-change: ignore\n    explain: x/' ../case.yaml > ../case-ignored.yaml
	make_commit kernel/sched/topology.c 's/arch topology borken/Arch topology Borken/' 'sched: capitalise'
	assert_file_changed kernel/sched/topology.c
	run -1 khsend check --policy ../case.yaml -1
	assert_line 'kernel/sched/topology.c:2196: block: borken: "arch topology borken" is changed'
	run -0 khsend check --policy ../case-ignored.yaml -1
	# A real edit of the rest of the line keeps the joke in both.
	git reset -q --hard HEAD~1
	make_commit kernel/sched/topology.c 's/BUG: arch topology borken/bug: arch topology borken/' 'sched: lower case'
	run -0 khsend check --policy ../case.yaml -1
	printf 'version: 1\nentries:\n  - id: b\n    string: x\n    case-change: sometimes\n    explain: x\n' > ../bad.yaml
	run -2 khsend policy check ../bad.yaml
	assert_line "../bad.yaml:5:18: 'case-change' is 'alteration' or 'ignore', not 'sometimes'"
}

@test "one explanation per entry for the whole series, with the text the regex matched" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	# -q: nothing at all when all is well.
	run -0 khsend check -q -1
	assert_output ''
	run -0 khsend check --quiet -1
	assert_output ''
	make_commit fs/lockd/clntlock.c 's/A borken server/A broken server/' 'lockd: fix a typo'
	make_commit drivers/scsi/scsi_scan.c 's/controllers. borken is initialized/controllers. broken is initialized/' \
		'scsi: fix a typo'
	assert_file_changed drivers/scsi/scsi_scan.c
	run -0 khsend check -2
	assert_line 'fs/lockd/clntlock.c:135: annotate: borken-comments: "borken" is changed'
	assert_line 'drivers/scsi/scsi_scan.c:972: annotate: borken-comments: "borken" is changed'
	[ "$(grep -c 'old hacker slang for "broken"' <<< "$output")" -eq 1 ]
	[ "$(grep -c 'short note for the reviewers' <<< "$output")" -eq 1 ]
	assert_line 'khsend: 2 messages checked: 0 changes block, 2 notes for reviewers, 0 warnings'
	# -q when there are findings: all of it.
	run -0 khsend check -q -2
	assert_line 'fs/lockd/clntlock.c:135: annotate: borken-comments: "borken" is changed'
	assert_output --partial 'old hacker slang'
}

@test "a word kernel authors use as a joke, where no entry says anything, gets a warning" {
	make_commit fs/lockd/clntlock.c 's/Argh! The server rebooted again!/The server rebooted again!/' \
		'lockd: make a comment professional'
	assert_file_changed fs/lockd/clntlock.c
	run -0 khsend check -1
	assert_line 'fs/lockd/clntlock.c:275: warn: lexicon-exclamations: "Argh!" is changed'
	assert_output --partial "It is in khsend's list of"
	assert_output --partial 'kernel authors often use as jokes'
	assert_line 'khsend: 1 message checked: 0 changes block, 0 notes for reviewers, 1 warning'
	# khsend.lexicon=false: the policy alone.
	git config khsend.lexicon false
	run -0 khsend check -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
	# A fix of a protected joke gets the policy's finding, and no warning on top of it.
	git config --unset khsend.lexicon
	git reset -q --hard HEAD~1
	make_commit fs/lockd/clntlock.c 's/A borken server/A broken server/' 'lockd: fix a typo'
	run -0 khsend check -1
	assert_line --partial 'fs/lockd/clntlock.c:135: annotate: borken-comments'
	refute_output --partial 'lexicon-'
}

@test "a renamed file stays covered under its new name for the rest of the series" {
	git mv kernel/sched/topology.c kernel/sched/topo.c
	git commit -qm 'sched: rename topology.c'
	run -0 khsend check -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
	git format-patch -q -1 -o renamed
	run -0 khsend check renamed
	make_commit kernel/sched/topo.c 's/topology borken/topology broken/' 'sched: fix it too'
	git format-patch -q -2 -o both
	run -1 khsend check both
	assert_line --partial 'kernel/sched/topo.c:2196: block: sched-topology-borken'
}

@test "a joke removed in one patch and restored in a later one balances out" {
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'fix'
	make_commit kernel/sched/topology.c 's/topology broken/topology borken/' 'Revert "fix"'
	run -0 khsend check -2
	assert_output 'khsend: 2 messages checked, no protected string is changed'
}

@test "a commit message that mentions the joke does not count" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	git commit -q --amend -m 'kprobes: fix a typo' -m 'Unlike "arch topology borken", this is a real typo.'
	run -0 khsend check -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
}

@test "an mbox of a whole series is read message by message" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	make_commit kernel/acct.c 's/suspeneded/suspended/' 'acct: fix a typo'
	git format-patch -q --stdout --cover-letter -3 > series.mbox
	run -1 khsend check --format=json series.mbox
	run -0 python3 -c '
import json, sys
d = json.loads(sys.argv[1])
f, = d["findings"]
assert (f["index"], f["patch"], f["subject"]) == (3, "series.mbox (message 3)", "[PATCH 2/3] sched/topology: fix a typo"), f
print("ok")' "$output"
}

# Turn a plain format-patch mail into a base64 or quoted-printable one.
encode_mail() {
	python3 - "$1" "$2" <<'PY'
import email, email.policy, sys
enc, path = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
head, body = raw.split(b"\n\n", 1)
msg = email.message_from_bytes(head + b"\n\n", policy=email.policy.compat32)
for h in ("Content-Transfer-Encoding", "Content-Type", "MIME-Version"):
	del msg[h]
msg["MIME-Version"] = "1.0"
msg["Content-Type"] = 'text/plain; charset="utf-8"'
if enc == "base64":
	import base64
	msg["Content-Transfer-Encoding"] = "base64"
	payload = base64.encodebytes(body)
else:
	import quopri
	msg["Content-Transfer-Encoding"] = "quoted-printable"
	payload = quopri.encodestring(body, quotetabs=True)
sys.stdout.buffer.write(msg.as_bytes().split(b"\n\n", 1)[0] + b"\n\n" + payload)
PY
}

@test "base64 and quoted-printable mails are decoded before checking" {
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	git format-patch -q -1 -o plain
	encode_mail base64 plain/0001-*.patch > b64.patch
	encode_mail qp plain/0001-*.patch > qp.patch
	run grep -c 'borken' b64.patch
	assert_output 0
	run grep -F 'pr_err("BUG: arch topology borken' qp.patch
	assert_failure
	run -1 khsend check b64.patch
	assert_line --partial 'kernel/sched/topology.c:2196: block: sched-topology-borken'
	run -1 khsend check qp.patch
	assert_line --partial 'kernel/sched/topology.c:2196: block: sched-topology-borken'
}

@test "a mail with CRLF line endings is checked like any other" {
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	git format-patch -q --stdout -1 | sed 's/$/\r/' > crlf.patch
	run grep -c $'\r$' crlf.patch
	refute_output 0
	run -1 khsend check crlf.patch
	assert_line --partial 'kernel/sched/topology.c:2196: block: sched-topology-borken'
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	git format-patch -q --stdout -1 | sed 's/$/\r/' > crlf-good.patch
	run -0 khsend check crlf-good.patch
}

@test "revision ranges are read from the repository" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	local bad
	bad=$(git rev-parse HEAD)
	make_commit kernel/acct.c 's/suspeneded/suspended/' 'acct: fix a typo'
	run -1 khsend check --format=json master~3..master
	assert_output --partial "\"patch\": \"0002-sched-topology-fix-a-typo.patch (commit ${bad:0:12})\", \"commit\": \"$bad\""
	assert_output --partial '"index": 2'
	run -1 khsend check -2
	run -0 khsend check -1
	run -1 khsend check master~3
	run -0 khsend check master~1..master
	run -1 khsend check ^master~3 master
}

@test "a directory of patches is read in name order, and a cover letter is fine" {
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	git format-patch -q --cover-letter -2 -o dir
	run -1 khsend check --format=json dir
	assert_output --partial '"index": 3, "patch": "dir/0002-sched-topology-fix-a-typo.patch"'
	run -0 khsend check dir/0000-cover-letter.patch
	assert_output 'khsend: 1 message checked, no protected string is changed'
}

@test "annotate and warn findings are reported without blocking" {
	make_commit kernel/sched/core.c 's/here be dragons/here are dragons/' 'sched: fix grammar'
	assert_file_changed kernel/sched/core.c
	make_commit drivers/scsi/scsi_scan.c 's/sdev->borken = 1;/sdev->broken = 1;/' 'scsi: rename a flag'
	assert_file_changed drivers/scsi/scsi_scan.c
	run -0 khsend check -2
	assert_line --partial 'kernel/sched/core.c:2661: annotate: here-be-dragons'
	assert_line --partial 'drivers/scsi/scsi_scan.c:331: warn: scsi-borken-identifiers'
	assert_line 'khsend: 2 messages checked: 0 changes block, 1 note for reviewers, 1 warning'
}

@test "regex and any-case entries match across their variants" {
	make_commit include/uapi/linux/reboot.h 's/0xfee1dead/0xfee1deaf/' 'reboot: fix a typo'
	assert_file_changed include/uapi/linux/reboot.h
	run -1 khsend check -1
	assert_line --partial 'include/uapi/linux/reboot.h:9: block: reboot-magic-numbers'
}

@test "an entry anchored to one file ignores the same word elsewhere" {
	make_commit kernel/kprobes.c '1i /* arch topology borken */' 'add a comment'
	make_commit kernel/kprobes.c '1d' 'remove the comment'
	run -0 khsend check -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
}

@test "plain unified diffs (quilt, diff -u) are checked too" {
	cp kernel/sched/topology.c /tmp/topology.orig.$$
	sed -i 's/topology borken/topology broken/' kernel/sched/topology.c
	{
		printf 'From: A U Thor <author@example.com>\nSubject: [PATCH] sched/topology: fix a typo\n\n'
		printf 'Signed-off-by: A U Thor <author@example.com>\n---\n'
		printf 'Index: linux/kernel/sched/topology.c\n%s\n' '==================================================================='
		diff -u --label 'linux.orig/kernel/sched/topology.c	2021-05-26 10:00:00' \
			--label linux/kernel/sched/topology.c /tmp/topology.orig.$$ kernel/sched/topology.c || true
	} > quilt.patch
	diff -u --label a/kernel/sched/topology.c --label b/kernel/sched/topology.c \
		/tmp/topology.orig.$$ kernel/sched/topology.c > plain.diff || true
	rm -f /tmp/topology.orig.$$
	git checkout -q kernel/sched/topology.c
	run -1 khsend check quilt.patch
	assert_line 'kernel/sched/topology.c:2196: block: sched-topology-borken: "arch topology borken" is changed'
	run -1 khsend check plain.diff
	assert_line 'kernel/sched/topology.c:2196: block: sched-topology-borken: "arch topology borken" is changed'
}

# An eager contributor's series: one "fix" for each kind of joke that the
# first policy did not know (tools/lexicon/REVIEW.md), one patch each.
@test "a fix of each kind of joke is caught, with the action the policy gives it" {
	make_commit fs/lockd/clntlock.c 's/A borken server/A broken server/' 'lockd: fix a typo'
	make_commit crypto/xor.c 's/xor: Yikes!  No memory/xor: No memory/' 'crypto: xor: make a message professional'
	make_commit drivers/net/usb/kaweth.c "s/Firmware loaded.  I'll be back.../Firmware loaded./" 'net: kaweth: clean up a message'
	make_commit arch/sparc/kernel/smp_64.c 's/SMP bolixed/SMP broken/' 'sparc64: fix a typo'
	make_commit Documentation/networking/tc-actions-env-rules.rst 's/stealeth or borroweth/steal or borrow/' 'docs: tc-actions: fix the grammar'
	make_commit fs/xfs/xfs_log_recover.c 's/AGI is b0rked/AGI is broken/' 'xfs: fix a typo'
	make_commit drivers/irqchip/irq-gic-v3.c 's/inform the luser/inform the user/' 'irqchip/gic-v3: fix a typo'
	make_commit drivers/tty/tty_jobctrl.c 's/hysterical raisons/historical reasons/' 'tty: fix a typo'
	make_commit arch/arm64/kvm/hyp/vgic-v3-sr.c 's/fscked-up/messed up/' 'KVM: arm64: reword a comment'
	git format-patch -q -o eager master~9..master
	run -1 khsend check eager
	assert_line --partial 'fs/lockd/clntlock.c:135: annotate: borken-comments:'
	assert_line --partial 'crypto/xor.c:132: annotate: exclaim-in-messages:'
	assert_line --partial 'drivers/net/usb/kaweth.c:984: block: kaweth-ill-be-back:'
	assert_line --partial 'arch/sparc/kernel/smp_64.c:149: annotate: bolixed-slang:'
	assert_line --partial 'Documentation/networking/tc-actions-env-rules.rst:10: annotate: tc-actions-thou-shalt:'
	assert_line --partial 'fs/xfs/xfs_log_recover.c:2787: annotate: b0rked-leetspeak:'
	assert_line --partial 'drivers/irqchip/irq-gic-v3.c:1112: annotate: luser-jargon:'
	assert_line --partial 'drivers/tty/tty_jobctrl.c:258: block: hysterical-raisons:'
	assert_line --partial 'arch/arm64/kvm/hyp/vgic-v3-sr.c:779: warn: vgic-fscked-up:'
	assert_output --partial '"I'"'"'ll be back" is the famous line of the robot in the film "The'
	assert_line 'khsend: 9 messages checked: 2 changes block, 6 notes for reviewers, 1 warning'
}
