"""agreement at scale (issue 22, item 23): the same report as the per-event, per-kappa path,
with the work counted (random draws, Event objects) rather than timed, and a progress bar."""

from __future__ import annotations

import io
import json
import random
from itertools import combinations
from typing import Any

import numpy as np
import pytest

import poolkit.progress as progress
from poolkit.analysis.agreement import LabelSource, agreement, store_sources
from poolkit.analysis.stats import (
    SCALE,
    bootstrap_kappa,
    confusion_matrix,
    kappa_from_confusion,
    krippendorff_alpha,
)
from poolkit.store import Event, Store
from poolkit.store.judging import VOTE_KINDS


def old_pair(a: LabelSource, b: LabelSource, level: int, resamples: int,
             seed: int) -> dict[str, Any] | None:
    """The per-pair, per-kappa path as it was (the oracle)."""
    shared = sorted(a.grades.keys() & b.grades.keys())
    if not shared:
        return None
    ga = [a.grades[p] for p in shared]
    gb = [b.grades[p] for p in shared]
    conf = confusion_matrix(ga, gb)
    ba = [int(x >= level) for x in ga]
    bb = [int(x >= level) for x in gb]
    values = {w: kappa_from_confusion(conf, w) for w in ("unweighted", "linear", "quadratic")}
    values["binary"] = kappa_from_confusion(confusion_matrix(ba, bb, (0, 1)))
    cis = {w: bootstrap_kappa(ga, gb, weights=w, resamples=resamples, seed=seed)
           for w in ("unweighted", "linear", "quadratic")}
    cis["binary"] = bootstrap_kappa(ba, bb, labels=(0, 1), resamples=resamples, seed=seed)
    one_sided = {side: [s.name for s, grades in ((a, ga), (b, gb))
                        if all((g >= level) == side for g in grades)] for side in (True, False)}
    notes = [f"binary kappa cannot show agreement: {' and '.join(names)} graded every shared "
             f"pair {'>=' if side else '<'} {level}" for side, names in one_sided.items() if names]
    return {
        "a": a.name, "b": b.name, "shared": len(shared),
        "queries": len({q for q, _ in shared}),
        "raw_agreement": float(np.trace(conf) / len(shared)),
        "binary_agreement": sum(1 for x, y in zip(ga, gb) if (x >= level) == (y >= level))
        / len(shared),
        "kappa": values,
        "kappa_ci": {w: (None if ci is None else {"low": ci[0], "high": ci[1]})
                     for w, ci in cis.items()},
        "confusion": {"rows": a.name, "columns": b.name, "labels": list(SCALE),
                      "counts": conf.tolist()},
        "notes": notes,
    }


def old_alpha(sources: list[LabelSource]) -> float:
    counts: dict[tuple[str, str], int] = {}
    for s in sources:
        for p in s.grades:
            counts[p] = counts.get(p, 0) + 1
    units = sorted(p for p, c in counts.items() if c >= 2)
    if not units:
        return float("nan")
    matrix = np.full((len(sources), len(units)), np.nan)
    col = {p: j for j, p in enumerate(units)}
    for i, s in enumerate(sources):
        for p, g in s.grades.items():
            if p in col:
                matrix[i, col[p]] = g
    return krippendorff_alpha(matrix, "ordinal", domain=SCALE)


def old_store_sources(store: Store) -> list[LabelSource]:
    by: dict[str, dict[tuple[str, str], int]] = {}
    graded: set[str] = set()
    for pair, events in store.current_grades(kinds=VOTE_KINDS).items():
        for assessor, event in events.items():
            by.setdefault(assessor, {})[pair] = event.grade
            if event.kind != "import":
                graded.add(assessor)
    return [LabelSource.from_grades(n, by[n], "assessor" if n in graded else "import",
                                    {"store": str(store.path)}) for n in sorted(by)]


