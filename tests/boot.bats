#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
# khsend boot: real linux-source 6.1, real builds, real QEMU.
#
# The default tree and its build directory live in a suite-level cache
# ($KHSEND_TEST_CACHE/boot, kept between runs), so the cold build happens
# once and every later test rebuilds only init/main.c.  Verdicts are
# wiped at the start of each run so that every run builds and boots.

setup_file() {
	load test_helper
	# Say what is missing rather than fail test by test (Debian package names).
	local tool missing=
	for tool in qemu-system-x86_64:qemu-system-x86 flex:flex bison:bison bc:bc gcc:gcc \
		make:make ar:binutils; do
		command -v "${tool%%:*}" > /dev/null || missing+=" ${tool#*:}"
	done
	[ -e /usr/include/libelf.h ] || missing+=" libelf-dev"
	[ -e "$KERNEL_TARBALL" ] || missing+=" linux-source-6.1"
	if [ -n "$missing" ]; then
		echo "# khsend boot tests need: apt-get install$missing" >&3
		return 1
	fi
	export KHSEND_CACHE_DIR="$KHSEND_TEST_CACHE/boot"
	mkdir -p "$KHSEND_CACHE_DIR"
	rm -rf "$KHSEND_CACHE_DIR"/trees/*/results
}

setup() {
	load test_helper
	common_setup
	export KHSEND_CACHE_DIR="$KHSEND_TEST_CACHE/boot"
	DEFAULT_SRC="$KHSEND_CACHE_DIR/trees/default/src"
}

# A patch against linux-source 6.1 made in a clone of the mini kernel (same files):
# make_patch NAME SED-EXPR -> $BATS_TEST_TMPDIR/NAME.patch
make_patch() {
	local name=$1 expr=$2
	[ -d linux ] || clone_mini_kernel linux
	(
		cd linux &&
		make_commit init/main.c "$expr" "init: $name" &&
		git format-patch -q -1 --stdout > "$BATS_TEST_TMPDIR/$name.patch"
	)
	run git -C linux diff --quiet HEAD~1 -- init/main.c
	assert_failure
	git -C linux reset -q --hard HEAD~1
}

# Insert C statements into kernel_init() of init/main.c, after do_sysctl_args().
after_sysctl_args() {
	printf 's|^\\tdo_sysctl_args();$|&\\n\\t%s|' "$1"
}

# The private tree is back on the base with nothing else in it.
assert_private_tree_reset() {
	run git -C "$1" status --porcelain --ignored
	assert_success
	assert_output ''
	run test -e "$1/.git/rebase-apply"
	assert_failure
}

serial_log_of() {
	sed -n 's/.*(serial log: \(.*\))$/\1/p' <<<"$1" | head -n 1
}

# A user's kernel checkout of the default tree, kept between runs like the default
# tree (its build stays warm), on a branch "work" at the packaged commit: $user.
user_checkout() {
	user="$KHSEND_TEST_CACHE/boot-user-linux"
	if [ ! -d "$user/.git" ]; then
		git clone -q "$DEFAULT_SRC" "$user.tmp"
		mv "$user.tmp" "$user"
	fi
	# The default tree keeps its objects loose (khsend sets gc.auto=0 there), and so does this
	# clone: without gc.auto=0 the test's own commits would start a repack in the background,
	# which changes git diff's abbreviated object names while the test compares snapshots.
	git -C "$user" config gc.auto 0
	git -C "$user" checkout -q -f -B work "$(git -C "$DEFAULT_SRC" rev-parse refs/khsend/base)"
	git -C "$user" clean -q -f -d
	git -C "$user" config user.name "$GIT_AUTHOR_NAME"
	git -C "$user" config user.email "$GIT_AUTHOR_EMAIL"
}

# A series in a scratch repository holding these files of the default tree:
# scratch_series DIR FILE... ; then make_commit in DIR and git format-patch.
scratch_repo() {
	local dir=$1 f
	shift
	mkdir "$dir"
	git -C "$dir" init -q
	for f in "$@"; do
		mkdir -p "$dir/$(dirname "$f")"
		git -C "$DEFAULT_SRC" show "refs/khsend/base:$f" > "$dir/$f" || return 1
	done
	git -C "$dir" add -A
	git -C "$dir" commit -q -m base
}

@test "khsend setup prepares the default tree once and is idempotent" {
	run "$KHSEND" setup
	assert_success
	run git -C "$DEFAULT_SRC" rev-list --count refs/khsend/base
	assert_output 1
	stamp=$(stat -c %Y.%i "$DEFAULT_SRC/.git/khsend-source")
	# A leftover of a killed setup is cleared; the tree is not extracted again.
	mkdir "$KHSEND_CACHE_DIR/trees/default/setup.stale"
	run --separate-stderr "$KHSEND" setup
	assert_success
	refute_output --partial extracting
	run test -e "$KHSEND_CACHE_DIR/trees/default/setup.stale"
	assert_failure
	assert_equal "$(stat -c %Y.%i "$DEFAULT_SRC/.git/khsend-source")" "$stamp"
	# Fixed identity and date: the commit id follows from the tree alone.
	tree=$(git -C "$DEFAULT_SRC" rev-parse 'refs/khsend/base^{tree}')
	want=$(printf 'tree %s\nauthor khsend <khsend@localhost> 1700000000 +0000\ncommitter khsend <khsend@localhost> 1700000000 +0000\n\n%s\n' \
		"$tree" "linux-source 6.1 (Debian's linux-source-6.1, as packaged)" |
		git hash-object -t commit --stdin)
	assert_equal "$(git -C "$DEFAULT_SRC" rev-parse refs/khsend/base)" "$want"
}

@test "a clean series boots, passes and reports its coverage" {
	make_patch hello "$(after_sysctl_args 'pr_info("khsend test: a harmless line\\n");')"
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/hello.patch"
	assert_success
	assert_output --partial 'verdict: PASS'
	assert_line --index 0 --regexp '^khsend boot: the default tree \(linux-source 6.1\), base [0-9a-f]{12} \(linux-source 6.1 as packaged\)$'
	assert_output --partial 'coverage: 1 of 1 touched files booted, 1 of 1 compiled'
	assert_output --partial 'booted:       init/main.c'
	refute_output --partial 'compile-test:'
	log=$(serial_log_of "$output")
	run grep -c 'khsend test: a harmless line' "$log"
	assert_output 1
	run grep -c '^KHSEND-INIT-OK ' "$log"
	assert_output 1
	assert_private_tree_reset "$DEFAULT_SRC"
}

@test "an mbox of several mails boots, inside a repository and outside one" {
	clone_mini_kernel other
	(
		cd other &&
		make_commit init/main.c "$(after_sysctl_args 'pr_info("khsend test: one\\n");')" 'init: one' &&
		make_commit init/main.c 's/khsend test: one/khsend test: two/' 'init: two' &&
		git format-patch -q --stdout -2 > "$BATS_TEST_TMPDIR/series.mbox"
	)
	# Inside a repository (which has nothing to do with the series) ...
	cd other
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/series.mbox"
	assert_success
	assert_output --partial 'series: 2 patches applied'
	assert_output --partial 'verdict: PASS'
	# ... and outside one: the same verdict, from the result cache.
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/series.mbox"
	assert_success
	assert_output --partial 'verdict: PASS'
	assert_private_tree_reset "$DEFAULT_SRC"
}

# A comment on drivers/char/lp.c (PRINTER needs PARPORT, which tinyconfig leaves off),
# one on drivers/input/serio/libps2.c (SERIO_LIBPS2 and SERIO, which makes i8042 and
# serport visible, both default y) and a change to a driver for another architecture,
# drivers/char/hw_random/omap-rng.c (HW_RANDOM_OMAP: only with COMPILE_TEST on x86_64):
# make_driver_series DIR [SED-FOR-OMAP]
# (kernel/kprobes.c, whose KPROBES needs MODULES, is in the seed's series of make
# bench-boot: MODULES=y recompiles most of the kernel, too slow a test.)
# shellcheck disable=SC2016 # sed's '$a': append a line
make_driver_series() {
	local dir=$1 omap=${2:-'$a /* khsend test: omap */'}
	scratch_repo "$dir" drivers/char/lp.c drivers/input/serio/libps2.c \
		drivers/char/hw_random/omap-rng.c &&
	(
		cd "$dir" &&
		make_commit drivers/char/lp.c '$a /* khsend test: lp */' 'char/lp: a comment' &&
		make_commit drivers/input/serio/libps2.c '$a /* khsend test: libps2 */' \
			'Input: libps2: a comment' &&
		make_commit drivers/char/hw_random/omap-rng.c "$omap" 'hwrng: omap: a change' &&
		git format-patch -q -3 -o "$BATS_TEST_TMPDIR/$dir"
	)
}

