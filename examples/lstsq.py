"""Sparse least squares with balsa.lstsq / balsa.SparseQR on a tall sparse
matrix, compared with numpy.linalg.lstsq on its dense form and with SciPy's
iterative lsqr.

    python examples/lstsq.py [--gpu] [--rows 2000] [--cols 400]
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
p.add_argument("--rows", type=int, default=2000)
p.add_argument("--cols", type=int, default=400)
args = p.parse_args()

xp, device, to_host = array_module(args.gpu)

m, n = args.rows, args.cols
rng = np.random.default_rng(4)
A = sp.random(m, n, density=0.01, random_state=rng, format="csr") + sp.eye(m, n, format="csr")
A = A.tocsr()
b = rng.standard_normal(m)
print(f"A: {m} x {n}, {A.nnz} nonzeros; b: {m} values (no exact solution)")

t = time.perf_counter()
x = to_host(balsa.lstsq(A, xp.asarray(b), device=device))
print(f"balsa.lstsq: {time.perf_counter() - t:.3f} s")

t = time.perf_counter()
x_np = np.linalg.lstsq(A.toarray(), b, rcond=None)[0]
print(f"numpy.linalg.lstsq (dense): {time.perf_counter() - t:.3f} s")
t = time.perf_counter()
x_lsqr = spla.lsqr(A, b, atol=1e-14, btol=1e-14, iter_lim=10 * n)[0]
print(f"scipy.sparse.linalg.lsqr: {time.perf_counter() - t:.3f} s")

diff_np = np.linalg.norm(x - x_np) / np.linalg.norm(x_np)
diff_lsqr = np.linalg.norm(x - x_lsqr) / np.linalg.norm(x_lsqr)
r = b - A @ x
normal = np.linalg.norm(A.T @ r) / (spla.norm(A) * np.linalg.norm(r))  # optimality: A^T r = 0
print(f"vs numpy dense lstsq {diff_np:.1e}, vs lsqr {diff_lsqr:.1e}; "
      f"||A^T r|| / (||A|| ||r||) = {normal:.1e}; ||r|| = {np.linalg.norm(r):.4f} "
      f"(numpy's {np.linalg.norm(b - A @ x_np):.4f})")
ok = diff_np < 1e-10 and normal < 1e-12

# The factorisation kept for several right-hand sides (an m x k matrix in one call).
qr = balsa.SparseQR(A, device=device)
B = rng.standard_normal((m, 4))
X = to_host(qr.solve(xp.asarray(B)))
X_np = np.linalg.lstsq(A.toarray(), B, rcond=None)[0]
dk = np.linalg.norm(X - X_np) / np.linalg.norm(X_np)
s = qr.stats
print(f"SparseQR: rank {qr.rank}, {s['fronts']} fronts, R has {s['r_nnz']} nonzeros, {s['flops']:.2e} flops, "
      f"on {s['device']}; 4 right-hand sides vs numpy: {dk:.1e}")
ok &= dk < 1e-10 and qr.rank == n

print("lstsq example:", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
