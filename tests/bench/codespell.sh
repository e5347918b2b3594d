#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-codespell (tests/bench/codespell.sh): the series an eager
# contributor gets from "codespell -w" over the whole packaged kernel tree,
# one commit per top-level directory, and the time "khsend check" takes on it.
#
# Steps: extract linux-source 6.1 to a temporary directory, git init and
# commit it, run "codespell -w $(git ls-files)" (never "codespell -w .", which
# would rewrite .git), commit what changed per top-level directory, run
# "git format-patch" on those commits, then time "khsend check" on the series
# and print every finding it reports.
#
# Environment:
#   KHSEND          the khsend binary (default: build/khsend)
#   KERNEL_TARBALL  the packaged tree (default: /usr/src/linux-source-6.1.tar.xz)
#   BENCH_DIR       keep the tree and the series there; a series already in
#                   $BENCH_DIR/series is reused (codespell takes many minutes)
#   BENCH_RUNS      how many timed runs of khsend check (default 5)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
khsend=${KHSEND:-$root/build/khsend}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
runs=${BENCH_RUNS:-5}
if [ -n "${BENCH_DIR:-}" ]; then
	work=$BENCH_DIR
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/khsend-codespell.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
export LC_ALL=C TZ=UTC KHSEND_SYSTEM_POLICY=$root/policy.yaml
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home
mkdir -p "$HOME"

for tool in codespell git python3 xz; do
	command -v "$tool" >/dev/null || { echo "bench-codespell: $tool is needed (apt-get install $tool)" >&2; exit 2; }
done
[ -x "$khsend" ] || { echo "bench-codespell: no khsend at $khsend (run make)" >&2; exit 2; }

repo=$work/linux-source-6.1
series=$work/series
if [ ! -f "$work/series.complete" ]; then
	rm -rf "$repo" "$series"
	echo "bench-codespell: extracting $tarball" >&2
	tar -xJf "$tarball" -C "$work"
	git -C "$repo" init -q -b master
	git -C "$repo" config user.name 'Eager Contributor'
	git -C "$repo" config user.email 'eager@example.com'
	git -C "$repo" config core.autocrlf false
	echo "bench-codespell: committing the pristine tree" >&2
	# -f: Debian's tarball has a .gitignore that ignores its whole top level.
	git -C "$repo" add -A -f .
	GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000' \
		git -C "$repo" commit -q -m 'linux-source 6.1.192'
	echo "bench-codespell: codespell -w over every tracked file (this takes many minutes)" >&2
	# Only regular files: a symlink would make codespell write its target twice.
	# Default dictionaries (clear,rare), no questions: only fixes with one
	# suggestion are written, exactly as "codespell -w $(git ls-files)" does.
	(cd "$repo" && git ls-files -s -z | python3 -c '
import sys
for rec in sys.stdin.buffer.read().split(b"\0"):
    if rec and not rec.startswith(b"120000"):
        sys.stdout.buffer.write(rec.split(b"\t", 1)[1] + b"\0")' |
		nice xargs -0 -n 400 -P "${BENCH_JOBS:-2}" codespell -w -q 3 >/dev/null 2>&1) || true
	echo "bench-codespell: one commit per top-level directory" >&2
	n=0
	while IFS= read -r top; do
		git -C "$repo" add -u -- "$top"
		GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000' \
			git -C "$repo" commit -q -m "$top: fix spelling mistakes found by codespell" \
			-m "Fix the typos that codespell reports in $top." \
			-m 'Signed-off-by: Eager Contributor <eager@example.com>'
		n=$((n + 1))
	done < <(git -C "$repo" diff --name-only -z | tr '\0' '\n' | cut -d/ -f1 | sort -u)
	git -C "$repo" format-patch -q -o "$series" "HEAD~$n..HEAD"
	touch "$work/series.complete"
fi

patches=$(find "$series" -name '*.patch' | wc -l)
size=$(cat "$series"/*.patch | wc -c)
echo "bench-codespell: $patches patches, $((size / 1024)) KiB" >&2
read -r k_time k_mem < <(python3 "$root/tests/bench/alternate.py" "$runs" "$khsend" check "$series")
set +e
"$khsend" check "$series" > "$work/findings.txt" 2>&1
status=$?
set -e
echo "khsend check exit status: $status"
grep -E '^[^ ].*: (block|annotate|warn): ' "$work/findings.txt" || echo "(no findings)"
tail -n 1 "$work/findings.txt"
printf 'input: %d patches, %.1f MiB; khsend check median of %d runs: %.3f s, peak RSS %.1f MiB\n' \
	"$patches" "$(echo "$size / 1048576" | bc -l)" "$runs" "$k_time" "$(echo "$k_mem / 1024" | bc -l)"