@test "the Kconfig chase enables each touched file's symbol with its dependencies, and coverage says where each file was compiled" {
	make_driver_series drivers
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/drivers"
	assert_success
	assert_output --partial 'series: 3 patches applied'
	assert_output --partial ' + CONFIG_PRINTER=y'
	# The dependency chain, from the kernel's own Kconfig (kconfiglib).
	assert_line '    CONFIG_PRINTER=y needs (and so got): CONFIG_PARPORT=y'
	# libps2.o needs SERIO_LIBPS2 and its directory SERIO (drivers/Makefile): both asked for.
	assert_output --partial ' + CONFIG_SERIO_LIBPS2=y + CONFIG_SERIO=y'
	# What cannot be on x86_64 says why, and is compiled in the compile-test instead.
	assert_line --regexp '^    not enabled: CONFIG_HW_RANDOM_OMAP=y \(cannot be on x86_64 here: .*COMPILE_TEST is left off in the booted kernel\)\)$'
	assert_output --partial 'coverage: 2 of 3 touched files booted, 3 of 3 compiled'
	assert_line '    booted:       drivers/char/lp.c'
	assert_line '    booted:       drivers/input/serio/libps2.c'
	assert_line '    compiled:     drivers/char/hw_random/omap-rng.c (compile-test only)'
	assert_output --regexp 'compile-test: allmodconfig, 1 built, 0 failed, 0 off'
	assert_output --partial 'verdict: PASS'
	[ -s "$KHSEND_CACHE_DIR/trees/default/compile/drivers/char/hw_random/omap-rng.o" ]
	# Without the chase lp.c would not be in the booted kernel: the build compiled it.
	[ -s "$KHSEND_CACHE_DIR/trees/default/build/drivers/char/lp.o" ]
	run grep -c -e '^CONFIG_PRINTER=y$' -e '^CONFIG_PARPORT=y$' -e '^CONFIG_SERIO=y$' \
		"$KHSEND_CACHE_DIR/trees/default/build/.config"
	assert_output 3
	# Settled as tinyconfig settles: what SERIO made visible (i8042, serport: default y)
	# stays off, as nothing the series touches needs it.
	run grep -c -e '^CONFIG_SERIO_I8042=' -e '^CONFIG_SERIO_SERPORT=' \
		"$KHSEND_CACHE_DIR/trees/default/build/.config"
	assert_output 0
}

