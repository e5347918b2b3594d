#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# khsend reply: the maintainer's kind answer to a patch that "fixes" a joke.

load test_helper

setup() {
	common_setup
	# The maintainer who answers: git's configuration, as for git send-email.
	# The pinned author identity is kept for the patches the tests make.
	AUTHOR_NAME=$GIT_AUTHOR_NAME AUTHOR_EMAIL=$GIT_AUTHOR_EMAIL
	unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
	git config --global user.name 'Peter Maintainer'
	git config --global user.email 'peter@example.org'
	EXAMPLE=$ROOT/examples/borken-fix.patch
	SEED_ID='<20210526021856.9060-1-thunder.leizhen@huawei.com>'
}

# The header lines of a mail, unfolded, up to the empty line.
headers_of() {
	awk '/^$/ { exit }
	     /^[ \t]/ { sub(/^[ \t]+/, " "); h = h $0; next }
	     { if (h != "") print h; h = $0 }
	     END { if (h != "") print h }' "$1"
}

# The body of a mail: what follows the first empty line.
body_of() {
	sed '1,/^$/d' "$1"
}

# A sendmail that records each call, after git's t9001: argv in commandlineN,
# the message in msgtxtN.
make_fake_sendmail() {
	cat >"$BATS_TEST_TMPDIR/fake.sendmail" <<'EOF'
#!/bin/sh
d=$(dirname "$0")
n=$(($(cat "$d/count" 2>/dev/null || echo 0) + 1))
echo "$n" >"$d/count"
printf '%s\n' "$@" >"$d/commandline$n"
cat >"$d/msgtxt$n"
EOF
	chmod +x "$BATS_TEST_TMPDIR/fake.sendmail"
}

# Send files with the real git send-email through the fake sendmail.
send_email() {
	make_fake_sendmail
	[ -d sendrepo ] || git init -q sendrepo
	(cd sendrepo && git send-email --smtp-server="$BATS_TEST_TMPDIR/fake.sendmail" \
		--confirm=never --quiet "$@" </dev/null)
}

# Run a command as the contributor (A U Thor) rather than the maintainer.
as_author() {
	GIT_AUTHOR_NAME=$AUTHOR_NAME GIT_AUTHOR_EMAIL=$AUTHOR_EMAIL "$@"
}

# In the mini kernel, commit a sed edit and write it as a threaded mail: mini_patch FILE EXPR SUBJECT
mini_patch() {
	[ -d linux ] || as_author clone_mini_kernel linux
	(cd linux && as_author make_commit "$1" "$2" "$3" && assert_file_changed "$1" &&
		git format-patch -q -1 --thread --to='Peter Maintainer <peter@example.org>' \
			--cc='Reviewer <reviewer@example.org>' --cc='kernel-list@example.org' -o ../out)
}

@test "the reply to the seed's borken patch parses as a mail from the maintainer" {
	run --separate-stderr "$KHSEND" reply "$EXAMPLE"
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" >reply.txt
	run git mailinfo -k msg patch <reply.txt
	assert_success
	assert_line 'Author: Peter Maintainer'
	assert_line 'Email: peter@example.org'
	assert_line 'Subject: Re: [PATCH 1/1] sched/topology: Fix a spelling mistake in error message'
	# Nothing in the reply looks like a patch to git.
	[ ! -s patch ]
}

@test "the reply threads to the original Message-Id and copies everyone it went to" {
	"$KHSEND" reply "$EXAMPLE" >reply.txt
	run headers_of reply.txt
	assert_line "In-Reply-To: $SEED_ID"
	assert_line "References: $SEED_ID"
	assert_line 'To: Zhen Lei <thunder.leizhen@huawei.com>'
	assert_line 'Cc: Scheduler Maintainer <sched-maintainer@example.org>, Scheduler Reviewer <sched-reviewer@example.org>, kernel-list@example.org'
	assert_line 'From: Peter Maintainer <peter@example.org>'
	# GIT_AUTHOR_DATE, 1112354055 +0200, is the date.
	assert_line 'Date: Fri, 1 Apr 2005 13:14:15 +0200'
	assert_line 'Content-Type: text/plain; charset=UTF-8'
	assert_line 'Content-Transfer-Encoding: 7bit'
	refute_line --regexp '^Message-Id:'
}

