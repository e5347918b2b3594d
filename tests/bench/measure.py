#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""usage: measure.py RUNS COMMAND [ARGS...]

Run the command RUNS times (output discarded) and print the median wall
time in seconds (to microseconds, not GNU time's 10 ms steps) and the
peak RSS in KiB.  The RSS comes from GNU time, which forks from a small
process: a child spawned from Python would count Python's pages too.
"""
import statistics
import sys
import time

runs, argv = int(sys.argv[1]), sys.argv[2:]
import subprocess
import tempfile

times = []
for _ in range(runs):
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - t0)
with tempfile.NamedTemporaryFile("r") as out:
    subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%M"] + argv,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = int(out.read().split()[-1])
print(f"{statistics.median(times):.6f} {peak}")
