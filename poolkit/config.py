"""The collection config: one YAML file describing corpus, queries, systems, pool and judging.

::

    grades: {0: not relevant, 1: related, 2: highly relevant, 3: perfectly relevant}
    corpus: ../sample_corpus/corpus.jsonl     # JSONL: id, title, text
    queries: ../sample_corpus/queries.jsonl   # JSONL (id, text, description?, narrative?,
                                              #   guidelines?) or TSV
    # or, instead of corpus and queries: collection: beir:PATH[#SPLIT] | irds:DATASET_ID
    store: ../sample_corpus/judgments.sqlite
    systems:
      bm25:   {kind: bm25, depth: 100}
      dense:  {kind: dense, depth: 100}
      rerank: {kind: rerank, over: bm25, fetch: 100, depth: 20}
      vendor: {kind: run, path: vendor.run, group: vendor}
    pool:
      depth: 10          # top N from every system unless a system sets pool_depth
      order: shuffle     # judging order strategy (shuffle, docid, priority, mtf, mm-ns)
      budget: 0.5        # judgments per query: a number, or a fraction of the query's pool
      stop_recall: 0.9   # stop a query once its estimated pool recall is at least this
      stop: model        # which stopping rule (model, knee, quant, quant-sample)
    judge:
      keys: {undo: u}    # remap any action's key
      guidelines: guidelines.md  # text, a file, or a folder (guidelines.md and QID.md;
                         # a QID.md wins over the queries file's guidelines field)
      highlight: exact   # or stem: the query's words light their inflections too
      require_read: false  # true: a grade key first scrolls a long passage to its end

Loaded with ``yaml.safe_load`` semantics, then checked strictly: an unknown key, a missing
file, a wrong type or a system that names an unknown system is a ConfigError naming the file,
the line and the key, with a suggestion. Paths are relative to the config file.

``grades:`` (default the 0-3 scale above) is the collection's grade scale, any 0..G
(``io.scale``); ``judge.grades`` may still reword some of its labels for the judging screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import yaml

from poolkit.errors import ConfigError, PoolkitError, did_you_mean, one_of, shown
from poolkit.io.common import decode, read_bytes
from poolkit.io.scale import DEFAULT_SCALE, GradeScale, scale_problem
from poolkit.io.validate import LONE_SURROGATE, check_system_name
from poolkit.io.yamlnodes import compose, line_of, to_python
from poolkit.keymap import DEFAULT_KEYS, default_keys, key_names, same_key
from poolkit.params import Param, ParamError
from poolkit.retrieve.kinds import SYSTEM_KINDS

DEFAULT_GRADES = DEFAULT_SCALE.label_map()
HIGHLIGHT_MODES = ("exact", "stem")  # judge.highlight: whole words as written, or inflections
DEFAULT_MIN_DISPLAY = 0.25  # seconds a passage is on screen before a grade key counts
#: poolkit's own folder beside the store (the config, for a database store): what poolkit
#: writes there by default (``runs_dir``: ``.poolkit/runs``) never takes a name a user's own
#: files may have (``runs/``, the name every IR project keeps its runs under)
OWN_FOLDER = ".poolkit"

# -- every key of a config: the one declaration (type, default, allowed values, meaning) ---------
# The loader below reads its keys and defaults from these tables, and the reference
# (docs/reference/config.md, tools/docs_reference.py) renders them. The keys of a system's
# kind, a pool strategy and a judge's kind are declared by their registries
# (retrieve/kinds.SYSTEM_KINDS, the pool's strategy registries via pool/section.py,
# judges.JUDGE_KINDS).

#: the top-level keys
TOP_PARAMS: tuple[Param, ...] = (
    Param("grades", (dict,), DEFAULT_GRADES, "the collection's grade scale: grade -> label "
          "for the grades 0..G, G from 1 to 9 (binary: two grades, 0 and 1)"),
    Param("collection", (str,), None, "a whole collection instead of corpus: and queries: "
          "beir:PATH[#SPLIT] (a BEIR folder) or irds:DATASET_ID (ir_datasets)"),
    Param("corpus", (str,), None, "the passages: JSONL with id, title, text (required "
          "unless collection: is given; relative to the config)"),
    Param("queries", (str,), None, "the queries: JSONL (id, text, description?, narrative?, "
          "guidelines?) or TSV (required unless collection: is given)"),
    Param("store", (str,), None, "the judging store (required): a SQLite file relative to "
          "the config, or a postgresql://USER@HOST:PORT/DB URL"),
    Param("systems", (dict,), None, "name -> {kind: ..., ...}: the systems pooled (at least "
          "one; see systems.NAME)"),
    Param("pool", (dict,), None, "how the pool is drawn and ordered for judging (see pool)"),
    Param("judge", (dict,), None, "the judging screen (see judge)"),
    Param("runs_dir", (str,), None, "where poolkit pool writes each system's run (default: "
          ".poolkit/runs beside the store file; beside the config for a database store); a "
          "file there poolkit did not write is never overwritten"),
    Param("cache_dir", (str,), None, "corpus snapshots, indexes, embeddings and machine "
          "judges' answers (default: .cache beside the store file; beside the config for a "
          "database store)"),
    Param("name", (str,), None, "the collection's name in reports (default: the config "
          "file's name without .yaml)"),
    Param("judges", (dict,), None, "name -> {kind: ..., ...}: machine judges for "
          "poolkit autojudge (see judges.NAME)"),
)
#: the keys every system takes, whatever its kind (``systems.NAME``)
SYSTEM_PARAMS: tuple[Param, ...] = (
    Param("kind", (str,), None, "what the system is (required): one of the kinds below"),
    Param("depth", (int,), None, "how deep it retrieves: its run's depth (default: the "
          "kind's, 100; rerank 20)", minimum=1),
    Param("pool_depth", (int,), None, "how many of its top documents enter the pool "
          "(default: pool.depth)", minimum=1),
    Param("group", (str,), None, "a group of systems left out together by poolkit "
          "reusability --group"),
    Param("family", (str,), None, "the model family the system used (e.g. llama, qwen): "
          "score, estimate and check-judge mark its runs when a machine judge of the same "
          "family made the labels (circularity)"),
)
#: the ``pool:`` keys of its own; every other key is a strategy's parameter (pool/section.py)
POOL_PARAMS: tuple[Param, ...] = (
    Param("depth", (int,), 10, "top N of every system's run pooled, unless a system sets "
          "pool_depth", minimum=1),
    Param("order", (str,), "shuffle", "the judging order: a judging-order strategy"),
    Param("strategy", (str,), "depth", "the pooling strategy: which documents enter the pool"),
    Param("budget", (int, float), None, "judgments per query: a whole number (at least 1), "
          "or a fraction of the query's pool in (0, 1]"),
    Param("stop", (str,), None, "the stopping rule the judging screen applies (default: model "
          "once stop_recall is set)"),
    Param("stop_recall", (float,), None, "stop a query once its estimated pool recall is at "
          "least this, in (0, 1] (the rule's target; 0.9 when only stop: is set)"),
    Param("stop_confidence", (float,), 0.9, "how sure the model rule must be that the target "
          "recall is reached, in (0, 1]"),
)
#: the ``judge:`` keys
JUDGE_PARAMS: tuple[Param, ...] = (
    Param("grades", (dict,), None, "grade -> label: rewords some labels of the collection's "
          "scale on the judging screen"),
    Param("keys", (dict,), None, "action -> key: remaps the judging screen's key bindings "
          "(several keys comma separated, e.g. \"left,p\")"),
    Param("guidelines", (str,), "", "the guidelines shown on the topic card and under ?: the "
          "text itself, a file, or a folder (guidelines.md and one QID.md per query)"),
    Param("relevance_level", (int,), 1, "the grade from which a passage counts as relevant "
          "(binary measures, stopping rules)", minimum=1),
    Param("blind", (bool,), True, "hide which systems found a passage, their ranks and "
          "scores"),
    Param("min_display", (float,), DEFAULT_MIN_DISPLAY, "seconds a passage is on screen "
          "before a grade key counts (a double tap grades one passage, not two)", minimum=0,
          maximum=5),
    Param("topic_card", (bool,), True, "show the whole topic, any key to go on, when a query "
          "starts"),
    Param("highlight", (str,), "exact", "how the query's words are lit in a passage: exact "
          "(as written) or stem (their inflections too)", choices=HIGHLIGHT_MODES),
    Param("require_read", (bool,), False, "a grade key first scrolls a long passage on until "
          "its end was shown"),
)


def _keys(params: tuple[Param, ...]) -> tuple[str, ...]:
    return tuple(p.key for p in params)


def _default(params: tuple[Param, ...], key: str) -> Any:
    return next(p.default for p in params if p.key == key)


TOP_KEYS = _keys(TOP_PARAMS)
COMMON_SYSTEM_KEYS = _keys(SYSTEM_PARAMS)
# Each kind's own keys, types, defaults and bounds: retrieve/kinds.SYSTEM_KINDS.
# the others are the strategies' own (pool/); budget and stopping are checked in pool/section
POOL_KEYS = _keys(POOL_PARAMS)
JUDGE_KEYS = _keys(JUDGE_PARAMS)


@dataclass(frozen=True)
class SystemConfig:
    name: str
    kind: str
    depth: int = 100                 # how deep the system retrieves (its run file's depth)
    pool_depth: int | None = None    # how many of its top docs enter the pool (default pool.depth)
    group: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    family: str | None = None        # the model family it used (circularity marks)
    path: Path | None = None         # kind: run
    over: str | None = None          # kind: rerank
    line: int | None = None          # where the config defines it, for errors found later


@dataclass(frozen=True)
class PoolConfig:
    """The ``pool:`` section. ``order`` names the judging-order strategy and ``strategy``
    the pooling strategy; ``settings`` holds every key but ``depth`` as written (each
    strategy reads the keys it declares), ``lines`` where each key is."""

    depth: int = _default(POOL_PARAMS, "depth")
    order: str = _default(POOL_PARAMS, "order")
    strategy: str = _default(POOL_PARAMS, "strategy")
    settings: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class JudgeConfig:
    grades: dict[int, str] = field(default_factory=lambda: dict(DEFAULT_GRADES))
    keys: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_KEYS))
    guidelines: str = _default(JUDGE_PARAMS, "guidelines")
    relevance_level: int = _default(JUDGE_PARAMS, "relevance_level")
    blind: bool = _default(JUDGE_PARAMS, "blind")
    min_display: float = _default(JUDGE_PARAMS, "min_display")
    topic_card: bool = _default(JUDGE_PARAMS, "topic_card")
    highlight: str = _default(JUDGE_PARAMS, "highlight")  # or "stem": inflections too
    require_read: bool = _default(JUDGE_PARAMS, "require_read")
    #: per query id, its own guidelines (a ``guidelines:`` folder's QID.md files), shown on
    #: the topic card and under ``?`` with the global ones; and the file each came from
    topic_guidelines: dict[str, str] = field(default_factory=dict)
    topic_files: dict[str, Path] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Config:
    path: Path
    corpus: Path
    queries: Path
    store: Path | str   # a SQLite file, or a database URL (postgresql://USER@HOST:PORT/DB)
    runs_dir: Path
    cache_dir: Path
    systems: dict[str, SystemConfig]
    pool: PoolConfig
    judge: JudgeConfig
    name: str = "collection"
    judges: dict[str, Any] = field(default_factory=dict)  # judges.config.JudgeSpec by name
    #: top-level key -> its line in the config file, for errors found after loading
    lines: dict[str, int] = field(default_factory=dict, compare=False)
    #: the collection's grade scale (top-level ``grades:``)
    grades: GradeScale = DEFAULT_SCALE

    @property
    def store_name(self) -> str:
        """The store as headers name it: its file name, or its URL without secrets."""
        from poolkit.store.locations import redact

        return self.store.name if isinstance(self.store, Path) else redact(self.store)

    @property
    def store_label(self) -> str:
        """The store as messages name it: its file's path as ``io.paths.shown_path`` gives
        every path (relative to the current directory when under it), or its URL without
        secrets."""
        from poolkit.io.paths import shown_path
        from poolkit.store.locations import redact

        return shown_path(self.store) if isinstance(self.store, Path) else redact(self.store)

    @property
    def store_dir(self) -> Path:
        """Where relative paths recorded in the store resolve: the store file's folder, or
        the config's for a database server."""
        return self.store.parent if isinstance(self.store, Path) else self.path.parent

    def pool_depth(self, system: str) -> int:
        s = self.systems[system]
        return s.pool_depth if s.pool_depth is not None else self.pool.depth