def random_sources(seed: int) -> list[LabelSource]:
    rng = random.Random(seed)
    pairs = [(f"q{rng.randrange(12)}", f"d{rng.randrange(40)}") for _ in range(300)]
    sources = []
    for s in range(rng.randrange(2, 6)):
        picked = rng.sample(pairs, rng.randrange(0, len(pairs)))
        grades = {p: rng.choice(SCALE) for p in picked}
        if s == 1 and grades:  # one source that agrees with nobody's binary split
            grades = dict.fromkeys(grades, 0)
        sources.append(LabelSource.from_grades(f"s{s}", grades))
    return sources


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2, 3])
def test_the_report_is_the_per_pair_paths(seed: int, level: int) -> None:
    sources = random_sources(seed)
    doc = agreement(sources, level=level, resamples=300, seed=seed)
    expected = [r for a, b in combinations(sources, 2)
                if (r := old_pair(a, b, level, 300, seed)) is not None]
    assert json.dumps(doc.pairs) == json.dumps(expected)  # as printed: NaN == NaN
    got, want = doc.alpha["value"], old_alpha(sources)
    assert got == want or (got != got and want != want)
    assert [s["queries"] for s in doc.sources] == [len({q for q, _ in s.grades})
                                                   for s in sources]


def _store(tmp_path: Any, assessors: int, pairs: int) -> Store:
    rng = random.Random(7)
    keys = [(f"q{i % 17}", f"d{i}") for i in range(pairs)]
    store = Store(tmp_path / "s.sqlite")
    for a in range(assessors):
        kind = "import" if a == assessors - 1 else "grade"
        first = store.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM events").fetchone()[0]
        store.record_events(Event(q, d, f"a{a}", kind, grade=rng.choice(SCALE)) for q, d in keys)
        store.record_events(Event(q, d, f"a{a}", kind, grade=rng.choice(SCALE))
                            for q, d in keys[::7])
        store.record_events(Event(*keys[i], f"a{a}", "undo", ref=first + i)
                            for i in range(0, pairs, 11))
        store.record_events(Event(*keys[i], f"a{a}", "adjudicate", grade=3)
                            for i in range(0, pairs, 13))
    return store


def test_store_sources_are_the_replayed_log_without_an_event_per_row(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with _store(tmp_path, 4, 400) as store:
        expected = old_store_sources(store)

        def no_events(*_a: Any, **_k: Any) -> Any:
            raise AssertionError("an Event object per row: the log is replayed in SQL")

        monkeypatch.setattr(Store, "events", no_events)
        monkeypatch.setattr(Store, "current_grades", no_events)
        got = store_sources(store)
    assert [(s.name, s.kind, s.grades, s.unjudged, s.origin) for s in got] == \
        [(s.name, s.kind, s.grades, s.unjudged, s.origin) for s in expected]


def test_pairs_of_one_size_draw_their_resamples_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # 6 sources judging the same 500 pairs: 15 pairs x 4 kappas drew 60 x 5 chunks before.
    rng = random.Random(3)
    pairs = [(f"q{i % 9}", f"d{i}") for i in range(500)]
    sources = [LabelSource.from_grades(f"s{s}", {p: rng.choice(SCALE) for p in pairs})
               for s in range(6)]
    draws = [0]
    real = np.random.default_rng

    class Counting:
        def __init__(self, seed: int) -> None:
            self.rng = real(seed)

        def integers(self, *args: Any, **kwargs: Any) -> Any:
            out = self.rng.integers(*args, **kwargs)
            draws[0] += out.size
            return out

    expected = [old_pair(a, b, 1, 1000, 5) for a, b in combinations(sources, 2)]
    monkeypatch.setattr(np.random, "default_rng", Counting)
    doc = agreement(sources, resamples=1000, seed=5)
    assert json.dumps(doc.pairs) == json.dumps(expected)
    assert draws[0] == 1000 * 500  # one draw of 1000 resamples of 500 items, for all 15


def test_a_bar_shows_the_resamples_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(progress, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(progress.sys, "stderr", err)
    sources = random_sources(1)
    agreement(sources, resamples=200)
    lines = err.getvalue().split("\r")
    assert any(line.startswith("agreement  [") and "resamples" in line for line in lines)
    assert "done in" in lines[-1]
