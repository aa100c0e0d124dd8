"""``autojudge``: a machine judge of the config grades the latest pool's pairs.

Every verdict is one ``grade`` event by assessor NAME (the judge's name in the config), of
origin ``machine``, with ``judge_version`` = the judge's version (a hash of its kind, model,
prompt template and the parameters that change an answer: ``JudgeKind.version_of``), the
pooled text's hash in ``text_hash`` and the model id as the server reports it in ``source``.
The rest of the provenance is a JSON document in the event's ``note`` (the store has no
column for it; no schema change): ``{"kind", "model", "template_sha256", "prompt_sha256",
"text_sha256", "answer", "grade", "distribution", "latency", "tokens": {"prompt",
"completion"}, "attempts", "cached", "reading"}`` (and ``"seed"``, ``"paraphrase"``:
``app.readings``), with ``"delimiter"`` (the tag of the passage's
delimiters in the prompt, ``judges.prompt``) where the kind delimits, and ``"flagged":
[reasons]`` where the passage looks written for the grader (``judges.flags``; whether such a
grade counts is the judge's ``flagged:``, ``policies.machine_versions``).

Idempotent and resumable: a pair (each reading of it: ``--readings K``, ``app.readings``) this
judge version has graded is not asked again, and the check is made inside the write
transaction of each verdict, so two ``autojudge`` processes on one judge and store never
record a pair twice (the later one counts it as ``already``).
``--all`` asks again for every pair and appends new grades under the same version; nothing
is overwritten. An answer that never reads as a grade (``max_attempts`` tries) is a
``note`` event (``{"failed": ...}`` in its note), not a grade, counted as failed and asked
again on the next run, up to the judge's ``max_failures`` runs: a pair that failed that many
times is given up, left for people, listed in the report (``given_up``) and by ``status``,
and asked again only with ``--retry-failed``. A server that stays down stops the command:
everything graded is kept, and the error says where it stopped. So does SIGTERM or Ctrl-C,
at once (the requests in flight are cut: ``ChatJudge.stop``): one line says how many pairs
were recorded, and the store holds exactly those (a verdict's write and its count are one
step no signal splits).

``--shard I/N`` narrows the pairs to the queries of shard I of N (``judges.shard``), so N
machines share a pool and a store; ``--export-batch`` and ``--import-batch`` take the same
pairs through a batch API instead of asking (``app.autojudge_batch``).

Light at import: the command line's parser takes ``AutojudgeReport.formats`` from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit.app.autojudge_events import verdict_event
from poolkit.errors import PoolkitError
from poolkit.reports import Report, register_report

if TYPE_CHECKING:
    from poolkit.app.readings import Task
    from poolkit.judges import Calibration, JudgeKind, JudgePair
    from poolkit.judges.config import JudgeSpec
    from poolkit.judges.openai import Answer
    from poolkit.store.contract import StoreBackend

#: characters per prompt token when no tokenizer is known (--dry-run's estimate)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class AutojudgeRequest:
    config: str | Path
    judge: str                              # the judge's name under judges:
    queries: Sequence[str] | None = None    # only these queries (None: all)
    limit: int | None = None                # at most this many pairs
    regrade: bool = False                   # --all: ask again for pairs already graded
    dry_run: bool = False                   # count and estimate only
    #: --variant KEY=VALUE: grade the pairs (the first --limit) also with one option changed,
    #: a separate judge version, and report how the two versions agree
    variant: str | None = None
    readings: int = 1                       # --readings K: each pair asked K times
    seed: int | None = None                 # --seed S: reading i asked with seed S + i
    paraphrases: str | Path | None = None   # --paraphrases FILE: reading i's template
    #: --shard I/N: only the queries of shard I of N (``judges.shard``)
    shard: tuple[int, int] | None = None
    #: --export-batch DIR: write the requests as Batch API files instead of asking
    export_batch: str | Path | None = None
    #: --import-batch FILE...: record a batch's results instead of asking
    import_batch: Sequence[str | Path] = ()
    #: --overwrite: --export-batch may replace the batch files in DIR
    overwrite: bool = False
    #: --retry-failed: ask again for the pairs given up after ``max_failures`` failures
    retry_failed: bool = False


@register_report
@dataclass(frozen=True)
class AutojudgeReport(Report):
    """``poolkit autojudge``: what the judge graded, its grades, tokens and time."""

    kind = "autojudge"

    command: str
    judge: str
    version: str
    model: str
    pairs: dict[str, int]
    grades: dict[str, int]
    tokens: dict[str, int]
    seconds: float
    dry_run: bool = False
    #: --dry-run: {"pairs", "prompt_tokens", "cost"} (cost None without prices)
    estimate: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    store: str = ""
    #: readings asked per pair (``--readings``; ``pairs.graded`` and ``failed`` count readings)
    readings: int = 1
    #: --variant: the variant against the judge as configured (``variants.variant_report``)
    variant: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: --readings K > 1: the version's readings in the store compared
    #: (``analysis.repeatability``: alpha, flip share, pairs, readings)
    repeatability: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: --export-batch, --import-batch: the files and what they held (``autojudge_batch``)
    batch: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: the pairs left for people after ``max_failures`` failed runs, not asked this run:
    #: ``[{"qid", "docid", "failures"}]``
    given_up: list[dict[str, Any]] = field(default_factory=list)

    def render_table(self) -> str:
        """A few sentences, each wrapped to 80 columns."""
        from poolkit.tables import wrapped

        if self.batch is not None:
            from poolkit.app.autojudge_batch import batch_table

            return batch_table(self)
        if self.dry_run and self.estimate is not None:
            est = self.estimate
            cost = "" if est["cost"] is None else f", about {est['cost']:.4f} in cost"
            return wrapped(f"autojudge {self.judge} (version {self.version}, model "
                           f"{self.model}): {est['pairs']} pairs to grade "
                           f"({self.pairs['already']} already graded), about "
                           f"{est['prompt_tokens']:,} prompt tokens{cost}; nothing asked")
        p, g = self.pairs, self.grades
        each = (f", {self.readings} readings each: {p['graded']} readings graded, "
                f"{p['already']} pairs had them all, {p['failed']} readings failed"
                if self.readings > 1 else f", {p['graded']} graded, {p['already']} already "
                                          f"graded, {p['failed']} failed")
        text = (wrapped(f"autojudge {self.judge} (version {self.version}, model {self.model}) "
                        f"on {self.store}: {p['total']} pairs{each}"
                        + (f", {p['flagged']} flagged (text aimed at the grader)"
                           if p["flagged"] else "")
                        + (f", {p['given_up']} given up after repeated failures and left for "
                           f"people (--retry-failed asks them again)" if p["given_up"] else ""))
                + f"  grades: {'  '.join(f'{k}: {n}' for k, n in g.items())}\n"
                + wrapped(f"tokens: {self.tokens['prompt']:,} prompt, "
                          f"{self.tokens['completion']:,} completion in {self.seconds:.1f} s",
                          "  "))
        if self.variant is not None:
            from poolkit.app.variants import variant_table

            text += variant_table(self.variant)
        if self.repeatability is not None:
            from poolkit.app.check_sections import repeatability_block

            text += "".join(f"{line}\n" for line in repeatability_block(
                self.repeatability, self.to_dict()))
        return text


def judge_spec(config: Any, name: str) -> JudgeSpec:
    """The judge ``name`` of the config, or one line naming the judges it has."""
    from poolkit.errors import one_of

    judges = config.judges
    if name not in judges:
        if not judges:
            raise PoolkitError(f"{config.path}: no judges: section; add one (e.g. judges: "
                               f"{{{name}: {{kind: openai, base_url: ..., model: ...}}}})")
        raise PoolkitError(f"{config.path}: " + one_of(name, judges, "judge"))
    return judges[name]  # type: ignore[no-any-return]


def autojudge(request: AutojudgeRequest) -> AutojudgeReport:
    """Grade the latest pool's pairs the judge's version has not graded (see the module)."""
    import time

    from poolkit.app.autojudge_batch import check_batch_request, export_batch, import_batch
    from poolkit.app.check_sections import repeatability_of
    from poolkit.app.readings import (
        check_prompted,
        check_readings,
        pending,
        reading_judge,
        readings_done,
        seed_of,
    )
    from poolkit.app.variants import parse_variant, with_variant
    from poolkit.collection import Collection
    from poolkit.judges import judge_kind

    started = time.monotonic()
    check_batch_request(request)
    collection = Collection.open(request.config, write=not (request.dry_run
                                                            or request.export_batch))
    config = collection.config
    spec = judge_spec(config, request.judge)
    kind = judge_kind(spec.kind)
    variant = parse_variant(spec, kind, request.variant) if request.variant else None
    paraphrases: list[str] = []
    if request.paraphrases is not None:
        from poolkit.judges.paraphrases import read_paraphrases

        paraphrases = read_paraphrases(request.paraphrases)
    check_readings(request.readings, paraphrases, request.variant,
                   bool(request.export_batch or request.import_batch), request.seed)
    scale = config.grades
    check_scale(config, spec, kind)
    with collection:
        store = collection.store
        if not (request.dry_run or request.export_batch):
            collection.assessor(spec.name, "grade", "--judge", machine=True)
        pairs = _pairs(store, request.queries, request.shard)
        judge = build_judge(config, store, spec, kind, pairs, read_cache=not request.regrade)
        check_prompted(paraphrases, judge, spec.name, kind.name)
        if variant is not None:
            base, judge = judge, with_variant(judge, variant)
            pairs = pairs[:request.limit] if request.limit is not None else pairs
        version = kind.version_of(judge.settings, judge.template, paraphrases)
        done = readings_done(store, spec.name, version)
        model = _reported_model(store, spec.name, version) or str(
            getattr(judge, "model_id", None) or spec.settings.get("model") or spec.kind)
        k = request.readings
        already = sum(1 for p in pairs
                      if len(done.get((p.query.qid, p.docid), set()) & set(range(k))) == k)
        gave_up = {} if request.retry_failed else _given_up(store, spec, version, set(done))
        todo = pending([p for p in pairs if (p.query.qid, p.docid) not in gave_up], done, k,
                       request.regrade, request.limit)
        given_up = [{"qid": p.query.qid, "docid": p.docid,
                     "failures": gave_up[(p.query.qid, p.docid)]}
                    for p in pairs if (p.query.qid, p.docid) in gave_up]
        seed = seed_of(k, request.seed)
        judges = [reading_judge(judge, i, paraphrases, seed) for i in range(k)]
        common = dict(command="autojudge", judge=spec.name, version=version,
                      store=config.store_label, readings=k, given_up=given_up)
        if request.import_batch:
            pooled = pairs if request.queries is None and request.shard is None \
                else _pairs(store, None)
            batch, done_now = import_batch(store, spec, kind.name, judge, version, pooled,
                                           pairs, request.import_batch)
            return AutojudgeReport(
                **common, model=done_now.model or model,  # type: ignore[arg-type]
                pairs={"total": len(pairs), "graded": done_now.graded,
                       "already": done_now.already, "failed": done_now.failed,
                       "flagged": done_now.flagged, "given_up": len(given_up)},
                grades={str(g): done_now.grades.get(g, 0) for g in scale.grades},
                tokens={"prompt": done_now.prompt_tokens,
                        "completion": done_now.completion_tokens},
                seconds=round(time.monotonic() - started, 3), batch=batch)
        if request.export_batch:
            batch = export_batch(judge, kind.name, spec.name, version,
                                 [pair for pair, _ in todo], request, CHARS_PER_TOKEN)
            return AutojudgeReport(
                **common, model=model,  # type: ignore[arg-type]
                pairs={"total": len(pairs), "graded": 0, "already": already, "failed": 0,
                       "flagged": 0, "given_up": len(given_up)},
                grades={str(g): 0 for g in scale.grades},
                tokens={"prompt": 0, "completion": 0},
                seconds=round(time.monotonic() - started, 3), dry_run=request.dry_run,
                batch=batch)
        if request.dry_run:
            return AutojudgeReport(
                **common, model=model,  # type: ignore[arg-type]
                pairs={"total": len(pairs), "graded": 0, "already": already, "failed": 0,
                       "flagged": 0, "given_up": len(given_up)},
                grades={str(g): 0 for g in scale.grades}, tokens={"prompt": 0, "completion": 0},
                seconds=round(time.monotonic() - started, 3), dry_run=True,
                estimate=_estimate(judges, todo, spec.settings))
        report = None
        if variant is not None:
            from poolkit.app.variants import variant_report

            base_version = kind.version_of(base.settings, base.template)
            base_run = _Run(store, spec, base_version, kind.name, [base], False, scale.top)
            base_run.grade(pending(pairs, readings_done(store, spec.name, base_version), 1))
        run = _Run(store, spec, version, kind.name, judges, request.regrade, scale.top,
                   paraphrases=len(paraphrases))
        run.grade(todo)
        if variant is not None:
            report = variant_report(store, spec.name, variant, base_version, version, pairs,
                                    base_run.graded, base_run.failed)
        repeatability = repeatability_of(store, spec.name, version) if k > 1 else None
    return AutojudgeReport(
        **common, model=run.model or model,  # type: ignore[arg-type]
        pairs={"total": len(pairs), "graded": run.graded,
               "already": already + run.already if not request.regrade else run.already,
               "failed": run.failed, "flagged": run.flagged, "given_up": len(given_up)},
        grades={str(g): n for g, n in sorted(run.grades.items())},
        tokens={"prompt": run.prompt_tokens, "completion": run.completion_tokens},
        seconds=round(time.monotonic() - started, 3), variant=report,
        repeatability=repeatability)


def check_scale(config: Any, spec: JudgeSpec, kind: JudgeKind) -> None:
    """Refuse a judge whose kind grades 0-3 only on a collection of another scale."""
    from poolkit.io.scale import DEFAULT_SCALE

    scale = config.grades
    if scale != DEFAULT_SCALE and not kind.any_scale:
        raise PoolkitError(f"{config.path}: judge {spec.name!r} (kind {kind.name}) grades on "
                           f"the 0-3 scale only, and the collection's grades: are "
                           f"{scale.span}; use a kind that follows the scale (openai)")


def build_judge(config: Any, store: StoreBackend, spec: JudgeSpec, kind: JudgeKind,
                pairs: Sequence[JudgePair], *, read_cache: bool = True) -> Any:
    """The judge ``spec`` of ``config`` as autojudge asks it (``JudgeKind.build``) on the
    collection's scale; ``pairs`` are those people's grades may calibrate it on. Every
    command that asks a judge builds it here, so they ask the same version the same way."""
    from poolkit.judges import on_scale
    from poolkit.judges.config import template_on

    scale = config.grades
    return kind.build(on_scale(spec.settings, scale), template_on(spec, scale),
                      cache_dir=config.cache_dir, read_cache=read_cache,
                      calibration=_calibration(store, pairs))


def _pairs(store: StoreBackend, only: Sequence[str] | None,
           shard: tuple[int, int] | None = None) -> list[JudgePair]:
    """The latest pool's pairs in judging order, with their queries and texts (only those of
    queries ``only``, and of shard I of N, ``judges.shard``)."""
    from poolkit.errors import StoreError, one_of
    from poolkit.judges import JudgePair
    from poolkit.judges.shard import shard_of

    latest = store.latest_pool_version()
    if latest is None:
        raise StoreError(f"{store.path}: nothing pooled yet; run `poolkit pool` first")
    queries = store.queries()
    if only is not None:
        for qid in only:
            if qid not in queries:
                raise StoreError(f"{store.path}: --queries: " + one_of(qid, queries, "query"))
    wanted = set(only) if only is not None else None
    texts: dict[str, tuple[str, str]] = {}
    out = []
    for member in sorted(store.pool(max_version=latest), key=lambda m: (m.qid, m.order_key)):
        if wanted is not None and member.qid not in wanted:
            continue
        if shard is not None and shard_of(member.qid, shard[1]) != shard[0]:
            continue
        if member.text_hash not in texts:
            texts[member.text_hash] = store.text(member.text_hash)
        title, body = texts[member.text_hash]
        out.append(JudgePair(queries[member.qid], member.docid, title, body, member.text_hash))
    return out


def _given_up(store: StoreBackend, spec: JudgeSpec, version: str,
              graded: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """The pairs ``version`` failed on ``spec.max_failures`` times or more and has not graded
    since, with their failures: left for people."""
    from poolkit.policies import machine_failures

    failures = machine_failures(store, spec.name).get(version, {})
    return {p: n for p, n in failures.items() if n >= spec.max_failures and p not in graded}


def _reported_model(store: StoreBackend, judge: str, version: str) -> str | None:
    """The model id the server reported for this judge version's latest grade, if any."""
    events = [e for e in store.events(kinds=["grade"], machine=judge)
              if e.judge_version == version and e.source]
    return events[-1].source if events else None


