#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# make install and make uninstall mirror each other, and the installed
# khsend finds what it needs from PREFIX.

load test_helper

setup() {
	common_setup
	# A build of its own, so the binary under test is not rebuilt under it.
	BUILD=$BATS_TEST_TMPDIR/build
}

# make in the source tree with our own build directory: mk TARGET VAR=VALUE...
mk() {
	make -s -C "$ROOT" OUT="$BUILD" "$@"
}

@test "make install puts each file in its place, and make uninstall takes them all away" {
	dest=$BATS_TEST_TMPDIR/dest
	mkdir -p "$dest/usr/bin"
	echo 'not khsend' >"$dest/usr/bin/other-tool"
	run mk install PREFIX=/usr DESTDIR="$dest"
	assert_success
	[ "$(stat -c %a "$dest/usr/bin/khsend")" = 755 ]
	cmp "$ROOT/policy.yaml" "$dest/usr/share/khsend/policy.yaml"
	[ "$(stat -c %a "$dest/usr/share/khsend/policy.yaml")" = 644 ]
	cmp "$ROOT/completion/khsend.bash" "$dest/usr/share/bash-completion/completions/khsend"
	for page in man1/khsend.1 man5/khsend-policy.5; do
		[ "$(stat -c %a "$dest/usr/share/man/$page")" = 644 ]
		run --separate-stderr env MANWIDTH=80 man --warnings -l "$dest/usr/share/man/$page"
		assert_success
		[ -z "$stderr" ]
	done
	# The installed page names the installed paths.
	run env LC_ALL=C MANWIDTH=200 man -l "$dest/usr/share/man/man1/khsend.1"
	assert_line --partial '/usr/share/khsend/policy.yaml'
	refute_output --partial '/usr/local/'
	for hook in "$ROOT"/hooks/*; do
		[ -e "$hook" ] || continue
		cmp "$hook" "$dest/usr/share/khsend/hooks/${hook##*/}"
		[ -x "$dest/usr/share/khsend/hooks/${hook##*/}" ]
	done

	run mk uninstall PREFIX=/usr DESTDIR="$dest"
	assert_success
	run find "$dest" -type f
	assert_output "$dest/usr/bin/other-tool"
	[ ! -e "$dest/usr/share/khsend" ]
	[ -d "$dest/usr/share/man/man1" ]	# not khsend's to remove
}

@test "make install builds nothing and writes nothing into the build directory" {
	mk all
	touch "$BATS_TEST_TMPDIR/built"
	sleep 1
	run make -C "$ROOT" OUT="$BUILD" install PREFIX=/usr DESTDIR="$BATS_TEST_TMPDIR/dest"
	assert_success
	# No compiler ran...
	refute_output --partial ' -c -o '
	# ...and the build directory is as make left it: root could not leave files there.
	run find "$BUILD" -newer "$BATS_TEST_TMPDIR/built"
	assert_output ''
	cmp "$BUILD/khsend" "$BATS_TEST_TMPDIR/dest/usr/bin/khsend"
}

@test "the installed khsend finds its files from where it is, even after the tree moved" {
	prefix=$BATS_TEST_TMPDIR/prefix
	mk all
	run mk install PREFIX="$prefix"
	assert_success
	unset KHSEND_SYSTEM_POLICY
	khsend=$prefix/bin/khsend
	run --separate-stderr "$khsend" policy check
	assert_success
	assert_line --index 0 "$prefix/share/khsend/policy.yaml: ok"
	# Moved as a whole (a relocated package, a renamed directory): it still finds them.
	mv "$prefix" "$prefix.moved"
	run --separate-stderr "$prefix.moved/bin/khsend" policy check
	assert_success
	assert_line --index 0 "$prefix.moved/share/khsend/policy.yaml: ok"
	mv "$prefix.moved" "$prefix"

	# The shipped example series: the borken fix is blocked, the typo fixes go through.
	run "$khsend" check "$ROOT/examples/borken-fix.patch"
	assert_failure 1
	assert_line 'kernel/sched/topology.c:2196: block: sched-topology-borken: "arch topology borken" is changed'
	run "$khsend" check "$ROOT/examples/typo-fixes"
	assert_success
	assert_output 'khsend: 4 messages checked, no protected string is changed'
	run "$khsend" reply "$ROOT/examples/borken-fix.patch"
	assert_success
	assert_line 'In-Reply-To: <20210526021856.9060-1-thunder.leizhen@huawei.com>'

	# It is the installed file that is read, not the built-in copy...
	sed -i 's/string: "arch topology borken"/string: "arch topology borken, really"/' \
		"$prefix/share/khsend/policy.yaml"
	run "$khsend" check "$ROOT/examples/borken-fix.patch"
	assert_success
	# ...which is used when the file is missing.
	rm "$prefix/share/khsend/policy.yaml"
	run "$khsend" policy check
	assert_line --index 0 '<built-in policy.yaml>: ok'
	run "$khsend" check "$ROOT/examples/borken-fix.patch"
	assert_failure 1

	# The completion loads, and uninstall leaves nothing behind.
	bash -n "$prefix/share/bash-completion/completions/khsend"
	cp "$ROOT/policy.yaml" "$prefix/share/khsend/policy.yaml"
	run mk uninstall PREFIX="$prefix"
	assert_success
	run find "$prefix" -type f
	assert_output ''
}
