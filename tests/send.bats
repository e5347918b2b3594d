#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# khsend as git send-email: real git send-email 2.39 to a t9001-style fake sendmail.
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr

load test_helper

setup() {
	common_setup
	clone_mini_kernel linux
	cd linux || return 1
	# Three genuine typo fixes (research/genuine-typos-6.1.md).
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	make_commit kernel/time/alarmtimer.c 's/syncrhonized/synchronized/' 'alarmtimer: fix a typo in a comment'
	make_commit kernel/watchdog.c 's/watchog/watchdog/' 'watchdog: fix a typo in a comment'
	SEND=(--to=list@example.org --confirm=never --no-validate)
}

# A cover letter made as contributors make it: format-patch, then fill it in.
make_outgoing() {
	git format-patch -q --cover-letter -o "$BATS_TEST_TMPDIR/${2:-outgoing}" "$1"
	sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/Typo fixes/' -e 's/\*\*\* BLURB HERE \*\*\*/Three typos./' \
		"$BATS_TEST_TMPDIR/${2:-outgoing}/0000-cover-letter.patch"
}

@test "a clean series with a cover letter arrives byte for byte as git send-email alone sends it" {
	make_outgoing HEAD~3
	plain=$(make_sendmail plain)
	khs=$(make_sendmail khsend)
	git send-email "${SEND[@]}" --smtp-server="$plain" "$BATS_TEST_TMPDIR/outgoing"
	before=$(user_state . "$BATS_TEST_TMPDIR"/outgoing/*)
	run --separate-stderr khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/outgoing"
	assert_success
	[ "$(sent_count khsend)" -eq 4 ]
	assert_same_delivery khsend plain
	# Quiet when all is well, as git send-email is.
	[ -z "$stderr" ]
	[ "$before" = "$(user_state . "$BATS_TEST_TMPDIR"/outgoing/*)" ]
}

@test "revisions go through git format-patch as git send-email runs it" {
	plain=$(make_sendmail plain)
	khs=$(make_sendmail khsend)
	git send-email "${SEND[@]}" --smtp-server="$plain" --cover-letter --force -3
	khsend --no-boot "${SEND[@]}" --smtp-server="$khs" --cover-letter --force -3
	[ "$(sent_count khsend)" -eq 4 ]
	assert_same_delivery khsend plain
}

@test "options and arguments reach git send-email and format-patch untouched" {
	git format-patch -q -1 --stdout > "$BATS_TEST_TMPDIR/-my fix.patch"
	cp "$BATS_TEST_TMPDIR/-my fix.patch" .
	plain=$(make_sendmail plain)
	khs=$(make_sendmail khsend)
	args=(--to list@example.org --cc=cc@example.org --in-reply-to '<earlier@example.org>' --confirm=never
	      -v2 --subject-prefix RFC --no-validate "-my fix.patch" HEAD~3..HEAD~1)
	git send-email "${args[@]}" --smtp-server="$plain"
	before=$(user_state . "-my fix.patch")
	khsend "${args[@]}" --no-boot --smtp-server="$khs"
	[ "$before" = "$(user_state . "-my fix.patch")" ]
	[ "$(sent_count khsend)" -eq 3 ]
	assert_same_delivery khsend plain
	grep -q '^Subject: \[RFC v2 1/2\] kprobes' "$BATS_TEST_TMPDIR/khsend/msgtxt2"
	grep -q '^In-Reply-To: <earlier@example.org>' "$BATS_TEST_TMPDIR/khsend/msgtxt1"
	grep -qx '!cc@example.org!' "$BATS_TEST_TMPDIR/khsend/commandline1"
}

@test "khsend reads the command line exactly as git send-email's Getopt::Long does" {
	# The real Getopt::Long with the script's own tables, against khsend's reading.
	oracle=$BATS_TEST_DIRNAME/fixtures/sendemail-getopt.pl
	cases=(
		"-v 2 -v2 --subject-prefix RFC --cover-letter"
		"--to a --cc --bcc -- --to b"
		"--no-thread --nothread --th --no-th --no-t --dry --anno --noan"
		"--smtp-pass --to x --smtp-pass - y --smtp-pass +z w"
		"--smtp-debug 1 --smtp-debug foo --batch-size x --batch-size=3 --relogin-delay"
		"+to x -to=y -dry-run=1 --dry-run=1 --THREAD --Dry-Run"
		"-h -d --d --id me --no-identity"
		"--s --su --sub x --smtp-s y --co --com --comp --conf always"
		"--signed-off --no-signed-off --signed-off-by --nosigned-off-cc"
		"- -- --- ---x"
	)
	for c in "${cases[@]}"; do
		read -ra words <<< "$c"
		for posix in "" 1; do
			expected=$(env ${posix:+POSIXLY_CORRECT=1} perl "$oracle" "${words[@]}")
			actual=$(env ${posix:+POSIXLY_CORRECT=1} khsend hook sendemail-args "${words[@]}" | sed "/^word/d")
			[ "$expected" = "$actual" ] || fail "'$c'${posix:+ (POSIXLY_CORRECT)}: $(diff <(echo "$expected") <(echo "$actual"))"
		done
	done
	# And on random command lines.
	vocab=(--to --to=x x --cc -v 2 -v2 -- - --no-thread --th --no-t --smtp-pass --smtp-debug 1 foo
	       --batch-size +to --id -h -d --d --dry --an --noan --compose --con --format-patch HEAD~2
	       --cover-letter --s --sub --smtp-s --Dry-Run -to -dry=1 --to= --quiet "a b" -my "=x" "--=x")
	RANDOM=42
	for _ in $(seq 150); do
		words=()
		for _ in $(seq $((RANDOM % 7))); do words+=("${vocab[RANDOM % ${#vocab[@]}]}"); done
		expected=$(perl "$oracle" "${words[@]}")
		actual=$(khsend hook sendemail-args "${words[@]}" | sed "/^word/d")
		[ "$expected" = "$actual" ] || fail "'${words[*]}': $(diff <(echo "$expected") <(echo "$actual"))"
	done
}

@test "the option table is the one of the installed git send-email" {
	[ "$(git --version)" = "git version 2.39.5" ] || skip "the table is generated from git 2.39.5"
	run perl "$ROOT/tools/gen-sendemail-options.pl" /usr/lib/git-core/git-send-email
	assert_success
	diff -u "$ROOT/wrapper/send/sendemail-options-table.c" <(echo "$output")
}

@test "khsend's own options are taken out wherever they are, but not from option values" {
	run khsend hook sendemail-args --to a --policy p.yaml --subject --boot --allow=x --no-boot HEAD -- --policy q
	assert_success
	assert_output "khsend	policy=p.yaml
khsend	allow=x
khsend	boot=0
opt	to=a
opt	subject=--boot
word	--to
word	a
word	--subject
word	--boot
rest	HEAD
rest	--
rest	--policy
rest	q"
}

@test "a blocked series sends nothing, exits 1 and explains the joke" {
	# The real "fix" of 2021 (lore: 20210526021856.9060-1-thunder.leizhen@huawei.com).
	cp "$ROOT/tests/fixtures/borken.patch" "$BATS_TEST_TMPDIR/borken.patch"
	make_outgoing HEAD~3
	cp "$BATS_TEST_TMPDIR/borken.patch" "$BATS_TEST_TMPDIR/outgoing/0004-borken.patch"
	khs=$(make_sendmail khsend)
	before=$(user_state . "$BATS_TEST_TMPDIR"/outgoing/*)
	run --separate-stderr khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/outgoing"
	assert_failure 1
	[ "$(sent_count khsend)" -eq 0 ]
	[[ "$stderr" == *'block: sched-topology-borken: "arch topology borken" is changed'* ]]
	[[ "$stderr" == *'"borken" is not a typo.'* ]]
	[[ "$stderr" == *"nothing was sent"* ]]
	[ "$before" = "$(user_state . "$BATS_TEST_TMPDIR"/outgoing/*)" ]
}

@test "an annotated series arrives with the note below '---', a summary in the cover letter, and nothing else changed" {
	make_commit kernel/sched/core.c 's/here be dragons\./here are dragons./' 'sched/core: reword a comment'
	make_outgoing HEAD~4
	plain=$(make_sendmail plain)
	khs=$(make_sendmail khsend)
	before=$(user_state . "$BATS_TEST_TMPDIR"/outgoing/*)
	git send-email "${SEND[@]}" --smtp-server="$plain" "$BATS_TEST_TMPDIR/outgoing"
	run --separate-stderr khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/outgoing"
	assert_success
	[[ "$stderr" == *"annotate: here-be-dragons"* ]]
	[ "$(sent_count khsend)" -eq 5 ]
	# The patch: only lines added, right below the "---".
	run diff <(normalized "$BATS_TEST_TMPDIR/plain/msgtxt5") <(normalized "$BATS_TEST_TMPDIR/khsend/msgtxt5")
	assert_output --regexp '^[0-9]+a[0-9]+,[0-9]+
> Note from khsend: this patch changes text that the kernel keeps on
> purpose, and the contributor was told why before sending:
> - "be dragons" \(here-be-dragons\), kernel/sched/core.c:[0-9]+
>   Old maps wrote "Here be dragons" on unknown, dangerous areas.
> $'
	line=$(grep -n '^Note from khsend' "$BATS_TEST_TMPDIR/khsend/msgtxt5" | cut -d: -f1)
	[ "$(sed -n "$((line - 1))p" "$BATS_TEST_TMPDIR/khsend/msgtxt5")" = "---" ]
	# The cover letter: the summary before the signature, nothing else.
	run diff <(normalized "$BATS_TEST_TMPDIR/plain/msgtxt1") <(normalized "$BATS_TEST_TMPDIR/khsend/msgtxt1")
	assert_output --partial '> - [PATCH 4/4] sched/core: reword a comment: "be dragons"'
	[ "$(echo "$output" | grep -c '^[<]')" -eq 0 ]
	grep -B2 -- '^-- $' "$BATS_TEST_TMPDIR/khsend/msgtxt1" | grep -q here-be-dragons
	# The other messages are untouched.
	for i in 2 3 4; do
		diff <(normalized "$BATS_TEST_TMPDIR/plain/msgtxt$i") <(normalized "$BATS_TEST_TMPDIR/khsend/msgtxt$i")
	done
	[ "$before" = "$(user_state . "$BATS_TEST_TMPDIR"/outgoing/*)" ]
}

@test "the note below '---' is dropped by git am" {
	make_commit kernel/sched/core.c 's/here be dragons\./here are dragons./' 'sched/core: reword a comment'
	khs=$(make_sendmail khsend)
	khsend --no-boot "${SEND[@]}" --smtp-server="$khs" -1
	grep -q '^Note from khsend' "$BATS_TEST_TMPDIR/khsend/msgtxt1"
	want=$(git log -1 --format=%B)
	git checkout -q HEAD~1
	git am -q "$BATS_TEST_TMPDIR/khsend/msgtxt1"
	[ "$(git log -1 --format=%B)" = "$want" ]
	git diff --quiet HEAD master
}

@test "--allow turns a block into a note, only where the policy permits it" {
	cat > "$BATS_TEST_TMPDIR/policy.yaml" <<'EOF'
version: 1
entries:
  - id: kprobes-typo
    string: "immmediately"
    paths: ["kernel/kprobes.c"]
    action: block
    allow-override: true
    explain: A test entry that pretends the typo is a joke.
  - id: watchdog-typo
    string: "watchog"
    paths: ["kernel/watchdog.c"]
    action: block
    explain: Another test entry, one that cannot be overridden.
EOF
	khs=$(make_sendmail khsend)
	run khsend --no-boot --policy "$BATS_TEST_TMPDIR/policy.yaml" "${SEND[@]}" --smtp-server="$khs" HEAD~3..HEAD~2
	assert_failure 1
	run khsend --no-boot --policy "$BATS_TEST_TMPDIR/policy.yaml" --allow kprobes-typo "${SEND[@]}" \
		--smtp-server="$khs" HEAD~3..HEAD~2
	assert_success
	grep -q '"immmediately" (kprobes-typo), kernel/kprobes.c' "$BATS_TEST_TMPDIR/khsend/msgtxt1"
	run khsend --no-boot --policy "$BATS_TEST_TMPDIR/policy.yaml" --allow watchdog-typo "${SEND[@]}" \
		--smtp-server="$khs" -1
	assert_failure 2
	assert_output --partial "--allow watchdog-typo: this entry cannot be overridden"
	[ "$(sent_count khsend)" -eq 1 ]
}

# A patch that is clean as committed: the joke stays, only pr_err becomes pr_warn.
make_topology_commit() {
	make_commit kernel/sched/topology.c 's/pr_err("BUG: arch topology borken/pr_warn("BUG: arch topology borken/' \
		'sched/topology: warn instead of err'
	assert_file_changed kernel/sched/topology.c
	cat > "$BATS_TEST_TMPDIR/fixer" <<'EOF'
#!/bin/sh
# The "fix" a spell checker would make, in the patch's added lines.
for f; do sed -i '/^+.*arch topology/s/borken/broken/' "$f"; done
EOF
	chmod +x "$BATS_TEST_TMPDIR/fixer"
}

@test "--annotate: an edit that 'fixes' the joke is caught and nothing is sent" {
	make_topology_commit
	plain=$(make_sendmail plain)
	khs=$(make_sendmail khsend)
	# Without khsend the "fix" goes out (the gap in git 2.39).
	GIT_EDITOR=$BATS_TEST_TMPDIR/fixer git send-email "${SEND[@]}" --smtp-server="$plain" --annotate -1
	grep -q 'arch topology broken' "$BATS_TEST_TMPDIR/plain/msgtxt1"
	before=$(user_state .)
	GIT_EDITOR=$BATS_TEST_TMPDIR/fixer run --separate-stderr khsend --no-boot "${SEND[@]}" \
		--smtp-server="$khs" --annotate -1
	assert_failure 1
	[ "$(sent_count khsend)" -eq 0 ]
	[[ "$stderr" == *"block: sched-topology-borken"* ]]
	[[ "$stderr" == *"nothing was sent"* ]]
	[ "$before" = "$(user_state .)" ]
}

@test "an editor that returns at once and edits later cannot send its late edit" {
	make_commit kernel/acct.c 's/suspeneded/suspended/' 'acct: fix a typo'
	make_topology_commit
	khs=$(make_sendmail khsend)
	# Like "gvim" or "code" without --wait: the edit lands after the editor has exited,
	# while git send-email waits at its prompt for the first message.
	cat > "$BATS_TEST_TMPDIR/late" <<'EOF2'
#!/bin/sh
last=
for f; do last=$f; done
( sleep 1; sed -i '/^+.*arch topology/s/borken/broken/' "$@"; touch "${0%/*}/late.done" ) > /dev/null 2>&1 &
exit 0
EOF2
	chmod +x "$BATS_TEST_TMPDIR/late"
	export GIT_SEND_EMAIL_NOTTY=1
	# The answers come once the late edit has landed, however loaded the machine is.
	GIT_EDITOR=$BATS_TEST_TMPDIR/late run bash -c \
		'(until [ -e "$0/late.done" ]; do sleep 0.1; done; printf "y\ny\n") | "$@"' "$BATS_TEST_TMPDIR" khsend --no-boot \
		--to=list@example.org --confirm=always --no-validate --smtp-server="$khs" --annotate -2
	assert_failure 1
	assert_output --partial "block: sched-topology-borken"
	assert_output --partial "nothing was sent"
	[ "$(sent_count khsend)" -eq 0 ]
}

@test "sendemail.annotate and core.editor: the user's editor runs, and what it sends is checked" {
	make_topology_commit
	khs=$(make_sendmail khsend)
	git config sendemail.annotate true
	git config core.editor "$BATS_TEST_TMPDIR/fixer"
	run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" -1
	assert_failure 1
	assert_output --partial "block: sched-topology-borken"
	[ "$(sent_count khsend)" -eq 0 ]
	# A harmless edit goes out, edited, and khsend says nothing more than git send-email.
	printf '#!/bin/sh\nsed -i "s/^Subject: .*/&, edited/" "$@"\n' > "$BATS_TEST_TMPDIR/harmless"
	chmod +x "$BATS_TEST_TMPDIR/harmless"
	git config core.editor "$BATS_TEST_TMPDIR/harmless"
	run --separate-stderr khsend --no-boot "${SEND[@]}" --smtp-server="$khs" -1
	assert_success
	grep -q '^Subject: .*warn instead of err, edited' "$BATS_TEST_TMPDIR/khsend/msgtxt1"
	[ -z "$stderr" ]
}

@test "an identity's sendemail.<id>.annotate: its edit is checked too" {
	make_topology_commit
	khs=$(make_sendmail khsend)
	git config core.editor "$BATS_TEST_TMPDIR/fixer"
	git config sendemail.work.annotate true
	run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" --identity work -1
	assert_failure 1
	assert_output --partial "block: sched-topology-borken"
	git config sendemail.identity work
	run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" -1
	assert_failure 1
	[ "$(sent_count khsend)" -eq 0 ]
	# --no-identity: not the identity's annotate setting, so no editor.
	run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" --no-identity -1
	assert_success
	[ "$(sent_count khsend)" -eq 1 ]
}

@test "an edit that changes the lines a patch removes or keeps is refused" {
	make_topology_commit
	khs=$(make_sendmail khsend)
	# Both sides "fixed": no change of the joke is left to see, but the patch no longer applies.
	printf '#!/bin/sh\nsed -i "s/arch topology borken/arch topology broken/" "$@"\n' > "$BATS_TEST_TMPDIR/both"
	chmod +x "$BATS_TEST_TMPDIR/both"
	GIT_EDITOR=$BATS_TEST_TMPDIR/both run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" --annotate -1
	assert_failure 1
	assert_output --partial "no longer applies to"
	assert_output --partial "an edit changed the lines a patch removes or keeps"
	[ "$(sent_count khsend)" -eq 0 ]
}

@test "[e]dit at the confirm prompt is checked too" {
	make_topology_commit
	khs=$(make_sendmail khsend)
	export GIT_SEND_EMAIL_NOTTY=1
	before=$(user_state .)
	GIT_EDITOR=$BATS_TEST_TMPDIR/fixer run bash -c 'printf "e\ny\n" | "$@"' _ khsend --no-boot \
		--to=list@example.org --confirm=always --no-validate --smtp-server="$khs" -1
	assert_failure 1
	[ "$before" = "$(user_state .)" ]
	assert_output --partial "block: sched-topology-borken"
	[ "$(sent_count khsend)" -eq 0 ]
}

@test "--compose: the intro is edited with the user's editor and the series is checked again" {
	khs=$(make_sendmail khsend)
	cat > "$BATS_TEST_TMPDIR/intro" <<'EOF'
#!/bin/sh
for f; do
	case "$f" in
	*.gitsendemail.msg*)
		sed -i 's/^Subject: .*/Subject: [PATCH 0\/1] One fix/' "$f"
		echo "An introduction." >> "$f";;
	esac
done
EOF
	chmod +x "$BATS_TEST_TMPDIR/intro"
	GIT_EDITOR=$BATS_TEST_TMPDIR/intro run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" --compose -1
	assert_success
	[ "$(sent_count khsend)" -eq 2 ]
	grep -q '^An introduction.' "$BATS_TEST_TMPDIR/khsend/msgtxt1"
}