@test "a compile-test catches a syntax error in a driver file the booted kernel does not contain" {
	make_driver_series broken 's/^static int omap_rng_probe(/static int omap_rng_probe(} /'
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/broken"
	assert_failure 1
	assert_output --partial 'compile-test: allmodconfig, 0 built, 1 failed, 0 off'
	assert_line --regexp '^    not compiled: drivers/char/hw_random/omap-rng.c \(the compile-test FAILED; see .*/compile-test.log\)$'
	assert_output --partial 'verdict: FAIL: a touched file does not compile in the compile-test (allmodconfig)'
	assert_output --regexp 'drivers/char/hw_random/omap-rng.c:[0-9]+:[0-9]+: error: '
	# The booted kernel itself was fine: it has no omap-rng.c.
	assert_output --partial 'booted:       drivers/char/lp.c'
	# --compile-test=none: nothing more than the boot (not the verdict cached above).
	run --separate-stderr "$KHSEND" boot --compile-test=none "$BATS_TEST_TMPDIR/broken"
	assert_success
	refute_output --partial 'cached'
	assert_line '    not compiled: drivers/char/hw_random/omap-rng.c (no compile-test (--compile-test=none))'
}

@test "a second run of the same series, and a v2 with only a new message, are answered from the cache" {
	make_patch cached "$(after_sysctl_args 'pr_info("khsend test: cache me\\n");')"
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/cached.patch"
	assert_success
	refute_output --partial 'cached'
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/cached.patch"
	assert_success
	assert_output --partial 'cached'
	assert_output --partial 'verdict: PASS'
	# Nothing was built or booted the second time.
	[[ "$stderr" != *"build ..."* && "$stderr" != *"boot ..."* ]]
	sed -e 's/^Subject: .*/Subject: [PATCH v2] init: cache me, reworded/' \
		"$BATS_TEST_TMPDIR/cached.patch" > "$BATS_TEST_TMPDIR/v2.patch"
	# --keep leaves the series applied in the private tree, cached or not.
	run --separate-stderr "$KHSEND" boot --keep "$BATS_TEST_TMPDIR/v2.patch"
	assert_success
	assert_output --partial 'cached'
	[[ "$stderr" == *"--keep: the series is left applied in '$DEFAULT_SRC'"* ]]
	run grep -c 'khsend test: cache me' "$DEFAULT_SRC/init/main.c"
	assert_output 1
}