class _Section:
    """A YAML mapping node with its file, for checked access that can name lines."""

    def __init__(self, path: Path, node: yaml.Node, where: str,
                 allowed: tuple[str, ...] | None):
        self.path, self.node, self.where = path, node, where
        if not isinstance(node, yaml.MappingNode):
            raise ConfigError(path, line_of(node), f"{where} must be a mapping")
        self.items: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for k, v in node.value:
            key = str(k.value)
            if key in self.items:  # safe_load would silently keep the last one
                raise ConfigError(path, line_of(k), f"{where}: key {key!r} appears twice "
                                                    f"(first on line {self.line(key)})")
            self.items[key] = (k, v)
        if allowed is not None:
            self.check_keys(allowed)

    def check_keys(self, allowed: tuple[str, ...]) -> None:
        for key, (k, _) in self.items.items():
            if key not in allowed:
                raise ConfigError(self.path, line_of(k),
                                  one_of(key, set(allowed), f"key in {self.where}"))

    def has(self, key: str) -> bool:
        return key in self.items

    def line(self, key: str | None = None) -> int:
        return line_of(self.items[key][0]) if key in self.items else line_of(self.node)

    def node_of(self, key: str) -> yaml.Node:
        return self.items[key][1]

    def value(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        if key not in self.items:
            return default
        value = to_python(self.items[key][1])
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise ConfigError(self.path, line_of(self.items[key][1]),
                              f"{self.where}.{key} must be {names}, found {shown(value)}")
        return value

    @overload
    def positive_int(self, key: str, default: int) -> int: ...

    @overload
    def positive_int(self, key: str, default: None) -> int | None: ...

    def positive_int(self, key: str, default: int | None) -> int | None:
        value = self.value(key, int, default)
        if value is not None and value < 1:
            raise ConfigError(self.path, self.line(key),
                              f"{self.where}.{key} must be a positive integer, found {value}")
        return value

    def file(self, key: str, base: Path, must_exist: bool = True) -> Path:
        if key not in self.items:
            raise ConfigError(self.path, line_of(self.node), f"{self.where} needs '{key}:'")
        p = (base / str(self.value(key, str))).resolve()
        if must_exist and (p.is_dir() or not p.exists()):  # a FIFO is a file to read
            raise ConfigError(self.path, self.line(key),
                              f"{self.where}.{key}: no such file {p}{_neighbour(p)}")
        return p


def _neighbour(missing: Path) -> str:
    """' (did you mean 'x'?)' naming a file beside ``missing`` with a close name, or why not."""
    if not missing.parent.is_dir():
        return f" (no directory {missing.parent})"
    if missing.is_dir():
        return " (it is a directory)"
    names = [p.name for p in missing.parent.iterdir() if p.is_file()]
    return did_you_mean(missing.name, names)


def _check_text_path(path: Path) -> None:
    """Refuse a config whose path holds bytes that are not UTF-8 (a shell passes them as
    lone surrogates): every path it names lies under its folder, and the store and the run
    files record paths as text, which cannot hold them (pool ended in a traceback)."""
    if LONE_SURROGATE.search(str(path.resolve())):
        raise ConfigError(path, None, "its path holds bytes that are not UTF-8, and poolkit "
                                      "records the paths a config names as text; rename the "
                                      "folder or file")


def load_config(path: str | Path) -> Config:
    path = Path(path)
    text = decode(path, read_bytes(path))
    root = _Section(path, compose(path, text), "config", TOP_KEYS)
    _check_text_path(path)
    base = path.resolve().parent
    if not root.has("store"):
        raise ConfigError(path, root.line(), "config needs 'store:' (the judging store file)")
    store = _store_location(path, base, root)
    beside = store.parent if isinstance(store, Path) else base
    runs_dir = (base / root.value("runs_dir", str, str(beside / OWN_FOLDER / "runs"))
                ).resolve()
    cache_dir = (base / root.value("cache_dir", str, str(beside / ".cache"))).resolve()
    corpus, queries = _corpus_and_queries(path, base, cache_dir, root)
    if not root.has("systems"):
        raise ConfigError(path, root.line(), "config needs 'systems:' (at least one system)")
    systems = _systems(path, base, root)
    pool = _pool(path, root)
    scale = _scale(path, root)
    judge = _judge(path, base, root, scale)
    return Config(grades=scale, path=path.resolve(), corpus=corpus, queries=queries, store=store,
                  runs_dir=runs_dir, cache_dir=cache_dir, systems=systems, pool=pool,
                  judge=judge, name=root.value("name", str, path.stem),
                  judges=_judges(path, base, root),
                  lines={key: root.line(key) for key in root.items})


def _judges(path: Path, base: Path, root: _Section) -> dict[str, Any]:
    from poolkit.judges.config import parse_judges  # the section is the judges' own

    return parse_judges(path, root.node_of("judges"), base) if root.has("judges") else {}


def _store_location(path: Path, base: Path, root: _Section) -> Path | str:
    """The store's file (relative to the config) or, with a URL scheme, its database URL."""
    from poolkit.store.backends import BACKENDS, scheme_of
    from poolkit.store.locations import LocationError, database_location

    value = root.value("store", str)
    scheme = scheme_of(value)
    if scheme != "sqlite":
        if scheme not in BACKENDS:
            raise ConfigError(path, root.line("store"), "config.store: "
                              + one_of(scheme, BACKENDS, "store backend"))
        try:
            return database_location(value) or value
        except LocationError as exc:
            raise ConfigError(path, root.line("store"), f"config.store: {exc.reason}") from None
    from poolkit.errors import OutputError
    from poolkit.io.links import resolve_output

    try:  # resolved as realpath, but never through another user's link in /tmp (io.links)
        store = resolve_output(base / value)
    except OutputError as exc:
        raise ConfigError(path, root.line("store"), f"config.store: {exc}") from None
    if store.is_dir():
        raise ConfigError(path, root.line("store"), f"config.store: {store} is a directory; "
                          f"name the store file (e.g. {store / 'judgments.sqlite'})")
    return store


def _corpus_and_queries(path: Path, base: Path, cache_dir: Path,
                        root: _Section) -> tuple[Path, Path]:
    """``corpus:`` and ``queries:`` files, or those of ``collection: SCHEME:WHERE``."""
    if not root.has("collection"):
        return root.file("corpus", base), root.file("queries", base)
    for key in ("corpus", "queries"):
        if root.has(key):
            raise ConfigError(path, root.line(key), f"config.{key}: give either collection: "
                                                    f"or corpus: and queries:, not both")
    from poolkit.io.collections import Where, resolve_collection

    files = resolve_collection(root.value("collection", str), base, cache_dir,
                               Where(path, root.line("collection")))
    return files.corpus, files.queries


def _systems(path: Path, base: Path, root: _Section) -> dict[str, SystemConfig]:
    node = root.node_of("systems")
    if not isinstance(node, yaml.MappingNode) or not node.value:
        raise ConfigError(path, line_of(node), "systems must be a non-empty mapping of name -> "
                                               "{kind: ...}")
    _Section(path, node, "systems", None)  # refuses a name given twice
    names = [str(k.value) for k, _ in node.value]
    systems: dict[str, SystemConfig] = {}
    for k, v in node.value:
        name = str(k.value)
        where = f"systems.{name}"
        try:
            check_system_name(name, where + ":")
        except PoolkitError as exc:
            raise ConfigError(path, line_of(k), str(exc)) from None
        sec = _Section(path, v, where, None)  # keys are checked once the kind is known
        if not sec.has("kind"):
            raise ConfigError(path, line_of(k), f"{where} needs 'kind:' "
                                                f"(one of {', '.join(SYSTEM_KINDS)})")
        kind_name = sec.value("kind", str)
        if kind_name not in SYSTEM_KINDS:
            raise ConfigError(path, sec.line("kind"), f"{where}: "
                              + one_of(kind_name, SYSTEM_KINDS, "system kind"))
        kind = SYSTEM_KINDS[kind_name]
        sec.check_keys(COMMON_SYSTEM_KEYS + kind.keys)
        options = {p.key: to_python(sec.node_of(p.key)) for p in kind.options if sec.has(p.key)}
        for key, value in options.items():
            try:
                kind.option(key).check(value, where)
            except ParamError as exc:
                raise ConfigError(path, line_of(sec.node_of(key)), str(exc)) from None
        over = None
        run_path = None
        if kind.reranks:
            if not sec.has("over"):
                raise ConfigError(path, line_of(k), f"{where} needs 'over:' (the system whose "
                                                    f"candidates it re-scores)")
            over = sec.value("over", str)
            if over == name:
                raise ConfigError(path, sec.line("over"),
                                  f"{where}.over: a system cannot rerank itself; name the "
                                  f"system whose candidates it re-scores (defined: "
                                  f"{', '.join(n for n in names if n != name) or 'none'})")
            if over not in names:
                raise ConfigError(path, sec.line("over"),
                                  f"{where}.over: unknown system {shown(over)}; defined: "
                                  f"{', '.join(n for n in names if n != name)}"
                                  f"{did_you_mean(over, names)}")
        if kind.reads_file:
            run_path = sec.file("path", base)
        depth = sec.positive_int("depth", None)
        if depth is None:
            depth = kind.depth
        if kind.depth_limit is not None:
            limit = int(options.get(kind.depth_limit, kind.option(kind.depth_limit).default))
            if depth > limit:
                raise ConfigError(path, sec.line("depth"),
                                  f"{where}.depth ({depth}) is deeper than what it re-scores "
                                  f"({kind.depth_limit}: {limit})")
        systems[name] = SystemConfig(
            name=name, kind=kind_name, depth=depth,
            pool_depth=sec.positive_int("pool_depth", None),
            group=sec.value("group", str), options=options, path=run_path, over=over,
            line=line_of(k), family=sec.value("family", str))
    # A rerank chain must bottom out in a first-stage system.
    for name, s in systems.items():
        seen = {name}
        cur = s
        while cur.over is not None:
            if cur.over in seen:
                raise ConfigError(path, root.line("systems"),
                                  f"systems.{name}: rerank chain loops through {shown(cur.over)}")
            seen.add(cur.over)
            cur = systems[cur.over]
    return systems


def _pool(path: Path, root: _Section) -> PoolConfig:
    """The pool section: ``depth`` here; the strategies' names and settings are kept with
    their lines and checked by ``poolkit.pool.section`` against the strategy registries
    (a stage's options are declared by the stage)."""
    if not root.has("pool"):
        return PoolConfig()
    sec = _Section(path, root.node_of("pool"), "pool", None)
    settings = {key: to_python(sec.node_of(key)) for key in sec.items if key != "depth"}
    lines = {key: line_of(sec.node_of(key)) for key in sec.items}
    return PoolConfig(depth=sec.positive_int("depth", PoolConfig.depth),
                      order=str(settings.get("order", PoolConfig.order)),
                      strategy=str(settings.get("strategy", PoolConfig.strategy)),
                      settings=settings, lines=lines)


def _scale(path: Path, root: _Section) -> GradeScale:
    """The top-level ``grades:``: the collection's scale 0..G with a label per grade."""
    if not root.has("grades"):
        return DEFAULT_SCALE
    labels = root.value("grades", dict)
    problem = scale_problem(labels)
    if problem is not None:
        raise ConfigError(path, root.line("grades"), f"config.grades: {problem}")
    return GradeScale(tuple(str(labels[g]).strip() for g in sorted(labels)))


def _judge(path: Path, base: Path, root: _Section,
           scale: GradeScale = DEFAULT_SCALE) -> JudgeConfig:
    if not root.has("judge"):
        return JudgeConfig(grades=scale.label_map(), keys=default_keys(scale.top))
    sec = _Section(path, root.node_of("judge"), "judge", JUDGE_KEYS)
    grades = scale.label_map()
    span = ", ".join(map(str, scale.grades))
    for g, meaning in (sec.value("grades", dict, {}) or {}).items():
        if not isinstance(g, int) or g not in grades:
            raise ConfigError(path, sec.line("grades"),
                              f"judge.grades: grade {shown(g)} must be one of {span} (the "
                              f"scale {scale.span})")
        if not isinstance(meaning, str) or not meaning.strip():
            raise ConfigError(path, sec.line("grades"), f"judge.grades: the label of grade {g} "
                                                        f"must be text, found {shown(meaning)}")
        grades[g] = meaning
    keys = default_keys(scale.top)
    for action, key in (sec.value("keys", dict, {}) or {}).items():
        if action not in keys:
            raise ConfigError(path, sec.line("keys"),
                              "judge.keys: " + one_of(str(action), keys, "action"))
        keys[action] = str(key)
    taken: dict[str, str] = {}
    for action, value in keys.items():
        if not key_names(value):
            raise ConfigError(path, sec.line("keys"), f"judge.keys: {shown(action)} has no key")
        for key in key_names(value):
            if same_key(key) in taken:
                raise ConfigError(path, sec.line("keys"),
                                  f"judge.keys: key {key!r} is bound to both "
                                  f"{shown(taken[same_key(key)])} and {shown(action)}")
            taken[same_key(key)] = action
    min_display = sec.value("min_display", float, JudgeConfig.min_display)
    if not 0 <= min_display <= 5:
        raise ConfigError(path, sec.line("min_display"),
                          f"judge.min_display: {shown(min_display)} must be seconds from 0 to 5")
    guidelines = sec.value("guidelines", str, JudgeConfig.guidelines)
    topic_files: dict[str, Path] = {}
    if guidelines:
        candidate = base / guidelines
        if len(guidelines) < 256 and "\n" not in guidelines and candidate.is_dir():
            guidelines, topic_files = _guidelines_folder(path, sec.line("guidelines"),
                                                         candidate)
        elif len(guidelines) < 256 and "\n" not in guidelines and candidate.is_file():
            guidelines = decode(candidate, candidate.read_bytes())
        elif re.fullmatch(r"\S+\.(md|txt|rst|html?)", guidelines):  # a file name, not text
            raise ConfigError(path, sec.line("guidelines"), f"judge.guidelines: no such file "
                              f"{candidate}{_neighbour(candidate)} (or write the guidelines "
                              f"themselves here)")
    level = sec.value("relevance_level", int, JudgeConfig.relevance_level)
    if level not in grades or level < 1:
        few = ", ".join(map(str, scale.grades[1:-1]))
        choices = f"{few} or {scale.top}" if few else str(scale.top)
        raise ConfigError(path, sec.line("relevance_level"), f"judge.relevance_level must be "
                          f"{choices} (a grade of the {scale.span} scale), found {level}")
    highlight = sec.value("highlight", object, JudgeConfig.highlight)
    if highlight not in HIGHLIGHT_MODES:
        raise ConfigError(path, sec.line("highlight"), "judge.highlight: " + one_of(
            str(highlight), HIGHLIGHT_MODES, "highlight mode"))
    return JudgeConfig(grades=grades, keys=keys, guidelines=guidelines,
                       relevance_level=level,
                       blind=sec.value("blind", bool, JudgeConfig.blind),
                       min_display=min_display,
                       topic_card=sec.value("topic_card", bool, JudgeConfig.topic_card),
                       highlight=highlight,
                       require_read=sec.value("require_read", bool, JudgeConfig.require_read),
                       topic_guidelines={q: decode(f, f.read_bytes())
                                         for q, f in topic_files.items()},
                       topic_files=topic_files)


GUIDELINE_SUFFIXES = (".md", ".txt", ".rst", ".html", ".htm")


def _guidelines_folder(path: Path, line: int, folder: Path) -> tuple[str, dict[str, Path]]:
    """A ``guidelines:`` folder: ``guidelines.md`` (or .txt ...) holds the global text, every
    other ``QID.md`` that query's own; hidden files are left alone, anything else refused."""
    from poolkit.io.paths import shown_path

    text, files = "", dict[str, Path]()
    for f in sorted(folder.iterdir()):
        if f.name.startswith("."):
            continue
        if not f.is_file() or f.suffix.lower() not in GUIDELINE_SUFFIXES:
            raise ConfigError(path, line, f"judge.guidelines: {shown_path(f)} is not a "
                              f"guidelines file (QID.md, .txt, .rst or .html)")
        if f.stem == "guidelines":
            text = decode(f, f.read_bytes())
        elif f.stem in files:
            raise ConfigError(path, line, f"judge.guidelines: two files for query {f.stem!r}: "
                              f"{shown_path(files[f.stem])} and {shown_path(f)}")
        else:
            files[f.stem] = f
    return text, files
