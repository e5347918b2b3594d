#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make compat (tests/compat/t9001.sh): git's own send-email tests, t/t9001-send-email.sh
# of git 2.39.5, run against the installed git twice: once as they are (the baseline),
# once with git-send-email replaced by "khsend --no-boot".  Prints what each half passed,
# failed and skipped, its wall time, and every test whose outcome differs.
#
# Once per cache, and only when missing: git's source comes from Debian's source package
# ("apt-get source git", through a private deb-src list: the system's apt setup is not
# touched) and only t/helper/test-tool, GIT-BUILD-OPTIONS and the templates are built.
#
#   KHSEND=build/khsend tests/compat/t9001.sh [--only real|khsend]
#
# Environment:
#   KHSEND               the khsend binary under test (required)
#   KHSEND_COMPAT_CACHE  where the source, its build and the runs go
#                        (default ${XDG_CACHE_HOME:-~/.cache}/khsend-compat; never the checkout)
#   KHSEND_COMPAT_JOBS   make -j for the one-time build (default 2)
#
# Exit status: 0 khsend differs from the real git send-email in exactly the tests listed in
# tests/compat/t9001-known-differences; 1 it differs otherwise (a new failure, or a listed
# one that now passes: take it off the list); 2 an error, or the baseline itself failed a test
# (then the machine, not khsend, is not set up as git's tests need).
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GIT_VERSION=2.39.5
TEST=t9001-send-email
KNOWN=$ROOT/tests/compat/t9001-known-differences

die() {
	echo "compat: $*" >&2
	exit 2
}

only=
case "${1:-}" in
--only)
	only=${2:-}
	case "$only" in real | khsend) ;; *) die "usage: $0 [--only real|khsend]" ;; esac
	;;
'') ;;
*) die "usage: $0 [--only real|khsend]" ;;
esac

