#!/usr/bin/env python3
"""Fit balsa::solve's iteration prior (solve/cost_model.cpp) on half of the
shared real matrices and score it on the other half.

The prior: iterations = c * n^(1/3) * exp(k * (1 - d)), d the fraction of
diagonally dominant rows, one (c, k) for PCG-IC(0) (symmetric matrices with
a positive diagonal) and one for DB + ILU(0)-BiCGStab(2) (the rest). Data:
the first attempt of every system in a `balsa-bench sparse` JSON (the
iterations each method took; a method that failed counts with the
iterations it had run, a lower bound). Fit: least squares of
log(iterations / n^(1/3)) on (1 - d) over the converged first attempts of
the training half (the systems at even positions in name order); score:
on the other half, the median |log error| and how many converged runs the
prior times 3 (solve's kIterativeMargin) covers.

    scripts/solve-prior-fit.py BENCH.json MATRIX_DIR
"""
import gzip
import json
import math
import pathlib
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def dominant_rows(A):
    d = A.diagonal()
    off = np.asarray(abs(A).sum(axis=1)).ravel() - abs(d)
    return float(np.mean((abs(d) >= off) & (d != 0)))


def rows(bench, folder):
    for s in sorted(json.load(open(bench))["systems"], key=lambda s: s["name"]):
        chain = s["balsa"].get("chain") or []
        f = pathlib.Path(folder) / (s["name"] + ".mtx.gz")
        if not chain or not f.exists():
            continue
        A = sp.csr_matrix(scipy.io.mmread(gzip.open(f)))
        a = chain[0]
        yield {"name": s["name"], "n": A.shape[0], "dom": dominant_rows(A), "method": a["method"],
               "iterations": max(1, a["iterations"]), "solved": a["solved"]}


def fit(train):
    x = np.array([1 - r["dom"] for r in train])
    y = np.array([math.log(r["iterations"] / r["n"] ** (1 / 3)) for r in train])
    k, logc = np.polyfit(x, y, 1)
    return math.exp(logc), k


def main():
    data = list(rows(sys.argv[1], sys.argv[2]))
    for method in ("pcg-ic0", "db-bicgstab2-ilu0"):
        mine = [r for r in data if r["method"] == method]
        train = [r for i, r in enumerate(mine) if i % 2 == 0 and r["solved"]]
        test = [r for i, r in enumerate(mine) if i % 2 == 1]
        c, k = fit(train)
        prior = lambda r: c * r["n"] ** (1 / 3) * math.exp(k * (1 - r["dom"]))
        solved = [r for r in test if r["solved"]]
        errors = sorted(abs(math.log(r["iterations"] / prior(r))) for r in solved)
        covered = sum(r["iterations"] <= 3 * prior(r) for r in solved)
        print(f"{method}: c = {c:.3g}, k = {k:.3g} (fit on {len(train)} converged of {len(mine[::2])} training "
              f"systems); test: {len(test)} systems, {len(solved)} converged, median |log error| "
              f"{errors[len(errors) // 2]:.2f}, prior x 3 covers {covered} of {len(solved)}; failed: "
              f"{', '.join(r['name'] for r in test if not r['solved']) or 'none'}")
        print("  training: " + ", ".join(r["name"] for r in train))


main()
