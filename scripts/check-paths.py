#!/usr/bin/env python3
"""Fails when a comment, a string or a document names a repository path that does not exist.

Usage: scripts/check-paths.py [--root DIR] [--verbose]

Scans the tracked files (git ls-files; every file under the root when git is
absent): the comments and string literals of C++/CUDA (*.cpp *.hpp *.cu *.cuh)
and Python (*.py) sources, CMake files (CMakeLists.txt, *.cmake) and shell
scripts (*.sh), and the whole of Markdown documents (*.md). A token is taken
for a repository path when

  - it starts with a top-level folder of the repository followed by `/`
    (`trsv/spike/spike_plan.cpp`, `docs/`), or with `../` or `./`
    (resolved from the naming file's folder, as Markdown links are), or with
    `balsa/` (an include path: include/balsa/... or python/balsa/...); or
  - it is a bare file name with a source or document extension
    (`level_set.cu`, `SOURCES.md`): it must exist beside the naming file, at
    the root, or anywhere in the tree under that name.

A path also counts as existing relative to the naming file's folder, under
tests/data for a test, or as a file stem (`factor/refactor` for .hpp/.cpp).
Not checked: URLs, tokens after `$` or `~` (`$OUT/...`, `$HOME/...`), paths
after an output option (`-o X`, `--json F`, `> F`), placeholders
(`tests/<capability>/`, `{a,b}`, `tests/TEST`), prose such as `sparse/dense`,
build products (`*.so`), the generated files in GENERATED, and the dated
records under bench/results/. Globs (`tests/*_test.cpp`) must match a file. A
path outside the repository (`../shared/...`) is reported in comments and
documents (the repository must stand on its own); in code and string literals
it is taken for a run-time path relative to the working folder.

Prints `file:line: path` for every path that does not exist and exits with 1
when there is one, 0 otherwise.
"""

import argparse
import fnmatch
import io
import os
import re
import subprocess
import sys
import tokenize

# Files the build writes (configure_file), named in comments and docs.
GENERATED = {
    "include/balsa/config.hpp",
}
# Build products named in comments (`python/_balsa*.so`): never in the source tree.
BUILD_PRODUCT_RE = re.compile(r"\.(so|a|whl|o)$")
# Paths and headers of other projects (a system include folder, CLP's headers).
EXTERNAL = {"include/coin", "ClpSimplex.hpp", "ClpModel.hpp"}
# Dated records of measurements: the paths they name were true when they were
# written, and rewriting them would falsify the record.
SKIPPED_FOLDERS = ("bench/results/",)
# This script's own examples.
SKIPPED_FILES = ("scripts/check-paths.py",)
# Where data paths in tests are resolved from (`data_file("lp/afiro.mps.gz")`).
DATA_DIRS = ("tests/data",)
# An output named after an option (`--markdown r.md`, `-o X.mtx`, `> out.json`).
OUTPUT_BEFORE_RE = re.compile(r"(?:(?<![\w-])--?[A-Za-z][\w-]*[ =]|>\s*)$")
# A placeholder component in capitals (`tests/TEST`, `convergence-bcsstk13-M.json`).
PLACEHOLDER_RE = re.compile(r"(?:^|/)[A-Z]{2,8}$|[\-_][A-Z]\.[a-z]+$")

C_LIKE = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".c", ".cc")
PYTHON = (".py",)

# Extensions of bare file names that are checked (a bare `A.mtx` or `model.mps`
# is a user's file in an example, not a repository path).
BARE_EXTENSIONS = ("cpp", "hpp", "cu", "cuh", "py", "cmake", "sh", "md")

PATH_CHARS = r"A-Za-z0-9_.\-*<>{}?\[\]+,@"
# A path-like token: not preceded by a path character, `/`, `$`, `~`, `:` or `@`
# (URLs, variables, home folders, scp-style hosts).
TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_.\-/$~:@%{}])((?:\.\.?/)*[A-Za-z0-9_.\-*{}<>?\[\]]+(?:/[" + PATH_CHARS + r"]*)+)")
BARE_RE = re.compile(r"(?<![A-Za-z0-9_.\-/$~:@%*}])([A-Za-z0-9_][A-Za-z0-9_.\-]*\.(?:" + "|".join(BARE_EXTENSIONS) +
                     r"))(?![A-Za-z0-9_\-/])")
