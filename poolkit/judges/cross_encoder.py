"""The ``cross-encoder`` judge kind: a sentence-transformers ``CrossEncoder`` from a local
folder scores each (query, passage) pair, and thresholds turn scores into grades.

``thresholds: [t1, t2, t3]`` (strictly ascending) gives them: a score s is grade
``#{k: s >= t_k}``. Without it they are fitted, each run, on the people's grades in the store
(the pooled pairs people graded, resolved by the default label policy): the model scores
those pairs and the ordinal thresholds that maximise quadratic-weighted kappa against the
people's grades are chosen (``analysis.thresholds.fit_thresholds``, given to the kind by
autojudge as ``Calibration.fit``). At least ``MIN_PEOPLE`` such pairs are needed. The
thresholds, and when fitted the number of pairs and the kappa reached, are in the judge
version (``thresholds``) and in every event's note: more people's grades that move the
thresholds make a new judge version.

The query's text and the passage as pooled (title, blank line, text) are the pair the model
reads; the prompt template is not used. The answer kept is the score. The judge version
hashes the model folder's bytes (``model_sha256``) as the ``local`` kind does.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from poolkit.errors import PoolkitError
from poolkit.judges import Calibration, JudgeKind, JudgePair, Verdict, register_judge_kind
from poolkit.judges.local import InProcessJudge, quiet_loading, with_model_sha256
from poolkit.judges.openai import Answer
from poolkit.params import Param, ParamError

#: the fewest people-graded pairs thresholds are fitted on
MIN_PEOPLE = 20


def _ascending(value: Any) -> None:
    if len(value) != 3 or any(isinstance(t, bool) or not isinstance(t, (int, float))
                              for t in value):
        raise ParamError(f"must be three numbers [t1, t2, t3], found {value!r}")
    if not value[0] < value[1] < value[2]:
        raise ParamError(f"must be ascending (t1 < t2 < t3), found {value!r}")


def grade_of(score: float, thresholds: Sequence[float]) -> int:
    """How many thresholds ``score`` reaches: its grade."""
    return sum(1 for t in thresholds if score >= t)


def passage_of(pair: JudgePair) -> str:
    return f"{pair.title}\n\n{pair.body}" if pair.title else pair.body


@register_judge_kind
class CrossEncoderKind(JudgeKind):
    name = "cross-encoder"
    summary = "a sentence-transformers CrossEncoder; scores to grades by fitted or given " \
              "thresholds"
    version = "1"
    required = ("path",)
    options = (
        Param("path", (str,), None, "the CrossEncoder's folder"),
        Param("thresholds", (list,), None, "[t1, t2, t3], ascending: a score >= t_k is at "
                                           "least grade k (fitted on people's grades when "
                                           "absent)", validate=_ascending),
        Param("batch_size", (int,), 32, "pairs per forward pass", minimum=1, maximum=4096),
        Param("device", (str,), "auto", "auto (a GPU when torch sees one), cpu or cuda",
              choices=("auto", "cpu", "cuda")),
    )
    versioned = ("model_sha256", "thresholds")

    def configured_version(self, settings: Mapping[str, Any], template: str) -> str | None:
        """None when the thresholds are fitted: each run's people's grades decide them."""
        if not settings.get("thresholds"):
            return None
        return self.version_of(with_model_sha256(settings), CrossEncoderJudge.template)

    def build(self, settings: Mapping[str, Any], template: str, *,
              cache_dir: Path | None = None, read_cache: bool = True,
              calibration: Calibration | None = None) -> CrossEncoderJudge:
        return CrossEncoderJudge(settings, calibration)

    def grade(self, pairs: Sequence[JudgePair], settings: Mapping[str, Any],
              ) -> list[Verdict]:
        judge = CrossEncoderJudge(settings, None)
        return [Verdict(p.query.qid, p.docid, int(a.grade), rationale=a.raw)
                for p, (_, a) in zip(pairs, judge.ask_batch(pairs), strict=True)
                if a.grade is not None]


class CrossEncoderJudge(InProcessJudge):
    """A loaded CrossEncoder with its thresholds (given, or fitted when built)."""

    template = ""  # no prompt: the version does not depend on one

    def __init__(self, settings: Mapping[str, Any], calibration: Calibration | None) -> None:
        super().__init__(settings, 32)
        self.model = _load(self.path, self.device)
        self.model_id = self.path.name
        self.fitted: dict[str, Any] = {}
        if not settings.get("thresholds"):
            self.settings["thresholds"] = self._fit(calibration)

    def _fit(self, calibration: Calibration | None) -> list[float]:
        people = calibration.pairs() if calibration is not None else []
        if len(people) < MIN_PEOPLE:
            raise PoolkitError(
                f"judge kind cross-encoder: fitting thresholds needs at least {MIN_PEOPLE} "
                f"pooled pairs graded by people, the store has {len(people)}; grade more or "
                f"give thresholds: [t1, t2, t3]")
        assert calibration is not None
        scores = self.scores([p for p, _ in people])
        thresholds, kappa = calibration.fit(scores, [g for _, g in people])
        self.fitted = {"pairs": len(people), "kappa": None if kappa != kappa else
                       round(kappa, 6)}
        return [float(t) for t in thresholds]

    def prompt(self, pair: JudgePair) -> str:
        """What the model reads, as one text (for the prompt hash and --dry-run)."""
        return f"{pair.query.text}\n\n{passage_of(pair)}"

    def count_tokens(self, prompt: str) -> int:
        query, _, passage = prompt.partition("\n\n")
        return len(self.model.tokenizer(query, passage)["input_ids"])

    def scores(self, pairs: Sequence[JudgePair]) -> list[float]:
        texts = [(p.query.text, passage_of(p)) for p in pairs]
        out = self.model.predict(texts, batch_size=self.batch_size, show_progress_bar=False,
                                 convert_to_numpy=True)
        return [float(s) for s in out.reshape(len(texts), -1)[:, 0]]

    def ask_batch(self, pairs: Sequence[JudgePair]) -> list[tuple[str, Answer]]:
        started = time.monotonic()
        scores = self.scores(pairs)
        seconds = (time.monotonic() - started) / max(len(pairs), 1)
        thresholds = list(self.settings["thresholds"])
        extra: dict[str, Any] = {"thresholds": thresholds, "device": self.device}
        if self.fitted:
            extra["fitted"] = self.fitted
        out = []
        for pair, score in zip(pairs, scores, strict=True):
            prompt = self.prompt(pair)
            out.append((prompt, Answer(grade_of(score, thresholds), f"{score:.6g}",
                                       self.model_id, None, self.count_tokens(prompt), 0,
                                       round(seconds, 6), 1,
                                       extra={**extra, "score": score})))
        return out


def _load(path: Path, device: str) -> Any:
    try:
        from sentence_transformers import CrossEncoder
    except ImportError:
        raise PoolkitError("judge kind cross-encoder needs sentence-transformers: pip install "
                           "'poolkit[judges]'") from None
    try:
        with quiet_loading():
            return CrossEncoder(str(path), device=device, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise PoolkitError(f"{path}: not a CrossEncoder sentence-transformers can load "
                           f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
                           ) from None


__all__ = ["MIN_PEOPLE", "CrossEncoderJudge", "CrossEncoderKind", "grade_of", "passage_of"]
