"""Which words of a passage to highlight: whole words, never prefixes.

An assessor must be able to trust a highlight: ``fall`` (the armyworm) lights ``fall`` and
``Fall``, not ``falls`` in "rain falls", nor ``fallow``. So a term matches whole tokens only,
case-insensitively. Three sets, each in its own style: the query's content words (every word
that is not a stop word and has three or more characters), the description's content words
not already in the query, and the words this assessor added for this query (the ``t`` key;
that is where ``controlling`` or ``armyworms`` go when they matter).

``judge: highlight: stem`` lights inflections too (heat / heated / heating / heats): a
single-word term matches every token with its ``stem``, a small suffix-stripper (no
dependency; English inflections only, never a prefix or a compound). Exact whole words stay
the default: a stem can light a word the assessor would not call the same.
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


#: inflectional suffixes, longest first; one is taken off a word of at least 3 letters left
_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s")


def stem(word: str) -> str:
    """The word folded for ``highlight: stem``: lowercase, one inflectional suffix off
    (``ies``/``ied`` -> ``y``; an ``s`` after ``s``, ``u`` or ``i`` is kept: glass, bus,
    analysis), a final ``e`` off, a doubled final consonant single (controlled -> control,
    stored and store -> stor). Words of three letters or fewer are kept as they are."""
    w = word.lower()
    if len(w) <= 3:
        return w
    for suffix in _SUFFIXES:
        base = w[: -len(suffix)]
        if not w.endswith(suffix) or len(base) < (2 if suffix in ("ies", "ied") else 3):
            continue
        if suffix == "s" and base[-1] in "sui":
            continue
        w = base + "y" if suffix in ("ies", "ied") else base
        break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouys":
        w = w[:-1]
    return w


def term_spans(text: str, terms: Sequence[str], stemmed: bool = False) -> list[tuple[int, int]]:
    """(start, end) spans of ``text`` the terms light: whole tokens (``term_pattern``), or,
    ``stemmed``, each token whose stem is a one-word term's (terms of several words still
    match as written)."""
    words = [t.strip() for t in terms if t.strip()]
    phrases = [t for t in words if not stemmed or len(t.split()) > 1]
    pattern = term_pattern(phrases)
    spans = [m.span() for m in pattern.finditer(text)] if pattern is not None else []
    if stemmed:
        stems = {stem(t) for t in words if len(t.split()) == 1}
        spans += [m.span() for m in _WORD.finditer(text) if stem(m.group()) in stems]
    return spans


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
