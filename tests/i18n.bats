#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The reader's language: the policy's explanation in it (then the English),
# khsend's own messages through gettext, and English wherever there is none.
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr

load test_helper

setup() {
	common_setup
	PATCH=$ROOT/tests/fixtures/borken.patch
	# The report as the C locale writes it: what English readers get, byte for byte.
	run -1 khsend check "$PATCH"
	ENGLISH=$output
	JA_LABEL='    [日本語] （この翻訳はまだネイティブスピーカーの確認を受けていません）'
	JA_FIRST='    「borken」はタイプミスではありません。ハッカーの古いスラングで、'
	ZH_LABEL='    [简体中文] （此译文尚未经母语者审校）'
	ZH_FIRST='    “borken” 不是拼写错误。它是黑客圈的老俚语，是 “broken”（坏了）'
	EN_FIRST='    "borken" is not a typo. It is old hacker slang: a joking way to write'
}

# The line numbers of the first lines equal to each argument, in order; fails if one is missing.
line_numbers() {
	local want n
	for want in "$@"; do
		n=$(printf '%s\n' "$output" | grep -nxF -- "$want" | head -1 | cut -d: -f1)
		[ -n "$n" ] || { echo "missing: $want" >&2; return 1; }
		echo "$n"
	done
}

# A policy whose one entry is explained in English and Simplified Chinese only.
write_zh_only_policy() {
	cat > zh-only.yaml <<'EOF'
version: 1
entries:
  - id: topology
    string: "arch topology borken"
    explain:
      en: |
        "borken" is hacker slang for "broken".
      zh_CN:
        text: |
          “borken” 是黑客俚语，就是 “broken”。
        reviewed: true
        reviewed-by: Li Lei <li@example.org>
EOF
}

@test "LANGUAGE=ja: the joke is explained in Japanese first, marked, then in English, with khsend's messages in Japanese" {
	LC_ALL=C.UTF-8 LANGUAGE=ja run -1 khsend check "$PATCH"
	assert_line --index 0 'カーネルへの貢献をありがとうございます！ khsend は、メンテナーがわざとそう'
	assert_line 'kernel/sched/topology.c:1940: block: sched-topology-borken: 「arch topology borken」が変更されています'
	read -r label first english en_first < <(line_numbers "$JA_LABEL" "$JA_FIRST" '    [English]' "$EN_FIRST" | xargs)
	[ "$first" -eq $((label + 1)) ] && [ "$english" -gt "$first" ] && [ "$en_first" -eq $((english + 1)) ]
	assert_line "'block' と示された行は元のままにして、その変更をパッチから取り除いて"
	assert_line 'khsend: 1 通のメッセージを確認しました: 送信を止める変更 1 件, レビュアー向けのメモ 0 件, 警告 0 件'
}

@test "in the C locale LANGUAGE is ignored, as gettext ignores it" {
	LANGUAGE=ja run -1 khsend check "$PATCH"
	[ "$output" = "$ENGLISH" ]
	LC_ALL=POSIX LANGUAGE=ja:zh_CN run -1 khsend check "$PATCH"
	[ "$output" = "$ENGLISH" ]
}

@test "LANG=zh_CN.UTF-8: Simplified Chinese first, then English, even where the locale is not installed" {
	unset LC_ALL
	LANG=zh_CN.UTF-8 run -1 khsend check "$PATCH"
	assert_line --index 0 '感谢你为内核所做的工作！khsend 发现了 1 处修改，改动的是维护者故意这样写的'
	read -r label first english < <(line_numbers "$ZH_LABEL" "$ZH_FIRST" '    [English]' | xargs)
	[ "$first" -eq $((label + 1)) ] && [ "$english" -gt "$first" ]
	assert_line "$EN_FIRST"
	# LC_MESSAGES comes before LANG, and LC_ALL before both.
	LANG=zh_CN.UTF-8 LC_MESSAGES=ja_JP.UTF-8 run -1 khsend check "$PATCH"
	assert_line "$JA_LABEL"
	refute_line "$ZH_LABEL"
	LC_ALL=C LC_MESSAGES=ja_JP.UTF-8 run -1 khsend check "$PATCH"
	[ "$output" = "$ENGLISH" ]
}

@test "LANGUAGE is a list: each entry takes the first language it has, and English ends the list" {
	LC_ALL=C.UTF-8 LANGUAGE=ko:zh_CN:ja run -1 khsend check "$PATCH"
	assert_line "$ZH_LABEL"
	refute_line "$JA_LABEL"
	# ja_JP is tried as ja_JP, then ja, as gettext does.
	LC_ALL=C.UTF-8 LANGUAGE=ja_JP run -1 khsend check "$PATCH"
	assert_line "$JA_LABEL"
	LC_ALL=C.UTF-8 LANGUAGE=en:ja run -1 khsend check "$PATCH"
	[ "$output" = "$ENGLISH" ]
}

