"""Which words of a passage to highlight: whole words, never prefixes.

An assessor must be able to trust a highlight: ``fall`` (the armyworm) lights ``fall`` and
``Fall``, not ``falls`` in "rain falls", nor ``fallow``. So a term matches whole tokens only,
case-insensitively. Three sets, each in its own style: the query's content words (every word
that is not a stop word and has three or more characters), the description's content words
not already in the query, and the words this assessor added for this query (the ``t`` key;
that is where ``controlling`` or ``armyworms`` go when they matter).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves keep get make
""".split())

_WORD = re.compile(r"\w+")


def query_terms(query: str, leave_out: Iterable[str] = ()) -> list[str]:
    """Content words to highlight, lowercased, in text order, without repeats (and without
    those in ``leave_out``)."""
    out: list[str] = []
    skip = set(leave_out)
    for word in _WORD.findall(query.lower()):
        if word in STOPWORDS or len(word) < 3 or word in skip or word in out:
            continue
        out.append(word)
    return out


def term_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    """Whole-token matches of any term, case-insensitive (longest first, so a term that is
    two words, added by an assessor, wins over its parts)."""
    terms = [t.strip() for t in terms if t.strip()]
    if not terms:
        return None
    alternatives = "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def highlight_spans(query: str, text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of ``text`` matching the query's terms."""
    pattern = term_pattern(query_terms(query))
    if pattern is None:
        return []
    return [m.span() for m in pattern.finditer(text)]
