#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The README's Quick start: both commands install their own dependencies.
#
#   ./quickstart.sh demo   the main job on the built-in defaults: the packaged
#                          linux-source-6.1 tree, the shipped policy.yaml and
#                          the shipped example series in examples/
#   ./quickstart.sh test   the whole test suite (plain build, then the
#                          ASan/UBSan build), fuzzing and valgrind included,
#                          then git's own send-email tests against khsend
set -eu
cd "$(dirname "$0")"

case "${1:-}" in
demo | test) ;;
*)
	echo "usage: ./quickstart.sh demo|test" >&2
	exit 2
	;;
esac
.ci/deps
case "$1" in
demo) exec make demo ;;
test) exec make ci ;;
esac
