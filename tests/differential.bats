#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# One verdict for every way a series can be read.
#
# Each row is a series in one input form (files, a directory, an mbox,
# revisions, base64, quoted-printable, format=flowed, CRLF, renames,
# copies, mode changes, binary) or diff configuration (diff.noprefix,
# diff.mnemonicPrefix, --src-prefix/--dst-prefix, --no-renames, -M/-C),
# and each hand-made form a reader could take differently from git (the
# families of the issue that asked for this).  Every row goes through
# every route a series takes with khsend:
#
#   check       khsend check
#   dry-run     khsend --dry-run (git send-email's dry run)
#   send        khsend to a fake sendmail, then git am of each delivered
#               message onto the base in a fresh clone
#   validate    plain git send-email with khsend's sendemail-validate hook
#   am          a maintainer's git am with khsend's applypatch-msg and
#               pre-applypatch hooks
#   b4          khsend b4 on a b4 prep branch (revision rows)
#
# and must come out the same on every one: "stopped" (a finding that
# blocks, or a refusal: exit 1 or 2, nothing delivered, git am stopped) or
# "passed".  And whatever git am applied of what was delivered, the joke
# is still there.

load test_helper

JOKE='arch topology borken'
TOPO=kernel/sched/topology.c

setup() {
	common_setup
	clone_mini_kernel base
	git -C base config user.name "$GIT_AUTHOR_NAME"
	git -C base config user.email "$GIT_AUTHOR_EMAIL"
	BASE=$(git -C base rev-parse HEAD)
	ROWS=$BATS_TEST_TMPDIR/rows
	mkdir -p "$ROWS"
}

# A clone at the base, for a route to work in.
fresh() {
	rm -rf "$1"
	git clone -q "$BATS_TEST_TMPDIR/base" "$1"
	git -C "$1" reset -q --hard "$BASE"
	git -C "$1" config user.name "$GIT_AUTHOR_NAME"
	git -C "$1" config user.email "$GIT_AUTHOR_EMAIL"
}

# commit FILE SED-EXPR SUBJECT [git commit options]: a commit on the base clone.
commit() {
	local file=$1 expr=$2 subject=$3
	shift 3
	sed -i -e "$expr" "base/$file"
	git -C base add -A
	git -C base commit -q "$@" -m "$subject" -m "Signed-off-by: A U Thor <author@example.com>"
}

# The fix a spell checker makes, as commit(s) on the base clone.
fix_joke() {
	commit "$TOPO" 's/topology borken/topology broken/' 'sched/topology: fix a typo'
}

clean_change() {
	commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo'
}

# patch NAME [format-patch options...]: the base clone's last commit as one mail file.
patch() {
	local name=$1
	shift
	git -C base format-patch -q --stdout "$@" -1 > "$ROWS/$name"
	echo "$ROWS/$name"
}

# A verdict of one route: "passed" or "stopped".
verdict() {
	if [ "$1" -eq 0 ]; then echo passed; else echo stopped; fi
}

# git am of every delivered message onto the base; the joke must still be there.
am_delivered() {
	local dir=$1 n
	n=$(find "$BATS_TEST_TMPDIR/$dir" -name 'msgtxt*' | wc -l)
	fresh "$BATS_TEST_TMPDIR/am-$dir"
	for i in $(seq "$n"); do
		git -C "$BATS_TEST_TMPDIR/am-$dir" am -q < "$BATS_TEST_TMPDIR/$dir/msgtxt$i" > /dev/null 2>&1 ||
			{ git -C "$BATS_TEST_TMPDIR/am-$dir" am --abort > /dev/null 2>&1; break; }
	done
	grep -q "$JOKE" "$BATS_TEST_TMPDIR/am-$dir/$TOPO" "$BATS_TEST_TMPDIR/am-$dir/kernel/sched/topo.c" 2> /dev/null ||
		fail "git am of what khsend delivered ($dir) changed the joke"
}

