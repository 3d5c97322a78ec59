"""PCG with a Jacobi-scaled Chebyshev polynomial preconditioner (SciPy
prototype of krylov/chebyshev.cpp, before the Gershgorin lower end): outer
iterations and products with A against plain CG and Jacobi-PCG, for degrees
(d = products per outer iteration, the preconditioner's degree + 1) and
interval ratios. Used to fit ChebyshevOptions' defaults on the 3D Laplacian
40^3 and half of the shared SPD matrices (bcsstk14, bcsstk16, 1138_bus,
nos5, trefethen_500, a_spd01, bcsstm20); the rest were scored on the H200.
  python3 bench/chebyshev-fit.py 40            (the 3D Laplacian 40^3)
  python3 bench/chebyshev-fit.py FILE.mtx.gz
"""
import numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla, sys, gzip, scipy.io
def lap3d(m):
    I=sp.identity(m); T=sp.diags([-1,2,-1],[-1,0,1],shape=(m,m))
    return (sp.kron(sp.kron(T,I),I)+sp.kron(sp.kron(I,T),I)+sp.kron(sp.kron(I,I),T)).tocsr()
def cheb_prec(A, dinv, b_up, ratio, d):
    a=b_up/ratio; theta=(b_up+a)/2; delta=(b_up-a)/2; s1=theta/delta
    def apply(r):
        rho=1/s1; dk=dinv*r/theta; z=dk.copy(); res=r.copy()
        for k in range(1,d):
            res=res-A@dk
            rn=1/(2*s1-rho)
            dk=rn*rho*dk+(2*rn/delta)*(dinv*res)
            rho=rn; z=z+dk
        return z
    return apply
def pcg(A,b,M,tol=1e-8,maxit=20000):
    x=np.zeros_like(b); r=b.copy(); z=M(r); p=z.copy(); rho=r@z; nb=np.max(abs(b))
    for k in range(1,maxit+1):
        q=A@p; al=rho/(p@q); x+=al*p; r-=al*q
        if np.max(abs(r))<=tol*nb: return k
        z=M(r); rn=r@z; p=z+(rn/rho)*p; rho=rn
    return -1
A=lap3d(int(sys.argv[1])) if sys.argv[1].isdigit() else scipy.io.mmread(gzip.open(sys.argv[1])).tocsr()
n=A.shape[0]; rng=np.random.default_rng(1); xt=rng.uniform(-1,1,n); b=A@xt
D=A.diagonal(); dinv=1/D
g=np.max(np.asarray(abs(A).sum(axis=1)).ravel()*abs(dinv))
print("n",n,"gersh",g)
k0=pcg(A,b,lambda r:r); print("cg",k0)
kj=pcg(A,b,lambda r:dinv*r); print("jacobi",kj)
for d in [2,4,6,8,12,16]:
  for ratio in [10,30,100,1000]:
    k=pcg(A,b,cheb_prec(A,dinv,g,ratio,d)); print(d,ratio,k, "spmv", k*d, "vs", k0)
