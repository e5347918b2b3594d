#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Make N commits of small, realistic edits on top of a kernel tree, with git fast-import.

usage: gen-series.py REPO N SEED

Each commit changes one comment line in one file (a "typo fix"); every 50th
commit instead changes a protected string, so the check has work to do.
"""
import random
import subprocess
import sys

repo, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
git = ["git", "-C", repo]
files = subprocess.run(git + ["ls-files", "*.c", "*.h"], capture_output=True, text=True, check=True).stdout.split()
content = {f: open(f"{repo}/{f}", encoding="utf-8", errors="surrogateescape").read().split("\n") for f in files}
jokes = [("kernel/sched/topology.c", "arch topology borken", "arch topology broken"),
         ("arch/x86/kernel/fpu/signal.c", "histerical raisins", "historical reasons"),
         ("kernel/exit.c", "Aiee, killing interrupt handler!", "Killing interrupt handler!")]

out = []
mark = 0
def emit(s):
    out.append(s if isinstance(s, bytes) else s.encode("utf-8", "surrogateescape"))

head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
# Comment lines short enough to edit, per file, found once.
comment_lines = {f: [j for j, l in enumerate(c) if l.lstrip().startswith("* ") and len(l) < 70] for f, c in content.items()}
files = [f for f in files if comment_lines[f]]
i = 0
while i < n:
    i += 1
    if i % 50 == 0:
        f, old, new = jokes[(i // 50) % len(jokes)]
        lines = content[f]
        k = next((j for j, l in enumerate(lines) if old in l), None)
        if k is None:  # already changed earlier in the series: restore it instead
            k = next(j for j, l in enumerate(lines) if new in l)
            old, new = new, old
        lines[k] = lines[k].replace(old, new)
        subject = f"{f.split('/')[-2]}: fix a spelling mistake"
    else:
        f = rng.choice(files)
        lines = content[f]
        k = rng.choice(comment_lines[f])
        lines[k] = lines[k] + f" (note {i})"
        subject = f"{f.split('/')[-2]}: clarify a comment in {f.split('/')[-1]}"
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    mark += 1
    emit(f"blob\nmark :{mark}\ndata {len(data)}\n")
    emit(data)
    emit("\n")
    msg = f"{subject}\n\nPatch {i} of a generated benchmark series.\n\nSigned-off-by: A U Thor <author@example.com>\n"
    when = 1700000000 + i
    emit(f"commit refs/heads/bench\ncommitter A U Thor <author@example.com> {when} +0000\n")
    emit(f"data {len(msg.encode())}\n{msg}")
    emit(f"from {head}\n" if i == 1 else "")
    emit(f"M 100644 :{mark} {f}\n\n")
    head = None

subprocess.run(git + ["fast-import", "--quiet"], input=b"".join(out), check=True)
