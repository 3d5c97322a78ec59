#!/usr/bin/env python3
"""Fits DirectMethod::Auto's UMFPACK/KLU rule (direct/direct_choice.cpp) on
`balsa-bench direct --json` records: the matrices Auto does not give to
CHOLMOD, sorted by name, alternately into a fit half (even positions) and a
score half (odd). The time of a method is analyse + factor + solve (one
solve after a fresh analysis: what Auto's callers pay). A rule is "KLU when
feature < t" or "KLU when feature >= t" on one feature (klu_flops: the flop
estimate of KLU's own analysis, BTF and AMD, which Auto runs first); thresholds are
midpoints between the fit half's values; the fit takes the rule with the
least total regret sum(t_chosen / t_best - 1) on the fit half.

    python3 bench/fit-direct-choice.py bench/results/2026-11-29-direct-cpu.json
"""

import json
import math
import sys

FEATURES = ("n", "nnz", "nnz_per_row", "pattern_symmetry", "zero_diagonal", "klu_flops")


def load(path):
    recs = json.load(open(path))["records"]
    by = {}
    for r in recs:
        if r["status"] != "ok":
            continue
        m = by.setdefault(r["matrix"], {"features": dict(r["features"], n=r["n"], nnz=r["nnz"])})
        m[r["method"]] = r["analyse_seconds"] + r["factor_seconds"] + r["solve_seconds"]
        if r["method"] == "klu":  # KLU's analysis' flop estimate: what Auto reads
            m["features"]["klu_flops"] = r["predicted"]["flops"]
    lu = {k: v for k, v in by.items() if "umfpack" in v and "klu" in v and "cholmod" not in v}
    return dict(sorted(lu.items()))


def choose(rule, f):
    feature, t, below = rule
    return "klu" if (f[feature] < t) == below else "umfpack"


def regret(rule, mats):
    return sum(m[choose(rule, m["features"])] / min(m["umfpack"], m["klu"]) - 1 for m in mats.values())


def score(rule, mats):
    right = sum(choose(rule, m["features"]) == ("klu" if m["klu"] <= m["umfpack"] else "umfpack") for m in mats.values())
    ratios = [m[choose(rule, m["features"])] / min(m["umfpack"], m["klu"]) for m in mats.values()]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    return right, len(mats), geo, max(ratios)


def midpoints(feature, mats):
    """Thresholds between consecutive values of the fit half (geometric
    means where both are positive: the features span decades)."""
    v = sorted({m["features"][feature] for m in mats.values()})
    return [math.sqrt(a * b) if a > 0 else (a + b) / 2 for a, b in zip(v, v[1:])]


def main(path):
    mats = load(path)
    names = list(mats)
    fit = {k: mats[k] for k in names[0::2]}
    test = {k: mats[k] for k in names[1::2]}
    rules = [(f, t, below) for f in FEATURES for t in midpoints(f, fit) for below in (True, False)]
    rules += [("n", math.inf, True), ("n", 0, True)]  # always KLU, always UMFPACK
    best = min(rules, key=lambda r: regret(r, fit))
    print("fit half:", ", ".join(fit))
    print("score half:", ", ".join(test))
    print(f"rule: KLU when {best[0]} {'<' if best[2] else '>='} {best[1]:.6g}")
    for name, half in (("fit", fit), ("score", test)):
        right, n, geo, worst = score(best, half)
        print(f"{name}: right {right}/{n}, time / best geomean {geo:.3f}, worst {worst:.2f}")
    for name, rule in (("always UMFPACK", ("n", 0, True)), ("always KLU", ("n", math.inf, True))):
        right, n, geo, worst = score(rule, test)
        print(f"score half, {name}: right {right}/{n}, geomean {geo:.3f}, worst {worst:.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
