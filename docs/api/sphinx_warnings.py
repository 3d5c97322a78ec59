#!/usr/bin/env python3
"""Sorts Sphinx's warnings for scripts/docs.sh.

    sphinx_warnings.py LOG KNOWN

Every warning in LOG (sphinx -w) fails the build except those matching a
line of KNOWN (docs/api/python/known-warnings.txt: regular expressions, `#`
comments), which are printed as known. Exit status 1 when a warning counts.
"""

import re
import sys


def patterns(path):
    with open(path, encoding="utf-8") as f:
        return [re.compile(line.strip()) for line in f if line.strip() and not line.lstrip().startswith("#")]


def main(log_path, known_path):
    known = patterns(known_path)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        warnings = [line.rstrip("\n") for line in f if re.search(r"\b(WARNING|ERROR|CRITICAL|SEVERE):", line)]
    allowed = [w for w in warnings if any(p.search(w) for p in known)]
    counted = [w for w in warnings if w not in allowed]
    for w in allowed:
        print(f"known (docs/api/python/known-warnings.txt): {w}")
    for w in counted:
        print(w, file=sys.stderr)
    print(f"balsa docs: sphinx: {len(counted)} warning(s) that count, {len(allowed)} known")
    return 1 if counted else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
