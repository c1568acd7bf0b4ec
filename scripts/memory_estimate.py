#!/usr/bin/env python3
"""The memory budget's estimate against the measured peak: for each config, the largest cell's
estimate from `run --dry-run` and the peak resident set of the real run, less the peak of a
one-cell pendulum run (the process's own baseline: binary, embedded models and fonts, report
writing), which no cell estimate counts.

Usage: python3 scripts/memory_estimate.py [BINARY]   (default target/release/tinkertoy)
"""
import os, re, resource, subprocess, sys, tempfile

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/tinkertoy"
COMMON = "timing: {repeats: 0}\n"
CASES = [
    ("baseline: pendulum", "scene: {name: pendulum}\nformulations: [{name: force}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: rk4}]\nsteps: [0.01]\nduration: 0.02\nsample_interval: 0.01\n"),
    ("chain of 3000 masses, force + dense_lu + rk4", "scene: {name: chain, params: {n: 3000}}\nformulations: [{name: force}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: rk4}]\nsteps: [0.01]\nduration: 0.02\nsample_interval: 0.01\n"),
    ("chain of 300 000 masses, force + sparse_cholesky + dop853", "scene: {name: chain, params: {n: 300000}}\nformulations: [{name: force}]\nsolvers: [{name: sparse_cholesky}]\nintegrators: [{name: dop853}]\ntolerances: [1.0e-6]\nduration: 0.02\nsample_interval: 0.01\n"),
]


def peak_of_child(args):
    """Runs `args` in a fresh process and returns (its peak RSS in MB, stderr)."""
    # ru_maxrss of RUSAGE_CHILDREN is the largest over all children so far: measure each in a
    # wrapper process of its own
    code = "import resource,subprocess,sys;p=subprocess.run(sys.argv[1:],capture_output=True,text=True);print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);sys.stderr.write(p.stderr)"
    p = subprocess.run([sys.executable, "-c", code] + args, capture_output=True, text=True)
    return int(p.stdout.split()[-1]) / 1024.0, p.stderr


with tempfile.TemporaryDirectory() as d:
    base = None
    print(f"binary {BIN}; load {os.getloadavg()[0]:.2f}")
    print("| run | estimate of the largest cell [MB] | peak RSS [MB] | peak less baseline [MB] |")
    print("|---|---|---|---|")
    for i, (what, text) in enumerate(CASES):
        cfg = os.path.join(d, f"m{i}.yaml")
        with open(cfg, "w") as f:
            f.write(f"name: m{i}\n" + text + COMMON)
        p = subprocess.run([BIN, "run", cfg, "--reports", d, "--dry-run"], capture_output=True, text=True)
        dry = p.stdout + p.stderr
        est = re.search(r"largest cell about (\d+) MB", dry)
        rss, err = peak_of_child([BIN, "run", cfg, "--reports", d])
        if base is None:
            base = rss
        est_s = est.group(1) if est else "?"
        print(f"| {what} | {est_s} | {rss:.0f} | {rss - base:.0f} |")