URL_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S*|www\.\S+")
# Variables that stand for the repository's root or the naming file's folder.
ROOT_VARS_RE = re.compile(r"\$\{(?:PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|balsa_SOURCE_DIR)\}/|\$\{?root\}?/")
HERE_VARS_RE = re.compile(r"\$\{CMAKE_CURRENT_SOURCE_DIR\}/|\$\{CMAKE_CURRENT_LIST_DIR\}/")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
        files = [f for f in out.decode("utf-8", "replace").split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "build"]
        files.extend(os.path.relpath(os.path.join(folder, n), root) for n in names)
    return files


def c_like_text(text):
    """(comments, string literals) of a C/C++/CUDA file; everything else becomes spaces (lines are kept)."""
    comments, strings = [], []
    i, n = 0, len(text)

    def blank(s):
        return "".join(c if c == "\n" else " " for c in s)

    def keep(s, into=None):
        into = comments if into is None else into
        other = strings if into is comments else comments
        into.append(s)
        other.append(blank(s))

    def keep_string(s):
        keep(s, strings)


    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j == -1 else j
            keep(text[i:j])
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j == -1 else j + 2
            keep(text[i:j])
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                keep(" ")
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j == -1 else j + len(end)
            keep_string(text[i:j])
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            keep_string(text[i:j])
            i = j
        elif c == "'":
            if i > 0 and text[i - 1].isalnum():  # a digit separator (1'000)
                keep(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            keep(blank(text[i:j]))
            i = j
        else:
            keep("\n" if c == "\n" else " ")
            i += 1
    return "".join(comments), "".join(strings)


def python_text(text):
    """(comments, string literals) of a Python file; everything else becomes spaces."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    comments = [c if c == "\n" else " " for c in text]
    strings = list(comments)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            into = comments if tok.type == tokenize.COMMENT else strings
            if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                a = starts[tok.start[0] - 1] + tok.start[1]
                b = starts[tok.end[0] - 1] + tok.end[1]
                into[a:b] = list(text[a:b])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text, ""  # not parsable: check all of it
    return "".join(comments), "".join(strings)


def hash_comment_text(text):
    """(comments, code) of a shell or CMake file: a comment starts at a `#` at a line's start or after a blank."""
    comments, code = [], []
    for line in text.split("\n"):
        m = re.search(r"(?:^|(?<=\s))#", line)
        cut = m.start() if m else len(line)
        comments.append(" " * cut + line[cut:])
        code.append(line[:cut])
    return "\n".join(comments), "\n".join(code)


def markdown_text(text):
    return text, ""


class Tree:
    def __init__(self, root, files):
        self.root = root
        self.files = set(files)
        self.dirs = set()
        for f in files:
            parts = f.split("/")
            for k in range(1, len(parts)):
                self.dirs.add("/".join(parts[:k]))
        self.top = {f.split("/")[0] for f in files if "/" in f}
        self.basenames = {f.rsplit("/", 1)[-1] for f in files}

    def exists(self, rel):
        rel = rel.rstrip("/")
        if rel in ("", "."):
            return True
        if rel in self.files or rel in self.dirs or rel in GENERATED:
            return True
        # Untracked but present (bench results being written, generated files).
        return os.path.exists(os.path.join(self.root, rel))

    def has_stem(self, rel):
        """A file named rel.<extension> exists (`trsv/auto_choice` for trsv/auto_choice.cpp)."""
        if "." in rel.rsplit("/", 1)[-1]:
            return False
        return any(f.startswith(rel + ".") for f in self.files)

    def glob_matches(self, rel):
        rel = rel.rstrip("/")
        return any(fnmatch.fnmatchcase(f, rel) for f in self.files) or \
            any(fnmatch.fnmatchcase(d, rel) for d in self.dirs)


def normalize(path):
    """Collapses `a/./b` and `a/../b`; returns None when the path leaves the root."""
    parts = []
    for p in path.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(p)
    return "/".join(parts)


def clean(token):
    """Drops a `file:line` suffix and trailing punctuation (a `*` stays when it is a glob: `tests/gpu_*`)."""
    token = re.sub(r"(:\d+)+$", "", token)
    while token and token[-1] in ".,;:)]}'\"`*":
        if token[-1] == "*" and re.search(r"[/_.\-]\*$", token):
            break
        token = token[:-1]
    return token


def check_token(tree, naming_file, token, bare, lenient=False):
    """Returns True when the token names something that exists (or is not a repository path)."""
    here = os.path.dirname(naming_file)
    if any(ch in token for ch in "<>{}"):
        return True  # a placeholder or a brace expansion
    if token in EXTERNAL or BUILD_PRODUCT_RE.search(token) or PLACEHOLDER_RE.search(token):
        return True
    is_glob = any(ch in token for ch in "*?[")
    if bare:
        candidates = [normalize(os.path.join(here, token)), token]
        if naming_file.startswith("tests/"):
            candidates += [normalize(os.path.join(d, token)) for d in DATA_DIRS]
        if any(c is not None and tree.exists(c) for c in candidates):
            return True
        return token in tree.basenames
    first = token.split("/")[0]
    if first in ("..", "."):
        rel = normalize(os.path.join(here, token))
        if rel is None or not (tree.exists(rel) or tree.has_stem(rel)):
            # Missing or outside the repository: wrong in a comment or a document; in code
            # and string literals it may be a run-time path relative to the working folder
            # (a default data folder beside the repository).
            return lenient
    elif first in tree.top:
        rel = normalize(token)
    elif first == "balsa":
        rest = token.split("/", 1)[1]
        if not (token.endswith("/") or re.search(r"\.[a-z]+$", rest)):
            return True  # `balsa/CLP` is a ratio, not an include path
        return any(tree.exists(p + "/balsa/" + rest) for p in ("include", "python")) or \
            (is_glob and any(tree.glob_matches(p + "/balsa/" + rest) for p in ("include", "python"))) or rest == ""
    else:
        return True  # not a repository path
    if rel is None:
        return False
    if re.fullmatch(r"[^/]+/[A-Za-z]+", token) and not tree.exists(rel):
        return True  # prose such as `factor/refactor` or `sparse/dense`, not a path
    if is_glob:
        return tree.glob_matches(rel)
    # Also counted: a path relative to the naming file's folder (`support/poison.hpp`
    # in tests/), a test data path, and a file stem (`factor/refactor` for its .hpp/.cpp).
    candidates = [rel, normalize(os.path.join(here, token))]
    if naming_file.startswith("tests/"):
        candidates += [normalize(os.path.join(d, token)) for d in DATA_DIRS]
    for c in candidates:
        if c and (tree.exists(c) or (not token.endswith("/") and tree.has_stem(c))):
            return True
    return False


def scan(tree, rel, text, lenient=False):
    problems = []
    text = ROOT_VARS_RE.sub(" ", text)
    text = HERE_VARS_RE.sub(" ./", text)
    for lineno, line in enumerate(text.split("\n"), 1):
        if "/" not in line and "." not in line:
            continue
        line = URL_RE.sub(" ", line)
        seen = set()
        for m in TOKEN_RE.finditer(line):
            if OUTPUT_BEFORE_RE.search(line[:m.start()]):
                continue
            token = clean(m.group(1))
            if "/" not in token or token in seen or re.fullmatch(r"(\.\.?/)+", token):
                continue
            seen.add(token)
            if not check_token(tree, rel, token, bare=False, lenient=lenient):
                problems.append((rel, lineno, token))
        for m in BARE_RE.finditer(line):
            if OUTPUT_BEFORE_RE.search(line[:m.start()]):
                continue
            token = clean(m.group(1))
            if token in seen:
                continue
            seen.add(token)
            if not check_token(tree, rel, token, bare=True, lenient=lenient):
                problems.append((rel, lineno, token))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--verbose", action="store_true", help="list the files scanned")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    files = tracked_files(root)
    tree = Tree(root, files)
    problems = []
    scanned = 0
    for rel in sorted(files):
        if rel.startswith(SKIPPED_FOLDERS) or rel in SKIPPED_FILES:
            continue
        name = os.path.basename(rel)
        if name.endswith(C_LIKE):
            extract = c_like_text
        elif name.endswith(PYTHON):
            extract = python_text
        elif name.endswith((".cmake", ".sh")) or name == "CMakeLists.txt":
            extract = hash_comment_text
        elif name.endswith(".md"):
            extract = markdown_text
        else:
            continue
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue  # listed by git but deleted in the work tree
        scanned += 1
        if args.verbose:
            print("scanning", rel)
        strict, lenient = extract(text)
        problems.extend(scan(tree, rel, strict))
        problems.extend(scan(tree, rel, lenient, lenient=True))
    for rel, lineno, token in problems:
        print(f"{rel}:{lineno}: {token}")
    files_with = len({p[0] for p in problems})
    print(f"check-paths: {scanned} files scanned, {len(problems)} stale paths in {files_with} files",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
