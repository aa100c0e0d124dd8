"""What each system contributed to the pool: the report ``poolkit pool`` prints.

``pool_report(store, version)`` is JSON-ready::

    {"version": 2, "versions": [...], "systems": {name: {kind, group, depth, about, ...}},
     "queries": {qid: {"text", "size", "new", "by_version", "depth", "by_system", "only",
                       "overlap", "judged", "judged_by"}},
     "overall": {same counts summed over queries, plus "queries"}}

- ``depth[s]``: the pool depth taken from system ``s`` (the deepest any version used).
- ``size``: documents in the query's pool, all versions up to ``version``;
  ``new``: of them, those ``version`` added.
- ``by_system[s]``: pooled documents that system ``s`` brought in (it ranked them within its
  pool depth), shared or not; ``only[s]``: those no other system brought in.
- ``overlap[a][b]``: documents both ``a`` and ``b`` brought in.
- ``systems[s]``: kind, settings summary (``about``), ``run_sha256`` and ``run_path`` as the
  latest version up to ``version`` that pooled ``s`` recorded them (so an old version shows
  the run it was built from), ``runs``: run sha256 per version that pooled ``s``.
- ``judged``: pooled documents that already carry a standing grade from anyone (imported
  labels included); ``judged_by[assessor]`` breaks it down.
- ``design`` (a sampled pool only): per stratum the pairs ``pooled``, those ``drawn`` to
  judge and the ``rate`` drawn / pooled, their totals, and the judging ``order`` (``random``
  when it is a seeded shuffle: random within each stratum, so any judged prefix of the queue
  is a random subsample). A sampled pool's ``size`` counts are drawn pairs, not pooled ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from poolkit.io.paths import shown_path
from poolkit.reports import Report, json_text, register_report
from poolkit.tables import WIDTH, table, wrap

if TYPE_CHECKING:  # kept out of the import: the command line's parser reads PoolReport.formats
    from poolkit.store.contract import StoreBackend


def _zero(systems: list[str]) -> dict[str, int]:
    return {s: 0 for s in systems}


@dataclass(frozen=True)
class PoolAdded:
    """What one run of ``poolkit pool`` changed: the version it added (None: nothing new,
    the pool unchanged at ``latest``), its new documents over how many queries, the new
    provenance rows, each system's pool depth and the judging order."""

    version: int | None
    latest: int | None
    new_docs: int
    queries: int
    new_provenance: int
    #: each system's pool depth as its run returned it (its longest ranking, at most what was
    #: asked: a run of 20 per query pooled "at 50" pooled 20)
    depths: dict[str, int]
    order: str
    #: the depth the config asked of each system
    asked: dict[str, int] = field(default_factory=dict)

    def sentence(self) -> str:
        """One sentence on what this run of ``poolkit pool`` changed."""
        if self.version is None:
            return (f"nothing new: the pool is unchanged at version {self.latest} "
                    f"(no document or provenance to add)")
        if not self.new_docs:
            return (f"added pool version {self.version}: no new documents, new provenance "
                    f"({self.new_provenance} system/rank records) for pooled ones")
        from poolkit.retrieve.run import counted

        docs = counted(self.new_docs, "new document")
        return (f"added pool version {self.version}: {docs} "
                f"across {counted(self.queries, 'query', 'queries')}; nothing judged was "
                f"touched")


_OMIT = {"omit_none": True}


@register_report
@dataclass(frozen=True)
class PoolReport(Report):
    """``poolkit pool``'s report (keys as in the module docstring); after a pooling run also
    the config, what it added and the systems' warnings."""

    kind = "pool"

    store: str
    version: int | None
    versions: list[dict[str, Any]]
    systems: dict[str, dict[str, Any]]
    queries: dict[str, dict[str, Any]]
    overall: dict[str, Any]
    config: str | None = field(default=None, metadata=_OMIT)
    design: dict[str, Any] | None = field(default=None, metadata=_OMIT)
    added: PoolAdded | None = field(default=None, metadata=_OMIT)
    warnings: list[str] | None = field(default=None, metadata=_OMIT)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.added is not None:
            out["added"] = asdict(self.added)
        return out

    def render_json(self) -> str:
        return json_text(self.to_dict(), default=str) + "\n"

    def render_table(self, verbose: bool = False) -> str:
        """The table, file paths as :func:`poolkit.io.paths.shown_path` shows them;
        ``verbose``: each system's run file and hash, and every query's rows."""
        return render_table(self, added=self.added, verbose=verbose)


