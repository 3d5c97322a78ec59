#!/usr/bin/env python3
"""Fit balsa::solve's direct-method time model (solve/cost_model.cpp) on
half of a `balsa-bench direct` run and score it on the other half.

Model, per method (cholmod, umfpack, klu), from the analysis' predictions
(UMFPACK: from the factor's actual counts, which KLU's analysis predicts
where balsa's Auto hands a matrix to UMFPACK; UMFPACK's own predictions are
upper bounds, 11x too many flops in the median):
  factor + one solve = c0 + flops / rate + factor_entries * ce
  analysis           = a0 + nnz * a1
fitted by nonnegative least squares on relative errors (each record weighted
by 1 / its time) over the records at even positions in name order; scored
on the odd ones: median and worst ratio predicted / measured.

    scripts/solve-direct-fit.py BENCH_DIRECT.json
"""
import json
import sys

import numpy as np
from scipy.optimize import nnls


def fit(rows, cols, target):
    A = np.array([[r[c] for c in cols] for r in rows], dtype=float)
    y = np.array([r[target] for r in rows], dtype=float)
    w = 1.0 / np.maximum(y, 1e-6)
    coef, _ = nnls(A * w[:, None], y * w)
    return coef


def score(rows, cols, target, coef):
    ratios = sorted((sum(c * r[k] for c, k in zip(coef, cols)) / max(r[target], 1e-7), r["name"]) for r in rows)
    logs = sorted(abs(np.log(q)) for q, _ in ratios)
    return np.exp(logs[len(logs) // 2]), ratios[0], ratios[-1]


def main():
    recs = [r for r in json.load(open(sys.argv[1]))["records"] if r.get("status") == "ok"]
    for method in ("cholmod", "umfpack", "klu"):
        rows = []
        for r in sorted((r for r in recs if r["method"] == method), key=lambda r: r["matrix"]):
            p = r["factorized"] if method == "umfpack" else r["predicted"]
            rows.append({"name": r["matrix"].split(".")[0], "one": 1.0, "flops": p["flops"],
                         "entries": p["factor_entries"], "nnz": r["nnz"], "n": r["n"],
                         "factor": r["factor_seconds"] + r["solve_seconds"], "analyse": r["analyse_seconds"]})
        train, test = rows[0::2], rows[1::2]
        f = fit(train, ("one", "flops", "entries"), "factor")
        a = fit(train, ("one", "nnz"), "analyse")
        sf = score(test, ("one", "flops", "entries"), "factor", f)
        sa = score(test, ("one", "nnz"), "analyse", a)
        rate = 1 / f[1] if f[1] > 0 else float("inf")
        print(f"{method}: factor+solve = {f[0]:.3g} + flops / {rate:.3g} + entries * {f[2]:.3g}; "
              f"analysis = {a[0]:.3g} + nnz * {a[1]:.3g} (fit on {len(train)}, scored on {len(test)})")
        print(f"  factor+solve predicted/measured on the score half: typical x{sf[0]:.2f}, "
              f"lowest {sf[1][0]:.2g} ({sf[1][1]}), highest {sf[2][0]:.2g} ({sf[2][1]})")
        print(f"  analysis: typical x{sa[0]:.2f}, lowest {sa[1][0]:.2g} ({sa[1][1]}), highest {sa[2][0]:.2g} ({sa[2][1]})")


main()
