#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Bash completion (completion/khsend.bash), called as readline calls it.

load test_helper

setup() {
	common_setup
	BASH_COMPLETION=/usr/share/bash-completion/bash_completion
	[ -r "$BASH_COMPLETION" ] || skip "bash-completion is not installed"
	git init -q repo
	cd repo || return
	touch 0001-fix.patch 0002-more.patch notes.txt
	mkdir out
}

# Complete a command line (the cursor at its end); one candidate a line.
# COMP_WORDS is split as bash splits it, at blanks and at "=" (COMP_WORDBREAKS).
complete_line() {
	bash -c '
		source "$1"
		source "$2"
		COMP_LINE=$3 COMP_POINT=${#3}
		COMP_WORDS=()
		for w in $3; do
			while [[ $w == *=* ]]; do
				[[ -n ${w%%=*} ]] && COMP_WORDS+=("${w%%=*}")
				COMP_WORDS+=("=")
				w=${w#*=}
			done
			[[ -n $w ]] && COMP_WORDS+=("$w")
		done
		[[ $3 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_khsend "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$BASH_COMPLETION" "$ROOT/completion/khsend.bash" "$1" 2>"$BATS_TEST_TMPDIR/completion.err"
}

@test "the first word completes to the commands khsend --help lists" {
	run complete_line "khsend "
	assert_success
	want=$("$KHSEND" --help | sed -n '/^commands:/,/^$/s/^   \([a-z0-9-]*\) .*/\1/p' | sort)
	[ "$(sort <<<"$output")" = "$want" ]
	run complete_line "khsend re"
	assert_output reply
}

@test "a command's options are those its -h prints" {
	run complete_line "khsend check --"
	assert_output "$(printf '%s\n' --format --format-patch --lang --mailback --no-format-patch --no-mailback \
		--no-quiet --no-showfile --no-summary --no-terse --no-tree --policy --quiet --showfile \
		--summary --terse --tree)"
	run complete_line "khsend reply -"
	assert_line -o
	assert_line --output
	assert_line --policy
	run complete_line "khsend policy list --"
	assert_line --ids
	assert_line --format
}

@test "an option added to -h is completed at once (nothing to keep in step)" {
	cat >fake-khsend <<EOF
#!/bin/sh
if [ "\$1 \$2" = "scan -h" ]; then "$KHSEND" scan -h; echo "    --frobnicate <text|html>  a new option"; exit 0; fi
exec "$KHSEND" "\$@"
EOF
	chmod +x fake-khsend
	run complete_line "./fake-khsend scan --fro"
	assert_output --frobnicate
	run complete_line "./fake-khsend scan --frobnicate h"
	assert_output html
}

@test "option values: the alternatives in -h, files, directories" {
	run complete_line "khsend check --format "
	assert_output "$(printf '%s\n' text json)"
	run complete_line "khsend check --format=j"
	assert_output json
	run complete_line "khsend --color="
	assert_output "$(printf '%s\n' auto always never)"
	run complete_line "khsend check --policy no"
	assert_output notes.txt
	run complete_line "khsend reply -o 0"
	assert_line 0001-fix.patch
	assert_line 0002-more.patch
}

@test "policy ids for explain, with the --policy files on the line" {
	run complete_line "khsend explain sched-"
	assert_output sched-topology-borken
	run complete_line "khsend explain "
	[ "$output" = "$("$KHSEND" policy list --ids)" ]
	cat >mine.yaml <<'EOF'
version: 1
entries:
  - {id: my-joke, string: "my joke", explain: "A joke."}
EOF
	run complete_line "khsend explain --policy mine.yaml "
	assert_output my-joke
}

@test "inputs are files; scan takes a directory; policy takes check or list" {
	run complete_line "khsend check 0"
	assert_output "$(printf '%s\n' 0001-fix.patch 0002-more.patch)"
	run complete_line "khsend scan "
	assert_line out
	refute_line notes.txt
	refute_line 0001-fix.patch
	run complete_line "khsend policy "
	assert_output "$(printf '%s\n' check list export)"
	run complete_line "khsend 0001"
	assert_output 0001-fix.patch
}

@test "send mode passes git send-email's own options through" {
	[ -r /usr/share/bash-completion/completions/git ] || skip "git's completion is not installed"
	run complete_line "khsend --dry"
	assert_output '--dry-run '
	run complete_line "khsend --confirm="
	assert_line 'never '
	assert_line 'always '
	run complete_line "khsend 0001-fix.patch --suppress-cc="
	assert_line 'self '
	# khsend's own beside them.
	run complete_line "khsend --po"
	assert_output '--policy '
	run complete_line "khsend --to=a@example.org --smtp-s"
	assert_line '--smtp-server='
}

@test "khsend b4 completes b4 send's own options beside khsend's" {
	command -v b4 >/dev/null || skip "b4 is not installed"
	run complete_line "khsend b4 --no-t"
	assert_output --no-trailer-to-cc
	run complete_line "khsend b4 --re"
	assert_line --reflect
	assert_line --resend
	run complete_line "khsend b4 --al"
	assert_output --allow
	run complete_line "khsend b4 -"
	assert_line --dry-run
	assert_line --output-dir
	assert_line -o
	assert_line --boot
	refute_line VERIFY_TOKEN
}

@test "install-hooks and uninstall-hooks complete the names of khsend's hooks" {
	run complete_line "khsend install-hooks "
	assert_output "$(printf '%s\n' sendemail-validate applypatch-msg pre-applypatch pre-commit)"
	run complete_line "khsend uninstall-hooks pre-"
	assert_output "$(printf '%s\n' pre-applypatch pre-commit)"
	run -0 "$KHSEND" install-hooks --list
	assert_output "$(printf '%s\n' sendemail-validate applypatch-msg pre-applypatch pre-commit)"
}

@test "--allow completes only the ids it accepts; explain completes them all" {
	cat >mine.yaml <<'EOF'
version: 1
entries:
  - {id: my-joke, string: "my joke", explain: "A joke."}
  - {id: my-other-joke, string: "other joke", explain: "A joke.", allow-override: true}
EOF
	run complete_line "khsend --policy mine.yaml --allow "
	assert_output my-other-joke
	run complete_line "khsend b4 --policy mine.yaml --allow=my"
	assert_output my-other-joke
	run complete_line "khsend explain --policy mine.yaml my"
	assert_output "$(printf '%s\n' my-joke my-other-joke)"
}

@test "check completes revisions as well as files" {
	git commit -q --allow-empty -m base
	git branch feature
	run complete_line "khsend check fea"
	assert_output feature
	run complete_line "khsend check 0"
	assert_output "$(printf '%s\n' 0001-fix.patch 0002-more.patch)"
}
