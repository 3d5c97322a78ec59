#!/usr/bin/env python3
"""Fits the coefficients of the simplex' basis-solve model (lp/basis/basis_gpu.hpp,
thesis 7.2.4-7.2.5) to a `balsa-bench lp --json` run that has the GPU column,
on every other problem (sorted by name), and scores them on the rest.

    python3 scripts/lp-model-fit.py bench/results/2026-11-26-lp-h200-model-fit.json

Per simplex iteration, measured: (FTRAN + BTRAN + the factor's update) /
iterations, for the run with the basis solves on the CPU and the run with them
forced onto the GPU. Features: CPU: 1, r * (nnz L + nnz U) (r: the rhs
density, eq. 7.45), m; GPU: 1, nnz L + nnz U (7.46 with C ~ 0 for these small
factors), nnz U (the update, 7.31-7.32). Non-negative least squares on the
relative error."""
import json
import sys

import numpy as np
from scipy.optimize import nnls

runs = json.load(open(sys.argv[1]))["problems"]
rows = []
for p in sorted(runs, key=lambda p: p["path"]):
    b, g = p.get("balsa"), p.get("gpu")
    if not b or not g or b["iterations"] == 0 or g["iterations"] == 0:
        continue
    m = b["stats"]["model"]
    per_it = lambda r: (r["stats"]["ftran_seconds"] + r["stats"]["btran_seconds"] + r["stats"]["update_seconds"]) / r["iterations"]
    rows.append(dict(name=p["path"], m=p["rows"], edges=m["nnz_L"] + m["nnz_U"], nnz_u=m["nnz_U"],
                     density=m["density"], cpu=per_it(b), gpu=per_it(g)))
cpu_f = lambda r: [1.0, r["density"] * r["edges"], r["m"]]
gpu_f = lambda r: [1.0, r["edges"], r["nnz_u"]]
fit = rows[0::2]


def solve(feats, key):
    A = np.array([feats(r) for r in fit]) / np.array([[r[key]] for r in fit])
    return nnls(A, np.ones(len(fit)))[0]


cc, gc = solve(cpu_f, "cpu"), solve(gpu_f, "gpu")
print("cpu coefficients (1, r*edges, m):", " ".join(f"{c:.3e}" for c in cc))
print("gpu coefficients (1, edges, nnz U):", " ".join(f"{c:.3e}" for c in gc))
within = {"cpu": [], "gpu": []}
for i, r in enumerate(rows):
    pc, pg = float(np.dot(cc, cpu_f(r))), float(np.dot(gc, gpu_f(r)))
    role = "fit " if i % 2 == 0 else "test"
    if role == "test":
        within["cpu"].append(0.5 <= pc / r["cpu"] <= 2)
        within["gpu"].append(0.5 <= pg / r["gpu"] <= 2)
    print(f"{role} {r['name']:<28} cpu {r['cpu']*1e6:9.1f} us predicted {pc*1e6:9.1f} ({pc/r['cpu']:.2f})   "
          f"gpu {r['gpu']*1e6:9.1f} us predicted {pg*1e6:9.1f} ({pg/r['gpu']:.2f})")
for k, v in within.items():
    print(f"{k}: {sum(v)} of {len(v)} test problems predicted within 2x")
