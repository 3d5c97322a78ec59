"""A sparse triangular solve with balsa.TriangularSolver: analyse once, solve
many times, take new values of the same pattern, solve many right-hand sides
in one call. Checked against SciPy's spsolve_triangular and by residuals.

    python examples/trsv.py [--gpu] [--n 200]
"""

import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import balsa
from _device import array_module

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--gpu", action="store_true", help="CuPy arrays on the GPU (when CuPy imports)")
p.add_argument("--n", type=int, default=200, help="grid side: the factor has n^2 rows")
args = p.parse_args()

xp, device, to_host = array_module(args.gpu)

# The lower triangle (with diagonal) of the 2-D 5-point Laplacian.
m = args.n
T = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(m, m))
S = sp.diags([-1.0, -1.0], [-1, 1], shape=(m, m))
A = sp.kron(sp.eye(m), T) + sp.kron(S, sp.eye(m))
L = sp.tril(A, format="csr")
n = L.shape[0]
rng = np.random.default_rng(0)


def residual(L, x, b):
    return np.linalg.norm(L @ x - b) / np.linalg.norm(b)


ok = True

# 1. Analysis once.
t = time.perf_counter()
solver = balsa.TriangularSolver(L, device=device)
st = solver.stats
print(f"{solver}: analysis {time.perf_counter() - t:.3f} s, {st['levels']} levels, {L.nnz} nonzeros")

# 2. Many solves with the same analysis.
rhs = [xp.asarray(rng.standard_normal(n)) for _ in range(50)]
t = time.perf_counter()
xs = [solver.solve(b) for b in rhs]
seconds = time.perf_counter() - t  # (on the GPU: launch times; the residuals below wait for the results)
worst = max(residual(L, to_host(x), to_host(b)) for x, b in zip(xs, rhs))
b, x = to_host(rhs[-1]), to_host(xs[-1])
print(f"50 solves: {seconds / 50 * 1e3:.3f} ms each, worst residual {worst:.1e}")
ok &= worst < 1e-12

# ... one compared with SciPy's.
x_ref = spla.spsolve_triangular(L, b, lower=True)
diff = np.linalg.norm(x - x_ref) / np.linalg.norm(x_ref)
print(f"vs scipy.sparse.linalg.spsolve_triangular: relative difference {diff:.1e}")
ok &= diff < 1e-12

# ... into a preallocated output (no allocation per call).
out = xp.empty(n)
solver.solve(xp.asarray(b), out=out)
ok &= residual(L, to_host(out), b) < 1e-12

# 3. New values, same pattern: no new analysis.
L2 = L.copy()
L2.data = L.data * rng.uniform(0.5, 2.0, L.nnz)
t = time.perf_counter()
solver.update_values(L2)
x2 = to_host(solver.solve(xp.asarray(b)))
seconds = time.perf_counter() - t
r2 = residual(L2, x2, b)
print(f"update_values + solve: {seconds * 1e3:.3f} ms, residual {r2:.1e} "
      f"(solves so far {solver.stats['solves']})")
ok &= r2 < 1e-12

# 4. A matrix of right-hand sides in one call (n x k; the answer is n x k).
B = rng.standard_normal((n, 8))
X = to_host(solver.solve(xp.asarray(B)))
rk = max(residual(L2, X[:, j], B[:, j]) for j in range(B.shape[1]))
print(f"{B.shape[1]} right-hand sides in one call: X {X.shape}, worst residual {rk:.1e}")
ok &= rk < 1e-12

# 5. The transposed and upper-triangular systems.
U = sp.csr_array(L2.T)
xu = to_host(balsa.TriangularSolver(U, lower=False, device=device).solve(xp.asarray(b)))
xt = to_host(balsa.TriangularSolver(L2, transpose=True, device=device).solve(xp.asarray(b)))
ru, rt = residual(U, xu, b), np.linalg.norm(xt - xu) / np.linalg.norm(xu)
print(f"upper triangle: residual {ru:.1e}; L^T solve vs upper solve: {rt:.1e}")
ok &= ru < 1e-12 and rt < 1e-12

print("trsv example:", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
