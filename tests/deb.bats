#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package: "dpkg-buildpackage -us -uc -b" builds it (.ci/deb, from
# a clean export of HEAD, lintian clean), and the khsend it installs works on
# its own: unpacked into a root of its own, with the source tree not on PATH,
# it checks the example series with the policy, hooks, man pages and
# completion it installed.

load test_helper

setup_file() {
	command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null && command -v lintian >/dev/null ||
		skip "dpkg-dev, debhelper or lintian is not installed (.ci/deps installs them)"
	git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null || skip "not a git checkout"
	# One build per committed tree, kept in the test cache.
	local tree dir
	tree=$(git -C "$ROOT" rev-parse HEAD^{tree})
	dir=$KHSEND_TEST_CACHE/deb/$tree
	if ! ls "$dir"/khsend_*.deb >/dev/null 2>&1; then
		rm -rf "$dir"
		"$ROOT/.ci/deb" "$dir" HEAD >/dev/null
	fi
	DEB=$(ls "$dir"/khsend_*.deb)
	export DEB
}

setup() {
	common_setup
	[ -n "${DEB-}" ] || skip "no package was built"
	PKGROOT=$BATS_TEST_TMPDIR/root
	dpkg-deb -x "$DEB" "$PKGROOT"
	# Only the system's directories and the package's: not the source tree or its build.
	PATH=$PKGROOT/usr/bin:/usr/bin:/bin
	unset KHSEND KHSEND_SYSTEM_POLICY
}

@test "the package installs the binary, the policy, the hooks, the guest init, the man pages and the completion" {
	run -0 dpkg-deb -c "$DEB"
	local f
	for f in ./usr/bin/khsend ./usr/share/khsend/policy.yaml ./usr/share/khsend/boot.config \
		./usr/share/khsend/hooks/sendemail-validate ./usr/share/khsend/hooks/applypatch-msg \
		./usr/share/khsend/hooks/pre-applypatch ./usr/share/khsend/hooks/pre-commit \
		./usr/lib/khsend/boot-init ./usr/share/man/man1/khsend.1.gz ./usr/share/man/man5/khsend-policy.5.gz \
		./usr/share/bash-completion/completions/khsend ./usr/share/doc/khsend/copyright \
		./usr/share/doc/khsend/NEWS.gz; do
		assert_line --regexp " $f( |\$)"
	done
	local version
	version=$(sed -n '1s/^khsend (\([^)]*\)).*/\1/p' "$ROOT/debian/changelog")
	run -0 dpkg-deb -f "$DEB" Package Version Depends
	assert_line 'Package: khsend'
	assert_line "Version: $version"
	assert_line --regexp '^Depends: .*libgit2-1\.5.*git-email'
	run -0 "$PKGROOT/usr/bin/khsend" --version
	assert_output "khsend version $version"
}

@test "the installed khsend checks the example series with the installed policy" {
	[ "$(command -v khsend)" = "$PKGROOT/usr/bin/khsend" ]
	run -0 khsend policy check
	assert_line "$PKGROOT/usr/share/khsend/policy.yaml: ok"
	run -0 khsend check "$ROOT/examples/typo-fixes"
	assert_output 'khsend: 4 messages checked, no protected string is changed'
	run -1 khsend check "$ROOT/examples/borken-fix.patch"
	assert_line --partial 'block: sched-topology-borken: "arch topology borken" is changed'
	# The same series, sent: the typo fixes go out to a fake sendmail, the borken fix does not.
	local sm
	sm=$(make_sendmail sent)
	run -0 khsend --no-boot --confirm=never --to=list@example.org --smtp-server="$sm" "$ROOT/examples/typo-fixes"
	[ "$(sent_count sent)" -eq 4 ]
	run -1 khsend --no-boot --confirm=never --to=list@example.org --smtp-server="$sm" "$ROOT/examples/borken-fix.patch"
	[ "$(sent_count sent)" -eq 4 ]
}

@test "the installed hooks run the installed khsend, found on PATH" {
	clone_mini_kernel linux
	cd linux
	run -0 khsend install-hooks
	cmp .git/hooks/pre-commit "$PKGROOT/usr/share/khsend/hooks/pre-commit"
	run git am "$ROOT/examples/borken-fix.patch"
	assert_failure
	assert_output --partial 'khsend: this patch makes 1 change to text kept that way on purpose'
	git am --abort
	run -0 khsend uninstall-hooks
	[ ! -e .git/hooks/pre-commit ]
}

@test "the installed man pages and completion work" {
	run -0 bash -c "LC_ALL=C MANWIDTH=80 man -l '$PKGROOT/usr/share/man/man1/khsend.1.gz' | col -bx"
	assert_line --regexp '^KHSEND\(1\) +khsend General Commands Manual +KHSEND\(1\)$'
	assert_output --partial "/usr/share/khsend/policy.yaml"
	run -0 bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1/usr/share/bash-completion/completions/khsend"
		COMP_WORDS=(khsend install-hooks pre-) COMP_CWORD=2 COMP_LINE="khsend install-hooks pre-" COMP_POINT=25
		_khsend khsend pre- install-hooks
		printf "%s\n" "${COMPREPLY[@]}"' _ "$PKGROOT"
	assert_output "$(printf '%s\n' pre-applypatch pre-commit)"
}
