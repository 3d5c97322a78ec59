#!/usr/bin/env python3
"""Runs one case of the bad-input corpus (tests/data/bad/cases.tsv).

A case is a command line that must end with a given exit code, a message on
standard error matching a regular expression, within a CPU-time limit and a
peak-memory (RSS) limit. The file's columns (tab-separated, '#' comments):

  name  exit  cpu-seconds  peak-MB-above-start  stderr-regex  command line

The command line is split as a shell would (shlex); its first word is balsa
or balsa-bench; {bad} is tests/data/bad, {data} is tests/data and {out} a
fresh empty folder for the case. The regex is searched in standard error
(for a case that must succeed, exit 0, in standard output too). The limits are checked on CPU time (user +
system, from wait4), which a loaded machine does not inflate as it does the
wall clock; the wall clock is bounded by ctest's timeout.

Usage: bad_input.py --cases FILE --case NAME --balsa EXE --bench EXE
                    --out DIR    (or --list FILE: print the case names)
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import time


def read_cases(path):
    """The cases of `path` as a dict name -> (exit, cpu, mb, regex, argv, line)."""
    cases = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 6:
                sys.exit(f"{path}:{number}: expected 6 tab-separated columns, got {len(cols)}")
            name, code, cpu, mb, regex, command = cols
            if name in cases:
                sys.exit(f"{path}:{number}: case '{name}' is listed twice")
            cases[name] = (int(code), float(cpu), float(mb), regex, command, number)
    return cases


def start_peak_mb(exe):
    """The peak RSS (MB) of `exe --version`: what the program takes to start
    (its shared libraries' pages: about 271 MB with the CUDA libraries)."""
    p = subprocess.Popen([exe, "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    return usage.ru_maxrss / 1024.0


def run_case(case, exe, folders):
    """Runs a case; returns a list of failures (empty: it passed)."""
    code, cpu_limit, mb_limit, regex, command, _ = case
    argv = [word.format(**folders) for word in shlex.split(command)]
    if argv[0] not in exe:
        return [f"the command must start with balsa or balsa-bench, not '{argv[0]}'"]
    argv[0] = exe[argv[0]]
    start = time.monotonic()
    with open(os.path.join(folders["out"], "stderr.txt"), "w+b") as err, \
         open(os.path.join(folders["out"], "stdout.txt"), "w+b") as out:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=folders["out"])
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        out.seek(0)
        stdout = out.read().decode("utf-8", "replace")
    wall = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    peak_mb = usage.ru_maxrss / 1024.0  # kB on Linux
    start_mb = start_peak_mb(argv[0])
    print(f"exit {p.returncode}, {cpu:.3f} s CPU, {wall:.3f} s wall, {peak_mb:.1f} MB peak "
          f"({peak_mb - start_mb:.1f} MB above the program's start, {start_mb:.1f} MB)")
    print(f"stderr: {stderr.strip()}")
    failures = []
    if p.returncode != code:
        failures.append(f"exit code {p.returncode}, expected {code}")
    if not re.search(regex, stderr) and not (code == 0 and re.search(regex, stdout)):
        failures.append(f"stderr{' (or stdout)' if code == 0 else ''} does not match /{regex}/")
    if cpu > cpu_limit:
        failures.append(f"{cpu:.3f} s of CPU time, over the limit of {cpu_limit} s")
    if peak_mb - start_mb > mb_limit:
        failures.append(f"peak memory {peak_mb - start_mb:.1f} MB above the program's start, over the limit of {mb_limit} MB")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--balsa")
    ap.add_argument("--bench")
    ap.add_argument("--out")
    args = ap.parse_args()
    cases = read_cases(args.cases)
    if args.list:
        print(";".join(cases))
        return 0
    if args.case not in cases:
        sys.exit(f"no case '{args.case}' in {args.cases}")
    bad = os.path.dirname(os.path.abspath(args.cases))
    out = os.path.join(os.path.abspath(args.out), args.case)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    folders = {"bad": bad, "data": os.path.dirname(bad), "out": out}
    print(f"{args.cases}:{cases[args.case][5]}: {cases[args.case][4]}")
    exes = {"balsa": os.path.abspath(args.balsa), "balsa-bench": os.path.abspath(args.bench)}
    failures = run_case(cases[args.case], exes, folders)
    for f in failures:
        print(f"FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
