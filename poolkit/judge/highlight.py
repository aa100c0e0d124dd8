"""Which parts of a passage to highlight for a query: its content words, loosely stemmed.

Deliberately simple and predictable for an assessor: every query word that is not a stop
word and has three or more characters, with a plural / -ing / -ed ending dropped, matches
any word in the passage that starts with it (``control`` marks ``controlling``; ``cows``
marks ``cow``). Case-insensitive.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves keep get make
""".split())

_SUFFIXES = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        keep = 3 if suffix == "s" else 4
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= keep:
            return word[: -len(suffix)]
    return word


def query_terms(query: str) -> list[str]:
    """Stems to highlight, in query order, without repeats."""
    out: list[str] = []
    for word in re.findall(r"\w+", query.lower()):
        if word in STOPWORDS or len(word) < 3:
            continue
        s = stem(word)
        if s not in out:
            out.append(s)
    return out


def term_pattern(terms: list[str]) -> re.Pattern[str] | None:
    if not terms:
        return None
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE)


def highlight_spans(query: str, text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of ``text`` matching the query's terms."""
    pattern = term_pattern(query_terms(query))
    if pattern is None:
        return []
    return [m.span() for m in pattern.finditer(text)]