def pool_report(store: StoreBackend, version: int | None = None) -> PoolReport:
    """Per-query and overall contribution counts for the pool as of ``version`` (default latest)."""
    if version is not None or store.latest_pool_version() is not None:
        version = store.resolve_pool_version(version)
    versions = [v for v in store.pool_versions() if version is not None
                and v["version"] <= version]
    members = store.pool(max_version=version) if version is not None else []
    sources = store.sources()
    standing = store.current_grades()
    registered = store.systems()
    history = store.pool_version_systems(max_version=version or 0)
    texts = {q: r.text for q, r in store.queries().items()}

    # Systems: every one that brought something in, in first-pooled order.
    systems: list[str] = []
    depth: dict[str, int] = {}
    first_version: dict[str, int] = {}
    for v in versions:
        for name, d in v["depths"].items():
            if name not in systems:
                systems.append(name)
                first_version[name] = v["version"]
            depth[name] = max(depth.get(name, 0), int(d))

    queries: dict[str, dict[str, Any]] = {}
    for m in members:
        q = queries.get(m.qid)
        if q is None:
            q = queries[m.qid] = {
                "text": texts.get(m.qid), "size": 0, "new": 0, "by_version": {},
                "depth": dict(depth),
                "by_system": _zero(systems), "only": _zero(systems),
                "overlap": {a: _zero([b for b in systems if b != a]) for a in systems},
                "judged": 0, "judged_by": {}}
        q["size"] += 1
        q["new"] += m.version == version
        q["by_version"][str(m.version)] = q["by_version"].get(str(m.version), 0) + 1
        found = sorted({s.system for s in sources.get((m.qid, m.docid), ())
                        if s.version <= (version or 0) and s.system in q["by_system"]})
        for s in found:
            q["by_system"][s] += 1
        if len(found) == 1:
            q["only"][found[0]] += 1
        for a, b in combinations(found, 2):
            q["overlap"][a][b] += 1
            q["overlap"][b][a] += 1
        graded = standing.get((m.qid, m.docid), {})
        if graded:
            q["judged"] += 1
            for assessor in graded:
                q["judged_by"][assessor] = q["judged_by"].get(assessor, 0) + 1

    overall: dict[str, Any] = {"queries": len(queries), "depth": dict(depth), "size": 0,
                               "new": 0,
                               "by_version": Counter(), "by_system": Counter(_zero(systems)),
                               "only": Counter(_zero(systems)),
                               "overlap": {a: Counter(_zero([b for b in systems if b != a]))
                                           for a in systems},
                               "judged": 0, "judged_by": Counter()}
    for q in queries.values():
        for key in ("size", "new", "judged"):
            overall[key] += q[key]
        for key in ("by_version", "by_system", "only", "judged_by"):
            overall[key].update(q[key])
        for a, row in q["overlap"].items():
            overall["overlap"][a].update(row)
    for key in ("by_version", "by_system", "only", "judged_by"):
        overall[key] = dict(overall[key])
    overall["overlap"] = {a: dict(row) for a, row in overall["overlap"].items()}

    return PoolReport(
        store=str(store.path),
        version=version,
        versions=[{**v, "added": overall["by_version"].get(str(v["version"]), 0)}
                  for v in versions],
        systems={s: _system(s, depth[s], first_version[s], history, registered)
                 for s in systems},
        queries=queries,
        overall=overall,
        design=sample_design(store, version, versions[-1]["order_strategy"] if versions
                             else None),
    )


#: judging orders that queue pairs in a seeded random order (any prefix a random subsample)
RANDOM_ORDERS = ("shuffle",)


def sample_design(store: StoreBackend, version: int | None,
                  order: str | None) -> dict[str, Any] | None:
    """A sampled pool's design as of ``version``: per stratum pooled, drawn and rate (None
    for a pool with no design records, as depth-k pools have)."""
    records = store.pool_sample(version) if version is not None else []
    if not records:
        return None
    cells: dict[str, list[int]] = {}
    for r in records:
        cell = cells.setdefault(r.stratum, [0, 0])
        cell[0] += 1
        cell[1] += r.sampled
    strata = [{"stratum": k, "pooled": n, "drawn": d, "rate": d / n}
              for k, (n, d) in sorted(cells.items(), key=lambda kv: _stratum_key(kv[0]))]
    return {"strata": strata, "pooled": len(records), "drawn": sum(r.sampled for r in records),
            "order": order, "random_order": order in RANDOM_ORDERS}


