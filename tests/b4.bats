#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# khsend b4: a real b4 0.12 prep branch, sent through khsend's transport to a fake sendmail.

load test_helper

setup() {
	common_setup
	# b4 0.12 finds the cover letter with "git log --since=1.year": real dates here.
	unset GIT_AUTHOR_DATE GIT_COMMITTER_DATE
	clone_mini_kernel linux
	cd linux || return 1
	b4 prep -n typos > /dev/null 2>&1
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	make_commit kernel/watchdog.c 's/watchog/watchdog/' 'watchdog: fix a typo in a comment'
	cat > "$BATS_TEST_TMPDIR/cover-editor" <<'EOF'
#!/bin/sh
sed -i -e 's/^EDITME: cover title.*/Typo fixes/' \
	-e '/^EDITME: describe/,/under-the-cut/c\
Two typos.' "$1"
EOF
	chmod +x "$BATS_TEST_TMPDIR/cover-editor"
	EDITOR=$BATS_TEST_TMPDIR/cover-editor b4 prep --edit-cover > /dev/null 2>&1 < /dev/null
	git log -1 --format=%s HEAD~2 | grep -qx 'Typo fixes'
	# No network: the transport is always a program.
	git config sendemail.smtpserver "$(make_sendmail transport)"
}

# b4's messages with what differs from run to run (ids, dates, signatures, the
# gzip time stamp in the cover letter's tracking header) taken out.
b4_normalized() {
	tr -d '\r' < "$1" | sed -E -e 's/^(Message-Id|Date|In-Reply-To|References): .*/\1: <normalized>/' |
		awk '/^(X-Developer-(Signature|Key)|X-B4-Tracking):/ { skip = 1; print $1 " <normalized>"; next }
		     skip && /^[ \t]/ { next } { skip = 0; print }'
}

@test "a clean prep branch goes out through khsend b4 as b4 alone sends it" {
	plain=$(make_sendmail plain)
	git config sendemail.smtpserver "$plain"
	echo | b4 send --no-sign --reflect > /dev/null 2>&1
	git config sendemail.smtpserver "$BATS_TEST_TMPDIR/transport/fake.sendmail"
	before=$(user_state .)
	run bash -c 'echo | khsend b4 --no-boot --no-sign --reflect'
	assert_success
	assert_output --partial "3 messages checked, no protected string is changed"
	[ "$(sent_count transport)" -eq 3 ]
	for i in 1 2 3; do
		diff -u <(b4_normalized "$BATS_TEST_TMPDIR/plain/msgtxt$i") \
			<(b4_normalized "$BATS_TEST_TMPDIR/transport/msgtxt$i")
		cmp "$BATS_TEST_TMPDIR/plain/commandline$i" "$BATS_TEST_TMPDIR/transport/commandline$i"
	done
	[ "$before" = "$(user_state .)" ]
}

@test "a real send reaches every recipient, and b4 rerolls the branch as it does alone" {
	run bash -c 'echo | khsend b4 --no-boot --no-sign --to list@example.org'
	assert_success
	[ "$(sent_count transport)" -eq 3 ]
	grep -qx '!list@example.org!' "$BATS_TEST_TMPDIR/transport/commandline1"
	grep -qx '!-f!' "$BATS_TEST_TMPDIR/transport/commandline1"
	git tag | grep -q '^sent/'
}

@test "a signed send goes out signed and untouched" {
	/usr/bin/python3 -c "import sys; sys.argv = ['patatt', 'genkey', '-n', 'khsend-test']; import patatt; patatt.command()" > /dev/null 2>&1
	git config patatt.signingkey ed25519:khsend-test
	git config patatt.selector khsend-test
	run bash -c 'echo | khsend b4 --no-boot --reflect'
	assert_success
	[ "$(sent_count transport)" -eq 3 ]
	grep -q '^X-Developer-Signature: ' "$BATS_TEST_TMPDIR/transport/msgtxt2"
}

@test "a blocked branch sends nothing and exits 1" {
	make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: fix a spelling mistake'
	assert_file_changed kernel/sched/topology.c
	before=$(user_state .)
	run bash -c 'echo | khsend b4 --no-boot --no-sign --to list@example.org'
	assert_failure 1
	assert_output --partial 'block: sched-topology-borken'
	assert_output --partial 'nothing was sent'
	[ "$(sent_count transport)" -eq 0 ]
	[ "$before" = "$(user_state .)" ]
	[ -z "$(git tag -l 'sent/*')" ]
}

@test "what b4 sends is checked as it leaves: a change made under khsend is caught, and nothing leaves" {
	# A b4 that, on its second run (the real send), finds the branch changed under it:
	# the joke "fixed" in the last commit after khsend checked what b4 would send.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat > "$BATS_TEST_TMPDIR/bin/b4" <<EOF
#!/bin/sh
if [ -e "$BATS_TEST_TMPDIR/b4-ran" ]; then
	sed -i 's/topology borken/topology broken/' kernel/sched/topology.c
	git commit -q -a --amend --no-edit
fi
touch "$BATS_TEST_TMPDIR/b4-ran"
exec /usr/bin/b4 "\$@"
EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/b4"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run bash -c 'echo | khsend b4 --no-boot --no-sign --to list@example.org'
	assert_failure
	assert_output --partial 'block: sched-topology-borken'
	assert_output --partial 'nothing was sent'
	[ "$(sent_count transport)" -eq 0 ]
}

@test "a note for the reviewers: added to unsigned sends, refused for signed ones" {
	make_commit kernel/sched/core.c 's/here be dragons\./here are dragons./' 'sched/core: reword a comment'
	assert_file_changed kernel/sched/core.c
	run bash -c 'echo | khsend b4 --no-boot --to list@example.org'
	assert_failure 1
	assert_output --partial "would break the signature"
	[ "$(sent_count transport)" -eq 0 ]
	run bash -c 'echo | khsend b4 --no-boot --no-sign --reflect'
	assert_success
	[ "$(sent_count transport)" -eq 4 ]
	tr -d '\r' < "$BATS_TEST_TMPDIR/transport/msgtxt4" | grep -A1 -x -- '---' | grep -q '^Note from khsend:'
	tr -d '\r' < "$BATS_TEST_TMPDIR/transport/msgtxt1" | grep -q '^- \[PATCH 3/3\] sched/core: reword a comment'
}

@test "a network SMTP server is refused before anything runs" {
	git config sendemail.smtpserver smtp.example.org
	run bash -c 'echo | khsend b4 --no-boot --no-sign --to list@example.org'
	assert_failure 2
	assert_output --partial "a network SMTP server"
	git config --unset sendemail.smtpserver
	run bash -c 'echo | khsend b4 --no-boot --no-sign --to list@example.org'
	assert_failure 2
	assert_output --partial "sendemail.smtpserver is not set"
	[ -z "$(git tag -l 'sent/*')" ]
}

@test "a dry run checks and writes nothing anywhere" {
	before=$(user_state .)
	run khsend b4 --no-boot --no-sign --dry-run --to list@example.org
	assert_success
	assert_output --partial "3 messages checked"
	assert_output --partial "DRYRUN: Would have sent 3 messages"
	[ "$(sent_count transport)" -eq 0 ]
	[ "$before" = "$(user_state .)" ]
}

@test "the transport only runs under khsend and khsend b4" {
	run khsend hook transport -i list@example.org < /dev/null
	assert_failure 2
	assert_output --partial "it only runs under 'khsend' and 'khsend b4'"
}
