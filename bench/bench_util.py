"""Helpers shared by the Python sides of the benchmarks (python_lookups.py, python_boxes.py)."""

import json
import os
import sys


def status_bytes(key):
    """A /proc/self/status field in bytes (VmRSS, VmHWM), 0 when absent."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def p90(xs):
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.9 * len(s)))] if s else float("nan")


def emit(obj):
    """One JSON line on stdout (the format bench/report_*.mjs read)."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def dir_bytes(p):
    n = 0
    for root, _, files in os.walk(p):
        for f in files:
            n += os.path.getsize(os.path.join(root, f))
    return n
