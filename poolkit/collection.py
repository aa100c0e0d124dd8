"""A collection: one config and its judging store, the object every command works on.

Between the CLI and the stages. Built from a config, a ``Collection`` owns:

- ``config``: the parsed collection config (validated once, each stage's section by its
  stage);
- ``store``: the judging store, opened on first use, read-only or read-write, existing or
  new (a missing store is the one ``NoStoreError``, naming the command that makes one; a new
  one appears only if the command making it succeeds: ``made_on_success``);
- ``version(v)``: a pool version resolved (None: the latest) and checked, once;
- ``labels(version, policy, assessors)``: the labels as of a pool version;
- ``machines(names)``: the machine judge versions names mean (the configured judge's);
- ``runs()``: the configured systems' run files (or explicit ones);
- ``pool(version)``: the pooled documents in judging order, each with its provenance;
- ``provenance(version)``: the pool-provenance value (who brought what in, at which rank).

pyterrier's ``Dataset.get_topics / get_qrels(variant)`` is the model: commands ask the
collection, never the store's tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from poolkit.config import Config, load_config
from poolkit.errors import ConfigError, PoolkitError
from poolkit.io.paths import shown_path
from poolkit.io.provenance import PooledBy, PoolProvenance
from poolkit.store.backends import open_store
from poolkit.store.contract import StoreBackend

if TYPE_CHECKING:
    from poolkit.io.run import Run
    from poolkit.machine_choice import MachineChoice
    from poolkit.policies import Labels, MachineVersion
    from poolkit.pool.next_passage import NextPassage
    from poolkit.pool.view import QueryPool

RUN_SUFFIXES = (".run", ".trec", ".txt", ".tsv")


def may_not_record(store: object, role: str | None, kind: str) -> str:
    """The one line refusing a role a kind of event it may not record (imports and
    adjudications are a lead's: members of poolkit_admin)."""
    what = {"import": "import labels", "adjudicate": "adjudicate"}.get(kind, f"record {kind}s")
    return (f"{store}: role {role!r} may not {what}: imports and adjudications are recorded "
            f"by members of poolkit_admin")


@dataclass(frozen=True)
class PooledDoc:
    """One pooled (query, doc) in judging order, with every system that brought it in."""

    qid: str
    docid: str
    version: int            # the pool version that added it
    text_hash: str          # the text the assessor is shown
    order_key: float        # its judging-order key within the query
    sources: tuple[PooledBy, ...]  # (system, rank, score, version), best rank first


class Collection:
    """A config and its judging store. Use as a context manager; the store opens lazily."""

    def __init__(self, config: Config, *, config_arg: str | None = None,
                 write: bool = False, create: bool = False) -> None:
        self.config = config
        self.config_arg = config_arg or str(config.path)
        self.write = write
        self.create = create
        self._store: StoreBackend | None = None
        self._building: Path | None = None  # where a new store is made (made_on_success)

    @classmethod
    def open(cls, path: str | Path, *, write: bool = False, create: bool = False,
             config: Config | None = None) -> Collection:
        """The collection a config file describes (``config``: already loaded and perhaps
        overridden from the command line). Each stage's section of the config is checked
        here by the stage that declares it (``pool.section``), so every command refuses a
        bad config before it does anything."""
        from poolkit.pool.section import check_pool_section

        config = config if config is not None else load_config(path)
        check_pool_section(config)
        return cls(config, config_arg=str(path), write=write, create=create)

    # -- the store --------------------------------------------------------------------------
    @property
    def store(self) -> StoreBackend:
        if self._store is None:
            store = open_store(
                self._building or self.config.store, create=self.create,
                read_only=not self.write,
                missing_hint=f"run `poolkit pool {self.config_arg}` (or `poolkit import`) "
                             f"first")
            try:
                self._check_scale(store)
                self._check_judge_names(store)
            except PoolkitError:
                store.close()
                raise
            self._store = store
        return self._store

    def _check_scale(self, store: StoreBackend) -> None:
        """The config's grade scale against the store's (``meta.grades``; none recorded: 0-3).
        Another top grade is refused once any grade was given on the store's scale (a 2 of
        0-3 is not a 2 of 0-4), naming the config's ``grades:`` line; on a store without
        grades a writer records the config's scale (new labels of the same scale too)."""
        scale, held = self.config.grades, store.grade_scale
        if scale.top != held.top:
            given = store.top_grade_given()
            if given is not None:
                line = self.config.lines.get("grades")
                where = (f"{self.config.path}:{line}: config.grades is" if line
                         else f"{self.config.path}: the config (no grades:) is on")
                raise PoolkitError(
                    f"{where} the scale {scale.span}, but the store {self.config.store_label} "
                    f"holds grades given on the scale {held.span} (up to {given}); give "
                    f"grades: the store's scale, or use a new store")
        if self.write and scale != held:
            store.record_scale(scale)

    def _check_judge_names(self, store: StoreBackend) -> None:
        """A configured judge under a name a person has graded under is refused, naming the
        judge's line: its grades and the person's would both read as that name's."""
        from poolkit.store.records import PERSON

        for name, spec in self.config.judges.items():
            if store.has_events_as(name, PERSON):
                raise ConfigError(self.config.path, spec.line,
                                  f"judges.{name}: {name!r} is a person's name in "
                                  f"{self.config.store_label} (they have graded under it); "
                                  f"a judge and a person never share a name: name the judge "
                                  f"otherwise")

    def inputs(self) -> dict[str, Path | None]:
        """The files this collection is made of (what -> path), which no output of a command
        may overwrite: the store (when a file), the config, the corpus and the queries."""
        store = self.config.store if isinstance(self.config.store, Path) else None
        return {"the store": store, "the config": self.config.path,
                "the corpus": self.config.corpus, "the queries": self.config.queries}

    def has_store(self) -> bool:
        return (self._store is not None or not isinstance(self.config.store, Path)
                or self.config.store.is_file())

    @contextmanager
    def made_on_success(self) -> Iterator[None]:
        """A store that does not exist yet (a SQLite file), when the block makes it, is made
        beside its path and appears there only if the block ends without error
        (``store.new_file``): a command that fails leaves no store behind. An existing store,
        or a database server's, is written as usual."""
        from poolkit.store.new_file import built_beside

        target = self.config.store
        if not (self.create and self.write and isinstance(target, Path)) or self.has_store():
            yield
            return
        with built_beside(target, "run the command again to add to it") as building:
            self._building = building
            try:
                yield
            finally:
                self.close()  # the new store closed (its log folded in) before it is linked
                self._building = None

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Collection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def assessor(self, name: str | None, kind: str = "grade", flag: str = "assessor",
                 machine: bool = False) -> str:
        """Who writes ``kind`` events: ``name``, checked (the one check of a writer's name).

        ``flag`` is how the caller's user gives the name (a command's option), said in the
        messages. The name must be one an assessor can have (printed in tables: no control
        characters, no surrounding spaces), checked before the store is opened. A SQLite
        file knows no users, so the name must be given. A database store knows its role:
        the name defaults to it, and a name the role may not write under is refused now, not
        at the first grade; so is a kind it may not record (``import`` and ``adjudicate`` are
        for members of poolkit_admin). A person and a machine judge (``machine``) never share
        a name: a person may not take a configured judge's name or one a machine judge's
        events are under, nor a judge a name a person's events are under.
        """
        from poolkit.io.validate import check_assessor

        if name is not None:
            check_assessor(name, flag)
        role = self.store.current_role()
        if name is None:
            if role is None:
                raise PoolkitError(f"{flag} NAME is required (who is judging)")
            name = role
        if self.store.may_write_as(name, kind):
            return self._own_kind_of_name(name, flag, machine)
        if not self.store.may_write_as(role or name, kind):
            raise PoolkitError(may_not_record(self.store.path, role, kind))
        raise PoolkitError(f"{self.store.path}: role {role!r} may record grades only as "
                           f"{role!r}, not {name!r} (members of poolkit_admin may use any "
                           f"name)")

    def person_name(self, name: str, flag: str = "assessor") -> str:
        """``name`` checked as a person's (an account of ``poolkit serve``): the rules of
        ``--assessor`` (:meth:`assessor`), and not a machine judge's name in the config or
        the store; what the store's role may write is not asked."""
        from poolkit.io.validate import check_assessor

        return self._own_kind_of_name(check_assessor(name, flag), flag, machine=False)

    def _own_kind_of_name(self, name: str, flag: str, machine: bool) -> str:
        """``name`` when no one of the other kind (person, machine judge) has it."""
        from poolkit.store.records import MACHINE, PERSON

        never = "a judge and a person never share a name"
        where = self.config.store_label
        if machine:
            if self.store.has_events_as(name, PERSON):
                raise PoolkitError(f"{where}: {flag} {name!r} is a person's name (they have "
                                   f"graded under it); {never}: give the judge another")
            return name
        spec = self.config.judges.get(name)
        if spec is not None:
            raise ConfigError(self.config.path, spec.line,
                              f"{flag} {name!r} names a machine judge (judges.{name}); "
                              f"{never}: give the person another")
        if self.store.has_events_as(name, MACHINE):
            raise PoolkitError(f"{where}: {flag} {name!r} names a machine judge there (its grades "
                               f"are a machine's); {never}: give the person another")
        return name

    def assessors(self, names: Iterable[str] | None, flag: str = "") -> list[str] | None:
        """``names`` (None: everyone), each checked to be an assessor or source with events
        in the store: the one check of the names that choose whose grades a command reads (a
        name no one judged under is a typo, not "no grades"). ``flag``: the caller's option,
        said in the message."""
        from poolkit.policies import check_assessors

        if names is None:
            return None
        return check_assessors(names, self.store.assessors(),
                               f"{self.config.store_label}: {flag}" if flag
                               else self.config.store_label)

    # -- what commands ask for ----------------------------------------------------------------
    def version(self, version: int | None = None) -> int:
        """``version`` checked against the store, or the latest when None."""
        return self.store.resolve_pool_version(version)

    def labels(self, version: int | None = None, policy: str = "latest",
               assessors: Iterable[str] | None = None,
               machines: Iterable[str] | Sequence[MachineVersion] | None = None) -> Labels:
        """Labels as of pool ``version`` (default: latest) under ``policy``; ``machines``:
        machine judges (``NAME[@VERSION]``, read as ``machines`` reads them, or its
        versions) whose grades fill the pairs no person graded."""
        from poolkit.policies import Labels, MachineVersion

        given = list(machines or ())
        chosen = [m for m in given if isinstance(m, MachineVersion)]
        if len(chosen) < len(given):
            chosen = self.machines([m for m in given if isinstance(m, str)])
        return Labels.as_of(self.store, self.version(version), assessors, policy, chosen)

    def machines(self, names: Iterable[str] | None, flag: str = "--with-machine",
                 strict: bool = False) -> list[MachineVersion]:
        """The machine judge versions ``names`` (``NAME`` or ``NAME@VERSION``, repeated or
        ``a,b``) ask for, by the one rule (``machine_choice``: a bare NAME is the version
        the config defines; ``strict``, a bare NAME of several versions is refused);
        ``flag``: the caller's option, said in a refusal."""
        return self.machine_choice().chosen(names, flag, strict)

    def trusted(self, versions: Sequence[MachineVersion], flag: str,
                accept: bool = False) -> list[str]:
        """Refuse a version ``poolkit check-judge`` marked untrusted unless ``accept``
        (``--accept-untrusted``); the lines to say on stderr once the command is done (a
        version never checked, or an untrusted one accepted: ``machine_choice.trust_gate``).
        ``flag``: the option that named them."""
        from poolkit.machine_choice import trust_gate

        said = [trust_gate(self.store, v, self.config.store_label, flag, accept=accept,
                           config=shown_path(self.config.path)) for v in versions]
        return [line for line in said if line]

    def machine_choice(self) -> MachineChoice:
        """Which machine judge versions of the store the config's names mean."""
        from poolkit.machine_choice import MachineChoice

        return MachineChoice(self.store, self.config.store_label, self.config)

    def provenance(self, version: int | None = None) -> PoolProvenance:
        """The pool as of ``version`` (default: latest) with its provenance: which systems
        brought which document in, at which rank (``io.provenance.PoolProvenance``)."""
        return PoolProvenance.from_store(self.store, self.version(version))

    def pool(self, version: int | None = None) -> list[PooledDoc]:
        """The pool as of ``version`` (default: latest) in judging order, with provenance
        limited to what that version knew."""
        v = self.version(version)
        members = self.store.pool(max_version=v)
        provenance = PoolProvenance.from_rows(members, self.store.sources(), v)
        return [PooledDoc(m.qid, m.docid, m.version, m.text_hash, m.order_key,
                          provenance.hits.get((m.qid, m.docid), ()))
                for m in members]

    def query_pools(self, version: int | None = None) -> dict[str, QueryPool]:
        """Per query, the pool as a judging-order strategy sees it (``pool.view.QueryPool``:
        documents in judging order, each with the runs and ranks that brought it)."""
        from poolkit.pool.provenance import query_pools

        return query_pools(self.provenance(version))

    def next_passage(self, version: int | None = None, double: bool = False,
                     accept_untrusted: bool | None = None) -> NextPassage:
        """The judging session's next-passage decision from the ``pool:`` section: the
        judging order, ``pool.budget`` and the stopping rule (``pool.stop``, ``stop_recall``)
        over the pool as of ``version``; the learner's relevance level is the judge's.
        ``accept_untrusted``: whether a judge-guided order may follow a judge version
        ``check-judge`` marked untrusted (None: not asked, ``live_guides.live_order``)."""
        from poolkit.pool.live_guides import live_order, texts_from
        from poolkit.pool.next_passage import NextPassage
        from poolkit.pool.section import budget_of, order_of, stop_rule_of

        config = self.config
        strategy, pools = live_order(config, self.store, self.query_pools(version),
                                     order_of(config), accept_untrusted)
        return NextPassage(self.store, pools, strategy,
                           budget=budget_of(config), stop=stop_rule_of(config),
                           level=config.judge.relevance_level, double=double,
                           texts=texts_from(self.store))

    def run_path(self, name: str) -> Path | None:
        """Where system ``name``'s run file is: ``runs_dir/NAME.run`` (what ``poolkit pool``
        writes; also .trec/.txt/.tsv), the path the store registered when it pooled, or the
        configured ``path:`` of an external run."""
        config = self.config
        candidates = [config.runs_dir / f"{name}{suffix}" for suffix in RUN_SUFFIXES]
        if self.has_store():
            registered = self.store.systems().get(name, {}).get("run_path")
            if registered:
                p = Path(registered)
                candidates += [p] if p.is_absolute() else [config.path.parent / p,
                                                           config.store_dir / p, p]
        system = config.systems[name]
        if system.path is not None:
            candidates.append(system.path)
        return next((c for c in candidates if c.is_file()), None)

    def user_run(self, name: str, path: Path, order: str = "score") -> Run:
        """A ``kind: run`` system's run as the user's own file, never poolkit's copy (which is
        validated and cut to the system's depth): analyses score exactly what ``poolkit
        score`` scores on that file. If the store recorded the file's sha256 when it pooled,
        the file must still have it, or the labels and the run no longer belong together."""
        from poolkit.io import read_any_run

        if not path.is_file():
            raise PoolkitError(f"{self.config.path}: systems.{name}: run file {path} is "
                               f"missing (the analyses score the file itself, not poolkit's "
                               f"validated copy)")
        run = read_any_run(path, order=order)
        run.name = name
        pooled = (self.store.systems().get(name, {}).get("run_sha256") if self.has_store()
                  else None)
        if pooled and pooled != run.sha256:
            raise PoolkitError(f"{path}: systems.{name}'s run file changed since it was pooled "
                               f"(sha256 {run.sha256[:12]} now, {pooled[:12]} then); pool "
                               f"again or restore the file")
        return run

    def runs(self, explicit: Sequence[str] = (), order: str = "score",
             fmt: str | None = None) -> dict[str, Run]:
        """The runs to score: ``explicit`` files if any, else every configured system's run
        file (named by the system)."""
        from poolkit.analysis.inputs import read_runs
        from poolkit.io import read_any_run

        if explicit:
            return read_runs(explicit, order, fmt)
        config = self.config
        runs: dict[str, Run] = {}
        missing = []
        for name, system in config.systems.items():
            if system.kind == "run" and system.path is not None:
                runs[name] = self.user_run(name, system.path, order)
                continue
            path = self.run_path(name)
            if path is None:
                missing.append(name)
                continue
            run = read_any_run(path, order=order)
            run.name = name
            runs[name] = run
        if missing:
            where = shown_path(config.path)
            raise PoolkitError(f"{where}: no run file for system(s) {', '.join(missing)} in "
                               f"{shown_path(config.runs_dir)} (run `poolkit pool {where}` "
                               f"first, or name the run files on the command line)")
        return runs
