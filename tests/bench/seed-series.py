#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rebuild the seed's 31-file series against linux-source 6.1 (tests/fixtures/seed-001-6.1.patch).

usage: seed-series.py [--v2] KERNEL-GIT-DIR OUT.patch

The seed (shared/seeds/001-cover-kernel-fix-numerous-spelling-mistakes.txt)
is Zhen Lei's "kernel: fix numerous spelling mistakes" of 2021, one patch
of comment fixes in 31 kernel/ files.  Its own typos are long fixed in 6.1,
so this makes the same kind of patch on 6.1: one comment fix in each of the
same files (kernel/module.c is kernel/module/main.c since 5.19), most of
them typos codespell finds there.  Every edit must match exactly once.
--v2 makes a respin: the same fixes, each with the case of its first letter
swapped (still only comments), so the same 31 files change but the tree does
not match the first version's (no cached result answers it).
"""
import os
import subprocess
import sys
import tempfile

EDITS = [
    ("kernel/acct.c", "suspeneded", "suspended"),
    ("kernel/context_tracking.c", "occuring", "occurring"),
    ("kernel/cpu.c", "Archicture", "Architecture"),
    ("kernel/debug/debug_core.c", "in case kgdb is used to debug early", "in case kgdb is used to debug the early"),
    ("kernel/debug/kdb/kdb_main.c", "single thread processors", "single-thread processors"),
    ("kernel/debug/kdb/kdb_private.h", "back to initial cpu */", "back to the initial cpu */"),
    ("kernel/delayacct.c", "accumalator", "accumulator"),
    ("kernel/dma/map_benchmark.c", "evertything", "everything"),
    ("kernel/dma/swiotlb.c", " acount", " account"),
    ("kernel/exit.c", "useable", "usable"),
    ("kernel/hung_task.c", "musn't", "mustn't"),
    ("kernel/kexec_core.c", "alloed", "allowed"),
    ("kernel/kprobes.c", "immmediately", "immediately"),
    ("kernel/latencytop.c", "Allocted", "Allocated"),
    ("kernel/module/main.c", "that noone uses it", "that no one uses it"),
    ("kernel/notifier.c", "Notifier list for kernel code which wants", "Notifier list for kernel code that wants"),
    ("kernel/padata.c", "dependend", "dependent"),
    ("kernel/panic.c", "callled", "called"),
    ("kernel/pid.c", "alreay", "already"),
    ("kernel/ptrace.c", "returns true if childs should", "returns true if children should"),
    ("kernel/relay.c", "perfomring", "performing"),
    ("kernel/signal.c", "situration", "situation"),
    ("kernel/smp.c", "asynchonous", "asynchronous"),
    ("kernel/taskstats.c", "to listener with nl_pid", "to the listener with nl_pid"),
    ("kernel/time/alarmtimer.c", "syncrhonized", "synchronized"),
    ("kernel/time/timer.c", "own clock and therefor each", "own clock and therefore each"),
    ("kernel/umh.c", "share ther FS", "share their FS"),
    ("kernel/user_namespace.c", "capabilites", "capabilities"),
    ("kernel/usermode_driver.c", "lentgh", "length"),
    ("kernel/watchdog.c", "watchog", "watchdog"),
    ("kernel/workqueue.c", "inbetween", "in between"),
]

MESSAGE = """kernel: fix numerous spelling mistakes

Fix some spelling mistakes in comments, the 6.1 counterpart of Zhen Lei's
2021 series (the same 31 files; kernel/module.c is kernel/module/main.c now).

Signed-off-by: Zhen Lei <thunder.leizhen@huawei.com>
"""


def git(*args, cwd=None, env=None):
    return subprocess.run(("git",) + args, cwd=cwd, env=env, check=True,
                          capture_output=True, text=True).stdout


def respin(text):
    for i, c in enumerate(text):
        if c.isalpha():
            return text[:i] + c.swapcase() + text[i + 1:]
    return text


def main(kernel, out, v2=False):
    env = dict(os.environ, GIT_AUTHOR_NAME="Zhen Lei", GIT_AUTHOR_EMAIL="thunder.leizhen@huawei.com",
               GIT_COMMITTER_NAME="Zhen Lei", GIT_COMMITTER_EMAIL="thunder.leizhen@huawei.com",
               GIT_AUTHOR_DATE="1622001224 +0800", GIT_COMMITTER_DATE="1622001224 +0800",
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
    base = git("--git-dir", kernel, "rev-parse", "refs/khsend/base").strip()
    with tempfile.TemporaryDirectory() as tmp:
        git("init", "-q", tmp, env=env)
        for path, _, _ in EDITS:
            os.makedirs(os.path.join(tmp, os.path.dirname(path)), exist_ok=True)
            blob = subprocess.run(["git", "--git-dir", kernel, "show", "%s:%s" % (base, path)],
                                  check=True, capture_output=True).stdout
            with open(os.path.join(tmp, path), "wb") as f:
                f.write(blob)
        git("add", "-A", cwd=tmp, env=env)
        git("commit", "-q", "-m", "base", cwd=tmp, env=env)
        for path, old, new in EDITS:
            full = os.path.join(tmp, path)
            text = open(full, encoding="utf-8", errors="surrogateescape").read()
            if text.count(old) != 1:
                sys.exit("seed-series: %r is in %s %d times" % (old, path, text.count(old)))
            with open(full, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text.replace(old, respin(new) if v2 else new))
        git("commit", "-q", "-a", "-m", MESSAGE, cwd=tmp, env=env)
        patch = git("format-patch", "-1", "--stdout", "HEAD", cwd=tmp, env=env)
    with open(out, "w") as f:
        f.write(patch)


if __name__ == "__main__":
    args = sys.argv[1:]
    v2 = args[:1] == ["--v2"]
    if v2:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    main(args[0], args[1], v2)
