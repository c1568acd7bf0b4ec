#!/usr/bin/env python3
"""Independent check of tinkertoy's FCLIB reading and natural-map residual (numpy + h5py).

Reads each FCLIB file with h5py, builds W and q (for a global problem W = H^T M^-1 H and
q = H^T M^-1 f + w, with dense numpy algebra; with bilateral constraints G, b by solving the
saddle-point system [M -G; G^T 0] instead), and computes the natural-map residual
||r - P_K(r - (W r + q + s(W r + q)))|| / ||q|| of Acary, Brémond & Huber (2018) from the
formula, for every stored guess and, given a `contact` report's answers.csv, for every answer.
Prints one line per residual with tinkertoy's value (from `tinkertoy check` or the report's
summary.csv) when given, and the relative difference.

    pip install numpy h5py
    python3 compare/fclib_residual.py tests/data/contact/*.hdf5 [--answers reports/contact/answers.csv]
"""
import argparse
import csv
import os

import h5py
import numpy as np


def matrix(g):
    m, n, nz = int(g["m"][0]), int(g["n"][0]), int(g["nz"][0])
    p, i, x = np.asarray(g["p"]), np.asarray(g["i"]), np.asarray(g["x"], dtype=float)
    a = np.zeros((m, n))
    if nz == -1:  # compressed columns
        for c in range(n):
            for k in range(p[c], p[c + 1]):
                a[i[k], c] += x[k]
    elif nz == -2:  # compressed rows
        for r in range(m):
            for k in range(p[r], p[r + 1]):
                a[r, i[k]] += x[k]
    else:  # triplets
        for k in range(nz):
            a[i[k], p[k]] += x[k]
    return a


def load(path):
    with h5py.File(path, "r") as f:
        guesses = []
        if "guesses" in f:
            keys = sorted((k for k in f["guesses"] if k.isdigit()), key=int)
            guesses = [np.asarray(f["guesses"][k]["r"], dtype=float) for k in keys]
        if "fclib_local" in f:
            g = f["fclib_local"]
            dim = int(g["spacedim"][0])
            w, q, mu = matrix(g["W"]), np.asarray(g["vectors"]["q"], float), np.asarray(g["vectors"]["mu"], float)
        else:
            g = f["fclib_global"]
            dim = int(g["spacedim"][0])
            m, h = matrix(g["M"]), matrix(g["H"])
            f_, w_ = np.asarray(g["vectors"]["f"], float), np.asarray(g["vectors"]["w"], float)
            mu = np.asarray(g["vectors"]["mu"], float)
            if "G" in g:
                # GM3DFC: M v = H r + G lam + f, G^T v + b = 0. Solve the saddle-point system
                # [M -G; G^T 0] for the columns of H and for (f, -b): v = A r + c, u = H^T v + w.
                gm, b = matrix(g["G"]), np.asarray(g["vectors"]["b"], float)
                n, p = gm.shape
                kkt = np.block([[m, -gm], [gm.T, np.zeros((p, p))]])
                cols = np.linalg.solve(kkt, np.vstack([h, np.zeros((p, h.shape[1]))]))[:n]
                rest = np.linalg.solve(kkt, np.concatenate([f_, -b]))[:n]
                w = h.T @ cols
                q = h.T @ rest + w_
            else:
                minv_h = np.linalg.solve(m, h)
                w = h.T @ minv_h
                q = h.T @ np.linalg.solve(m, f_) + w_
    return dim, w, q, mu, guesses


def project(mu, x):
    n, t = x[0], np.linalg.norm(x[1:])
    if t <= mu * n:
        return x.copy()
    if mu * t <= -n:
        return np.zeros_like(x)
    a = (n + mu * t) / (1 + mu * mu)
    out = np.empty_like(x)
    out[0] = a
    out[1:] = (mu * a / t) * x[1:] if t > 0 else 0.0
    return out


def residual(dim, w, q, mu, r):
    u = w @ r + q
    total = 0.0
    for a, m in enumerate(mu):
        s = slice(a * dim, (a + 1) * dim)
        uhat = u[s].copy()
        uhat[0] += m * np.linalg.norm(u[s][1:])
        f = r[s] - project(m, r[s] - uhat)
        total += f @ f
    nq = np.linalg.norm(q)
    return np.sqrt(total) / (nq if nq > 0 else 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--answers", help="answers.csv of a `tinkertoy contact` report")
    ap.add_argument("--summary", help="its summary.csv, to compare residuals")
    args = ap.parse_args()
    problems = {}
    for path in args.files:
        dim, w, q, mu, guesses = load(path)
        name = os.path.basename(path)
        problems[name] = (dim, w, q, mu)
        for k, r in enumerate(guesses):
            print(f"{name} guess {k + 1}: residual ||F_nat|| / ||q|| = {residual(dim, w, q, mu, r):.6e}")
    if args.answers:
        answers = {}
        with open(args.answers) as fh:
            for row in csv.DictReader(fh):
                answers.setdefault((row["problem"], row["solver"], row["tol"]), []).append(float(row["r"]))
        theirs = {}
        if args.summary:
            with open(args.summary) as fh:
                for row in csv.DictReader(fh):
                    theirs[(row["problem"], row["solver"], row["tol"])] = float(row["residual"])
        worst_rel, worst_abs = 0.0, 0.0
        for key, r in sorted(answers.items()):
            if key[0] not in problems:
                continue
            dim, w, q, mu = problems[key[0]]
            mine = residual(dim, w, q, mu, np.asarray(r))
            line = f"{key[0]} {key[1]} tol={key[2]}: residual {mine:.6e}"
            if key in theirs:
                diff = abs(mine - theirs[key])
                rel = diff / max(abs(mine), 1e-300)
                worst_abs = max(worst_abs, diff)
                if mine >= 1e-4:
                    worst_rel = max(worst_rel, rel)
                line += f", tinkertoy {theirs[key]:.6e}, difference {diff:.1e} ({rel:.1e} relative)"
            print(line)
        if theirs:
            # Near a solution u = W r + q cancels to about eps ||q||, so two correct
            # implementations agree to rounding in absolute terms (units of ||q||), and relatively
            # only where the residual is well above that.
            print(f"largest difference: {worst_abs:.1e} (units of ||q||); largest relative difference where the residual >= 1e-4: {worst_rel:.1e}")


if __name__ == "__main__":
    main()
