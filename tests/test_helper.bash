# SPDX-License-Identifier: GPL-2.0-only
# Shared by every test file: a pinned environment and helpers.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0

ROOT=$(cd "${BATS_TEST_DIRNAME:-$(dirname "${BASH_SOURCE[0]}")}/.." && pwd)
KHSEND=${KHSEND:-$ROOT/build/khsend}
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
# Outside the repository and kept between runs: the mini tree and, later, kernel builds.
KHSEND_TEST_CACHE=${KHSEND_TEST_CACHE:-${TMPDIR:-/tmp}/khsend-test-cache}
MINI_KERNEL=$KHSEND_TEST_CACHE/mini-linux-6.1
export ROOT KHSEND KERNEL_TARBALL KHSEND_TEST_CACHE MINI_KERNEL

# The same identity and dates for every commit, as git's test-lib.sh does.
pin_environment() {
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME"
	export LC_ALL=C TZ=UTC LANG=C
	export XDG_CONFIG_HOME="$HOME/.config" XDG_CACHE_HOME="$HOME/.cache"
	unset XDG_DATA_HOME XDG_STATE_HOME VISUAL EMAIL NO_COLOR
	export EDITOR=: PAGER=cat GIT_PAGER=cat TERM=dumb
	while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(GIT_[A-Z_]*\)=.*/\1/p')
	export GIT_CONFIG_NOSYSTEM=1
	export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.com'
	export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='committer@example.com'
	export GIT_AUTHOR_DATE='1112354055 +0200' GIT_COMMITTER_DATE='1112354055 +0200'
	# The shipped policy is the system layer, whatever is installed on the machine.
	export KHSEND_SYSTEM_POLICY="$ROOT/policy.yaml"
	PATH="$(dirname "$KHSEND"):/usr/local/bin:/usr/bin:/bin"
	export PATH
}

common_setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	pin_environment
	cd "$BATS_TEST_TMPDIR" || return 1
}

# A git repository holding the mini kernel at its base commit, in ./linux.
clone_mini_kernel() {
	git clone -q "$MINI_KERNEL" "${1:-linux}"
	git -C "${1:-linux}" config user.name "$GIT_AUTHOR_NAME"
	git -C "${1:-linux}" config user.email "$GIT_AUTHOR_EMAIL"
}

make_mini_kernel() {
	local stamp want
	want="$(stat -c '%s %Y' "$KERNEL_TARBALL") $(sha1sum < "$BATS_TEST_DIRNAME/kernel-files.txt")"
	stamp=$MINI_KERNEL.stamp
	if [ -d "$MINI_KERNEL/.git" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	rm -rf "$MINI_KERNEL" "$MINI_KERNEL.tmp"
	mkdir -p "$MINI_KERNEL.tmp"
	grep -v '^#' "$BATS_TEST_DIRNAME/kernel-files.txt" | sed 's|^|linux-source-6.1/|' |
		tar -xJf "$KERNEL_TARBALL" -C "$MINI_KERNEL.tmp" -T -
	mv "$MINI_KERNEL.tmp/linux-source-6.1" "$MINI_KERNEL"
	rmdir "$MINI_KERNEL.tmp"
	(
		cd "$MINI_KERNEL" &&
		git init -q -b master &&
		git add -A &&
		GIT_AUTHOR_NAME=khsend GIT_AUTHOR_EMAIL=khsend@localhost \
		GIT_COMMITTER_NAME=khsend GIT_COMMITTER_EMAIL=khsend@localhost \
		GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000' \
			git commit -q -m 'linux-source 6.1.192 (a few files)'
	)
	echo "$want" > "$stamp"
}

# Edit a file with a sed expression and commit it: make_commit FILE SED-EXPR SUBJECT
make_commit() {
	local file=$1 expr=$2 subject=$3
	sed -i -e "$expr" "$file" &&
	git add "$file" &&
	git commit -q -m "$subject" -m "Signed-off-by: A U Thor <author@example.com>"
}

# Fail unless the file changed (guards against a sed that silently matched nothing).
assert_file_changed() {
	run git diff --quiet HEAD~1 -- "$1"
	assert_failure
}

# A t9001-style fake sendmail in ./NAME/: each run records its argv
# (commandlineN, one "!arg!" a line) and the message (msgtxtN).
make_sendmail() {
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	cat > "$BATS_TEST_TMPDIR/$1/fake.sendmail" <<'EOS'
#!/bin/sh
d=$(dirname "$0")
n=1
while [ -e "$d/msgtxt$n" ]; do n=$((n + 1)); done
for a in "$@"; do echo "!$a!"; done > "$d/commandline$n"
cat > "$d/msgtxt$n"
EOS
	chmod +x "$BATS_TEST_TMPDIR/$1/fake.sendmail"
	echo "$BATS_TEST_TMPDIR/$1/fake.sendmail"
}

# How many messages a fake sendmail got.
sent_count() {
	find "$BATS_TEST_TMPDIR/$1" -name 'msgtxt*' | wc -l
}

# A message with the values git send-email generates (ids and dates) taken out.
normalized() {
	sed -E -e 's/^(Message-Id|Date|In-Reply-To|References): .*/\1: <normalized>/' \
		-e 's/^ <[^>]*@[^>]*>$/ <normalized>/' "$1"
}

# Fail unless two fake sendmails got the same messages (normalized) with the same argv.
assert_same_delivery() {
	local a=$1 b=$2 n
	n=$(sent_count "$a")
	[ "$n" -gt 0 ] || fail "nothing was delivered to $a"
	[ "$n" -eq "$(sent_count "$b")" ] || fail "$a got $n messages, $b $(sent_count "$b")"
	for i in $(seq "$n"); do
		diff -u <(normalized "$BATS_TEST_TMPDIR/$b/msgtxt$i") <(normalized "$BATS_TEST_TMPDIR/$a/msgtxt$i") ||
			fail "message $i differs"
		cmp "$BATS_TEST_TMPDIR/$a/commandline$i" "$BATS_TEST_TMPDIR/$b/commandline$i" ||
			fail "the argv of message $i differs"
	done
}

# Everything of the user's that khsend must not touch: HEAD, branch, index bytes, tree, given files.
user_state() {
	local repo=$1
	shift
	git -C "$repo" rev-parse HEAD
	git -C "$repo" symbolic-ref -q HEAD || echo detached
	sha1sum < "$repo/.git/index"
	(cd "$repo" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum)
	for f in "$@"; do sha1sum < "$f"; ls -l --time-style=+%s "$f" | cut -d' ' -f1,5-6; done
}
