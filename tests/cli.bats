#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The git-family finish: colours, standard output and error, help.

load test_helper

setup() {
	common_setup
	BORKEN=$ROOT/examples/borken-fix.patch
	TYPOS=$ROOT/examples/typo-fixes
	ESC=$'\033['
}

# Run a command on a terminal (a pty from script(1)), with a terminal that has colours.
on_terminal() {
	local cmd
	printf -v cmd '%q ' "$@"
	TERM=xterm script -qefc "$cmd" /dev/null </dev/null
}

@test "--color=always puts colours in the check report, --color=never does not" {
	run "$KHSEND" --color=always check "$BORKEN"
	assert_failure 1
	assert_output --partial "${ESC}31mblock${ESC}m"
	run "$KHSEND" check --color=never "$BORKEN"
	assert_failure 1
	refute_output --partial "$ESC"
	# --color alone is always, and --no-color wins when it comes last.
	run "$KHSEND" check --color "$BORKEN"
	assert_output --partial "$ESC"
	run "$KHSEND" check --color --no-color "$BORKEN"
	refute_output --partial "$ESC"
}

@test "a pipe gets no colours" {
	run "$KHSEND" check "$BORKEN"
	assert_failure 1
	assert_output --partial 'block: sched-topology-borken'
	refute_output --partial "$ESC"
}

@test "a terminal gets colours, unless NO_COLOR is set or TERM is dumb" {
	run on_terminal "$KHSEND" check "$BORKEN"
	assert_failure 1
	assert_output --partial "${ESC}31mblock${ESC}m"
	NO_COLOR=1 run on_terminal "$KHSEND" check "$BORKEN"
	assert_failure 1
	assert_output --partial 'block: sched-topology-borken'
	refute_output --partial "$ESC"
	# An empty NO_COLOR is not set (no-color.org).
	NO_COLOR='' run on_terminal "$KHSEND" check "$BORKEN"
	assert_output --partial "$ESC"
	run script -qefc "TERM=dumb $(printf '%q' "$KHSEND") check $(printf '%q' "$BORKEN")" /dev/null
	assert_output --partial 'block: sched-topology-borken'
	refute_output --partial "$ESC"
}

@test "--color=always is stronger than NO_COLOR" {
	NO_COLOR=1 run "$KHSEND" --color=always check "$BORKEN"
	assert_output --partial "$ESC"
}

@test "a bad --color value is an error" {
	run --separate-stderr "$KHSEND" --color=sometimes check "$BORKEN"
	assert_failure 2
	[ -z "$output" ]
	[ "$stderr" = 'khsend: fatal: --color=sometimes: expected auto, always or never' ]
}

@test "a closed standard output is an error, not a silent success" {
	# shellcheck disable=SC2016 # the script is bash -c's
	run --separate-stderr bash -c '"$0" check "$1" >&-' "$KHSEND" "$TYPOS"
	assert_failure 2
	[ "$stderr" = 'khsend: error: cannot write to standard output: Bad file descriptor' ]
	# shellcheck disable=SC2016
	run --separate-stderr bash -c '"$0" check "$1" >&-' "$KHSEND" "$BORKEN"
	assert_failure 2
	[ "$stderr" = 'khsend: error: cannot write to standard output: Bad file descriptor' ]
}

@test "a full standard output is an error for every command that writes data" {
	for args in "check $TYPOS" "check --format=json $BORKEN" "policy list" "policy list --ids" \
		"explain sched-topology-borken" "reply $BORKEN" "--help" "--version" "check -h" "reply -h"; do
		# shellcheck disable=SC2086 # the words are split on purpose
		run --separate-stderr "$KHSEND" $args
		[ "$status" -le 1 ]
		# shellcheck disable=SC2086,SC2016
		run --separate-stderr bash -c '"$0" "$@" >/dev/full' "$KHSEND" $args
		[ "$status" -eq 2 ] || { echo "# $args: exit $status" >&3; false; }
		[ "$stderr" = 'khsend: error: cannot write to standard output: No space left on device' ]
	done
}