@test "a series that adds panic() to init/main.c fails with the panic" {
	make_patch panic "$(after_sysctl_args 'panic("khsend test: deliberate panic");')"
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/panic.patch"
	assert_failure 1
	assert_output --partial 'verdict: FAIL: kernel panic'
	assert_output --partial 'Kernel panic - not syncing: khsend test: deliberate panic'
	assert_private_tree_reset "$DEFAULT_SRC"
}

@test "a series that adds WARN_ON(1) fails with the warning" {
	make_patch warn "$(after_sysctl_args 'WARN_ON(1);')"
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/warn.patch"
	assert_failure 1
	assert_output --partial 'verdict: FAIL: the kernel complained on the console'
	assert_output --regexp 'WARNING: CPU: 0 PID: 1 at init/main.c:[0-9]+ kernel_init'
	refute_output --partial 'pre-existing'
}

@test "khsend sends a series only after it booted clean, and one that panics not at all" {
	make_patch sendme "$(after_sysctl_args 'pr_info("khsend test: send me\\n");')"
	make_patch panicky "$(after_sysctl_args 'panic("khsend test: do not send me");')"
	khs=$(make_sendmail sent)
	cd linux
	run --separate-stderr khsend --to=list@example.org --confirm=never --smtp-server="$khs" \
		"$BATS_TEST_TMPDIR/sendme.patch"
	assert_success
	assert_output --partial 'verdict: PASS'
	[ "$(sent_count sent)" -eq 1 ]
	run grep -c 'khsend test: send me' "$BATS_TEST_TMPDIR/sent/msgtxt1"
	assert_output 1
	run --separate-stderr khsend --to=list@example.org --confirm=never --smtp-server="$khs" \
		"$BATS_TEST_TMPDIR/panicky.patch"
	assert_failure 1
	assert_output --partial 'verdict: FAIL: kernel panic'
	[[ "$stderr" == *"nothing was sent"* ]]
	[ "$(sent_count sent)" -eq 1 ]
	# khsend.boot=false (or --no-boot) sends without the smoke test.
	git config khsend.boot false
	run --separate-stderr khsend --to=list@example.org --confirm=never --smtp-server="$khs" \
		"$BATS_TEST_TMPDIR/panicky.patch"
	assert_success
	refute_output --partial 'verdict'
	[ "$(sent_count sent)" -eq 2 ]
}

@test "khsend b4 boots the prep branch's messages before b4 sends them" {
	# b4 0.12 finds the cover letter with "git log --since=1.year": real dates here.
	unset GIT_AUTHOR_DATE GIT_COMMITTER_DATE
	clone_mini_kernel linux
	cd linux
	b4 prep -n smoke > /dev/null 2>&1
	make_commit init/main.c "$(after_sysctl_args 'panic("khsend test: do not send me");')" 'init: a panic'
	printf '#!/bin/sh\nsed -i -e "s/^EDITME: cover title.*/A panic/" -e "/^EDITME: describe/,/under-the-cut/c\\\\\nIt panics." "$1"\n' \
		> "$BATS_TEST_TMPDIR/cover-editor"
	chmod +x "$BATS_TEST_TMPDIR/cover-editor"
	EDITOR=$BATS_TEST_TMPDIR/cover-editor b4 prep --edit-cover > /dev/null 2>&1 < /dev/null
	run git log -1 --format=%s HEAD~1
	assert_output 'A panic'
	git config sendemail.smtpserver "$(make_sendmail transport)"
	run bash -c 'echo | khsend b4 --no-sign --to list@example.org'
	assert_failure 1
	assert_output --partial 'verdict: FAIL: kernel panic'
	assert_output --partial 'nothing was sent'
	[ "$(sent_count transport)" -eq 0 ]
}

