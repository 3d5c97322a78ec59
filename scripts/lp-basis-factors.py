#!/usr/bin/env python3
"""Lower-triangular L factors of LU factorisations of optimal simplex bases of
Netlib LPs, as test matrices for sparse triangular solves (the experiment of
Picciau's thesis, ch. 6: triangular matrices taken from simplex bases).

For each problem <name> it reads <lp-dir>/<name>.mps.gz with HiGHS (highspy),
solves it with the simplex method, takes the optimal basis (getBasis():
col_status / row_status) and assembles the m x m basis matrix B in CSC form:
each basic structural column is that column of A, each basic row contributes
its slack column, the unit vector e_i (the sign does not matter here). B is
factored with SciPy's SuperLU, splu(B, permc_spec="COLAMD"), Pr B Pc = L U,
and L (unit lower triangular, with the unit diagonal stored) is written in
Matrix Market coordinate real general format (1-based), gzip-compressed, as
<out-dir>/<name>-L.mtx.gz. Problems whose model is not optimal, whose basis is
not m x m or whose factorisation fails are skipped with the reason printed.

Inputs: the Netlib MPS files of ../shared/data/lp (relative to the repository
root; the infeasible/ subfolder is never used). Needs highspy and scipy
(pip install highspy scipy).

Run from the repository root:

  python3 scripts/lp-basis-factors.py                  # the default problems
  python3 scripts/lp-basis-factors.py --all --dry-run  # statistics only, all
  python3 scripts/lp-basis-factors.py pilot d2q06c     # chosen problems
"""
import argparse
import gzip
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.linalg as spla

try:
    import highspy