def _calibration(store: StoreBackend, pairs: Sequence[JudgePair]) -> Calibration:
    """People's resolved grades of the pooled pairs (read only if a kind asks), and the
    threshold fit a kind scoring pairs may use (the cross-encoder's)."""
    from poolkit.analysis.thresholds import fit_thresholds
    from poolkit.judges import Calibration
    from poolkit.policies import Labels

    def people() -> list[tuple[JudgePair, int]]:
        grades = Labels.from_store(store).grades
        return [(p, grades[p.query.qid][p.docid]) for p in pairs
                if p.docid in grades.get(p.query.qid, {})]

    return Calibration(people, fit_thresholds)


def _estimate(judges: Sequence[Any], todo: Sequence[Task], settings: dict[str, Any],
              ) -> dict[str, Any]:
    count = getattr(judges[0], "count_tokens", None)
    if count is not None:  # the judge's own tokenizer
        tokens = sum(count(judges[i].prompt(p)) for p, i in todo)
    else:
        tokens = -(-sum(len(judges[i].prompt(p)) for p, i in todo) // CHARS_PER_TOKEN)
    prices = settings.get("prices")
    cost = None
    if prices:
        completion = len(todo) * int(settings.get("max_tokens") or 0)
        cost = round(tokens * float(prices.get("prompt", 0))
                     + completion * float(prices.get("completion", 0)), 6)
    return {"pairs": len(todo), "prompt_tokens": tokens, "cost": cost}


class _Run:
    """One autojudge run: asks on ``concurrency`` threads, records on this one."""

    def __init__(self, store: StoreBackend, spec: JudgeSpec, version: str, kind: str,
                 judges: Sequence[Any], regrade: bool, top: int = 3,
                 paraphrases: int = 0) -> None:
        self.store, self.spec, self.version, self.kind = store, spec, version, kind
        #: the judge as it asks each reading (``readings.reading_judge``)
        self.judges, self.regrade, self.paraphrases = judges, regrade, paraphrases
        self.judge = judges[0]
        self.graded = self.already = self.failed = self.flagged = 0
        self.grades = {g: 0 for g in range(top + 1)}
        self.prompt_tokens = self.completion_tokens = 0
        self.model = ""

    def grade(self, todo: Sequence[Task]) -> None:
        """Grade ``todo``, recording each verdict as it comes; stopped by SIGTERM or Ctrl-C,
        the same interrupt again, saying what was recorded."""
        try:
            if hasattr(self.judge, "ask_batch"):
                self._grade_batches(todo)
            else:
                self._grade_threads(todo)
        except KeyboardInterrupt as exc:
            from poolkit.errors import Terminated

            signal = "SIGTERM" if isinstance(exc, Terminated) else "Ctrl-C"
            raise type(exc)(self.stopped(f"stopped by {signal}", len(todo))) from None

    def stopped(self, why: str, total: int, down: bool = False) -> str:
        """What a run stopped by ``why`` (a signal; ``down``: the server gone) says it
        kept."""
        if down:
            return (f"{why} with {self.graded + self.failed} of {total} pairs recorded "
                    f"({self.graded} graded, kept in {self.store.path}); run it again to "
                    f"resume")
        return (f"{why} with {self.graded + self.failed} of {total} pairs recorded "
                f"({self.graded} graded, {self.failed} failed, kept in {self.store.path}); "
                f"run the same command again to grade the rest")

    def _grade_threads(self, todo: Sequence[Task]) -> None:
        """A judge asked over the network: ``concurrency`` requests in flight."""
        import threading
        from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

        from poolkit.judges.deadline import Stopped
        from poolkit.judges.openai import JudgeUnavailable
        from poolkit.progress import Progress

        stop = threading.Event()

        def ask(task: Task) -> tuple[JudgePair, str, Answer | None]:
            pair, reading = task
            prompt = self.judges[reading].prompt(pair)
            if stop.is_set():
                return pair, prompt, None
            return pair, prompt, self.judges[reading].ask(prompt)

        concurrency = int(self.spec.settings.get("concurrency") or 1)
        down: tuple[JudgePair, JudgeUnavailable] | None = None
        queue = list(reversed(todo))
        with Progress(len(todo), f"autojudge {self.spec.name}", "pairs") as bar, \
                ThreadPoolExecutor(max_workers=concurrency) as pool:
            running: dict[Future[tuple[JudgePair, str, Answer | None]], Task] = {}
            try:
                while queue or running:
                    while queue and len(running) < concurrency and not stop.is_set():
                        task = queue.pop()
                        running[pool.submit(ask, task)] = task
                    if not running:
                        break
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        pair, reading = running.pop(future)
                        try:
                            _, prompt, answer = future.result()
                        except JudgeUnavailable as exc:
                            stop.set()
                            if down is None:
                                down = (pair, exc)
                            continue
                        except Stopped:
                            continue
                        if answer is not None:
                            self._record(pair, prompt, answer, reading)
                            bar.update()
            except KeyboardInterrupt:  # cut what is in flight: leaving waits for it
                stop.set()
                getattr(self.judge, "stop", lambda: None)()
                raise
        if down is not None:
            pair, why = down
            raise JudgeUnavailable(self.stopped(
                f"{why}; stopped at query {pair.query.qid!r} doc {pair.docid!r}", len(todo), True))

    def _grade_batches(self, todo: Sequence[Task]) -> None:
        """An in-process judge: ``batch_size`` pairs at a time on this thread."""
        from itertools import groupby

        from poolkit.progress import Progress

        size = int(self.judge.batch_size)
        with Progress(len(todo), f"autojudge {self.spec.name}", "pairs") as bar:
            for reading, tasks in groupby(todo, key=lambda task: task[1]):
                pairs = [pair for pair, _ in tasks]
                for start in range(0, len(pairs), size):
                    chunk = pairs[start:start + size]
                    for pair, (prompt, answer) in zip(
                            chunk, self.judges[reading].ask_batch(chunk), strict=True):
                        self._record(pair, prompt, answer, reading)
                        bar.update()

    def _record(self, pair: JudgePair, prompt: str, answer: Answer, reading: int = 0) -> None:
        import json

        from poolkit.app.readings import readings_done
        from poolkit.io.staged import held_signals
        from poolkit.judges.prompt import sha256

        self.model = answer.model
        self.prompt_tokens += answer.prompt_tokens
        self.completion_tokens += answer.completion_tokens
        qid, docid = pair.query.qid, pair.docid
        judge = self.judges[reading]
        more: dict[str, Any] = {"reading": reading}
        if judge.settings.get("seed") is not None:
            more["seed"] = judge.settings["seed"]
        if self.paraphrases:
            more["paraphrase"] = reading % self.paraphrases
        event = verdict_event(self.spec.name, self.kind, self.version, sha256(judge.template),
                              pair, prompt, answer, **more)
        flagged = "flagged" in json.loads(event.note or "{}")
        with held_signals():  # recorded and counted, or neither
            with self.store.transaction():
                if answer.grade is not None and not self.regrade and reading in readings_done(
                        self.store, self.spec.name, self.version, qid).get((qid, docid), ()):
                    self.already += 1  # another process graded it meanwhile
                    return
                self.store.record_event(event)
            if answer.grade is None:
                self.failed += 1
            else:
                self.graded += 1
                self.grades[answer.grade] += 1
                self.flagged += bool(flagged)


__all__ = ["AutojudgeReport", "AutojudgeRequest", "autojudge", "build_judge", "check_scale",
           "judge_spec"]
