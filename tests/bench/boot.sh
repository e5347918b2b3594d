#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-boot: wall time of khsend boot for a one-file series (init/main.c).
#
#   cold  - a first run after 'khsend setup': no build directory, empty ccache
#   warm  - the next series on the same tree: only what it touches is rebuilt
#   cached - the same series again: answered from the result cache
#   seed   - the seed's 31-file series rebuilt on 6.1 (tests/bench/seed-series.py):
#            its symbols chased on, built, booted, the rest compile-tested
#   seed-all - the same with --compile-test=all: all 31 files compiled in
#            the compile-test's allmodconfig directory (set up on first use)
#   seed-v2  - a respin of the seed series (the same 31 files, each fix
#            with one letter's case swapped) with --compile-test=all: the
#            warm figures, the boot kernel and the compile-test rebuilding
#            just those files
#
# Each row splits the run into config, build and boot, and the compile-test's
# config and compile (khsend's own stage times); the seed rows then give
# their coverage.  Targets on 2 cores: warm <= 15 s, cold <= 4 min, the
# compile-test of 31 files <= 60 s warm.  The default tree is extracted
# once into $KHSEND_BENCH_CACHE and kept (setup is timed only when it has
# to run).
set -euo pipefail

KHSEND=${KHSEND:?set KHSEND to the khsend binary}
export KHSEND_CACHE_DIR=${KHSEND_BENCH_CACHE:-${TMPDIR:-/tmp}/khsend-bench-cache}
export LC_ALL=C TZ=UTC
work=$(mktemp -d "${TMPDIR:-/tmp}/khsend-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$KHSEND_CACHE_DIR/trees/default

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }

if [ ! -d "$tree/src/.git" ]; then
	t0=$(now)
	"$KHSEND" setup
	echo "setup (extract + one commit, once per machine): $(elapsed "$t0" "$(now)") s"
fi

# A patch on init/main.c of the default tree, made in a scratch repository.
make_patch() {
	local name=$1 line=$2 repo=$work/repo-$1
	mkdir -p "$repo/init"
	git -C "$tree/src" show refs/khsend/base:init/main.c > "$repo/init/main.c"
	(
		cd "$repo"
		export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost
		export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost
		export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
		git init -q && git add init/main.c && git commit -q -m base
		sed -i "s|^\tdo_sysctl_args();\$|&\n\tpr_info(\"$line\\\\n\");|" init/main.c
		git commit -q -a -m "init: $name"
		git format-patch -q -1 --stdout > "$work/$name.patch"
	)
}

# run NAME PATCH [OPTION...]: one khsend boot, its wall time and stage times
run() {
	local name=$1 patch=$2 t0 t1 wall cfg bld boot ctcfg ct
	shift 2
	t0=$(now)
	"$KHSEND" boot "$@" "$patch" > "$work/$name.out" 2> "$work/$name.err" || {
		cat "$work/$name.out" "$work/$name.err" >&2
		echo "bench: khsend boot failed" >&2
		exit 1
	}
	t1=$(now)
	wall=$(elapsed "$t0" "$t1")
	stage() { sed -n "s/^khsend: $1: .*(\([0-9.]*\) s)\$/\1/p" "$work/$name.err" | tail -n 1; }
	cfg=$(stage config)
	bld=$(stage build)
	boot=$(stage boot)
	ctcfg=$(stage 'compile-test config')
	ct=$(stage compile-test)
	printf '%-8s %8.1f %8s %8s %8s %8s %8s' "$name" "$wall" "${cfg:--}" "${bld:--}" "${boot:--}" \
		"${ctcfg:--}" "${ct:--}"
	if [ -n "$bld" ]; then
		printf '   build %3.0f%%  boot %3.0f%%' "$(echo "100 * $bld / $wall" | bc -l)" \
			"$(echo "100 * ${boot:-0} / $wall" | bc -l)"
	fi
	if grep -q 'KVM guest did not start' "$work/$name.err"; then
		printf '   (boot includes the one-off KVM probe)'
	fi
	echo
}

make_patch cold "khsend bench: cold"
make_patch warm "khsend bench: warm"
rm -rf "$tree/build" "$tree/compile" "$tree/results" "$tree/base" "$KHSEND_CACHE_DIR/ccache"

echo "khsend boot, one-file series, $(nproc) cores ($(date -u +%Y-%m-%dT%H:%MZ))"
printf '%-8s %8s %8s %8s %8s %8s %8s\n' run wall/s config/s build/s boot/s ct-cfg/s ct/s
run cold "$work/cold.patch"
run warm "$work/warm.patch"
run cached "$work/warm.patch"
python3 "$(dirname "$0")/seed-series.py" "$tree/src/.git" "$work/seed.patch"
run seed "$work/seed.patch"
run seed-all "$work/seed.patch" --compile-test=all
python3 "$(dirname "$0")/seed-series.py" --v2 "$tree/src/.git" "$work/seed-v2.patch"
run seed-v2 "$work/seed-v2.patch" --compile-test=all
for name in seed seed-all seed-v2; do
	echo "$name: $(grep -E '^  (coverage|compile-test):' "$work/$name.out" | sed 's/ (log: .*//' | paste -sd ';')"
done
