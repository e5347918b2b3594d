#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""usage: alternate.py RUNS COMMAND [ARGS...] [:: COMMAND [ARGS...]]...

Run the commands in turn, RUNS rounds (A B A B ..., so that a busy
moment of the machine falls on both alike), each with its standard output
read to the end by this script (a peer writing to /dev/null may stop
early: GNU grep does at its first match).  Print one line per command:
the median wall time in seconds and the peak RSS in KiB (GNU time, which
forks from a small process: a child of Python would count Python's pages).
"""
import statistics
import subprocess
import sys
import tempfile
import time

runs, rest = int(sys.argv[1]), sys.argv[2:]
commands, cur = [], []
for arg in rest:
    if arg == "::":
        commands.append(cur)
        cur = []
    else:
        cur.append(arg)
commands.append(cur)

times = [[] for _ in commands]
for _ in range(runs):
    for i, argv in enumerate(commands):
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        while p.stdout.read(1 << 16):
            pass
        p.wait()
        times[i].append(time.perf_counter() - t0)
for i, argv in enumerate(commands):
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%M"] + argv,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        peak = int(out.read().split()[-1])
    print(f"{statistics.median(times[i]):.6f} {peak}")