@test "--lang comes first, then git config khsend.lang, then the environment" {
	git config --global khsend.lang ja
	unset LC_ALL
	LANG=zh_CN.UTF-8 run -1 khsend check "$PATCH"
	assert_line "$JA_LABEL"
	refute_line "$ZH_LABEL"
	LANG=zh_CN.UTF-8 run -1 khsend check --lang zh_CN "$PATCH"
	assert_line "$ZH_LABEL"
	refute_line "$JA_LABEL"
	LANG=zh_CN.UTF-8 run -1 khsend check --lang en "$PATCH"
	[ "$output" = "$ENGLISH" ]
	# A locale name is a tag without its codeset.
	run -1 khsend check --lang zh_CN.UTF-8 "$PATCH"
	assert_line "$ZH_LABEL"
	run -0 khsend explain --lang zh_CN sched-topology-borken
	assert_line '  [简体中文] （此译文尚未经母语者审校）'
	assert_line '  [English]'
	assert_line '位于：kernel/sched/topology.c'
}

@test "a language the policy does not have, or an unknown tag, gets the English text alone" {
	write_zh_only_policy
	run -1 khsend check --policy zh-only.yaml "$PATCH"
	english=$output
	# Japanese messages, but the entry has no Japanese: its English, unmarked.
	run -1 khsend check --lang ja --policy zh-only.yaml "$PATCH"
	assert_line '    "borken" is hacker slang for "broken".'
	refute_line '    [English]'
	refute_line --partial '日本語'
	assert_line --partial 'が変更されています'
	# A reviewed translation carries no note.
	run -1 khsend check --lang zh_CN --policy zh-only.yaml "$PATCH"
	assert_line '    [简体中文]'
	assert_line '    “borken” 是黑客俚语，就是 “broken”。'
	# A tag khsend knows nothing about: English, byte for byte.
	run -1 khsend check --lang xx --policy zh-only.yaml "$PATCH"
	[ "$output" = "$english" ]
	run -1 khsend check --lang tlh "$PATCH"
	[ "$output" = "$ENGLISH" ]
	unset LC_ALL
	LANG=xx_YY.UTF-8 run -1 khsend check "$PATCH"
	[ "$output" = "$ENGLISH" ]
}

@test "English readers get the C locale's report, byte for byte" {
	unset LC_ALL
	for lang in en_US.UTF-8 en_GB.UTF-8 C.UTF-8 POSIX; do
		LANG=$lang run -1 khsend check "$PATCH"
		[ "$output" = "$ENGLISH" ] || { echo "LANG=$lang differs"; false; }
	done
	run -0 khsend explain --lang en sched-topology-borken
	refute_line --partial '['
}

@test "a tag that is not one is an error, from --lang and from khsend.lang" {
	run -2 --separate-stderr khsend check --lang '../etc' "$PATCH"
	[ "$stderr" = "khsend: fatal: --lang '../etc' is not a language tag (write it like ja, zh_CN or pt_BR)" ]
	git config --global khsend.lang 'ja JP'
	run -2 --separate-stderr khsend check "$PATCH"
	[ "$stderr" = "khsend: fatal: khsend.lang 'ja JP' is not a language tag (write it like ja, zh_CN or pt_BR)" ]
	# Garbage in the environment is ignored, as gettext ignores it.
	git config --global --unset khsend.lang
	LC_ALL=C.UTF-8 LANGUAGE='../../x:ja' run -1 khsend check "$PATCH"
	assert_line "$JA_LABEL"
}

@test "errors, warnings and their prefixes are translated too" {
	LC_ALL=C.UTF-8 LANGUAGE=zh_CN run -2 --separate-stderr khsend check /nonexistent/patch
	[ "$stderr" = "khsend: 错误：'/nonexistent/patch'：没有这个文件或目录（而且这里不是 git 仓库，所以它也不是版本号）" ]
	LC_ALL=C.UTF-8 LANGUAGE=ja run -2 --separate-stderr khsend explain borken
	[ "$stderr" = "khsend: エラー: ポリシーエントリ 'borken' はありません（もしかして: sched-topology-borken, borken-comments, rv-wwnr-model-borken, scsi-borken-identifiers?）" ] ||
		[[ "$stderr" == "khsend: エラー: ポリシーエントリ 'borken' はありません（もしかして: "* ]]
}

