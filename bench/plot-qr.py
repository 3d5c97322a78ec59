#!/usr/bin/env python3
"""The GPU QR's speedup over SPQR against flop/byte intensity (the sparse QR
paper's Fig. 15), from `balsa-bench qr --json` files.

    bench/plot-qr.py OUT.png RESULTS.json [RESULTS.json ...]

x: the analysis' flop/byte intensity, log scale; y: SPQR's factorisation
time / balsa's GPU refactorisation time (blue dots) and the least-squares
ratio, factorise + solve (orange squares), log scale, y = 1 marked. Cases
that fell back to the CPU are skipped. Also writes OUT.csv. Needs matplotlib.
"""
import csv, json, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

from plot import seconds  # bench/plot.py: `*_seconds`, or an older file's `*_s`


def main():
    out, files = sys.argv[1], sys.argv[2:]
    rows = []
    for f in files:
        for c in json.load(open(f))["cases"]:
            g = c.get("gpu")
            if not g or g["device"] != "cuda":
                continue
            s = c["spqr"]
            rows.append({"matrix": c["matrix"], "intensity": c["cpu"]["intensity"],
                         "factorise": seconds(s, "factorise") / seconds(g, "factorise"),
                         "least_squares": (seconds(s, "factorise") + seconds(s, "solve"))
                         / (seconds(g, "factorise") + seconds(g, "solve"))})
    with open(out.rsplit(".", 1)[0] + ".csv", "w", newline="") as h:
        w = csv.DictWriter(h, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter([r["intensity"] for r in rows], [r["factorise"] for r in rows], label="factorisation", color="tab:blue")
    ax.scatter([r["intensity"] for r in rows], [r["least_squares"] for r in rows], label="least squares (factorise + solve)",
               marker="s", color="tab:orange")
    for r in rows:
        ax.annotate(r["matrix"], (r["intensity"], r["factorise"]), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flop / byte intensity (flops / 8 (nnz(A) + nnz(R)))")
    ax.set_ylabel("SPQR (16 cores) time / balsa GPU time")
    ax.set_title("balsa SparseQR on the GPU vs SPQR (NVIDIA H200)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