except ImportError:
    sys.exit("lp-basis-factors: needs highspy (pip install highspy)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_LP_DIR = os.path.join(ROOT, "..", "shared", "data", "lp")
DEFAULT_OUT_DIR = os.path.join(ROOT, "bench", "data", "lp-basis-L")

# The problems written by default: the larger Netlib LPs of the folder that
# HiGHS solves to optimality, from a few hundred to ~6,000 rows.
DEFAULT_PROBLEMS = [
    "dfl001", "maros-r7", "fit2p", "bnl2", "d2q06c", "cycle", "degen3",
    "pilot", "ganges", "woodw", "pilotnov", "25fv47",
]


def highs_version():
    h = highspy.Highs()
    try:
        return "%d.%d.%d" % (h.versionMajor(), h.versionMinor(), h.versionPatch())
    except AttributeError:
        return getattr(highspy, "__version__", "unknown")


def read_model(h, path):
    """Reads an MPS(.gz) file into h; decompresses to a temporary file when
    HiGHS cannot read the gzip file itself."""
    if h.readModel(path) == highspy.HighsStatus.kOk:
        return
    if not path.endswith(".gz"):
        raise RuntimeError("HiGHS cannot read %s" % path)
    fd, tmp = tempfile.mkstemp(suffix=".mps")
    try:
        with gzip.open(path, "rb") as src, os.fdopen(fd, "wb") as dst:
            shutil.copyfileobj(src, dst)
        if h.readModel(tmp) != highspy.HighsStatus.kOk:
            raise RuntimeError("HiGHS cannot read %s" % path)
    finally:
        os.unlink(tmp)


def optimal_basis_matrix(path):
    """Solves the LP with HiGHS simplex; returns (B as CSC, model status)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("presolve", "off")  # basis of the original model
    read_model(h, path)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        return None, h.modelStatusToString(status)
    lp = h.getLp()
    m, n = lp.num_row_, lp.num_col_
    a = lp.a_matrix_
    if a.format_ != highspy.MatrixFormat.kColwise:
        raise RuntimeError("constraint matrix is not column-wise")
    start = np.asarray(a.start_, dtype=np.int64)
    index = np.asarray(a.index_, dtype=np.int64)
    value = np.asarray(a.value_, dtype=np.float64)
    basis = h.getBasis()
    if not basis.valid:
        return None, "no valid basis"
    basic = highspy.HighsBasisStatus.kBasic
    cols = [j for j, s in enumerate(basis.col_status) if s == basic]
    rows = [i for i, s in enumerate(basis.row_status) if s == basic]
    nb = len(cols) + len(rows)
    if nb != m:
        return None, "basis has %d basic variables for %d rows" % (nb, m)
    indptr = [0]
    bidx, bval = [], []
    for j in cols:
        lo, hi = start[j], start[j + 1]
        bidx.append(index[lo:hi])
        bval.append(value[lo:hi])
        indptr.append(indptr[-1] + (hi - lo))
    for i in rows:  # slack column e_i
        bidx.append(np.array([i], dtype=np.int64))
        bval.append(np.array([1.0]))
        indptr.append(indptr[-1] + 1)
    bidx = np.concatenate(bidx) if bidx else np.zeros(0, dtype=np.int64)
    bval = np.concatenate(bval) if bval else np.zeros(0)
    B = sp.csc_matrix((bval, bidx, np.asarray(indptr, dtype=np.int64)),
                      shape=(m, m))
    B.sum_duplicates()
    return B, "Optimal"


def write_mtx_gz(path, L, comment):
    """Matrix Market coordinate real general, 1-based, column by column,
    gzip-compressed with a fixed time stamp (reproducible bytes)."""
    L = L.tocsc()
    L.sort_indices()
    m, n = L.shape
    cols = np.repeat(np.arange(n), np.diff(L.indptr))
    lines = ["%%MatrixMarket matrix coordinate real general",
             "% " + comment,
             "%d %d %d" % (m, n, L.nnz)]
    # repr: the shortest decimal string that reads back to the same double
    body = "\n".join("%d %d %r" % (i + 1, j + 1, v) for i, j, v in
                     zip(L.indices.tolist(), cols.tolist(), L.data.tolist()))
    text = "\n".join(lines) + "\n" + body + ("\n" if L.nnz else "")
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                           compresslevel=9) as f:
            f.write(text.encode("ascii"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("problems", nargs="*",
                    help="Netlib names (default: the built-in list)")
    ap.add_argument("--all", action="store_true",
                    help="every problem of the LP folder (not infeasible/)")
    ap.add_argument("--lp-dir", default=DEFAULT_LP_DIR)
    ap.add_argument("--out-dir", default=DEFAULT_OUT_DIR)
    ap.add_argument("--dry-run", action="store_true",
                    help="print the statistics only, write no file")
    args = ap.parse_args()

    if args.all:
        names = sorted(f[:-len(".mps.gz")] for f in os.listdir(args.lp_dir)
                       if f.endswith(".mps.gz"))
    else:
        names = args.problems or DEFAULT_PROBLEMS
    if not args.dry_run:
        os.makedirs(args.out_dir, exist_ok=True)
    print("# HiGHS %s, SciPy %s (SuperLU), numpy %s"
          % (highs_version(), scipy.__version__, np.__version__))
    print("%-10s %6s %8s %9s %9s %6s %10s %7s"
          % ("name", "rows", "nnz(B)", "nnz(L)", "offdiag", "e/v",
             "bytes", "time_s"))
    t_all = time.time()
    for name in names:
        t0 = time.time()
        path = os.path.join(args.lp_dir, name + ".mps.gz")
        if not os.path.exists(path):
            print("%-10s skipped: %s not found" % (name, path))
            continue
        try:
            B, why = optimal_basis_matrix(path)
        except Exception as e:  # noqa: BLE001 - report and go on
            print("%-10s skipped: %s" % (name, e))
            continue
        if B is None:
            print("%-10s skipped: %s" % (name, why))
            continue
        m = B.shape[0]
        try:
            lu = spla.splu(B, permc_spec="COLAMD")
        except RuntimeError as e:
            print("%-10s skipped: splu failed (%s)" % (name, e))
            continue
        L = lu.L.tocsc()
        diag = L.diagonal()
        if L.shape != (m, m) or sp.triu(L, 1).nnz or np.any(diag == 0):
            print("%-10s skipped: L is not unit lower triangular" % name)
            continue
        offdiag = L.nnz - m
        size = 0
        if not args.dry_run:
            out = os.path.join(args.out_dir, name + "-L.mtx.gz")
            write_mtx_gz(out, L,
                         "L factor of SuperLU(COLAMD) LU of the HiGHS optimal "
                         "basis of Netlib %s (generated by "
                         "scripts/lp-basis-factors.py)" % name)
            size = os.path.getsize(out)
        print("%-10s %6d %8d %9d %9d %6.2f %10d %7.2f"
              % (name, m, B.nnz, L.nnz, offdiag, offdiag / m, size,
                 time.time() - t0))
        sys.stdout.flush()
    print("# total %.1f s" % (time.time() - t_all))


if __name__ == "__main__":
    main()