@test "the reply thanks first, quotes the hunk, explains the joke, then says what happens next" {
	"$KHSEND" reply "$EXAMPLE" >reply.txt
	body_of reply.txt >body.txt
	run cat body.txt
	assert_line --index 0 'Hello Zhen,'
	assert_line --index 1 'Thank you for your patch, and for reading the kernel code so carefully.'
	assert_line 'On Wed, 26 May 2021 10:18:56 +0800, Zhen Lei wrote:'
	assert_line '> --- a/kernel/sched/topology.c'
	assert_line '> @@ -2193,7 +2193,7 @@ static struct sched_domain *build_sched_domain(struct sched_domain_topology_leve'
	assert_line "> -$(printf '\t\t\t')pr_err(\"BUG: arch topology borken\\n\");"
	assert_line "> +$(printf '\t\t\t')pr_err(\"BUG: arch topology broken\\n\");"
	assert_line ">  #ifdef CONFIG_SCHED_DEBUG"
	assert_line --partial 'in kernel/sched/topology.c (line'
	assert_line '2196). It is written this way on purpose. The note we keep about it'
	assert_line '  "borken" is not a typo. It is old hacker slang: a joking way to write'
	assert_line '  https://lore.kernel.org/r/1615195496-13980-1-git-send-email-yangyicong@hisilicon.com'
	assert_line 'So I am not applying this patch. Please do not let that stop you: real'
	refute_output --partial 'khsend'
	assert_line --index $((${#lines[@]} - 1)) 'Peter Maintainer'
	# In that order.
	thanks=$(grep -n '^Thank you' body.txt | cut -d: -f1)
	quote=$(grep -n '^> -[[:space:]]' body.txt | cut -d: -f1)
	joke=$(grep -n '^  "borken" is not a typo' body.txt | cut -d: -f1)
	next=$(grep -n '^So I am not applying' body.txt | cut -d: -f1)
	[ "$thanks" -lt "$quote" ] && [ "$quote" -lt "$joke" ] && [ "$joke" -lt "$next" ]
}

@test "git send-email sends the reply as it is, to the author and the Cc list, threaded" {
	"$KHSEND" reply -o reply.txt "$EXAMPLE"
	run send_email ../reply.txt
	assert_success
	assert_output 'Sent Re: [PATCH 1/1] sched/topology: Fix a spelling mistake in error message'
	run cat commandline1
	assert_line thunder.leizhen@huawei.com
	assert_line sched-maintainer@example.org
	assert_line sched-reviewer@example.org
	assert_line kernel-list@example.org
	run headers_of msgtxt1
	assert_line "In-Reply-To: $SEED_ID"
	assert_line "References: $SEED_ID"
	assert_line 'From: Peter Maintainer <peter@example.org>'
	# The sender matched, so git send-email added no "From:" line to the body.
	run body_of msgtxt1
	assert_line --index 0 'Hello Zhen,'
}

@test "a patch made with git format-patch in the mini kernel gets a threaded reply" {
	mini_patch kernel/sched/topology.c 's/arch topology borken/arch topology broken/' \
		'sched/topology: Fix a typo'
	patch=$(echo out/0001-*.patch)
	id=$(headers_of "$patch" | sed -n 's/^Message-Id: //p')
	[ -n "$id" ]
	run --separate-stderr "$KHSEND" reply "$patch"
	assert_success
	assert_line "In-Reply-To: $id"
	assert_line "References: $id"
	assert_line 'To: A U Thor <author@example.com>'
	assert_line 'Cc: Reviewer <reviewer@example.org>,'
	assert_line '	kernel-list@example.org'
	refute_output --partial 'peter@example.org>,'
	assert_line 'Subject: Re: [PATCH] sched/topology: Fix a typo'
	assert_line 'Hello A,'
}

@test "a base64 original is quoted as decoded text" {
	mini_patch kernel/sched/topology.c 's/arch topology borken/arch topology broken/' \
		'sched/topology: Fix a typo'
	# What the maintainer receives when the author sent it as base64.
	send_email --transfer-encoding=base64 "$PWD"/out/0001-*.patch
	received=msgtxt1
	run headers_of "$received"
	assert_line 'Content-Transfer-Encoding: base64'
	run grep -c 'arch topology' "$received"
	assert_output 0
	run "$KHSEND" reply "$received"
	assert_success
	assert_line "> +$(printf '\t\t\t')pr_err(\"BUG: arch topology broken\\n\");"
	assert_line "> -$(printf '\t\t\t')pr_err(\"BUG: arch topology borken\\n\");"
}

@test "a quoted-printable original from an author with a non-ASCII name" {
	(as_author clone_mini_kernel linux && cd linux &&
		sed -i 's/Read the Fscking Papers!/Read the Fucking Papers! é/' Documentation/RCU/RTFP.txt &&
		git add -A && git -c user.name='José Müller' -c user.email=jose@example.org \
			commit -q -m 'Documentation/RCU: fix a typo in RTFP' &&
		git format-patch -q -1 --thread -o ../out)
	# José sends it himself.
	GIT_AUTHOR_NAME='José Müller' GIT_AUTHOR_EMAIL=jose@example.org \
		send_email --transfer-encoding=quoted-printable --to=peter@example.org "$PWD"/out/0001-*.patch
	run headers_of msgtxt1
	assert_line 'Content-Transfer-Encoding: quoted-printable'
	assert_line --regexp '^From: =\?UTF-8\?q\?'
	"$KHSEND" reply msgtxt1 >reply.txt
	run headers_of reply.txt
	# The address stays as git encoded it; the body is 8-bit UTF-8.
	assert_line 'To: =?UTF-8?q?Jos=C3=A9=20M=C3=BCller?= <jose@example.org>'
	assert_line 'Content-Transfer-Encoding: 8bit'
	run body_of reply.txt
	assert_line --index 0 'Hello José,'
	assert_line '> +Read the Fucking Papers! é'
	run git mailinfo msg patch <reply.txt
	assert_success
}

@test "the maintainer's name is encoded in From when it is not ASCII" {
	git config --global user.name 'Jörg Rödel'
	run "$KHSEND" reply "$EXAMPLE"
	assert_success
	assert_line 'From: =?UTF-8?q?J=C3=B6rg_R=C3=B6del?= <peter@example.org>'
	assert_line 'Jörg Rödel'
	git mailinfo msg patch < <(printf '%s\n' "$output") >info
	run cat info
	assert_line 'Author: Jörg Rödel'
}

@test "raw 8-bit names in a received header are encoded in the reply" {
	sed 's/^To: Scheduler Maintainer/To: Jürgen Maintainer/' "$EXAMPLE" >raw.patch
	"$KHSEND" reply raw.patch >reply.txt
	run headers_of reply.txt
	assert_line --partial 'Cc: =?UTF-8?q?J=C3=BCrgen_Maintainer?= <sched-maintainer@example.org>, '
	run grep -c $'[\x80-\xff]' <(headers_of reply.txt)
	assert_output 0
}

@test "the maintainer and the author are not copied, and each address once" {
	mini_patch kernel/sched/topology.c 's/arch topology borken/arch topology broken/' \
		'sched/topology: Fix a typo'
	patch=$(echo out/0001-*.patch)
	# Copied to the author and twice to the list, in another case.
	sed -i 's/^Cc: Reviewer/Cc: A U Thor <Author@Example.com>, KERNEL-LIST@example.org, Reviewer/' "$patch"
	"$KHSEND" reply "$patch" >reply.txt
	run headers_of reply.txt
	assert_line 'To: A U Thor <author@example.com>'
	assert_line 'Cc: KERNEL-LIST@example.org, Reviewer <reviewer@example.org>'
}

@test "no finding: exit 1, say so, write nothing" {
	run --separate-stderr "$KHSEND" reply -o reply.txt "$ROOT/examples/typo-fixes/0003-Documentation-RCU-Fix-two-typos-in-RTFP.txt.patch"
	assert_failure 1
	[ -z "$output" ]
	[ "$stderr" = "khsend: no protected string is changed in '$ROOT/examples/typo-fixes/0003-Documentation-RCU-Fix-two-typos-in-RTFP.txt.patch', so there is nothing to reply to" ]
	[ ! -e reply.txt ]
	run --separate-stderr "$KHSEND" reply "$ROOT/examples/typo-fixes"
	assert_failure 1
	[ -z "$output" ]
}

@test "an mbox of a series gets one reply per patch that changes a joke, as an mbox" {
	as_author clone_mini_kernel linux
	(cd linux &&
		as_author make_commit kernel/sched/topology.c 's/arch topology borken/arch topology broken/' 'sched/topology: Fix a typo' &&
		as_author make_commit kernel/kprobes.c '654s/immmediately/immediately/' 'kprobes: Fix a typo' &&
		as_author make_commit Documentation/RCU/RTFP.txt '1s/Fscking/Fucking/' 'Documentation/RCU: Fix a typo' &&
		git format-patch -q --thread --cover-letter --stdout -3 >../series.mbox)
	run --separate-stderr "$KHSEND" reply -o replies.mbox series.mbox
	assert_success
	[ "$stderr" = "khsend: 2 replies, one for each patch that changes a protected string, as an mbox in 'replies.mbox'" ]
	mkdir split parts
	run git mailsplit -osplit replies.mbox
	assert_output 2
	run headers_of split/0001
	assert_line 'Subject: Re: [PATCH 1/3] sched/topology: Fix a typo'
	want=$(git mailsplit -oparts series.mbox >/dev/null && headers_of parts/0002 | sed -n 's/^Message-Id: //p')
	assert_line "In-Reply-To: $want"
	run headers_of split/0002
	assert_line 'Subject: Re: [PATCH 3/3] Documentation/RCU: Fix a typo'
	want=$(headers_of parts/0004 | sed -n 's/^Message-Id: //p')
	assert_line "In-Reply-To: $want"
	# References: the thread, then the patch (the cover letter is its parent).
	cover=$(headers_of parts/0001 | sed -n 's/^Message-Id: //p')
	assert_line "References: $cover $want"
	run grep -c '^From khsend ' replies.mbox
	assert_output 2
}

@test "several findings in one patch: each entry is explained once" {
	as_author clone_mini_kernel linux
	(cd linux &&
		sed -i 's/hysterical raisins/historical reasons/' Documentation/atomic_t.txt include/drm/drm_modes.h &&
		as_author git commit -q -am 'Fix two typos' &&
		git format-patch -q -1 -o ../out)
	"$KHSEND" reply out/0001-*.patch >reply.txt
	run grep -c '"hysterical raisins" is a well-known pun' reply.txt
	assert_output 1
	run grep -c '^> --- a/' reply.txt
	assert_output 2
	run cat reply.txt
	assert_line 'This changes "hysterical raisins" in 2 places:'
	assert_line 'Documentation/atomic_t.txt (line 63); include/drm/drm_modes.h (line'
}

@test "a patch with other changes is asked to come back without this one" {
	as_author clone_mini_kernel linux
	(cd linux &&
		sed -i 's/arch topology borken/arch topology broken/' kernel/sched/topology.c &&
		sed -i '654s/immmediately/immediately/' kernel/kprobes.c &&
		as_author git commit -q -am 'kernel: fix typos' &&
		git format-patch -q -1 -o ../out)
	run "$KHSEND" reply out/0001-*.patch
	assert_success
	assert_line 'So I am not applying this patch as it is. If its other changes are still'
	refute_output --partial 'immediately'
}

@test "an annotate finding asks for a new version instead of declining" {
	mini_patch kernel/sched/core.c 's/here be dragons/this is hard/' 'sched/core: Clarify a comment'
	run "$KHSEND" reply out/0001-*.patch
	assert_success
	assert_line --partial 'Unless you changed this on purpose (for example, because the code'
	refute_output --partial 'not applying'
}

@test "a Re: subject gets no second Re:" {
	sed 's/^Subject: /Subject: Re: /' "$EXAMPLE" >re.patch
	run "$KHSEND" reply re.patch
	assert_success
	assert_line 'Subject: Re: [PATCH 1/1] sched/topology: Fix a spelling mistake in error message'
}

@test "without a Message-Id the reply is written, with a warning" {
	grep -v '^Message-Id:' "$EXAMPLE" >noid.patch
	run --separate-stderr "$KHSEND" reply noid.patch
	assert_success
	refute_line --regexp '^(In-Reply-To|References):'
	[[ $stderr == *"'noid.patch' has no Message-Id"* ]]
}

@test "sendemail.from is who replies, as for git send-email" {
	git config --global sendemail.from 'P. Maintainer <pm@example.net>'
	run "$KHSEND" reply "$EXAMPLE"
	assert_success
	assert_line 'From: P. Maintainer <pm@example.net>'
	assert_line --index $((${#lines[@]} - 1)) 'P. Maintainer'
	git config --global sendemail.from 'Jörg <pm@example.net>'
	run "$KHSEND" reply "$EXAMPLE"
	assert_line 'From: =?UTF-8?q?J=C3=B6rg?= <pm@example.net>'
	# A line break in one's own name cannot add header lines.
	git config --global --unset sendemail.from
	git config --global user.name "$(printf 'Peter\nBcc: x@example.net')"
	run --separate-stderr "$KHSEND" reply "$EXAMPLE"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *'holds a line break'* ]]
}

@test "nobody to reply as: exit 2 and say how to set it" {
	git config --global --unset user.name
	git config --global --unset user.email
	unset EMAIL
	run --separate-stderr "$KHSEND" reply "$EXAMPLE"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *"cannot tell who is replying"* ]]
	[[ $stderr == *'git config --global user.email you@example.org'* ]]
	# A name is not needed: then the reply is signed with the address.
	git config --global user.email peter@example.org
	run --separate-stderr "$KHSEND" reply "$EXAMPLE"
	assert_success
	assert_line 'From: peter@example.org'
	[[ $stderr == *"user.name is not set"* ]]
}

@test "a GIT_AUTHOR_DATE khsend cannot read is an error" {
	GIT_AUTHOR_DATE='next Tuesday' run --separate-stderr "$KHSEND" reply "$EXAMPLE"
	assert_failure 2
	[[ $stderr == *"GIT_AUTHOR_DATE='next Tuesday' is not a date khsend reads"* ]]
	GIT_AUTHOR_DATE='@1621995536 -0430' run "$KHSEND" reply "$EXAMPLE"
	assert_line 'Date: Tue, 25 May 2021 21:48:56 -0430'
}

@test "bad input: a missing file, a bare diff, a file that is no mail" {
	run --separate-stderr "$KHSEND" reply no-such.patch
	assert_failure 2
	[ "$stderr" = "khsend: fatal: cannot read 'no-such.patch': No such file or directory" ]
	sed '1,/^---$/d' "$EXAMPLE" >bare.diff
	run --separate-stderr "$KHSEND" reply bare.diff
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *"'bare.diff' is not a mail (it has no From: header)"* ]]
	echo 'hello' >note.txt
	run --separate-stderr "$KHSEND" reply note.txt
	assert_failure 2
	[[ $stderr == *"'note.txt' is neither a mail nor a patch"* ]]
	run "$KHSEND" reply
	assert_failure 2
}