KHSEND=${KHSEND:?set KHSEND to the khsend binary under test}
case "$KHSEND" in /*) ;; *) KHSEND=$PWD/$KHSEND ;; esac
[ -x "$KHSEND" ] || die "'$KHSEND' is not an executable khsend"
[ -n "${KHSEND_COMPAT_CACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ] || die "set KHSEND_COMPAT_CACHE (no HOME)"
CACHE=${KHSEND_COMPAT_CACHE:-${XDG_CACHE_HOME:-${HOME:-}/.cache}/khsend-compat}
case "$CACHE" in /*) ;; *) die "KHSEND_COMPAT_CACHE must be an absolute path" ;; esac
case "$CACHE/" in "$ROOT"/*) die "the cache '$CACHE' must not be inside the checkout" ;; esac
JOBS=${KHSEND_COMPAT_JOBS:-2}

# The tests are 2.39.5's: they judge the installed git send-email only if it is 2.39.5 too.
installed=$(git version) || die "git is not installed"
[ "$installed" = "git version $GIT_VERSION" ] ||
	die "the installed git is '$installed'; these are the tests of git $GIT_VERSION"
EXEC_PATH=$(git --exec-path)
[ -x "$EXEC_PATH/git-send-email" ] || die "no git-send-email in '$EXEC_PATH' (apt-get install git-email)"
# git send-email dies on the first message without Mail::Address (git-email's Recommends).
perl -MMail::Address -e 1 2> /dev/null || die "Perl's Mail::Address is missing (apt-get install libmailtools-perl)"

mkdir -p "$CACHE"
# One run at a time per cache: two checkouts may share it.
exec 9> "$CACHE/lock"
flock 9

SRC=$CACHE/git-$GIT_VERSION
TARBALL=$CACHE/download/git_$GIT_VERSION.orig.tar.xz
# Only what the tests read needs building; what needs headers that khsend's machines do not
# install (curl, expat, gettext, Tcl/Tk) is left out: t9001 uses none of it.
BUILD_FLAGS="NO_CURL=1 NO_EXPAT=1 NO_GETTEXT=1 NO_TCLTK=1 NO_OPENSSL=1 PERL_PATH=/usr/bin/perl SHELL_PATH=/bin/sh"

# ---- git's source, from Debian's source package ----
fetch_source() {
	local apt=$CACHE/apt sources opts
	rm -rf "$apt" "$CACHE/download"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$CACHE/download"
	sources=/etc/apt/sources.list.d/debian.sources
	if [ -f "$sources" ]; then
		sed 's/^Types:.*/Types: deb-src/' "$sources" > "$apt/deb-src.sources"
		sources=$apt/deb-src.sources
	elif [ -f /etc/apt/sources.list ]; then
		sed -n 's/^deb[[:space:]]/deb-src /p' /etc/apt/sources.list > "$apt/deb-src.list"
		sources=$apt/deb-src.list
	else
		die "no apt sources to take the deb-src lines from"
	fi
	# A private list, lists dir and cache: the system's apt state is neither read nor written.
	opts=(-q -o "Dir::Etc::SourceList=$sources" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
	# As root apt fetches as _apt, who cannot write into root's cache dir.
	[ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
	echo "compat: fetching git's source package (apt-get source git)"
	apt-get "${opts[@]}" update > "$apt/update.log" 2>&1 ||
		{ cat "$apt/update.log" >&2; die "apt-get update (deb-src) failed"; }
	# The version installed, if the registry still has it; any 2.39.5 otherwise.
	(cd "$CACHE/download" &&
		{ apt-get "${opts[@]}" source --download-only "git=$(dpkg-query -W -f='${Version}' git)" ||
			apt-get "${opts[@]}" source --download-only git; }) > "$apt/source.log" 2>&1 ||
		{ cat "$apt/source.log" >&2; die "apt-get source git failed"; }
	[ -f "$TARBALL" ] || die "apt-get source git did not give git_$GIT_VERSION.orig.tar.xz: $(ls "$CACHE/download")"
}

build_source() {
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -C "$SRC.tmp" -xJf "$TARBALL"
	mv "$SRC.tmp/git-$GIT_VERSION" "$SRC"
	rmdir "$SRC.tmp"
	[ -f "$SRC/t/$TEST.sh" ] || die "no t/$TEST.sh in $TARBALL"
	echo "compat: building git's test-tool, GIT-BUILD-OPTIONS and templates (once: a minute or two on 2 cores)"
	# shellcheck disable=SC2086 # the flags are words on purpose
	if ! (cd "$SRC" && nice make -j"$JOBS" $BUILD_FLAGS t/helper/test-tool GIT-BUILD-OPTIONS &&
		nice make -C templates $BUILD_FLAGS) > "$CACHE/build.log" 2>&1; then
		tail -n 30 "$CACHE/build.log" >&2
		die "building git's test helpers failed (full log: $CACHE/build.log; gcc, make and zlib1g-dev installed?)"
	fi
	echo "$BUILD_FLAGS" > "$SRC/.khsend-compat-built"
}

t0=$(date +%s)
[ -f "$TARBALL" ] || fetch_source
[ "$(cat "$SRC/.khsend-compat-built" 2> /dev/null)" = "$BUILD_FLAGS" ] || build_source
echo "compat: git $GIT_VERSION's test tools ready in $(($(date +%s) - t0)) s ($SRC)"

# ---- the two exec paths ----
# Each half gets its own exec path (GIT_TEST_EXEC_PATH) of symlinks to the installed one, so
# the halves differ in git-send-email alone: the real one, or a wrapper running khsend.
RUN=$CACHE/run
rm -rf "$RUN"
mkdir -p "$RUN"

make_exec_path() {
	local dir=$RUN/exec-$1 f
	mkdir "$dir"
	for f in "$EXEC_PATH"/*; do
		ln -s "$f" "$dir/${f##*/}"
	done
}
make_exec_path real
make_exec_path khsend
rm "$RUN/exec-khsend/git-send-email"
# What the tests run as "git send-email":
# - khsend itself runs "git send-email", which finds this same exec path: the second call
#   (marked by KHSEND_COMPAT_INNER) is the real git send-email;
# - --no-boot: the tests' series are git's own source, not a kernel;
# - the policy is the checkout's shipped policy.yaml, named through KHSEND_SYSTEM_POLICY, so no
#   installed /usr/local/share/khsend/policy.yaml can change a run; there is no user policy (HOME
#   is the trash directory and test-lib unsets XDG_CONFIG_HOME), no .khsend.yaml and no
#   khsend.policy setting in the tests' repositories.
case "$ROOT$KHSEND$EXEC_PATH" in *"'"*) die "a path with a single quote cannot go into the wrapper script" ;; esac
cat > "$RUN/exec-khsend/git-send-email" << EOF
#!/bin/sh
if [ -n "\${KHSEND_COMPAT_INNER:-}" ]; then
	exec '$EXEC_PATH/git-send-email' "\$@"
fi
KHSEND_COMPAT_INNER=1
KHSEND_SYSTEM_POLICY='$ROOT/policy.yaml'
export KHSEND_COMPAT_INNER KHSEND_SYSTEM_POLICY
exec '$KHSEND' --no-boot "\$@"
EOF
chmod 755 "$RUN/exec-khsend/git-send-email"

