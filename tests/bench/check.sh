#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: khsend check against grep -c -F -f (the policy's strings) and
# checkpatch.pl --codespell, on the same generated series of 200, 2,000 and
# 20,000 patches; start-up; peak memory at each size.
#
# Fair to the peer: the same bytes, grep counting (-c reads the whole input;
# grep writing to /dev/null stops at the first match), every output read to
# the end, runs alternated, medians and ratios.
#
# Targets (issue 11): khsend check <= 1.0x grep -c -F -f at 20,000 patches;
# start-up ('khsend --version') <= 5 ms; memory flat from 200 to 20,000.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
khsend=${KHSEND:-$root/build/khsend}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
dict=${CODESPELL_DICT:-/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt}
runs=${BENCH_RUNS:-9}
# BENCH_DIR keeps the generated series between runs (generating 20,000 patches takes minutes).
if [ -n "${BENCH_DIR:-}" ]; then
	mkdir -p "$BENCH_DIR"
	work=$(cd "$BENCH_DIR" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/khsend-bench.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
export LC_ALL=C TZ=UTC KHSEND_SYSTEM_POLICY=$root/policy.yaml
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home
mkdir -p "$HOME"
repo=$work/linux-source-6.1

for tool in /usr/bin/time perl python3; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is needed (apt-get install time perl python3)" >&2; exit 2; }
done
[ -f "$dict" ] || { echo "bench: codespell's dictionary is needed (apt-get install codespell)" >&2; exit 2; }

if [ ! -f "$work/series.complete" ]; then
	rm -rf "$repo" "$work/patches"
	echo "bench: extracting the kernel files and checkpatch from $tarball" >&2
	{ grep -v '^#' "$root/tests/kernel-files.txt"; printf '%s\n' scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch; } |
		sed 's|^|linux-source-6.1/|' | tar -xJf "$tarball" -C "$work" -T -
	git -C "$repo" init -q -b master
	git -C "$repo" add -A
	git -C "$repo" -c user.name=bench -c user.email=bench@localhost commit -qm base
	echo "bench: generating 20,000 patches" >&2
	python3 "$root/tests/bench/gen-series.py" "$repo" 20000 1
	for n in 200 2000 20000; do
		git -C "$repo" format-patch -q --stdout "bench~$n..bench" > "$work/series-$n.mbox"
	done
	git -C "$repo" format-patch -q -o "$work/patches" bench~2000..bench
	touch "$work/series.complete"
fi
"$khsend" policy list --format=json |
	python3 -c 'import json, sys; [print(e["string"]) for e in json.load(sys.stdin)["entries"] if "string" in e]' > "$work/strings"

alternate() { python3 "$root/tests/bench/alternate.py" "$runs" "$@"; }

declare -A kt km gt gm
for n in 200 2000 20000; do
	echo "bench: khsend check and grep -c -F -f, $n patches, $runs alternating runs" >&2
	{ read -r "kt[$n]" "km[$n]"; read -r "gt[$n]" "gm[$n]"; } < <(alternate "$khsend" check "$work/series-$n.mbox" :: \
		grep -c -F -f "$work/strings" "$work/series-$n.mbox")
done
echo "bench: checkpatch.pl --codespell over 2,000 patches (about two minutes)" >&2
read -r c_time c_mem < <(python3 "$root/tests/bench/alternate.py" 1 perl "$repo/scripts/checkpatch.pl" \
	--no-tree --codespell --codespellfile="$dict" -q "$work"/patches/*.patch)
read -r v_time v_mem < <(python3 "$root/tests/bench/alternate.py" 51 "$khsend" --version)

python3 - "$c_time" "$c_mem" "$v_time" "$v_mem" \
	"${kt[200]}" "${km[200]}" "${gt[200]}" "${gm[200]}" "$(stat -c %s "$work/series-200.mbox")" \
	"${kt[2000]}" "${km[2000]}" "${gt[2000]}" "${gm[2000]}" "$(stat -c %s "$work/series-2000.mbox")" \
	"${kt[20000]}" "${km[20000]}" "${gt[20000]}" "${gm[20000]}" "$(stat -c %s "$work/series-20000.mbox")" <<'PY'
import sys
v = list(map(float, sys.argv[1:]))
ct, cm, vt, vm = v[:4]
rows = [(200, *v[4:9]), (2000, *v[9:14]), (20000, *v[14:19])]
print("khsend check vs grep -c -F -f <policy strings>: medians of alternating runs, output read")
print(f"{'patches':>8} {'mbox MB':>8} {'khsend s':>9} {'grep s':>8} {'ratio':>6} {'khsend MiB':>11} {'grep MiB':>9}")
for n, kt, km, gt, gm, size in rows:
    print(f"{n:>8} {size / 1e6:>8.1f} {kt:>9.3f} {gt:>8.3f} {kt / max(gt, 1e-6):>5.2f}x {km / 1024:>11.1f} {gm / 1024:>9.1f}")
k2000 = rows[1][1]
print(f"targets: khsend/grep at 20,000 = {rows[2][1] / max(rows[2][3], 1e-6):.2f}x (<= 1.0x); "
      f"start-up 'khsend --version' = {vt * 1000:.1f} ms (<= 5 ms); "
      f"memory 200 -> 20,000: {rows[0][2] / 1024:.1f} -> {rows[2][2] / 1024:.1f} MiB (flat)")
print(f"checkpatch.pl --codespell, 2,000 patches (one run): {ct:.1f} s, {cm / 1024:.1f} MiB "
      f"= {ct / max(k2000, 1e-6):.0f}x khsend")
PY