@test "a series that does not apply exits 2 with git's message and leaves the tree clean" {
	clone_mini_kernel linux
	(
		cd linux &&
		make_commit init/main.c 's/^\tdo_sysctl_args();$/\tdo_sysctl_args(); \/* one *\//' 'init: one' &&
		make_commit init/main.c 's/ \/\* one \*\// \/* two *\//' 'init: two' &&
		git format-patch -q -1 --stdout > "$BATS_TEST_TMPDIR/two.patch"
	)
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/two.patch"
	assert_failure 2
	[[ "$stderr" == *"does not apply to "*" (linux-source 6.1 as packaged) in the default tree"* ]]
	[[ "$stderr" == *"patch does not apply"* ]]
	[[ "$stderr" == *"--tree <dir> (or once: git config khsend.tree <dir>)"*"--base <rev>"*"--no-boot"* ]]
	assert_private_tree_reset "$DEFAULT_SRC"
	assert_equal "$(git -C "$DEFAULT_SRC" rev-parse HEAD)" \
		"$(git -C "$DEFAULT_SRC" rev-parse refs/khsend/base)"
}

@test "a kernel that hangs times out, and QEMU is gone afterwards" {
	make_patch hang "$(after_sysctl_args 'for (;;) msleep(1000);')"
	run --separate-stderr "$KHSEND" boot --timeout 20 "$BATS_TEST_TMPDIR/hang.patch"
	assert_failure 1
	assert_output --partial 'verdict: FAIL: timed out'
	log=$(serial_log_of "$output")
	nonce=$(grep -o 'khsend_nonce=[0-9a-f]*' "$log" | head -n 1)
	[ -n "$nonce" ]
	run pgrep -f "$nonce"
	assert_failure
	assert_private_tree_reset "$DEFAULT_SRC"
}

@test "Ctrl-C during the boot stops QEMU and resets the work tree" {
	make_patch hang "$(after_sysctl_args 'for (;;) msleep(1000);')"
	"$KHSEND" boot --timeout 300 "$BATS_TEST_TMPDIR/hang.patch" > out 2> err 3>&- &
	pid=$!
	# Wait for this run's QEMU (its kernel is under our cache), at most 5 minutes.
	for _ in $(seq 600); do
		pgrep -f "qemu-system-x86_64.*$KHSEND_CACHE_DIR" > /dev/null && break
		sleep 0.5
	done
	run pgrep -f "qemu-system-x86_64.*$KHSEND_CACHE_DIR"
	assert_success
	kill -INT "$pid"
	code=0
	wait "$pid" || code=$?
	assert_equal "$code" 130
	run pgrep -f "qemu-system-x86_64.*$KHSEND_CACHE_DIR"
	assert_failure
	run grep -c interrupted err
	assert_output 1
	assert_private_tree_reset "$DEFAULT_SRC"
}

@test "--tree boots commits of a user's checkout and leaves it bit-identical; base warnings are pre-existing" {
	user_checkout
	# The user's base already warns; the series on top only adds a line.  (commit -a and
	# add -f: Debian's top-level .gitignore ignores every path, tracked ones included.)
	sed -i -e "$(after_sysctl_args 'WARN_ON(1);')" "$user/init/main.c"
	git -C "$user" commit -q -a -m 'init: an old warning'
	sed -i -e "$(after_sysctl_args 'pr_info("khsend test: on top\\n");')" "$user/init/main.c"
	git -C "$user" commit -q -a -m 'init: on top'
	run git -C "$user" diff --quiet HEAD~2 -- init/main.c
	assert_failure
	# The user has work in progress too: a staged and an unstaged change.
	echo staged >> "$user/README"
	git -C "$user" add -f README
	echo unstaged >> "$user/COPYING"
	snapshot() {
		git -C "$user" rev-parse HEAD
		git -C "$user" symbolic-ref HEAD
		git -C "$user" show-ref
		sha1sum "$user/.git/index"
		git -C "$user" status --porcelain --ignored
		(cd "$user" && find . -path ./.git -prune -o -type f -printf '%p %s %T@\n' | sort | sha1sum)
		(cd "$user" && git diff HEAD | sha1sum)
	}
	before=$(snapshot)
	cd "$user"
	run --separate-stderr "$KHSEND" boot --tree "$user" HEAD~1..HEAD
	cd "$BATS_TEST_TMPDIR"
	assert_success
	assert_line --index 0 "khsend boot: $user (--tree), base $(git -C "$user" rev-parse --short=12 HEAD~1) (the parent of the series' first commit)"
	assert_output --partial 'verdict: PASS'
	assert_output --partial 'pre-existing'
	assert_output --regexp 'WARNING: CPU: 0 PID: 1 at init/main.c'
	assert_equal "$(snapshot)" "$before"
	private=$(ls -d "$KHSEND_CACHE_DIR"/trees/boot-user-linux-*/src)
	assert_private_tree_reset "$private"
}

