#!/usr/bin/env python3
"""Checks of the PETSc plugin's runs (plugins/petsc/tests/petsc_tests.cmake).

  petsc_check.py run [--fail] [--expect REGEX ...] -- COMMAND...
      runs COMMAND; passes when it exits 0 (with --fail: non-zero) and its
      output matches every REGEX.
  petsc_check.py iterations --within FRACTION -- COMMAND... --versus OPTIONS...
      runs COMMAND, then COMMAND with its trailing options replaced by
      OPTIONS (both must converge); passes when the first's iteration count
      is within FRACTION of the second's (the example prints "iterations N").
"""
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    print("$", " ".join(cmd))
    print(p.stdout[-4000:])
    return p.returncode, p.stdout


def check_run(args):
    fail = "--fail" in args[: args.index("--")]
    expects = [args[i + 1] for i, a in enumerate(args[: args.index("--")]) if a == "--expect"]
    code, out = run(args[args.index("--") + 1:])
    ok = (code != 0) if fail else (code == 0)
    if not ok:
        print(f"FAIL: exit status {code}, expected {'non-zero' if fail else '0'}")
    for e in expects:
        if not re.search(e, out):
            print(f"FAIL: output does not match {e!r}")
            ok = False
    return ok


def iterations(out):
    m = re.search(r"reason CONVERGED_\w+, iterations (\d+)", out)
    return int(m.group(1)) if m else None


def check_iterations(args):
    within = float(args[args.index("--within") + 1])
    cmd = args[args.index("--") + 1: args.index("--versus")]
    theirs_opts = args[args.index("--versus") + 1:]
    # COMMAND's own sub-PC options start at its first "-sub_pc_type"/"-pc_type balsa" option.
    cut = next(i for i, a in enumerate(cmd) if a == "--ours")
    base, ours_opts = cmd[:cut], cmd[cut + 1:]
    code_a, out_a = run(base + ours_opts)
    code_b, out_b = run(base + theirs_opts)
    a, b = iterations(out_a), iterations(out_b)
    print(f"balsa: {a} iterations, PETSc: {b} iterations (allowed: within {within:.0%})")
    if code_a or code_b or a is None or b is None:
        print("FAIL: a run did not converge")
        return False
    if abs(a - b) > within * b:
        print("FAIL: iteration counts differ by more than allowed")
        return False
    return True


if __name__ == "__main__":
    mode, rest = sys.argv[1], sys.argv[2:]
    ok = {"run": check_run, "iterations": check_iterations}[mode](rest)
    sys.exit(0 if ok else 1)
