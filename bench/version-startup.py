#!/usr/bin/env python3
"""`kuroneko --version` start-up, two builds interleaved (run by hand): bench/version-startup.py BEFORE AFTER.

61 rounds, each running both binaries once (in turn, the order alternating); the first round is dropped.
Prints the median and quartiles of each in milliseconds."""
import subprocess, sys, time, statistics
a, b = sys.argv[1], sys.argv[2]
times = {a: [], b: []}
for i in range(61):
    for binary in (a, b) if i % 2 == 0 else (b, a):
        start = time.perf_counter()
        subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=True)
        if i > 0: times[binary].append((time.perf_counter() - start) * 1000)
for binary, values in times.items():
    values.sort()
    print(f"{binary}: median {statistics.median(values):.2f} ms, quartiles {values[len(values)//4]:.2f}–{values[3*len(values)//4]:.2f} ms over {len(values)} runs")