@test "khsend's own LANGUAGE is not its children's: git and the sendmail get the user's back" {
	clone_mini_kernel linux
	cd linux
	make_commit kernel/kprobes.c 's/immmediately/immediately/' 'kprobes: fix a typo in a comment'
	cat > "$BATS_TEST_TMPDIR/env.sendmail" <<'EOS'
#!/bin/sh
echo "LANGUAGE=${LANGUAGE-unset} KHSEND_LANG=${KHSEND_LANG-unset}" >> "$(dirname "$0")/sendmail.env"
cat > /dev/null
EOS
	chmod +x "$BATS_TEST_TMPDIR/env.sendmail"
	LC_ALL=C.UTF-8 LANGUAGE=fr run -0 khsend --lang ja --no-boot --to=list@example.org --confirm=never \
		--no-validate --smtp-server="$BATS_TEST_TMPDIR/env.sendmail" -1
	run cat "$BATS_TEST_TMPDIR/sendmail.env"
	assert_output 'LANGUAGE=fr KHSEND_LANG=ja'
	# Without one of its own, khsend changes nothing.
	rm "$BATS_TEST_TMPDIR/sendmail.env"
	khsend --no-boot --to=list@example.org --confirm=never --no-validate \
		--smtp-server="$BATS_TEST_TMPDIR/env.sendmail" -1
	run cat "$BATS_TEST_TMPDIR/sendmail.env"
	assert_output 'LANGUAGE=unset KHSEND_LANG=unset'
}

@test "the catalogues hold every message of the sources, translated, and pass msgfmt --check" {
	command -v xgettext >/dev/null || skip "gettext is not installed"
	(cd "$ROOT" && xgettext --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --keyword=Q_:1,2 \
		-o "$BATS_TEST_TMPDIR/now.pot" wrapper/khsend.c wrapper/*/*.c)
	for po in "$ROOT"/po/*.po; do
		run msgcmp "$po" "$BATS_TEST_TMPDIR/now.pot"
		assert_success
		run msgfmt --check --statistics -o /dev/null "$po"
		assert_success
		refute_output --partial 'untranslated'
		refute_output --partial 'fuzzy'
	done
	while read -r lang; do
		[ -f "$ROOT/po/$lang.po" ]
	done < <(sed -e 's/#.*//' -e '/^$/d' "$ROOT/po/LINGUAS")
}

@test "khsend's own English avoids the idioms that readers found hard" {
	(cd "$ROOT" && xgettext --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --keyword=Q_:1,2 \
		-o "$BATS_TEST_TMPDIR/now.pot" wrapper/khsend.c wrapper/*/*.c)
	# Every msgid and the text the reply writes, joined across line breaks.
	run bash -c 'cat "$1"/now.pot "$2"/wrapper/reply/compose.c | sed -e "s/^[^\"]*\"//" -e "s/\"[^\"]*$//" |
		tr "\n" " " | grep -oiF -f <(grep -v "^#" "$2/tests/fixtures/hard-idioms.txt")' _ "$BATS_TEST_TMPDIR" "$ROOT"
	assert_output ''
}

@test "a bad explain mapping is reported as file:line:col, and the exit status is 2" {
	cat > bad.yaml <<'EOF'
version: 1
entries:
  - id: no-english
    string: "arch topology borken"
    explain:
      ja: 冗談です
  - id: bad-tags
    string: "histerical raisins"
    explain:
      en: a joke on "historical reasons"
      ../x: nope
      en_GB: colour
      zh_CN:
        reviewed: true
      ja: ""
  - id: bad-values
    string: "Fscking"
    explain:
      en: [a, list]
      ja: [a, list]
      zh_CN: { text: x, reviewed-by: Li Lei <li@example.org>, colour: red }
      ko: { text: x }
      ko: { text: y }
EOF
	run -2 --separate-stderr khsend policy check bad.yaml
	assert_equal "$stderr" "bad.yaml:6:7: 'explain' has no 'en' text (the English text is required, and always shown)
bad.yaml:11:7: '../x' in 'explain' is not a language tag (write it like en, ja, zh_CN or pt_BR)
bad.yaml:12:7: 'en_GB' in 'explain': the English text is 'en'
bad.yaml:14:9: the 'zh_CN' translation has no 'text'
bad.yaml:15:11: the 'ja' text of 'explain' is empty
bad.yaml:19:11: 'en' in 'explain' must be text, not a list
bad.yaml:20:11: the 'ja' translation must be text or a mapping (text, reviewed, reviewed-by), not a list
bad.yaml:21:63: unknown key 'colour' in the 'zh_CN' translation (known keys: text, reviewed, reviewed-by)
bad.yaml:21:38: the 'zh_CN' translation names a reviewer, so it needs 'reviewed: true'
bad.yaml:23:7: duplicate key 'ko' in 'explain' (first at line 22)
khsend: error: 10 problems found"
	# The same policy given to check: nothing is checked with half a policy.
	run -2 --separate-stderr khsend check --lang ja --policy bad.yaml "$PATCH"
	assert_output ''
	[[ "$stderr" == "bad.yaml:6:7: 'explain' has no 'en' text"* ]]
}

@test "every entry of the shipped policy is explained in Simplified Chinese and Japanese" {
	run -0 khsend policy list --languages
	n=$(khsend policy list --ids | wc -l)
	assert_line --index 0 "en       $n entries"
	assert_line --regexp "^ja       $n entries, [0-9]+ reviewed  \\(Japanese\\)\$"
	assert_line --regexp "^zh_CN    $n entries, [0-9]+ reviewed  \\(Simplified Chinese\\)\$"
}