@test "-o writes the reply, and never over the mail being answered" {
	cp "$EXAMPLE" in.patch
	"$KHSEND" reply -o reply.txt in.patch
	run "$KHSEND" reply in.patch
	[ "$output" = "$(cat reply.txt)" ]
	run --separate-stderr "$KHSEND" reply -o in.patch in.patch
	assert_failure 2
	[[ $stderr == *"-o 'in.patch' is the mail being answered"* ]]
	cmp in.patch "$EXAMPLE"
}

@test "the reply passes khsend check, so the sendemail-validate hook lets it out" {
	"$KHSEND" reply -o reply.txt "$EXAMPLE"
	run "$KHSEND" check reply.txt
	assert_success
	assert_output 'khsend: 1 message checked, no protected string is changed'
}

@test "a policy's explanation cannot add recipients or split the mbox" {
	cat >evil.yaml <<'EOF'
version: 1
entries:
  - id: sched-topology-borken
    string: "arch topology borken"
    explain: |
      It is a joke.
      Cc: evil@example.net
      Signed-off-by: Evil <evil2@example.net>
      From here on, keep it.
EOF
	"$KHSEND" reply --policy evil.yaml -o reply.txt "$EXAMPLE"
	run body_of reply.txt
	assert_line '  Cc: evil@example.net'
	assert_line '  Signed-off-by: Evil <evil2@example.net>'
	assert_line '  From here on, keep it.'
	send_email ../reply.txt
	run cat commandline1
	refute_output --partial evil
}