def _stratum_key(label: str) -> tuple[int, str]:
    first = label.split("-", 1)[0]
    return (int(first), label) if first.isdigit() else (10**9, label)


def _system(name: str, depth: int, first_version: int,
            history: Mapping[int, Mapping[str, Mapping[str, Any]]],
            registered: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A system as the report's version used it: the record of the last version up to it
    that pooled the system (the store's latest registration only when none was recorded,
    as for systems pooled without being registered). ``runs``: run sha256 per version."""
    runs = {str(v): systems[name]["run_sha256"] for v, systems in history.items()
            if name in systems}
    used = [systems[name] for systems in history.values() if name in systems]
    record = used[-1] if used else registered.get(name, {})
    return {"kind": record.get("kind"), "group": record.get("group"), "depth": depth,
            "first_version": first_version, "about": describe(record.get("settings", {})),
            "run_sha256": record.get("run_sha256"), "run_path": record.get("run_path"),
            "runs": runs, "backfilled": bool(record.get("backfilled"))}


def describe(settings: Mapping[str, Any]) -> str:
    """One line saying what a system is, from the settings ``poolkit pool`` registered
    (its kind's ``describe``: retrieve/kinds.SYSTEM_KINDS)."""
    from poolkit.retrieve.kinds import SYSTEM_KINDS

    r = settings.get("retriever", {}) if isinstance(settings, Mapping) else {}
    kind = SYSTEM_KINDS.get(str(r.get("kind")))
    return kind.describe(r) if kind is not None else "-"


# -- the table ------------------------------------------------------------------------------

def _cell(n: int, only: int) -> str:
    return f"{n} ({only})"


def _short(path: str | None) -> str:
    return shown_path(path) if path else "-"


LISTED = 20  # queries listed per table unless verbose


def _wrapped(text: str, indent: str = "") -> list[str]:
    return wrap(text, indent, indent + "    ")


def _fields(fields: list[str], indent: str = "  ") -> list[str]:
    """Fields two spaces apart, a line broken between two fields (within one only when it
    is longer than a line)."""
    lines = [indent]
    for text in fields:
        if lines[-1].strip() and len(lines[-1]) + 2 + len(text) > WIDTH:
            lines.append(indent + "    ")
        lines[-1] += ("  " if lines[-1].strip() else "") + text
    return [part for line in lines for part in (
        [line] if len(line) <= WIDTH else _wrapped(line.strip(), indent))]


def _per_query(grid: list[str], queries: int, verbose: bool) -> list[str]:
    """A per-query grid (header, one row per query, then 'all') under a rule; past
    ``LISTED`` queries, only the first of them unless ``verbose``."""
    head, rows, last = grid[0], grid[1:-1], grid[-1]
    more = [] if verbose or queries <= LISTED else [
        f"... {queries - LISTED} more queries (--verbose lists every query)"]
    return [head, *(rows if not more else rows[:LISTED]), *more, "-" * len(head), last]


def render_table(report: Mapping[str, Any], added: PoolAdded | None = None,
                 verbose: bool = False) -> str:
    """The report as aligned text for a terminal (what ``poolkit pool`` prints): what fits
    80 columns, and with ``verbose`` each system's run file and hash, every query's rows."""
    out: list[str] = []
    systems = list(report["systems"])
    nver = len(report["versions"])
    if report["version"] is None:
        return f"pool: empty (store {_short(report['store'])})\n"
    overall = report["overall"]
    design = report.get("design")
    size = (f"{design['pooled']} pairs pooled, {design['drawn']} drawn to judge"
            if design else f"{overall['size']} pooled documents")
    out.append(f"pool version {report['version']} of {nver}  |  {overall['queries']} queries, "
               f"{size}, {overall['judged']} already judged")
    out.append(f"store {_short(report['store'])}")
    for v in report["versions"]:
        depths = ", ".join(f"{s}@{d}" for s, d in v["depths"].items())
        note = f"  \"{v['note']}\"" if v.get("note") else ""
        out += _fields([f"v{v['version']}", v["created_at"][:16].replace("T", " "),
                        f"+{v['added']} {'drawn' if design else 'docs'}", f"from {depths}",
                        f"(order: {v['order_strategy']}){note}"])
    out.append("")
    rows = [[s, str(info["depth"]), info["about"],
             (info["run_sha256"] or "-")[:12] + ("*" if info["backfilled"] else ""),
             _short(info["run_path"])] for s, info in report["systems"].items()]
    headers = ["system", "depth", "what", "run sha256", "run file"]
    if not verbose:  # the run files and their hashes: the logs say them, JSON keeps them
        headers, rows = headers[:3], [r[:3] for r in rows]
    out += table(headers, rows, align="lrl")
    for s, info in report["systems"].items():
        if len(set(info["runs"].values())) > 1:
            out.append(f"{s}'s run changed between versions: " + ", ".join(
                f"v{v} {(h or '-')[:12]}" for v, h in info["runs"].items()))
    if verbose and any(info["backfilled"] for info in report["systems"].values()):
        out.append("* recorded when a schema-1 store was migrated: its latest registration, "
                   "not necessarily the run this version used")
    if design:
        out += [""] + _design_lines(design)
    out.append("")
    out.append("per query: drawn pairs; drawn pairs each system brought in (only it found)"
               if design else "per query: pooled docs; docs each system brought in (only it "
               "found)")
    header = ["query", "size", "new", "judged", *systems]
    rows = []
    for qid, q in report["queries"].items():
        rows.append([qid, str(q["size"]), str(q["new"]), str(q["judged"]),
                     *[_cell(q["by_system"][s], q["only"][s]) for s in systems]])
    rows.append(["all", str(overall["size"]), str(overall["new"]), str(overall["judged"]),
                 *[_cell(overall["by_system"][s], overall["only"][s]) for s in systems]])
    out += _per_query(table(header, rows, align="lr"), len(report["queries"]), verbose)
    if overall["judged_by"]:
        by = ", ".join(f"{a} {n}" for a, n in sorted(overall["judged_by"].items()))
        out.append(f"judged so far, by assessor/source: {by}")
    if len(systems) > 1:
        out.append("")
        out += _overlap(report, systems, verbose)
    if added is not None:
        out.append("")
        out += _wrapped(added.sentence())
    return "\n".join(out) + "\n"


def _design_lines(design: Mapping[str, Any]) -> list[str]:
    """The sampled pool's design: per stratum of best rank, pooled, drawn, rate."""
    order = design["order"]
    said = (f"judging order {order}: random within each stratum, so any judged prefix of the "
            f"queue is a random subsample" if design["random_order"] else
            f"judging order {order}: not random, so only a design judged in full is a random "
            f"sample")
    rows = [[c["stratum"], str(c["pooled"]), str(c["drawn"]), f"{c['rate']:.1%}"]
            for c in design["strata"]]
    rows.append(["all", str(design["pooled"]), str(design["drawn"]),
                 f"{design['drawn'] / design['pooled']:.1%}"])
    grid = table(["stratum (best rank)", "pooled", "drawn", "rate"], rows, align="lr")
    return ["sample design: pairs pooled per stratum and those drawn to judge",
            *_wrapped(said, "  "), *grid[:-1], "-" * len(grid[0]), grid[-1]]


MAX_PAIR_COLUMNS = 6  # up to four systems: every pair gets a column, one row per query


def _overlap(report: Mapping[str, Any], systems: list[str], verbose: bool = False
             ) -> list[str]:
    """Docs both systems of a pair brought in, with the share of the smaller contribution."""
    overall = report["overall"]

    def share(a: str, b: str) -> str:
        both = overall["overlap"][a][b]
        smaller = min(overall["by_system"][a], overall["by_system"][b])
        return f"{both} ({both / smaller:.0%})" if smaller else str(both)

    pairs = list(combinations(systems, 2))
    if len(pairs) <= MAX_PAIR_COLUMNS:
        rows = [[qid, *[str(q["overlap"][a][b]) for a, b in pairs]]
                for qid, q in report["queries"].items()]
        rows.append(["all", *[share(a, b) for a, b in pairs]])
        grid = table(["query", *[f"{a}&{b}" for a, b in pairs]], rows, align="lr")
        return ["pairwise overlap: docs both systems brought in (all: share of the smaller "
                "one's)", *_per_query(grid, len(report["queries"]), verbose)]
    rows = [[a, *[""] * i, *[share(a, b) for b in systems[i + 1:]]]
            for i, a in enumerate(systems[:-1])]
    return ["pairwise overlap, all queries (per query: --format json)",
            *table(["", *systems[1:]], rows, align="lr"),
            "  cells: docs both systems brought in (share of the smaller one's)"]
