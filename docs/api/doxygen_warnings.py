#!/usr/bin/env python3
"""Sorts Doxygen's warnings for scripts/docs.sh.

    doxygen_warnings.py REFERENCE_LOG UNDOCUMENTED_LOG

REFERENCE_LOG is the log of the reference's run (EXTRACT_ALL=YES): every
warning there counts (a markup error, an unresolved reference, a command
Doxygen does not know, a broken filter) and fails the build; they are printed
in full. UNDOCUMENTED_LOG is the log of the counting run (EXTRACT_ALL=NO): its
"is not documented" warnings are public names without a comment, counted by
kind and by header, not failing (docs/api/README.md). Exit status 1 when a
warning counts.
"""

import collections
import re
import sys

START = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+): (?P<level>warning|error): (?P<text>.*)$")
UNDOCUMENTED = re.compile(r"^(?P<kind>Compound|Member|Enumeration value|Enumerator|File)\b.* is not documented\.$")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\S+::\S+")


def entries(path):
    """(file, line, text) of every warning of a log; continuation lines are
    joined to the warning they follow. Lines with no location are their own
    entries (Doxygen's errors about its configuration)."""
    result = []
    try:
        with open(path, encoding="utf-8", errors="replace") as log:
            for raw in log:
                line = raw.rstrip("\n")
                match = START.match(line)
                if match:
                    result.append((match["file"], int(match["line"]), match["text"]))
                elif line.strip() and result and raw[:1].isspace():
                    result[-1] = result[-1][:2] + (result[-1][2] + " " + line.strip(),)
                elif line.strip():
                    result.append(("", 0, line.strip()))
    except FileNotFoundError:
        pass
    return result


def kind_of(text):
    """A warning's kind: its text without the names in it."""
    return QUOTED.sub("X", text)


def main(reference_log, undocumented_log):
    counted = entries(reference_log)
    undocumented = collections.Counter()
    per_file = collections.Counter()
    for path, _, text in entries(undocumented_log):
        match = UNDOCUMENTED.match(text)
        if match:
            undocumented[match["kind"]] += 1
            per_file[path.rsplit("/", 1)[-1]] += 1
    total = sum(undocumented.values())
    print(f"balsa docs: doxygen: {len(counted)} warning(s) that count; {total} public name(s) without a comment "
          "(not counted): " + ", ".join(f"{n} {kind.lower()}" for kind, n in undocumented.most_common()))
    if per_file:
        print("balsa docs: doxygen: names without a comment per header: " +
              ", ".join(f"{name} {n}" for name, n in per_file.most_common()))
    if counted:
        kinds = collections.Counter(kind_of(text) for _, _, text in counted)
        for path, line, text in counted:
            print(f"{path}:{line}: warning: {text}" if path else f"doxygen: {text}", file=sys.stderr)
        print("balsa docs: doxygen warnings by kind: " + "; ".join(f"{n} x {k}" for k, n in kinds.most_common()),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
