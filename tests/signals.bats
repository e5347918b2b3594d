#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# ^C, SIGTERM and SIGHUP at each stage of a send: no process left behind,
# no temporary directory left behind, and a true word on what left.

load test_helper

setup() {
	common_setup
	clone_mini_kernel linux
	cd linux || return 1
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	make_commit kernel/time/alarmtimer.c 's/syncrhonized/synchronized/' 'alarmtimer: fix a typo in a comment'
	make_commit kernel/watchdog.c 's/watchog/watchdog/' 'watchdog: fix a typo in a comment'
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
	SENDMAIL=$(make_sendmail mail)
}

# khsend in the background as a shell starts a job: its own process group,
# ^C and ^\ at their defaults (bats' background jobs would ignore them).
launch() {
	rm -f "$BATS_TEST_TMPDIR/mark"
	perl -e '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; setpgrp(0, 0); exec @ARGV or die "exec: $!"' \
		khsend --no-boot --to=list@example.org --confirm=never --no-validate "$@" \
		> "$BATS_TEST_TMPDIR/out" 2>&1 &
	job=$!
}

wait_for_mark() {
	for _ in $(seq 300); do
		[ -s "$BATS_TEST_TMPDIR/mark" ] && return 0
		sleep 0.1
	done
	fail "the slow program never started: $(cat "$BATS_TEST_TMPDIR/out")"
}

# Signal as a user does: SIGTERM/SIGHUP to khsend alone (kill PID), ^C to the whole job.
signal_job() {
	if [ "$1" = INT ]; then
		kill -INT -- "-$job"
	else
		kill "-$1" "$job"
	fi
	status=0
	wait "$job" || status=$?
	output=$(cat "$BATS_TEST_TMPDIR/out")
}

assert_nothing_left() {
	local left
	# Zombies are gone already; only their reaping is left (to init).
	left=$(ps -eo pgid=,stat=,pid=,args= | awk -v g="$job" '$1 == g && $2 !~ /^Z/')
	[ -z "$left" ] || fail "still running after khsend ended: $left"
	# khsend's own (git send-email killed by a signal leaves its own, as without khsend).
	left=$(ls -A "$TMPDIR" | grep '^khsend' || true)
	[ -z "$left" ] || fail "left behind in \$TMPDIR: $left"
}

@test "a signal while khsend reads the series: the reader is stopped, nothing is left, nothing is sent" {
	mkdir "$BATS_TEST_TMPDIR/slow"
	# git format-patch (khsend makes the series of a revision range with it) that hangs.
	cat > "$BATS_TEST_TMPDIR/slow/git" <<EOF
#!/bin/sh
for a in "\$@"; do
	if [ "\$a" = format-patch ]; then
		echo \$\$ > "$BATS_TEST_TMPDIR/mark"
		sleep 30 & trap 'kill \$!; exit 143' TERM HUP INT
		wait
	fi
done
exec /usr/bin/git "\$@"
EOF
	chmod +x "$BATS_TEST_TMPDIR/slow/git"
	for sig in TERM HUP INT; do
		PATH="$BATS_TEST_TMPDIR/slow:$PATH" launch --smtp-server="$SENDMAIL" -3
		wait_for_mark
		signal_job "$sig" 2> /dev/null
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: exit $status: $output"
		assert_nothing_left
		[ "$(sent_count mail)" -eq 0 ]
	done
}

@test "a signal while git send-email runs: it is passed on, nothing is left, nothing is sent" {
	# A --cc-cmd that takes its time: git send-email runs it for each message.
	cat > "$BATS_TEST_TMPDIR/slow-cc" <<EOF
#!/bin/sh
echo \$\$ > "$BATS_TEST_TMPDIR/mark"
sleep 2
EOF
	chmod +x "$BATS_TEST_TMPDIR/slow-cc"
	for sig in TERM HUP INT; do
		launch --smtp-server="$SENDMAIL" --cc-cmd="$BATS_TEST_TMPDIR/slow-cc" -3
		wait_for_mark
		signal_job "$sig" 2> /dev/null
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: exit $status: $output"
		[ "$sig" = INT ] || assert_output --partial "khsend was stopped"
		assert_output --partial "nothing was sent"
		# The --cc-cmd outlives a git send-email stopped by SIGTERM, as without khsend.
		sleep 2.2
		assert_nothing_left
		[ "$(sent_count mail)" -eq 0 ]
	done
}

@test "a signal while the messages go out: khsend says which messages left and which did not" {
	# A sendmail that is slow with the second message.
	cat > "$BATS_TEST_TMPDIR/mail/slow.sendmail" <<EOF
#!/bin/sh
n=\$(ls "$BATS_TEST_TMPDIR/mail" | grep -c '^msgtxt')
if [ "\$n" -eq 1 ]; then echo \$\$ > "$BATS_TEST_TMPDIR/mark"; sleep 2; fi
exec "$SENDMAIL" "\$@"
EOF
	chmod +x "$BATS_TEST_TMPDIR/mail/slow.sendmail"
	for sig in TERM HUP; do
		rm -f "$BATS_TEST_TMPDIR"/mail/msgtxt* "$BATS_TEST_TMPDIR"/mail/commandline*
		launch --smtp-server="$BATS_TEST_TMPDIR/mail/slow.sendmail" -3
		wait_for_mark
		signal_job "$sig" 2> /dev/null
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: exit $status: $output"
		# The message being handed over is finished; then khsend stops.
		assert_output --partial "khsend was stopped"
		assert_output --partial "messages 1 to 2 were sent"
		assert_output --partial 'message 3 ("[PATCH 3/3] watchdog: fix a typo in a comment") was not sent'
		assert_nothing_left
		[ "$(sent_count mail)" -eq 2 ]
	done
	# ^C reaches the sendmail too: the message it was given did not go, and khsend says so.
	rm -f "$BATS_TEST_TMPDIR"/mail/msgtxt* "$BATS_TEST_TMPDIR"/mail/commandline*
	launch --smtp-server="$BATS_TEST_TMPDIR/mail/slow.sendmail" -3
	wait_for_mark
	signal_job INT
	[ "$status" -ne 0 ]
	assert_output --partial 'message 2 of 3 ("[PATCH 2/3] alarmtimer: fix a typo in a comment") was not sent, nor was any after it'
	assert_output --partial "1 message before it was sent"
	assert_nothing_left
	[ "$(sent_count mail)" -eq 1 ]
}