# ---- the runs ----
# A fixed environment: nothing of the caller's (GIT_*, KHSEND_*, PERL5LIB, locale, TERM) leaks in.
run_half() {
	local half=$1 out=$RUN/$1 start status=0 left
	mkdir -p "$out/home"
	start=$(date +%s)
	(cd "$SRC/t" && env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME="$out/home" TMPDIR="$out" LANG=C.UTF-8 \
		GIT_TEST_INSTALLED="$EXEC_PATH" GIT_TEST_EXEC_PATH="$RUN/exec-$half" \
		TEST_OUTPUT_DIRECTORY="$out" \
		/bin/sh "./$TEST.sh" --verbose-log < /dev/null > "$out/tap" 2>&1) || status=$?
	echo $(($(date +%s) - start)) > "$out/seconds"
	echo "$status" > "$out/status"
	# "ok 3 - title", "not ok 4 - title", "ok 5 # skip title (missing PREREQ)" -> "3 ok title"
	sed -n -e 's/^ok \([0-9]*\) # skip \(.*\)/\1 skip \2/p' -e 't' \
		-e 's/^ok \([0-9]*\) - \(.*\)/\1 ok \2/p' \
		-e 's/^not ok \([0-9]*\) - \(.*\) # TODO known breakage$/\1 todo \2/p' -e 't' \
		-e 's/^not ok \([0-9]*\) - \(.*\)/\1 fail \2/p' "$out/tap" > "$out/results"
	[ -s "$out/results" ] || { cat "$out/tap" >&2; die "the $half half ran no test"; }
	# khsend's private directories (TMPDIR/khsend.XXXXXX) must all be gone again.
	left=$(find "$out" -maxdepth 1 -name 'khsend.*' | wc -l)
	[ "$left" -eq 0 ] || echo "compat: warning: $left private khsend.* directories left behind in $out" >&2
}

count() { awk -v s="$2" '$2 == s { n++ } END { print n + 0 }' "$RUN/$1/results"; }

row() {
	printf '%-8s %7s %7s %8s %8s\n' "$1" "$(count "$1" ok)" "$(count "$1" fail)" \
		"$(count "$1" skip)" "$(cat "$RUN/$1/seconds")"
}

halves="real khsend"
[ -z "$only" ] || halves=$only
for half in $halves; do
	echo "compat: running $TEST.sh with the $half git send-email"
	run_half "$half"
done
echo
printf '%-8s %7s %7s %8s %8s\n' "" passed failed skipped seconds
for half in $halves; do
	row "$half"
done
[ -z "$only" ] || exit 0

# ---- the comparison ----
# "N real khsend title" for each test whose outcome differs ("none": that half never ran it).
awk 'FNR == NR { r[$1] = $2; next }
     { n = $1; k[n] = $2; t = $0; sub(/^[0-9]+ [a-z]+ /, "", t); title[n] = t }
     END { for (n in r) if (!(n in k)) print n, r[n], "none", "?";
           for (n in k) if (r[n] != k[n]) print n, (n in r ? r[n] : "none"), k[n], title[n] }' \
	"$RUN/real/results" "$RUN/khsend/results" | sort -n > "$RUN/differences"

echo
echo "Tests whose outcome differs (number, real -> khsend, title):"
awk '{ t = $0; sub(/^[0-9]+ [a-z]+ [a-z]+ /, "", t); printf "  %3s  %-4s -> %-4s  %s\n", $1, $2, $3, t }' \
	"$RUN/differences"
[ -s "$RUN/differences" ] || echo "  (none)"
echo
echo "Logs: $RUN/real/test-results/$TEST.out and $RUN/khsend/test-results/$TEST.out"

status=0
if [ "$(count real fail)" -ne 0 ]; then
	echo "compat: the real git send-email failed $(count real fail) test(s): this machine is not set up as git's tests need" >&2
	status=2
fi
# Known differences: "N title" lines; '#' comments and blank lines aside.
grep -v -e '^#' -e '^[[:space:]]*$' "$KNOWN" 2> /dev/null | sed 's/[[:space:]]*$//' | sort > "$RUN/known" || true
sed 's/^\([0-9]*\) [a-z]* [a-z]* /\1 /' "$RUN/differences" | sort > "$RUN/differs.sorted"
new=$(comm -13 "$RUN/known" "$RUN/differs.sorted" | sort -n)
gone=$(comm -23 "$RUN/known" "$RUN/differs.sorted" | sort -n)
if [ -n "$new" ]; then
	echo "compat: khsend differs from git send-email in tests not listed in ${KNOWN#"$ROOT"/}:" >&2
	while IFS= read -r line; do echo "  $line"; done <<< "$new" >&2
	[ "$status" -ne 0 ] || status=1
fi
if [ -n "$gone" ]; then
	echo "compat: listed in ${KNOWN#"$ROOT"/} but no longer different (take them off the list):" >&2
	while IFS= read -r line; do echo "  $line"; done <<< "$gone" >&2
	[ "$status" -ne 0 ] || status=1
fi
if [ "$status" -eq 0 ]; then
	if [ -s "$RUN/differences" ]; then
		echo "compat: khsend differs from git send-email in $(wc -l < "$RUN/differences") test(s), all of them listed in ${KNOWN#"$ROOT"/}"
	else
		echo "compat: khsend passes and fails exactly as git send-email"
	fi
fi
exit "$status"
