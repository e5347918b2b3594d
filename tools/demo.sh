#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make demo (./quickstart.sh demo): khsend's main job on the built-in defaults:
# the packaged linux-source-6.1 tree, the shipped policy (built into the
# binary) and the shipped example series.  Nothing is sent: --dry-run.
set -u
khsend=${KHSEND:?set KHSEND to the khsend binary}
cd "$(dirname "$0")/.." || exit 2

# A fresh account has no git identity; the demo brings its own and writes no config.
: "${GIT_AUTHOR_NAME:=Demo Contributor}" "${GIT_AUTHOR_EMAIL:=contributor@example.org}"
: "${GIT_COMMITTER_NAME:=$GIT_AUTHOR_NAME}" "${GIT_COMMITTER_EMAIL:=$GIT_AUTHOR_EMAIL}"
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

step() { printf '\n\033[1m==> %s\033[m\n' "$*"; }
send="--dry-run --confirm=never --from=Contributor<contributor@example.org> --to=linux-kernel@example.org"

step "khsend setup: the packaged linux-source-6.1 as the default kernel tree (once)"
"$khsend" setup || exit 2

step "the seed's 'borken' fix, sent with khsend instead of git send-email"
# shellcheck disable=SC2086 # $send is a list of words
"$khsend" $send examples/borken-fix.patch
echo "(exit status $?: blocked, nothing sent)"

step "a genuine typo series: checked, built and booted in QEMU, then git send-email --dry-run"
# shellcheck disable=SC2086
"$khsend" $send --boot examples/typo-fixes
status=$?
echo "(exit status $status)"

step "the maintainer's side: a kind reply to the borken fix"
"$khsend" reply examples/borken-fix.patch
exit "$status"