@test "data on standard output, messages on standard error" {
	# JSON parses, however many warnings there are.
	KHSEND_SYSTEM_POLICY=/nonexistent run --separate-stderr "$KHSEND" check --format=json "$BORKEN"
	assert_success
	[ "$stderr" = 'khsend: warning: no policy file was found, so nothing is protected' ]
	# Nothing is protected; only the built-in lexicon's guesses may warn.
	jq -e '.blocked == false and all(.findings[]; .action == "warn")' <<<"$output"
	run --separate-stderr "$KHSEND" check --format=json "$BORKEN"
	assert_failure 1
	[ -z "$stderr" ]
	jq -e '.blocked and .findings[0].id == "sched-topology-borken" and .findings[0].line == 2196' <<<"$output"
	# A reply is the mail alone; an error leaves standard output empty.
	run --separate-stderr "$KHSEND" reply "$BORKEN"
	assert_success
	assert_line --index 0 --regexp '^From: '
	[ -z "$stderr" ]
	run --separate-stderr "$KHSEND" check no-such.patch
	assert_failure 2
	[ -z "$output" ]
	[ -n "$stderr" ]
}

@test "--help lists the commands on standard output, and each one's -h works" {
	run --separate-stderr "$KHSEND" --help
	assert_success
	[ -z "$stderr" ]
	assert_line --index 0 --partial 'usage: khsend '
	for cmd in check explain policy scan reply; do
		assert_line --regexp "^   $cmd +[a-z]"
	done
	commands=$(sed -n '/^commands:/,/^$/s/^   \([a-z0-9-]*\) .*/\1/p' <<<"$output")
	[ -n "$commands" ]
	for cmd in $commands; do
		run --separate-stderr "$KHSEND" "$cmd" -h
		assert_success
		[ -z "$stderr" ]
		[ -n "$output" ]
		# Send mode may show git send-email's own help instead.
		[[ ${lines[0]} != usage:* ]] || assert_line --index 0 --partial "usage: khsend $cmd"
	done
}

@test "no arguments: the help, on standard error, and exit 2" {
	run --separate-stderr "$KHSEND"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == 'usage: khsend '* ]]
}

@test "--version" {
	run "$KHSEND" --version
	assert_success
	assert_output --regexp '^khsend version [0-9]'
}

@test "a bad option names itself and shows the usage on standard error" {
	run --separate-stderr "$KHSEND" reply --no-such-option x
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == "khsend: error: unknown option '--no-such-option'"* ]]
	[[ $stderr == *'usage: khsend reply'* ]]
}

@test "policy list --ids prints every id of the listing, one a line" {
	run "$KHSEND" policy list --ids
	assert_success
	[ "$output" = "$("$KHSEND" policy list --format=json | jq -r '.entries[].id')" ]
	[ "${#lines[@]}" -ge 25 ]
	run --separate-stderr "$KHSEND" policy list --ids --format=json
	assert_failure 2
}

@test "GPL-2.0-only: the LICENSE, and an SPDX line in the first lines of every source file" {
	cd "$ROOT"
	[ -d .git ] || [ -f .git ] || skip "not a git checkout"
	cmp LICENSE /usr/share/common-licenses/GPL-2
	local f missing=()
	# Data is left as it is: patches and mails, word lists, the tests' fixtures.
	while read -r f; do
		head -3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-only' || missing+=("$f")
	done < <(git ls-files | grep -Ev '\.patch$|^LICENSE$|^NEWS$|^tests/fixtures/|^tools/lexicon/.*\.txt$|^tests/kernel-files\.txt$|^tests/compat/t9001-known-differences$|^po/khsend\.pot$|^debian/(changelog|control|copyright|khsend\.docs|source/format)$')
	[ "${#missing[@]}" -eq 0 ] || fail "no SPDX line: ${missing[*]}"
}

@test "NEWS and the man pages name the version khsend says it is" {
	local version
	run -0 khsend --version
	version=${output#khsend version }
	grep -qx "khsend $version ([0-9-]*)" "$ROOT/NEWS"
	run -0 bash -c "LC_ALL=C MANWIDTH=80 man -l '$ROOT/doc/khsend.1' 2>/dev/null | col -bx"
	assert_line --regexp '^KHSEND\(1\) +khsend General Commands Manual +KHSEND\(1\)$'
	assert_line --regexp "^khsend $version +[A-Z][a-z]+ [0-9]+, [0-9]+ +khsend $version\$"
}
