"""Krylov solvers with balsa.KrylovSolver: CG with an IC(0) preconditioner on
a 3-D Laplacian, and BiCGStab(2) with ILU(0) on a nonsymmetric
convection-diffusion matrix. Set up once, solve several right-hand sides;
each answer is checked by its true residual.

    python examples/krylov.py [--gpu] [--grid 30]
"""

import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp

import balsa
from _device import array_module

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--gpu", action="store_true", help="CuPy arrays on the GPU (when CuPy imports)")
p.add_argument("--grid", type=int, default=30, help="the 3-D grid side (grid^3 unknowns)")
args = p.parse_args()

xp, device, to_host = array_module(args.gpu)


def tridiag(m, lo, mid, hi):
    return sp.diags([lo, mid, hi], [-1, 0, 1], shape=(m, m), format="csr")


def true_residual(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


ok = True
rng = np.random.default_rng(1)

# 1. The 7-point 3-D Laplacian by Kronecker products: SPD, PCG with IC(0).
m = args.grid
K, I = tridiag(m, -1.0, 2.0, -1.0), sp.eye(m, format="csr")
A = (sp.kron(sp.kron(K, I), I) + sp.kron(sp.kron(I, K), I) + sp.kron(sp.kron(I, I), K)).tocsr()
t = time.perf_counter()
pcg = balsa.KrylovSolver(A, method="pcg-ic0", rtol=1e-10, device=device)
setup = time.perf_counter() - t
print(f"3-D Laplacian {m}^3: n = {A.shape[0]}, nnz = {A.nnz}; PCG-IC(0) set up in {setup:.3f} s "
      f"on {pcg.device}")
for k in range(3):  # the same set-up for several right-hand sides
    b = rng.standard_normal(A.shape[0])
    t = time.perf_counter()
    x = to_host(pcg.solve(xp.asarray(b)))
    info, r = pcg.info, true_residual(A, x, b)
    print(f"  solve {k}: {info['outcome']} in {info['iterations']} iterations, {time.perf_counter() - t:.3f} s, "
          f"true residual {r:.1e}")
    ok &= info["converged"] and r < 1e-8

# 2. Convection-diffusion on a 2-D grid (upwind, nonsymmetric): BiCGStab(2) with ILU(0).
m2, wind = 4 * m, 30.0
h = 1.0 / (m2 + 1)
D = tridiag(m2, -1.0, 2.0, -1.0)
C = tridiag(m2, -1.0, 1.0, 0.0) * (wind * h)  # backward differences for a positive wind
I2 = sp.eye(m2, format="csr")
B = (sp.kron(I2, D + C) + sp.kron(D + 0.5 * C, I2)).tocsr()
print(f"convection-diffusion {m2}^2: n = {B.shape[0]}, nnz = {B.nnz}, "
      f"|B - B^T| = {abs(B - B.T).max():.2f} (nonsymmetric)")
b = rng.standard_normal(B.shape[0])
t = time.perf_counter()
bicg = balsa.KrylovSolver(B, method="bicgstab2-ilu0", rtol=1e-10, device=device)
x = to_host(bicg.solve(xp.asarray(b)))
info, r = bicg.info, true_residual(B, x, b)
print(f"  BiCGStab(2)-ILU(0): {info['outcome']} in {info['iterations']} iterations, "
      f"{time.perf_counter() - t:.3f} s with set-up, true residual {r:.1e}")
ok &= info["converged"] and r < 1e-8

# 3. CG refuses a nonsymmetric matrix (check_symmetry=True is the default).
try:
    balsa.KrylovSolver(B, method="cg", device=device)
    print("  CG on the nonsymmetric matrix: accepted (unexpected)")
    ok = False
except balsa.MatrixError as e:
    print(f"  CG on the nonsymmetric matrix: refused ({type(e).__name__})")

print("krylov example:", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