@test "bad input is an error that names it" {
	clone_mini_kernel linux
	(cd linux && make_commit init/main.c 's/^\tdo_sysctl_args();$/&\n/' 'init: blank' &&
		git format-patch -q -1 --stdout > "$BATS_TEST_TMPDIR/ok.patch")
	run --separate-stderr "$KHSEND" boot --tree "$BATS_TEST_TMPDIR" ok.patch
	assert_failure 2
	[[ "$stderr" == *"--tree"*"not a git checkout"* ]]
	run --separate-stderr "$KHSEND" boot --tree linux ok.patch
	assert_failure 2
	[[ "$stderr" == *"does not look like a kernel tree"* ]]
	run --separate-stderr "$KHSEND" boot --base no-such-rev ok.patch
	assert_failure 2
	[[ "$stderr" == *"--base 'no-such-rev'"* ]]
	run --separate-stderr "$KHSEND" boot --timeout soon ok.patch
	assert_failure 2
	[[ "$stderr" == *"--timeout"* ]]
	KHSEND_CACHE_DIR="$BATS_TEST_TMPDIR/a cache" run --separate-stderr "$KHSEND" boot ok.patch
	assert_failure 2
	[[ "$stderr" == *"'$BATS_TEST_TMPDIR/a cache' has white space"* ]]
	# The git config keys are read (and checked) too.
	git config --global khsend.bootTimeout soon
	run --separate-stderr "$KHSEND" boot ok.patch
	assert_failure 2
	[[ "$stderr" == *"khsend.bootTimeout 'soon': expected seconds"* ]]
	git config --global --unset khsend.bootTimeout
	git config --global khsend.tree "$BATS_TEST_TMPDIR/linux"
	run --separate-stderr "$KHSEND" boot ok.patch
	assert_failure 2
	[[ "$stderr" == *"--tree '$BATS_TEST_TMPDIR/linux' does not look like a kernel tree"* ]]
	git config --global --unset khsend.tree
	git config --global khsend.cacheDir "$BATS_TEST_TMPDIR/a cache"
	KHSEND_CACHE_DIR='' run --separate-stderr "$KHSEND" boot ok.patch
	assert_failure 2
	[[ "$stderr" == *"'$BATS_TEST_TMPDIR/a cache' has white space"* ]]
	run --separate-stderr "$KHSEND" boot
	assert_failure 2
	printf 'Subject: [PATCH 0/1] cover\n\nJust words.\n' > cover.patch
	run --separate-stderr "$KHSEND" boot cover.patch
	assert_failure 2
	[[ "$stderr" == *"no patch to apply"* ]]
}

# "Mainline": a commit the packaged tree lacks, which the series depends on.
make_mainline_series() {
	user_checkout
	sed -i -e "$(after_sysctl_args 'pr_info("khsend test: mainline\\n");')" "$user/init/main.c"
	git -C "$user" commit -q -a -m 'init: a line of mainline'
	sed -i -e 's/khsend test: mainline/khsend test: mainline and the series/' "$user/init/main.c"
	git -C "$user" commit -q -a -m 'init: the series'
	git -C "$user" format-patch -q -1 --base=HEAD~1 --stdout > "$BATS_TEST_TMPDIR/on-mainline.patch"
	# The same patch as made in another clone (format-patch --zero-commit): nothing
	# in it names a commit of this one, and without a base-commit line...
	sed -e '/^base-commit: /d' -e '1s/^From [0-9a-f]\{40\} /From 0000000000000000000000000000000000000000 /' \
		"$BATS_TEST_TMPDIR/on-mainline.patch" > "$BATS_TEST_TMPDIR/no-base.patch"
	# ... or with the base-commit line of a commit this clone never had.
	sed -e 's/^base-commit: .*/base-commit: 5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e/' \
		-e '1s/^From [0-9a-f]\{40\} /From 0000000000000000000000000000000000000000 /' \
		"$BATS_TEST_TMPDIR/on-mainline.patch" > "$BATS_TEST_TMPDIR/elsewhere.patch"
	run grep -c -e '^From 0\{40\} ' -e '^base-commit: ' "$BATS_TEST_TMPDIR/no-base.patch"
	assert_output 1
	git -C "$user" reset -q --hard HEAD~1
}

