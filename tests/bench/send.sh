#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-send (tests/bench/send.sh): khsend's added time over plain "git send-email --dry-run"
# on a 30-patch series (boot off), the median of several alternating runs.
# Prints the figure and fails if it is over the target (100 ms).
set -euo pipefail

KHSEND=${KHSEND:?}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${RUNS:-7}
TARGET_MS=${TARGET_MS:-100}

# The pinned environment of the suite, and its mini kernel tree.
BATS_TEST_DIRNAME=$ROOT/tests
BATS_TEST_TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/khsend-bench.XXXXXX")
trap 'rm -rf "$BATS_TEST_TMPDIR"' EXIT
bats_require_minimum_version() { :; }
# shellcheck source=tests/test_helper.bash
. "$ROOT/tests/test_helper.bash"
pin_environment
make_mini_kernel
cd "$BATS_TEST_TMPDIR"
clone_mini_kernel linux
cd linux
for i in $(seq 30); do
	echo "/* bench $i */" >> kernel/kprobes.c
	git commit -qam "kprobes: bench change $i" -m "Signed-off-by: A U Thor <author@example.com>"
done
args=(--to=list@example.org --confirm=never --dry-run --quiet HEAD~30)

ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" > /dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

plain=() khs=()
"$KHSEND" --no-boot "${args[@]}" > /dev/null 2>&1	# warm the caches
for _ in $(seq "$RUNS"); do
	plain+=("$(ms git send-email "${args[@]}")")
	khs+=("$(ms "$KHSEND" --no-boot "${args[@]}")")
done
p=$(printf '%s\n' "${plain[@]}" | median)
k=$(printf '%s\n' "${khs[@]}" | median)
echo "git send-email --dry-run, 30 patches: ${p} ms (median of $RUNS)"
echo "khsend --no-boot --dry-run, same:      ${k} ms"
echo "khsend's added time: $((k - p)) ms (target <= ${TARGET_MS} ms)"
[ $((k - p)) -le "$TARGET_MS" ]
