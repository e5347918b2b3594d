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