@test "inside a kernel checkout a series boots there, on the base it names, a commit the packaged tree lacks" {
	make_mainline_series
	mainline=$(git -C "$user" rev-parse HEAD)
	# The user went on working: a commit of theirs changes the same line.
	sed -i -e 's/khsend test: mainline/khsend test: the user'"'"'s own/' "$user/init/main.c"
	git -C "$user" commit -q -a -m 'init: the user goes on'
	before=$(git -C "$user" rev-parse HEAD; git -C "$user" status --porcelain)
	cd "$user"
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/on-mainline.patch"
	assert_success
	assert_line --index 0 "khsend boot: $user (the repository you are in), base ${mainline:0:12} (the series' base-commit line)"
	assert_output --partial 'verdict: PASS'
	run grep -c 'khsend test: mainline and the series' "$(serial_log_of "$output")"
	assert_output 1
	# Without the base-commit line: not HEAD (it does not apply there) but the newest
	# commit with init/main.c as the series expects it.  The same source: the cached verdict.
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/no-base.patch"
	assert_success
	assert_line --index 0 "khsend boot: $user (the repository you are in), base ${mainline:0:12} (the newest commit with the files as the series expects them)"
	assert_output --partial 'cached'
	[[ "$stderr" == *"does not apply to HEAD of '$user'; it does to ${mainline:0:12}"* ]]
	assert_equal "$(git -C "$user" rev-parse HEAD; git -C "$user" status --porcelain)" "$before"
}

@test "a series that applies nowhere in the kernel checkout says which tree and bases were tried and what to do" {
	make_mainline_series
	cd "$user"
	git reset -q --hard HEAD~1
	head=$(git rev-parse --short=12 HEAD)
	# The packaged tree is all this checkout has: the mainline line is nowhere.
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/no-base.patch"
	assert_failure 2
	[[ "$stderr" == *"the series does not apply to $head (HEAD) in $user (the repository you are in)"* ]]
	[[ "$stderr" == *"--tree <dir> (or once: git config khsend.tree <dir>)"* ]]
	[[ "$stderr" == *"--base <rev> a commit of it; --no-boot sends without the boot"* ]]
	# With the base-commit line of a commit it does not have, it says so too.
	run --separate-stderr "$KHSEND" boot "$BATS_TEST_TMPDIR/elsewhere.patch"
	assert_failure 2
	[[ "$stderr" == *"the series was written on 5ca1ab1e5ca1 (its base-commit line), which $user does not have"* ]]
	[[ "$stderr" == *"--base <rev> a commit of it; --no-boot sends without the boot"* ]]
	assert_equal "$(git status --porcelain)" ''
}

@test "khsend --dry-run does not boot, and --dry-run --boot does" {
	make_patch hello "$(after_sysctl_args 'pr_info("khsend test: a harmless line\\n");')"
	cd linux
	# An empty cache: a boot would have to lay out a tree in it.
	KHSEND_CACHE_DIR="$BATS_TEST_TMPDIR/empty-cache" run --separate-stderr \
		khsend --dry-run --to=list@example.org --confirm=never "$BATS_TEST_TMPDIR/hello.patch"
	assert_success
	assert_output --partial 'Dry-OK'
	refute_output --partial 'khsend boot'
	[ ! -e "$BATS_TEST_TMPDIR/empty-cache/trees" ]
	run --separate-stderr khsend --dry-run --boot --to=list@example.org --confirm=never \
		"$BATS_TEST_TMPDIR/hello.patch"
	assert_success
	assert_output --partial 'verdict: PASS'
	assert_output --partial 'Dry-OK'
}