# route_all EXPECTED WHERE INPUT...: every route, one verdict.  WHERE is
# "files" (INPUT names mail files, a directory or an mbox) or "revs"
# (INPUT are revisions of the base clone, which holds the commits).
route_all() {
	local want=$1 where=$2 rc v sm
	shift 2
	local -a send=(--to=list@example.org --confirm=never --no-validate --force)
	declare -A got

	rm -rf "$BATS_TEST_TMPDIR/delivered" "$BATS_TEST_TMPDIR/validated"
	# check
	rc=0
	(cd base && khsend check "$@") > "$BATS_TEST_TMPDIR/check.out" 2>&1 || rc=$?
	got[check]=$(verdict $rc)
	# dry-run
	rc=0
	(cd base && khsend --no-boot --dry-run "${send[@]}" --smtp-server=/bin/false "$@") > /dev/null 2>&1 || rc=$?
	got[dry-run]=$(verdict $rc)
	# send, then git am of what was delivered
	sm=$(make_sendmail delivered)
	rc=0
	(cd base && khsend --no-boot "${send[@]}" --smtp-server="$sm" "$@") > /dev/null 2>&1 || rc=$?
	got[send]=$(verdict $rc)
	if [ "$rc" -ne 0 ] && [ "$(sent_count delivered)" -ne 0 ]; then
		fail "khsend stopped (exit $rc) but delivered $(sent_count delivered) messages"
	fi
	am_delivered delivered
	# plain git send-email with khsend's sendemail-validate hook
	sm=$(make_sendmail validated)
	rc=0
	(cd base && khsend install-hooks sendemail-validate > /dev/null &&
		git send-email --to=list@example.org --confirm=never --validate --force --smtp-server="$sm" "$@") \
		> /dev/null 2>&1 ||
		rc=$?
	rm -f "$(git -C base rev-parse --git-path hooks)/sendemail-validate"
	got[validate]=$(verdict $rc)
	[ "$rc" -eq 0 ] || [ "$(sent_count validated)" -eq 0 ] || fail "the hook stopped git send-email, but it sent"
	# a maintainer's git am with khsend's hooks, of the mails as they were received
	local mails=$BATS_TEST_TMPDIR/received
	rm -rf "$mails"
	mkdir -p "$mails"
	if [ "$where" = revs ]; then
		git -C base format-patch -q -o "$mails" "$@"
	else
		for f; do
			if [ -d "$f" ]; then cp "$f"/* "$mails/"; else cp "$f" "$mails/"; fi
			# A maintainer does not git am a cover letter.
			rm -f "$mails"/0000-cover-letter.patch
		done
	fi
	fresh "$BATS_TEST_TMPDIR/maintainer"
	rc=0
	(cd "$BATS_TEST_TMPDIR/maintainer" && khsend install-hooks applypatch-msg pre-applypatch > /dev/null &&
		git am -q "$mails"/*) > "$BATS_TEST_TMPDIR/am.out" 2>&1 || rc=$?
	got[am]=$(verdict $rc)
	[ "$rc" -eq 0 ] || git -C "$BATS_TEST_TMPDIR/maintainer" am --abort > /dev/null 2>&1
	grep -q "$JOKE" "$BATS_TEST_TMPDIR/maintainer/$TOPO" "$BATS_TEST_TMPDIR/maintainer/kernel/sched/topo.c" 2> /dev/null ||
		fail "the maintainer's git am changed the joke"

	for route in check dry-run send validate am; do
		[ "${got[$route]}" = "$want" ] ||
			fail "$route: ${got[$route]}, expected $want (check said: $(cat "$BATS_TEST_TMPDIR/check.out"); git am said: $(cat "$BATS_TEST_TMPDIR/am.out"))"
	done
}

# ---- input forms ----

@test "a file: the fix is stopped everywhere, a clean patch passes everywhere" {
	fix_joke
	route_all stopped files "$(patch fix.patch)"
	git -C base reset -q --hard "$BASE"
	clean_change
	route_all passed files "$(patch clean.patch)"
}

@test "a directory and an mbox of a whole series" {
	clean_change
	fix_joke
	git -C base format-patch -q --cover-letter -2 -o "$ROWS/dir"
	route_all stopped files "$ROWS/dir"
	git -C base format-patch -q --stdout -2 > "$ROWS/series.mbox"
	route_all stopped files "$ROWS/series.mbox"
	rm "$ROWS/dir/0002-sched-topology-fix-a-typo.patch"
	route_all passed files "$ROWS/dir"
}

@test "revisions, in every diff configuration" {
	clean_change
	fix_joke
	route_all stopped revs -2
	route_all stopped revs "$BASE..HEAD"
	git -C base config diff.noprefix true
	route_all stopped revs -2
	git -C base config --unset diff.noprefix
	git -C base config diff.mnemonicPrefix true
	route_all stopped revs -2
	route_all stopped revs --src-prefix=old/ --dst-prefix=new/ -2
	route_all stopped revs --no-renames -2
	route_all stopped revs -M -C -2
	route_all passed revs -1 HEAD~1
}

@test "base64, quoted-printable and CRLF mails" {
	fix_joke
	local p body
	p=$(patch fix.patch)
	body=$(sed '1,/^$/d' "$p")
	{ sed '/^$/q' "$p" | sed '/^$/i Content-Transfer-Encoding: base64' | grep -v '^Content-Transfer-Encoding: 8bit'
	  printf '%s\n' "$body" | base64; } > "$ROWS/b64.patch"
	route_all stopped files "$ROWS/b64.patch"
	{ sed '/^$/q' "$p" | sed 's/^Content-Transfer-Encoding: 8bit/Content-Transfer-Encoding: quoted-printable/'
	  printf '%s\n' "$body" | perl -MMIME::QuotedPrint -0777 -ne 'print encode_qp($_)'; } > "$ROWS/qp.patch"
	route_all stopped files "$ROWS/qp.patch"
	sed 's/$/\r/' "$p" > "$ROWS/crlf.patch"
	route_all stopped files "$ROWS/crlf.patch"
}

@test "renames, copies, mode changes and binary files" {
	git -C base mv "$TOPO" kernel/sched/topo.c
	git -C base commit -q -m 'sched: rename topology.c'
	route_all passed revs -1
	route_all passed revs --no-renames -1
	sed -i 's/topology borken/topology broken/' base/kernel/sched/topo.c
	git -C base commit -q -am 'sched: fix a typo in topo.c'
	route_all stopped revs -2
	route_all stopped revs --no-renames -2
	git -C base reset -q --hard "$BASE"
	cp "base/$TOPO" base/kernel/sched/topology-copy.c
	chmod +x base/kernel/acct.c
	printf 'x\0y\n' > base/kernel/blob.bin
	git -C base add -A
	git -C base commit -q -m 'a copy, a mode change and a binary file'
	route_all passed revs -C -C --binary -1
}

# ---- the families of hand-made patches that readers take differently ----

@test "a plain diff -u section after a diff --git section" {
	clean_change
	fix_joke
	local fix
	fix=$(git -C base diff HEAD~1 HEAD | sed -e '/^diff --git/d' -e '/^index /d' \
		-e 's|^--- a/|--- linux.orig/|' -e 's|^+++ b/|+++ linux/|')
	{ git -C base format-patch -q --stdout -1 HEAD~1; } | sed '/^-- $/,$d' > "$ROWS/mixed.patch"
	printf '%s\n-- \n2.39.5\n' "$fix" >> "$ROWS/mixed.patch"
	route_all stopped files "$ROWS/mixed.patch"
}

@test "paths git normalizes: a//b, a +++ name with a suffix, a space before a timestamp, C-quoted octal names" {
	fix_joke
	local p
	p=$(patch fix.patch)
	sed "s|a/$TOPO|a/kernel//sched/topology.c|; s|b/$TOPO|b/kernel//sched/topology.c|" "$p" > "$ROWS/slashes.patch"
	route_all stopped files "$ROWS/slashes.patch"
	sed -e '/^diff --git/d' -e '/^index /d' -e "s|^+++ b/$TOPO|+++ b/$TOPO.new|" "$p" > "$ROWS/suffix.patch"
	route_all stopped files "$ROWS/suffix.patch"
	sed -e '/^diff --git/d' -e '/^index /d' \
		-e "s|^--- a/$TOPO|--- a/$TOPO 2021-05-26 10:18:56.000000000 +0800|" \
		-e "s|^+++ b/$TOPO|+++ b/$TOPO 2021-05-26 10:18:56.000000000 +0800|" "$p" > "$ROWS/timestamp.patch"
	route_all stopped files "$ROWS/timestamp.patch"
	sed -e '/^diff --git/d' -e '/^index /d' \
		-e "s|^--- a/$TOPO|--- \"a/kernel/sched/topolog\\\\171.c\"|" \
		-e "s|^+++ b/$TOPO|+++ \"b/kernel/sched/topolog\\\\171.c\"|" "$p" > "$ROWS/octal.patch"
	grep -q 'topolog\\171' "$ROWS/octal.patch"
	route_all stopped files "$ROWS/octal.patch"
}

# A flowed body, space-stuffed as RFC 3676 says (a line that starts with a
# space gets one more), and the diff's own "-" and "+" lines stuffed too: a
# reader that does not undo the stuffing sees context where git mailinfo
# sees the change.  (One line of context: flowed text cannot carry an
# empty context line.)
flowed_body() {
	sed '1,/^$/d' "$1" | sed -e 's/^[ >]/ &/' -e 's/^From / &/' -e 's/^[-+]\t/ &/'
}

# mime_mail PATCH HEADER...: the patch's header block with these headers
# added (an ASCII commit has none of its own), then an empty line.
mime_mail() {
	local p=$1
	shift
	sed '/^$/q' "$p" | sed '/^$/d'
	printf '%s\n' "$@" ''
}

@test "MIME read as git mailinfo reads it: format=flowed, two Content-Types, two encodings, an odd header" {
	fix_joke
	local p
	p=$(patch fix.patch -U1)
	{ mime_mail "$p" 'MIME-Version: 1.0' 'Content-Type: text/plain; charset=UTF-8; format=flowed'
	  flowed_body "$p"; } > "$ROWS/flowed.patch"
	route_all stopped files "$ROWS/flowed.patch"
	# Two Content-Type headers: the last is the one git mailinfo takes.
	{ mime_mail "$p" 'MIME-Version: 1.0' 'Content-Type: text/plain; charset=UTF-8' \
		'Content-Type: text/plain; charset=UTF-8; format=flowed'
	  flowed_body "$p"; } > "$ROWS/two-types.patch"
	route_all stopped files "$ROWS/two-types.patch"
	# Two Content-Transfer-Encoding headers: the last counts.
	{ mime_mail "$p" 'MIME-Version: 1.0' 'Content-Transfer-Encoding: 8bit' 'Content-Transfer-Encoding: base64'
	  sed '1,/^$/d' "$p" | base64; } > "$ROWS/two-encodings.patch"
	route_all stopped files "$ROWS/two-encodings.patch"
	# A header line that starts with ':' is a header to git mailinfo, and so are the ones after it.
	{ mime_mail "$p" ':odd' 'MIME-Version: 1.0' 'Content-Transfer-Encoding: base64'
	  sed '1,/^$/d' "$p" | base64; } > "$ROWS/odd-header.patch"
	route_all stopped files "$ROWS/odd-header.patch"
}

@test "a GIT binary patch of a protected file" {
	fix_joke
	echo '*.c binary' > "$BATS_TEST_TMPDIR/attributes"
	git -C base -c core.attributesFile="$BATS_TEST_TMPDIR/attributes" format-patch -q --binary --stdout -1 > "$ROWS/binary.patch"
	grep -q '^GIT binary patch' "$ROWS/binary.patch"
	route_all stopped files "$ROWS/binary.patch"
	# Outside any repository there is no base to apply it to: refused, exit 2.
	cd "$BATS_TEST_TMPDIR"
	run -2 khsend check "$ROWS/binary.patch"
	assert_output --partial "as a binary patch: khsend cannot see which lines it changes"
}

@test "a patch that adds a .khsend.yaml disabling the entry it breaks" {
	cat > base/.khsend.yaml <<'EOF'
version: 1
entries:
  - id: sched-topology-borken
    disabled: true
EOF
	fix_joke
	route_all stopped files "$(patch policy.patch)"
	run khsend check "$ROWS/policy.patch"
	assert_output --partial "changes khsend's policy file .khsend.yaml"
}

@test "a rename sent before and not merged yet: the fix in the renamed file is stopped on its own too" {
	git -C base branch -q --set-upstream-to=origin/master
	git -C base mv "$TOPO" kernel/sched/topo.c
	git -C base commit -q -m 'sched: rename topology.c'
	sed -i 's/topology borken/topology broken/' base/kernel/sched/topo.c
	git -C base commit -q -am 'sched: fix a typo in topo.c'
	# (The maintainer's git am of this one patch onto the base fails: there is no topo.c there.)
	route_all stopped revs -1
}
