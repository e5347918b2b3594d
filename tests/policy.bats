#!/usr/bin/env bats
# The policy file: strict validation, every problem reported as file:line:col, layers.

load test_helper

setup() {
	common_setup
}

# A minimal valid entry for the layer tests.
write_policy() {
	local file=$1 action=$2
	cat > "$file" <<EOF2
version: 1
entries:
  - id: sched-topology-borken
    string: "arch topology borken"
    paths: ["kernel/sched/topology.c"]
    action: $action
    explain: layer $file says $action
EOF2
}

seed_patch() {
	echo "$ROOT/tests/fixtures/borken.patch"
}

@test "the shipped policy is valid and has well over 100 entries" {
	run -0 khsend policy check "$ROOT/policy.yaml"
	assert_output --regexp "^$ROOT/policy.yaml: ok, [0-9]+ entries$"
	local n=${output##*ok, }
	n=${n%% *}
	[ "$n" -ge 120 ]
}

# Readers often learned English as a second language: GNU style (Debian's
# diction package) must rate every explanation at Kincaid grade 6 or less,
# with no sentence over 25 words, and none may use the idioms that such
# readers found hard.
@test "every explanation of the shipped policy is plain English" {
	command -v style >/dev/null || skip "GNU style is not installed (apt-get install diction)"
	local id text grade longest bad=
	while read -r id _; do
		text=$(khsend explain "$id" | sed -n 's/^  //p')
		[ -n "$text" ] || { bad="$bad $id(empty)"; continue; }
		grade=$(printf '%s\n' "$text" | style | sed -n 's/^ *Kincaid: *//p')
		longest=$(printf '%s\n' "$text" | style | sed -n 's/.*longest sent \([0-9]*\) wds.*/\1/p')
		awk -v g="$grade" 'BEGIN { exit !(g <= 6) }' || bad="$bad $id(Kincaid=$grade)"
		[ "$longest" -le 25 ] || bad="$bad $id(longest=$longest)"
		if printf '%s\n' "$text" | tr '\n' ' ' | grep -qiE 'said aloud|kept as history|before this goes further|take this change out|fairground ride|a polite-looking spelling of a swear word'; then
			bad="$bad $id(idiom)"
		fi
	done < <(khsend policy list)
	[ -z "$bad" ] || { echo "not plain English:$bad"; false; }
}

@test "the famous jokes are in the shipped policy and block" {
	run -0 khsend policy list
	assert_line --regexp '^sched-topology-borken +block +"arch topology borken" +in kernel/sched/topology.c$'
	assert_line --regexp '^fpu-histerical-raisins +block +"histerical raisins" +in arch/x86/kernel/fpu/signal.c$'
	assert_line --regexp '^rcu-rtfp-title +block +"Read the Fscking Papers!" +in Documentation/RCU/RTFP.txt$'
}

@test "every problem in a policy is reported as file:line:col, and the exit status is 2" {
	cat > bad.yaml <<'EOF2'
version: 1
defaults: { action: block, colour: red }
entries:
  - id: one
    string: "arch topology borken"
    explain: the joke
    paths: kernel/sched/topology.c
    action: blocks
    action: block
  - id: two
    string: x
    regex: y
    explain: both
  - id: Bad_Id
    explain: nothing
  - id: three
    regex: "a("
    explain: bad regex
  - id: four
    regex: "a*"
    explain: matches everything
  - id: five
    string: z
  - id: one
    string: zz
    explain: again
  - id: six
    string: w
    explain: x
    ignore-case: yes
    paths: ["../etc", ""]
EOF2
	run -2 --separate-stderr khsend policy check bad.yaml
	assert_output ''
	output=$stderr
	lines=("${stderr_lines[@]}")
	assert_line "bad.yaml:2:28: unknown key 'colour' in 'defaults' (known keys: action, ignore-case, allow-override)"
	assert_line "bad.yaml:7:12: 'paths' must be a list, not a single value (write [\"...\"] or a \"- ...\" list)"
	assert_line "bad.yaml:8:13: unknown action 'blocks' (expected block, annotate or warn)"
	assert_line "bad.yaml:9:5: duplicate key 'action' in a policy entry (first at line 8)"
	assert_line "bad.yaml:12:12: entry 'two' has both 'string' and 'regex'; give exactly one"
	assert_line "bad.yaml:14:9: id 'Bad_Id' may only use a-z, 0-9 and '-'"
	assert_line "bad.yaml:14:5: entry 'Bad_Id' needs a 'string' or a 'regex'"
	assert_line "bad.yaml:17:12: regex 'a(' does not compile (at byte 2): missing closing parenthesis"
	assert_line "bad.yaml:20:12: regex 'a*' matches the empty string, so it would match every line"
	assert_line "bad.yaml:22:5: entry 'five' has no 'explain' (say what the joke is, in plain English)"
	assert_line "bad.yaml:24:9: duplicate id 'one' (first defined at bad.yaml:4)"
	assert_line "bad.yaml:30:18: 'ignore-case' must be true or false, not 'yes'"
	assert_line "bad.yaml:31:13: '../etc': path patterns are relative to the tree top and cannot contain '.' or '..'"
	assert_line "bad.yaml:31:23: empty item in 'paths'"
	assert_line 'khsend: error: 14 problems found'
}

@test "a duplicate id is found even when both entries are valid" {
	cat > dup.yaml <<'EOF2'
version: 1
entries:
  - id: one
    string: a
    explain: first
  - id: one
    string: b
    explain: second
EOF2
	run -2 khsend policy check dup.yaml
	assert_line "dup.yaml:6:9: duplicate id 'one' (first defined at dup.yaml:3)"
}

@test "aliases and anchors are refused, and the rest is still checked" {
	cat > alias.yaml <<'EOF2'
version: 1
entries:
  - &joke
    id: one
    string: a
    explain: x
  - *joke
  - id: two
    string: b
EOF2
	run -2 khsend policy check alias.yaml
	assert_line "alias.yaml:3:5: anchors are not allowed in a policy (found '&joke')"
	assert_line "alias.yaml:7:5: aliases are not allowed in a policy (found '*joke')"
	assert_line "alias.yaml:8:5: entry 'two' has no 'explain' (say what the joke is, in plain English)"
	assert_line 'khsend: error: 3 problems found'
}

@test "YAML syntax errors point at the line, with the line and a caret" {
	printf 'version: 1\nentries:\n\t- id: a\n' > tab.yaml
	run -2 khsend policy check tab.yaml
	assert_line 'tab.yaml:3:1: invalid YAML: tabs are not allowed for indentation (use spaces)'
	assert_line '^'
	printf 'version: 1\nentries:\n  - id: a\n    string: "x\n' > quote.yaml
	run -2 khsend policy check quote.yaml
	assert_line 'quote.yaml:5:1: invalid YAML: found unexpected end of stream (while scanning a quoted scalar at line 4 column 13)'
	printf 'version: 1\nentries:\n  - id: a\n   string: b\n' > indent.yaml
	run -2 khsend policy check indent.yaml
	assert_line --regexp '^indent.yaml:4:[0-9]+: invalid YAML: '
}

@test "a policy cannot stall khsend: deep nesting, run-away regexes, FIFOs and devices" {
	# 50,000 levels of flow nesting: libyaml alone would take seconds.
	{ printf 'version: 1\nentries: '; printf '[%.0s' $(seq 50000); echo; } > deep.yaml
	SECONDS=0
	run -2 khsend policy check deep.yaml
	assert_line "deep.yaml:2:25: nested more than 16 levels deep; a policy needs 4"
	[ "$SECONDS" -le 1 ]
	cat > regex.yaml <<'EOF2'
version: 1
entries:
  - id: gnu
    regex: '\<borken\>'
    explain: x
  - id: nested
    regex: "(((((((((((((((((a)))))))))))))))))"
    explain: x
  - id: fine
    regex: 'Whee! +Actually deliver|[+*]{2,3}|\+\+'
    explain: x
EOF2
	run -2 khsend policy check regex.yaml
	assert_line "regex.yaml:4:12: regex '\\<borken\\>' uses GNU's \\< or \\>, which PCRE2 reads as a plain '<' or '>': use \\b for a word edge"
	assert_line --regexp "^regex.yaml:7:12: regex '\(+a\)+' does not compile \(at byte [0-9]+\): parentheses are too deeply nested"
	assert_line 'khsend: error: 2 problems found'
	# Patterns that backtrack over a whole long line: each line answered, or refused, in well under a second.
	clone_mini_kernel linux
	cd linux
	cat > ../slow.yaml <<'EOF2'
version: 1
entries:
  - id: square
    regex: 'a+b'
    explain: x
  - id: square-of-two
    regex: '(a|b)+(c|d)'
    explain: x
  - id: exponential
    regex: '(a|aa)+$'
    explain: x
EOF2
	long=$(head -c 65536 /dev/zero | tr '\0' a)
	printf '/* %s */\n' "$long" >> kernel/sched/topology.c
	git commit -qam 'a long line'
	sed -i '$d' kernel/sched/topology.c
	git commit -qam 'the long line goes'
	SECONDS=0
	run -2 khsend check --policy ../slow.yaml -1
	assert_output --regexp "the regex of entry '(square-of-two|exponential)' .* needs too much work on a line of [0-9]+ bytes, so khsend cannot judge the series with it"
	[ "$SECONDS" -le 2 ]
	# a+b alone is answered (no match), quickly
	head -n 5 ../slow.yaml > ../ab.yaml
	SECONDS=0
	run -0 khsend check --policy ../ab.yaml -1
	[ "$SECONDS" -le 1 ]
	# A FIFO, or a symlink to a device, is no policy file: refused at once, never read.
	mkfifo ../fifo.yaml
	ln -s /dev/stdin ../stdin.yaml
	SECONDS=0
	run -2 timeout 10 khsend policy check ../fifo.yaml
	assert_output --partial "'../fifo.yaml' is not a regular file"
	run -2 timeout 10 khsend check --policy ../stdin.yaml -1 < /dev/null
	assert_output --partial "is not a regular file"
	git config khsend.policy ../fifo.yaml
	run -2 timeout 10 khsend check -1
	assert_output --partial "is not a regular file"
	[ "$SECONDS" -le 2 ]
}

@test "versions, shapes and documents are checked" {
	printf 'version: 2\nentries: []\n' > v2.yaml
	run -2 khsend policy check v2.yaml
	assert_line 'v2.yaml:1:10: unsupported policy version 2 (this khsend reads version 1)'
	printf 'entries: []\n' > nov.yaml
	run -2 khsend policy check nov.yaml
	assert_line "nov.yaml:1:1: missing 'version: 1'"
	printf 'version: one\nentries: []\n' > vword.yaml
	run -2 khsend policy check vword.yaml
	assert_line "vword.yaml:1:10: 'version' must be a number, not 'one'"
	: > empty.yaml
	run -2 khsend policy check empty.yaml
	assert_line "empty.yaml:1:1: empty policy (expected 'version: 1' and 'entries:')"
	printf -- '- a\n' > list.yaml
	run -2 khsend policy check list.yaml
	assert_line "list.yaml:1:1: a policy must be a mapping with 'version' and 'entries', not a list"
	printf 'version: 1\nentries: []\n---\nversion: 1\n' > two.yaml
	run -2 khsend policy check two.yaml
	assert_line 'two.yaml:3:1: a policy file holds one YAML document'
	printf 'version: 1\nentries: [a]\nversion: 1\n' > shape.yaml
	run -2 khsend policy check shape.yaml
	assert_line "shape.yaml:2:11: each entry must be a mapping (id, string, explain, ...), not a single value"
	assert_line "shape.yaml:3:1: duplicate key 'version' in the policy (first at line 1)"
	printf 'version: 1\nentries:\n  - id: a\n    string: !!str b\n    explain: c\n' > tag.yaml
	run -2 khsend policy check tag.yaml
	assert_line "tag.yaml:4:13: tags are not allowed in a policy (found 'tag:yaml.org,2002:str')"
}

@test "a missing policy file or a directory is an error naming it" {
	run -2 khsend check --policy nonexistent.yaml "$(seed_patch)"
	assert_line "khsend: error: cannot read policy 'nonexistent.yaml': No such file or directory"
	assert_line 'khsend: fatal: the policy has 1 problem (see above); nothing was checked'
	mkdir adir
	run -2 khsend policy check adir
	assert_line "khsend: error: 'adir' is a directory, not a policy file"
}

@test "a bad policy stops the check before any patch is read" {
	printf 'version: 1\nentries:\n  - id: x\n' > broken.yaml
	run -2 khsend check --policy broken.yaml /nonexistent/patch
	assert_line "broken.yaml:3:5: entry 'x' needs a 'string' or a 'regex'"
	refute_output --partial '/nonexistent/patch'
}

@test "layers: user overrides system, the repository overrides the user, git config comes last" {
	clone_mini_kernel linux
	cd linux
	mkdir -p "$XDG_CONFIG_HOME/khsend"
	# The shipped (system) policy blocks.
	run -1 khsend check "$(seed_patch)"
	write_policy "$XDG_CONFIG_HOME/khsend/policy.yaml" warn
	run -0 khsend check "$(seed_patch)"
	assert_line --partial 'warn: sched-topology-borken'
	assert_output --partial "layer $XDG_CONFIG_HOME/khsend/policy.yaml says warn"
	# The repository's layer is read from HEAD, never from the work tree a patch could write.
	write_policy .khsend.yaml annotate
	run -0 khsend check "$(seed_patch)"
	assert_line --partial 'warn: sched-topology-borken'
	git add .khsend.yaml
	git commit -qm 'khsend policy'
	run -0 khsend check "$(seed_patch)"
	assert_line --partial 'annotate: sched-topology-borken'
	write_policy ../extra.yaml block
	git config khsend.policy ../extra.yaml
	run -1 khsend check "$(seed_patch)"
	assert_output --partial 'layer ../extra.yaml says block'
	run -0 khsend policy check
	assert_line "$ROOT/policy.yaml: ok"
	assert_line "$XDG_CONFIG_HOME/khsend/policy.yaml: ok"
	assert_line "HEAD:.khsend.yaml: ok"
	assert_line "$PWD/../extra.yaml: ok"
}

@test "disabled: true in a later layer removes an entry" {
	mkdir -p "$XDG_CONFIG_HOME/khsend"
	printf 'version: 1\nentries:\n  - id: sched-topology-borken\n    disabled: true\n' > "$XDG_CONFIG_HOME/khsend/policy.yaml"
	run -0 khsend check "$(seed_patch)"
	assert_output 'khsend: 1 message checked, no protected string is changed'
	run -2 khsend explain sched-topology-borken
	assert_output --partial "no policy entry 'sched-topology-borken'"
}

@test "--policy uses exactly the files given, in order" {
	mkdir -p "$XDG_CONFIG_HOME/khsend"
	write_policy "$XDG_CONFIG_HOME/khsend/policy.yaml" warn
	write_policy a.yaml annotate
	write_policy b.yaml block
	run -1 khsend check --policy a.yaml --policy b.yaml "$(seed_patch)"
	assert_output --partial 'layer b.yaml says block'
	run -0 khsend check --policy b.yaml --policy a.yaml "$(seed_patch)"
	assert_output --partial 'layer a.yaml says annotate'
	run -0 khsend policy list --policy a.yaml
	assert_output --regexp '^sched-topology-borken +annotate'
	[ "${#lines[@]}" -eq 1 ]
}

@test "without a system policy file the built-in copy of the shipped policy is used" {
	KHSEND_SYSTEM_POLICY=/nonexistent/policy.yaml run -0 --separate-stderr khsend policy list
	assert_output ''
	[ "$stderr" = 'khsend: warning: no policy file was found, so nothing is protected' ]
	unset KHSEND_SYSTEM_POLICY
	run -0 khsend policy check
	assert_line '<built-in policy.yaml>: ok'
	run -1 khsend check "$(seed_patch)"
}

@test "explain prints the joke, the places and the references" {
	run -0 khsend explain rcu-rtfp-title
	assert_line 'rcu-rtfp-title: "Read the Fscking Papers!" (block)'
	assert_line 'in: Documentation/RCU/RTFP.txt'
	assert_output --partial 'fsck'
	assert_line --regexp '^defined at .*policy.yaml:[0-9]+$'
	run -2 khsend explain borken
	assert_output --partial "no policy entry 'borken' (did you mean: "
	assert_output --partial 'sched-topology-borken'
}

@test "a policy is data: nothing in it is run, and control characters are not printed" {
	cat > evil.yaml <<EOF2
version: 1
entries:
  - id: evil
    string: "arch topology borken"
    paths: ["\$(touch $PWD/pwned)", "kernel/sched/*.c", "\`touch $PWD/pwned\`"]
    explain: "Hello \e[31mred\e[m \$(touch $PWD/pwned) world"
    see: ["file://$PWD/pwned", "|touch $PWD/pwned"]
EOF2
	run -1 khsend check --policy evil.yaml "$(seed_patch)"
	assert_output --partial 'Hello ?[31mred?[m $(touch'
	refute_output --partial $'\e'
	[ ! -e pwned ]
	run -0 khsend explain --policy evil.yaml evil
	refute_output --partial $'\e'
	[ ! -e pwned ]
}

@test "a path pattern with '!' takes files out of an entry" {
	clone_mini_kernel linux
	cd linux
	cat > ../not.yaml <<'EOF2'
version: 1
entries:
  - id: borken-but-not-scsi
    regex: '\bborken\b'
    paths: ["**", "!drivers/scsi/**"]
    explain: x
  - id: only-not
    string: "A borken server"
    paths: ["!kernel/**"]
    explain: y
EOF2
	run -0 khsend policy check ../not.yaml
	run -0 --separate-stderr khsend scan --policy ../not.yaml .
	assert_line --partial 'fs/lockd/clntlock.c:135: borken-but-not-scsi:'
	assert_line --partial 'fs/lockd/clntlock.c:135: only-not:'
	refute_line --partial 'drivers/scsi/'
	make_commit drivers/scsi/scsi_scan.c 's/controllers. borken is/controllers. broken is/' 'scsi: fix a typo'
	assert_file_changed drivers/scsi/scsi_scan.c
	git config khsend.lexicon false
	run -0 khsend check --policy ../not.yaml -1
	assert_output 'khsend: 1 message checked, no protected string is changed'
	printf 'version: 1\nentries:\n  - id: b\n    string: x\n    paths: ["!../x"]\n    explain: x\n' > ../bad.yaml
	run -2 khsend policy check ../bad.yaml
	assert_output --partial "cannot contain '.' or '..'"
}
