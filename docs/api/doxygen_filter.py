#!/usr/bin/env python3
"""Doxygen's INPUT_FILTER for include/balsa/*.hpp (docs/api/Doxyfile).

The public headers are commented in plain `//` prose. This filter shows
Doxygen that prose as documentation without changing the headers, and
keeps every line where it was (Doxygen's warnings name the header's own
line numbers):

- the comment at the top of a file, up to `#pragma once`, becomes the file's
  description (`\\file`);
- a `//` block directly above a declaration at namespace, class or enum
  scope becomes a `/** ... */` block (a block followed by a blank line, a preprocessor line
  or a `// ----` section rule stays a plain comment);
- a trailing `; // text` (or `, // text` after an enumerator or a member)
  becomes `; ///< text`, with the comment lines aligned under it;
- lines indented past the block's own text (code examples, tables, the
  definition lists of options) are kept as they stand (`\\verbatim`);
- in the other prose, the characters Doxygen reads as commands or HTML
  (backslash, @, <, >, &, #, %, $) are escaped outside `code spans`.

Comments inside function bodies and initializers are left alone.

Usage (Doxygen runs it): doxygen_filter.py HEADER > filtered text.
"""

import re
import sys

SCOPE_KEYWORD = re.compile(r'\b(namespace|struct|class|union|enum)\b[^=()]*$|\bextern\s+"C"\s*$')
SECTION_RULE = re.compile(r"^\s*//\s*-{3,}")
ESCAPED = re.compile(r"([\\@<>&#%$])")
# An abbreviation's dot is not the end of the brief description (Doxygen's
# JAVADOC_AUTOBRIEF ends it at the first ". "): "Alg.\ 5.1", "1 ..\ n".
ABBREVIATION = re.compile(r"(\b(?:Alg|Algs|sec|Sec|Sect|ch|Ch|ed|eq|Eq|Fig|Ref|Thm|vs|cf|e\.g|i\.e|et al)\.|\.{2,})(?: |$)")


def split_comment(line):
    """(code, comment) of one line: comment is the `//...` outside string and
    character literals, or None."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif line.startswith("//", i):
            return line[:i], line[i:]
        i += 1
    return line, None


def escape_prose(text):
    """Escapes Doxygen's command and HTML characters outside backtick spans,
    and the dots of abbreviations."""
    parts = text.split("`")
    paired = len(parts) % 2 == 1  # else the last part follows a lone backtick: plain text
    for i, part in enumerate(parts):
        if i % 2 == 0 or (not paired and i == len(parts) - 1):
            parts[i] = escape_plain(part)
    return "`".join(parts)


def escape_plain(text):
    return ABBREVIATION.sub(r"\1\\ ", ESCAPED.sub(r"\\\1", text))


class Scopes:
    """The braces around each line: namespace/class/enum scopes, or a body
    (function, initializer) in which comments are not documentation."""

    def __init__(self):
        self.stack = []  # "scope", "enum" or "body"
        self.statement = ""

    def at_scope(self):
        return all(kind != "body" for kind in self.stack)

    def in_enum(self):
        return bool(self.stack) and self.stack[-1] == "enum"

    def feed(self, code):
        code = re.sub(r'"(\\.|[^"\\])*"', '""', code)
        code = re.sub(r"'(\\.|[^'\\])*'", "''", code)
        if code.lstrip().startswith("#"):
            return
        for c in code:
            if c == "{":
                match = SCOPE_KEYWORD.search(self.statement)
                if not match:
                    self.stack.append("body")
                else:
                    self.stack.append("enum" if match.group(1) == "enum" else "scope")
                self.statement = ""
            elif c == "}":
                if self.stack:
                    self.stack.pop()
                self.statement = ""
            elif c == ";":
                self.statement = ""
            else:
                self.statement += c
        self.statement += " "


def indent_of(text):
    return len(text) - len(text.lstrip(" ")) if text.strip() else None


def doc_block(lines):
    """The `//` lines of one block as one `/** ... */` block, line for line.
    (Doxygen 1.9 keeps the slashes of `///` lines inside \\verbatim, so the
    block is C-style: `/**` on its first line, `*/` at the end of its last.)"""
    texts = [(line[: line.index("//")], line[line.index("//") + 2:]) for line in lines]
    indents = [indent_of(t) for _, t in texts if indent_of(t) is not None]
    base = min(indents) if indents else 1
    out = []
    verbatim = False
    for lead, text in texts:
        deeper = indent_of(text) is not None and indent_of(text) > base
        if deeper and not verbatim:
            verbatim = True
            if out:
                out[-1] += " \\verbatim"
            else:
                text = " \\verbatim" + text
        elif verbatim and not deeper:
            verbatim = False
            out[-1] += " \\endverbatim"
        if not verbatim:
            text = escape_prose(text)
        out.append(lead + ("/**" if not out else "  ") + text)
    if verbatim:
        out[-1] += " \\endverbatim"
    out[-1] += " */"
    return out


def filter_lines(lines):
    scopes = Scopes()
    out = []
    i = 0
    n = len(lines)
    trailing_column = None
    while i < n:
        line = lines[i]
        code, comment = split_comment(line)
        if comment is not None and not code.strip():
            j = i
            while j < n and split_comment(lines[j])[1] is not None and not split_comment(lines[j])[0].strip():
                j += 1
            block = lines[i:j]
            if trailing_column is not None and line.index("//") == trailing_column:
                k = i
                while k < j and lines[k].index("//") == trailing_column:
                    out.append(lines[k].replace("//", "///<", 1)[:trailing_column + 4] +
                               escape_prose(lines[k][trailing_column + 2:]))
                    k += 1
                trailing_column = None
                i = k
                continue
            trailing_column = None
            following = lines[j] if j < n else ""
            if i == 0:
                out.extend(file_block(block))
            elif (scopes.at_scope() and following.strip() and not following.lstrip().startswith("#")
                  and not following.lstrip().startswith("}")):
                start = 0
                while start < len(block) and SECTION_RULE.match(block[start]):
                    start += 1
                out.extend(block[:start])
                out.extend(doc_block(block[start:]) if start < len(block) else [])
            else:
                out.extend(block)
            i = j
            continue
        trailing_column = None
        at_scope = scopes.at_scope()
        in_enum = scopes.in_enum()
        scopes.feed(code)
        stripped = code.rstrip()
        if comment is not None and at_scope and stripped and (stripped.endswith((";", ",")) or in_enum):
            out.append(code + "///<" + escape_prose(comment[2:]))
            trailing_column = len(code)
        else:
            out.append(line)
        i += 1
    return out


def file_block(block):
    """The file's top comment: its description."""
    lines = doc_block(block)
    lines[-1] = lines[-1][:-3] + " \\file */"  # no name after it: this file
    return lines


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    sys.stdout.write("\n".join(filter_lines(lines)))


if __name__ == "__main__":
    main()
