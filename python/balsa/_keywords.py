"""Keyword arguments checked the way a SciPy user expects: an unknown name is
a TypeError, as Python's own, that also names the closest known keyword
("balsa.solve() got an unexpected keyword argument 'rtl'; did you mean
'rtol'?").

    @keywords
    def solve(A, b, *, rtol=1e-5, atol=0.0): ...

`keywords` wraps a function (or a class's ``__init__``) so that a call with
an unknown keyword raises that TypeError before the function runs; every
other call goes straight through. Keyword-only arguments, positional ones
and ``**kwargs`` functions are all handled (a function that takes
``**kwargs`` accepts any name and is left alone).
"""

import difflib
import functools
import inspect


def unknown_keyword_error(who, name, known):
    """The TypeError for keyword `name` of `who`, naming the close match
    among `known` (a list of names) when there is one."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else f" (it takes: {', '.join(sorted(known))})"
    return TypeError(f"{who}() got an unexpected keyword argument '{name}'{hint}")


def keywords(fn):
    """`fn` with unknown keyword arguments refused by unknown_keyword_error."""
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return fn
    known = [n for n, p in params.items()
             if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY) and n != "self"]
    accepted = frozenset(known)
    who = fn.__qualname__.replace(".__init__", "")

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        for name in kwargs:
            if name not in accepted:
                raise unknown_keyword_error(f"balsa.{who}", name, known) from None
        return fn(*args, **kwargs)

    return checked
