#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: khsend check against checkpatch.pl --codespell and grep -F -f,
# on the same generated 2,000-patch series, plus peak memory at 200 and 2,000.
#
# Targets (issue 2): >= 50x faster than checkpatch, within 2x of grep, memory flat.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
khsend=${KHSEND:-$root/build/khsend}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
dict=${CODESPELL_DICT:-/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt}
runs=${BENCH_RUNS:-9}
work=$(mktemp -d "${TMPDIR:-/tmp}/khsend-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export LC_ALL=C TZ=UTC KHSEND_SYSTEM_POLICY=$root/policy.yaml
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home
mkdir -p "$HOME"

for tool in /usr/bin/time perl python3; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is needed (apt-get install time perl python3)" >&2; exit 2; }
done
[ -f "$dict" ] || { echo "bench: codespell's dictionary is needed (apt-get install codespell)" >&2; exit 2; }

echo "bench: extracting the kernel files and checkpatch from $tarball" >&2
{ grep -v '^#' "$root/tests/kernel-files.txt"; printf '%s\n' scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch; } |
	sed 's|^|linux-source-6.1/|' | tar -xJf "$tarball" -C "$work" -T -
repo=$work/linux-source-6.1
git -C "$repo" init -q -b master
git -C "$repo" add -A
git -C "$repo" -c user.name=bench -c user.email=bench@localhost commit -qm base
echo "bench: generating 2,000 patches" >&2
python3 "$root/tests/bench/gen-series.py" "$repo" 2000 1
for n in 200 2000; do
	git -C "$repo" format-patch -q --stdout "bench~$n..bench" > "$work/series-$n.mbox"
done
git -C "$repo" format-patch -q -o "$work/patches" master..bench
"$khsend" policy list --format=json |
	python3 -c 'import json, sys; [print(e["string"]) for e in json.load(sys.stdin)["entries"] if "string" in e]' > "$work/strings"

measure() { python3 "$root/tests/bench/measure.py" "$runs" "$@"; }

read -r k_time k_mem < <(measure "$khsend" check "$work/series-2000.mbox")
read -r k200_time k200_mem < <(measure "$khsend" check "$work/series-200.mbox")
read -r g_time g_mem < <(measure grep -F -f "$work/strings" "$work/series-2000.mbox")
echo "bench: running checkpatch.pl --codespell over 2,000 patches (about two minutes)" >&2
read -r c_time c_mem < <(python3 "$root/tests/bench/measure.py" 1 perl "$repo/scripts/checkpatch.pl" \
	--no-tree --codespell --codespellfile="$dict" -q "$work"/patches/*.patch)
read -r v_time v_mem < <(measure "$khsend" --version)

python3 - "$k_time" "$k_mem" "$k200_time" "$k200_mem" "$g_time" "$g_mem" "$c_time" "$c_mem" \
	"$(stat -c %s "$work/series-2000.mbox")" "$v_time" <<'PY'
import sys
kt, km, k2t, k2m, gt, gm, ct, cm, size, vt = map(float, sys.argv[1:])
floor = 1e-6
print(f"input: 2,000 patches, {size / 1e6:.1f} MB mbox; median of several runs (checkpatch: one run)")
print(f"  khsend check                 {kt:8.3f} s   peak RSS {km / 1024:6.1f} MiB")
print(f"  grep -F -f <policy strings>  {gt:8.3f} s   peak RSS {gm / 1024:6.1f} MiB")
print(f"  checkpatch.pl --codespell    {ct:8.1f} s   peak RSS {cm / 1024:6.1f} MiB")
print(f"ratios: checkpatch / khsend = {ct / max(kt, floor):.0f}x (target >= 50x)")
print(f"        khsend / grep       = {kt / max(gt, floor):.1f}x (target <= 2x)")
print(f"memory: 200 patches {k2m / 1024:.1f} MiB, 2,000 patches {km / 1024:.1f} MiB "
      f"({(km - k2m) / k2m * 100:+.0f}%; flat means the same)")
print(f"time:   200 patches {k2t:.3f} s, 2,000 patches {kt:.3f} s; 'khsend --version' alone {vt:.3f} s")
print(f"        per 1,000 patches beyond the first 200: khsend {(kt - k2t) / 1.8:.4f} s, grep {gt / 2:.4f} s")
PY
