#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Make the example series in examples/ from linux-source 6.1 (6.1.192).
#
#   examples/make-examples.sh [SOURCE [OUTDIR]]
#
# SOURCE is Debian's tarball (default /usr/src/linux-source-6.1.tar.xz) or a
# directory holding the tree; OUTDIR defaults to the directory of this
# script. The output is the same on every run (fixed names, dates and git
# settings), so tests/examples.bats can check that the shipped files are
# what this script makes.
#
#   borken-fix.patch  the seed's declined "fix" (borken -> broken in
#                     kernel/sched/topology.c), as the mail a maintainer
#                     receives: with To, Cc and the original Message-Id.
#   typo-fixes/       a genuine typo series (cover letter and 3 patches),
#                     one of them in the same file as a protected joke.
#
# Only the author of the borken fix is real (it is the public seed); every
# other address is a placeholder at example.org.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
source=${1:-/usr/src/linux-source-6.1.tar.xz}
out=${2:-$here}
files="kernel/sched/topology.c kernel/kprobes.c kernel/sched/core.c Documentation/RCU/RTFP.txt"

work=$(mktemp -d "${TMPDIR:-/tmp}/khsend-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Nothing of the user's git setup may change the output.
HOME=$work
GIT_CONFIG_NOSYSTEM=1
LC_ALL=C
TZ=UTC
export HOME GIT_CONFIG_NOSYSTEM LC_ALL TZ
unset GIT_DIR GIT_WORK_TREE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE

tree=$work/linux
mkdir "$tree"
if [ -d "$source" ]; then
	for f in $files; do
		mkdir -p "$tree/$(dirname "$f")"
		cp "$source/$f" "$tree/$f"
	done
else
	prefixed=
	for f in $files; do
		prefixed="$prefixed linux-source-6.1/$f"
	done
	# shellcheck disable=SC2086 # the file list is split on purpose
	tar -xJf "$source" -C "$work" --strip-components=1 --one-top-level=linux $prefixed
fi
grep -q 'pr_err("BUG: arch topology borken\\n");' "$tree/kernel/sched/topology.c" || {
	echo "make-examples.sh: $source is not linux-source 6.1 (no 'arch topology borken')" >&2
	exit 2
}

cd "$tree"
git init -q -b master
git config user.name khsend
git config user.email khsend@localhost
git config core.abbrev 12
git add -A
GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000' \
	git commit -q -m 'linux-source 6.1.192 (a few files)'

# commit AUTHOR DATE FILE SED-EXPR SUBJECT BODY
commit() {
	sed -i -e "$4" "$3"
	if git diff --quiet; then
		echo "make-examples.sh: '$4' changed nothing in $3" >&2
		exit 2
	fi
	git add "$3"
	GIT_AUTHOR_DATE=$2 GIT_COMMITTER_DATE=$2 git -c "user.name=${1% <*}" \
		-c "user.email=$(echo "$1" | sed 's/.*<\(.*\)>/\1/')" commit -q -m "$5" -m "$6"
}

# The seed: Zhen Lei's patch of 26 May 2021, on the 6.1.192 file (line 2196).
git checkout -q -b borken master
commit 'Zhen Lei <thunder.leizhen@huawei.com>' '1621995536 +0800' kernel/sched/topology.c \
	's/arch topology borken/arch topology broken/' \
	'sched/topology: Fix a spelling mistake in error message' \
	"The misspelled word 'borken' should be 'broken'.

Fixes: 6ae72dff3759 (\"sched: Robustify topology setup\")
Signed-off-by: Zhen Lei <thunder.leizhen@huawei.com>"
git format-patch -q -1 -n --stdout --signature=2.25.1 \
	--add-header='Message-Id: <20210526021856.9060-1-thunder.leizhen@huawei.com>' \
	--to='Scheduler Maintainer <sched-maintainer@example.org>' \
	--cc='Scheduler Reviewer <sched-reviewer@example.org>' \
	--cc='kernel-list@example.org' \
	> "$out/borken-fix.patch"

# A genuine typo series (the typos are in tests/fixtures/genuine-typos-6.1.txt).
git checkout -q -b typos master
me='Ada Contributor <ada@example.org>'
commit "$me" '1733000000 +0000' kernel/kprobes.c '654s/immmediately/immediately/' \
	'kprobes: Fix a typo in a comment' \
	"Signed-off-by: $me"
commit "$me" '1733000060 +0000' kernel/sched/core.c '7399s/neeeds/needs/' \
	'sched/core: Fix a typo in a comment' \
	"Signed-off-by: $me"
commit "$me" '1733000120 +0000' Documentation/RCU/RTFP.txt '204s/traveral/traversal/; 2642s/traveral/traversal/' \
	'Documentation/RCU: Fix two typos in RTFP.txt' \
	"'traveral' should be 'traversal'. The title of the file is a joke and
stays as it is.

Signed-off-by: $me"
git config branch.typos.description 'Fix three typos in comments and documentation

These are plain spelling mistakes, found with codespell and checked by
hand. None of them is a joke.'
rm -rf "$out/typo-fixes"
GIT_COMMITTER_NAME='Ada Contributor' GIT_COMMITTER_EMAIL=ada@example.org \
GIT_COMMITTER_DATE='1733000180 +0000' \
	git format-patch -q --cover-letter --cover-from-description=subject --signature=2.39.5 \
	--to='Kernel Maintainer <maintainer@example.org>' --cc='kernel-list@example.org' \
	-o "$out/typo-fixes" master..typos