@test "--dry-run checks, then prints git send-email's dry run and sends nothing" {
	khs=$(make_sendmail khsend)
	run --separate-stderr khsend send --no-boot "${SEND[@]}" --smtp-server="$khs" --dry-run -3
	assert_success
	[ "$(sent_count khsend)" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(grep -c '^Dry-OK. Log says:' <<< "$output")" -eq 3 ]
	# A series that changes a protected string is stopped before the dry run.
	make_commit kernel/sched/topology.c 's/topology borken/topology broken/' 'sched/topology: fix a typo'
	run --separate-stderr khsend send --no-boot "${SEND[@]}" --smtp-server="$khs" --dry-run -1
	assert_failure 1
	[[ "$stderr" == *"block: sched-topology-borken"* ]]
	refute_output --partial 'Dry-OK'
}

@test "an mbox of several mails is split and sent one mail a message" {
	git format-patch -q --stdout -3 > "$BATS_TEST_TMPDIR/series.mbox"
	khs=$(make_sendmail khsend)
	before=$(user_state . "$BATS_TEST_TMPDIR/series.mbox")
	khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/series.mbox"
	[ "$(sent_count khsend)" -eq 3 ]
	grep -q '^Subject: \[PATCH 3/3\] watchdog' "$BATS_TEST_TMPDIR/khsend/msgtxt3"
	[ "$before" = "$(user_state . "$BATS_TEST_TMPDIR/series.mbox")" ]
}

@test "a commit message that quotes a From line is one message, as git send-email sends it" {
	sed -i 's/suspeneded/suspended/' kernel/acct.c
	git commit -qam 'acct: fix a typo' -m 'As in the patch that started it:

From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001
it was spelled wrong.'
	git format-patch -q -1 -o "$BATS_TEST_TMPDIR/quoted"
	[ "$(grep -c '^From [0-9a-f]* Mon Sep 17 00:00:00 2001$' "$BATS_TEST_TMPDIR"/quoted/*.patch)" -eq 2 ]
	plain=$(make_sendmail plain)
	khs=$(make_sendmail khsend)
	git send-email "${SEND[@]}" --smtp-server="$plain" "$BATS_TEST_TMPDIR/quoted"
	run -0 khsend check "$BATS_TEST_TMPDIR/quoted"
	assert_output 'khsend: 1 message checked, no protected string is changed'
	run -0 khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/quoted"
	[ "$(sent_count khsend)" -eq 1 ]
	assert_same_delivery khsend plain
	# A real mbox of two mails is still two mails: each "From " line there starts a header.
	git format-patch -q --stdout -2 > "$BATS_TEST_TMPDIR/two.mbox"
	run -0 khsend check "$BATS_TEST_TMPDIR/two.mbox"
	assert_output 'khsend: 2 messages checked, no protected string is changed'
}

@test "backup files get git send-email's own question" {
	git format-patch -q -1 -o "$BATS_TEST_TMPDIR/b"
	f=$(ls "$BATS_TEST_TMPDIR"/b/*.patch)
	cp "$f" "$f~"
	plain=$(make_sendmail plain)
	khs=$(make_sendmail khsend)
	# No terminal: the answer is the default, no.
	git send-email "${SEND[@]}" --smtp-server="$plain" "$f" "$f~" < /dev/null
	khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$f" "$f~" < /dev/null
	[ "$(sent_count plain)" -eq 1 ]
	assert_same_delivery khsend plain
}

@test "a FIFO is read once, and what was read is what is sent" {
	mkfifo "$BATS_TEST_TMPDIR/patch.fifo"
	git format-patch -q --stdout -1 > "$BATS_TEST_TMPDIR/one.patch"
	cat "$BATS_TEST_TMPDIR/one.patch" > "$BATS_TEST_TMPDIR/patch.fifo" &
	khs=$(make_sendmail khsend)
	khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/patch.fifo"
	wait
	[ "$(sent_count khsend)" -eq 1 ]
	grep -q '^Subject: \[PATCH\] watchdog' "$BATS_TEST_TMPDIR/khsend/msgtxt1"
}

@test "a name that is both a file and a revision needs disambiguating, as in git send-email" {
	git format-patch -q --stdout -1 > master
	run khsend --no-boot "${SEND[@]}" --smtp-server=/bin/false master
	assert_failure 2
	assert_output --partial "File 'master' exists but it could also be the range of commits"
	khs=$(make_sendmail khsend)
	khsend --no-boot "${SEND[@]}" --smtp-server="$khs" ./master
	[ "$(sent_count khsend)" -eq 1 ]
}

@test "bad input is named and exits 2, and nothing is sent" {
	khs=$(make_sendmail khsend)
	run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/no-such.patch"
	assert_failure 2
	run khsend --no-boot --policy "$BATS_TEST_TMPDIR/missing.yaml" "${SEND[@]}" --smtp-server="$khs" -1
	assert_failure 2
	assert_output --partial "missing.yaml"
	run khsend --policy
	assert_failure 2
	assert_output --partial "--policy needs a value"
	git config khsend.boot maybe
	run khsend "${SEND[@]}" --smtp-server="$khs" -1
	assert_failure 2
	assert_output --partial "bad boolean config value 'maybe' for 'khsend.boot'"
	[ "$(sent_count khsend)" -eq 0 ]
}

@test "a base64 patch that needs a note is refused with exit 2, not re-encoded" {
	make_commit kernel/sched/core.c 's/here be dragons\./here are dragons./' 'sched/core: reword a comment'
	khs=$(make_sendmail khsend)
	git format-patch -q -1 --stdout > "$BATS_TEST_TMPDIR/p.patch"
	# Re-encode the body as base64, as some mailers write it.
	awk 'BEGIN{h=1} h&&/^$/{print "Content-Transfer-Encoding: base64"; print ""; h=0; next} h{print; next} {print > "/dev/stderr"}' \
		"$BATS_TEST_TMPDIR/p.patch" > "$BATS_TEST_TMPDIR/b64.patch" 2> "$BATS_TEST_TMPDIR/body"
	base64 "$BATS_TEST_TMPDIR/body" >> "$BATS_TEST_TMPDIR/b64.patch"
	run khsend --no-boot "${SEND[@]}" --smtp-server="$khs" "$BATS_TEST_TMPDIR/b64.patch"
	assert_failure 2
	assert_output --partial "base64-encoded, and khsend does not re-encode mails"
	[ "$(sent_count khsend)" -eq 0 ]
}

@test "git send-email's own failure status comes back" {
	run git send-email --to=list@example.org --confirm=never --no-validate --smtp-server=/bin/true \
		--transfer-encoding=bogus -1
	want=$status
	[ "$want" -ne 0 ]
	run khsend --no-boot --to=list@example.org --confirm=never --no-validate --smtp-server=/bin/true \
		--transfer-encoding=bogus -1
	[ "$status" -eq "$want" ] || fail "khsend exited $status, git send-email $want: $output"
}

@test "a network SMTP server is refused, nothing is sent, and git send-email's own errors come first" {
	# A listener that records whoever connects: nothing may.
	port_file=$BATS_TEST_TMPDIR/port
	python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(30)
try:
    c, _ = s.accept(); open(sys.argv[1] + ".connected", "w").write("yes")
except Exception:
    pass
' "$port_file" &
	listener=$!
	while [ ! -s "$port_file" ]; do sleep 0.1; done
	git config sendemail.smtpServer 127.0.0.1
	git config sendemail.smtpServerPort "$(cat "$port_file")"
	run khsend --to=list@example.org --confirm=never --no-validate -2
	assert_failure 2
	assert_output --partial "would send through the SMTP server '127.0.0.1'"
	assert_output --partial "none of the 2 messages was sent"
	refute_output --partial "boot"
	kill "$listener" 2> /dev/null || true
	wait "$listener" 2> /dev/null || true
	[ ! -e "$port_file.connected" ]
	# An alias file git send-email cannot open: its own error, as without khsend.
	git config sendemail.aliasfiletype mutt
	run git -c sendemail.aliasesfile=missing-aliases send-email --to=list@example.org --confirm=never -1
	want=$status
	assert_output --partial "opening missing-aliases"
	run env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=sendemail.aliasesfile GIT_CONFIG_VALUE_0=missing-aliases \
		khsend --no-boot --to=list@example.org --confirm=never -1
	[ "$status" -eq "$want" ] || fail "khsend exited $status, git send-email $want: $output"
	assert_output --partial "opening missing-aliases"
	refute_output --partial "SMTP server"
}

@test "a transport that fails: khsend says which messages left and which did not" {
	make_commit kernel/acct.c 's/suspeneded/suspended/' 'acct: fix a typo'
	# Delivers the first message, fails on the second.
	cat > "$BATS_TEST_TMPDIR/flaky.sendmail" <<'EOF2'
#!/bin/sh
d=$(dirname "$0")
cat > "$d/got.$$"
n=$(ls "$d" | grep -c '^got\.')
[ "$n" -lt 2 ] || exit 3
EOF2
	chmod +x "$BATS_TEST_TMPDIR/flaky.sendmail"
	run khsend --no-boot --to=list@example.org --confirm=never --no-validate \
		--smtp-server="$BATS_TEST_TMPDIR/flaky.sendmail" -2
	assert_failure 2
	assert_output --partial "exited with status 3"
	assert_output --partial 'message 2 of 2 ("[PATCH 2/2] acct: fix a typo") was not sent'
	assert_output --partial "1 message before it was sent"
}

@test "-h shows khsend's own options" {
	run khsend --no-boot -h
	assert_success
	assert_line --index 0 --partial "usage: khsend send [--policy <file>]..."
	assert_output --partial "see 'git send-email -h'"
	run khsend --to x -h
	assert_success
	assert_output --partial "--allow <id>"
	run khsend b4 -h
	assert_success
	assert_output --partial "usage: khsend b4"
}
