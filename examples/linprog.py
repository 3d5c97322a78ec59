"""Linear programs with balsa.linprog (revised simplex): a small LP in
scipy.optimize.linprog's form, and Netlib's afiro read with balsa.read_mps;
both compared with scipy.optimize.linprog (HiGHS).

    python examples/linprog.py [--gpu] [MODEL.mps[.gz]]
"""

import argparse
import pathlib
import sys
import time

import numpy as np
import scipy.optimize as opt
import scipy.sparse as sp

import balsa

default = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "lp" / "afiro.mps.gz"
p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("model", nargs="?", default=str(default), help="an MPS file (default: Netlib's afiro)")
p.add_argument("--gpu", action="store_true", help="the basis solves on the GPU (device='cuda')")
args = p.parse_args()
device = "cuda" if args.gpu and balsa.cuda_available() else "cpu"

ok = True

# 1. A small LP, SciPy's form: min c^T x, A_ub x <= b_ub, A_eq x = b_eq, bounds.
c = np.array([-3.0, -5.0, -4.0, 1.0])
A_ub = np.array([[2.0, 3.0, 1.0, 0.0], [4.0, 1.0, 2.0, 1.0], [3.0, 4.0, 2.0, 0.0]])
b_ub = np.array([5.0, 11.0, 8.0])
A_eq = np.array([[1.0, 1.0, 1.0, 1.0]])
b_eq = np.array([3.0])
bounds = [(0, None), (0, None), (0, None), (0, 2.0)]

res = balsa.linprog(c, A_ub, b_ub, A_eq, b_eq, bounds, device=device)
ref = opt.linprog(c, A_ub, b_ub, A_eq, b_eq, bounds, method="highs")
feas = max(np.max(A_ub @ res.x - b_ub), np.max(np.abs(A_eq @ res.x - b_eq)), -res.x.min())
print(f"small LP: balsa {res.balsa_status} after {res.nit} iterations, objective {res.fun:.10g}, x = {np.round(res.x, 6)}")
print(f"          scipy (HiGHS) objective {ref.fun:.10g}, x = {np.round(ref.x, 6)}; "
      f"balsa's worst violation {feas:.1e}; slack {np.round(res.slack, 6)}")
ok &= res.success and abs(res.fun - ref.fun) <= 1e-9 * max(1.0, abs(ref.fun)) and feas < 1e-9
# The duals: c = A_ub^T y_ub + A_eq^T y_eq + reduced costs (this LP is degenerate: its duals are not unique,
# so they are checked by this identity, not against SciPy's).
stationarity = np.abs(c - A_ub.T @ res.ineqlin.marginals - A_eq.T @ res.eqlin.marginals - res.reduced_cost).max()
print(f"          duals: y_ub = {res.ineqlin.marginals}, y_eq = {res.eqlin.marginals}; "
      f"|c - A^T y - reduced cost| = {stationarity:.1e}")
ok &= stationarity < 1e-9

# 2. An MPS model: read_mps gives a LinearProgram (rows l <= A x <= u, column bounds).
lp = balsa.read_mps(args.model)
m, n = lp.A.shape
print(f"{lp.name or pathlib.Path(args.model).name}: {m} rows, {n} columns, {lp.A.nnz} nonzeros, "
      f"{'max' if lp.maximize else 'min'}imise")
t = time.perf_counter()
res = balsa.linprog(lp, device=device)
seconds = time.perf_counter() - t
print(f"  balsa: {res.balsa_status} after {res.nit} iterations in {seconds * 1e3:.1f} ms, objective {res.fun:.10g}")

# The same LP in SciPy's form: equality rows, then the finite sides of the ranged rows.
A = sp.csr_array(lp.A)
eq = lp.row_lower == lp.row_upper
up = ~eq & np.isfinite(lp.row_upper)
lo = ~eq & np.isfinite(lp.row_lower)
A_ub = sp.vstack([A[up], -A[lo]]).tocsr()
b_ub = np.concatenate([lp.row_upper[up], -lp.row_lower[lo]])
sign = -1.0 if lp.maximize else 1.0
t = time.perf_counter()
ref = opt.linprog(sign * lp.c, A_ub, b_ub, A[eq], lp.row_upper[eq], list(zip(lp.col_lower, lp.col_upper)),
                  method="highs")
ref_fun = sign * ref.fun + lp.objective_constant
print(f"  scipy (HiGHS): {ref.message.split('(')[0].strip()} in {(time.perf_counter() - t) * 1e3:.1f} ms, "
      f"objective {ref_fun:.10g}")
act = A @ res.x
viol = max(np.max(act - lp.row_upper), np.max(lp.row_lower - act), np.max(lp.col_lower - res.x),
           np.max(res.x - lp.col_upper))
rel = abs(res.fun - ref_fun) / max(1.0, abs(ref_fun))
print(f"  objectives differ by {rel:.1e} (relative); balsa's worst bound violation {viol:.1e}")
ok &= res.success and rel < 1e-8 and viol < 1e-7

print("linprog example:", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