@test "a long run of changes is quoted in part: the old line and the new one" {
	mini_patch kernel/sched/topology.c '2185,2205s/^/ /; s/arch topology borken/arch topology broken/' \
		'sched/topology: Shift a block and fix a typo'
	"$KHSEND" reply out/0001-*.patch >reply.txt
	run sed -n '/^> @@/,/^$/p' reply.txt
	assert_output "$(cat <<'QUOTE'
> @@ -2182,27 +2182,27 @@ static void __sdt_free(const struct cpumask *cpu_map)
> [...]
> -			pr_err("BUG: arch topology borken\n");
> [...]
> + 			pr_err("BUG: arch topology broken\n");
> [...]
QUOTE
)"
}

@test "--lang ja: the English explanation, then the Japanese one below it, marked; git mailinfo reads it as UTF-8" {
	"$KHSEND" reply "$EXAMPLE" >english.txt
	run --separate-stderr "$KHSEND" reply --lang ja "$EXAMPLE"
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" >reply.txt
	run headers_of reply.txt
	assert_line 'MIME-Version: 1.0'
	assert_line 'Content-Type: text/plain; charset=UTF-8'
	assert_line 'Content-Transfer-Encoding: 8bit'
	run git mailinfo -k msg patch <reply.txt
	assert_success
	assert_line 'Subject: Re: [PATCH 1/1] sched/topology: Fix a spelling mistake in error message'
	[ ! -s patch ]
	# mailinfo hands over the body as it is: UTF-8 that iconv reads, both languages in it.
	iconv -f UTF-8 -t UTF-8 msg >/dev/null
	en=$(grep -n '^  "borken" is not a typo' msg | cut -d: -f1)
	label=$(grep -nxF '[日本語 / Japanese; not yet reviewed by a native speaker]' msg | cut -d: -f1)
	ja=$(grep -n '^「borken」はタイプミスではありません。' msg | cut -d: -f1)
	see=$(grep -n '^There is more about it here:' msg | cut -d: -f1)
	[ "$en" -lt "$label" ] && [ "$ja" -eq $((label + 1)) ] && [ "$ja" -lt "$see" ]
	# Everything else is the English reply, line for line.
	diff <(body_of english.txt) <(body_of reply.txt | sed '/^\[日本語/,/^$/d')
	run git mailinfo -k msg patch <english.txt
	assert_success
	# The headers differ in the transfer encoding only.
	diff <(headers_of english.txt | sed 's/^Content-Transfer-Encoding: 7bit$/Content-Transfer-Encoding: 8bit/') \
		<(headers_of reply.txt)
}

@test "--lang with no text in that language, or an unknown tag: the English reply, and a note" {
	"$KHSEND" reply "$EXAMPLE" >english.txt
	for tag in ko tlh; do
		run --separate-stderr "$KHSEND" reply --lang "$tag" "$EXAMPLE"
		assert_success
		[ "$output" = "$(cat english.txt)" ]
		[[ "$stderr" == *"has no "*" text for 'sched-topology-borken'; the reply explains it in English only"* ]]
	done
	run -2 --separate-stderr "$KHSEND" reply --lang '../x' "$EXAMPLE"
	assert_output ''
	[[ "$stderr" == *"--lang '../x' is not a language tag"* ]]
}

@test "khsend.reply.*: the greeting, the closing, the links kept and the line about khsend" {
	# By default: the first name, one link an entry, no word about khsend.
	run -0 "$KHSEND" reply "$EXAMPLE"
	assert_line 'Hello Zhen,'
	run grep -c '^  https://' <<< "$output"
	assert_output 1
	refute_output --partial 'khsend'
	refute_output --partial 'Zhen Lei,'
	# The policy's note is quoted, so "the maintainers have declined" reads right from one of them.
	run -0 "$KHSEND" reply "$EXAMPLE"
	assert_line '  The scheduler maintainers wrote it on purpose, and they have declined'
	git config --global khsend.reply.greeting 'Hi %N, and thanks (100%%)!'
	git config --global khsend.reply.closing 'Best regards,'
	git config --global khsend.reply.links all
	git config --global khsend.reply.advertise true
	run -0 "$KHSEND" reply "$EXAMPLE"
	assert_line 'Hi Zhen Lei, and thanks (100%)!'
	assert_line 'Best regards,'
	refute_line 'Thanks again,'
	run grep -c '^  https://' <<< "$output"
	assert_output 4
	run -0 "$KHSEND" reply "$EXAMPLE"
	assert_output --partial 'run "khsend check'
	git config --global khsend.reply.links 0
	run -0 "$KHSEND" reply "$EXAMPLE"
	refute_output --partial 'https://'
	refute_output --partial 'There is more about it'
	git config --global khsend.reply.links many
	run -2 "$KHSEND" reply "$EXAMPLE"
	assert_output --partial "khsend.reply.links='many': expected a number of links, or 'all'"
}

@test "the first name: of 'First Last', of 'Last, First', of one word, of none" {
	local name
	for name in 'Zhen Lei:Zhen' '"Müller, José":José' 'Linus:Linus'; do
		sed "s/^From: .*/From: ${name%%:*} <someone@example.org>/" "$EXAMPLE" > p.mbox
		run -0 "$KHSEND" reply p.mbox
		assert_line "Hello ${name##*:},"
	done
	sed 's/^From: .*/From: someone@example.org/' "$EXAMPLE" > p.mbox
	run -0 "$KHSEND" reply p.mbox
	assert_line 'Hello,'
}
