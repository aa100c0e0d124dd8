"""``poolkit export``: the store's current labels as TREC qrels or golden.yaml."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from poolkit.errors import PoolkitError, StoreError, one_of, tell
from poolkit.io.sample import sample_lines
from poolkit.policies import DEFAULT_POLICY, POLICIES, Labels
from poolkit.pool.sample import with_unjudged

if TYPE_CHECKING:
    from poolkit.store.contract import StoreBackend



def _policy_help() -> str:
    return "; ".join(f"{p.name}: {p.summary}" for p in POLICIES.values())


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write the current labels as TREC qrels or golden.yaml",
        description="Write the store's current labels. Each assessor's standing grade is "
                    "their latest not undone; several assessors on one pair are resolved by "
                    "--policy, and pairs it cannot resolve are listed on stderr (and in "
                    "--unresolved), never guessed.")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    from poolkit.exports import EXPORT_FORMATS

    p.add_argument("--format", choices=list(EXPORT_FORMATS), required=True,
                   help="; ".join(f"{f.name}: {f.summary}" for f in EXPORT_FORMATS.values()))
    p.add_argument("--policy", choices=list(POLICIES), default=DEFAULT_POLICY,
                   help=f"how several assessors' grades become one (default: {DEFAULT_POLICY}"
                        f", as for every command; an adjudication decides its pair under any "
                        f"policy). {_policy_help()}")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    p.add_argument("--assessor", nargs="+", action="extend", metavar="NAME",
                   help="count only these assessors' grades")
    p.add_argument("--pool-version", type=int, metavar="V",
                   help="only pairs pooled in version V or earlier (default: every labelled "
                        "pair, imported ones outside the pool included)")
    p.add_argument("--unresolved", metavar="FILE.json",
                   help="also write the unresolved pairs as JSON here")
    p.add_argument("--unjudged", type=int, choices=[-1], metavar="-1",
                   help="also write every pooled pair without a label (a sampled pool's "
                        "undrawn pairs, drawn ones not judged yet, unresolved ones) as grade "
                        "-1, trec_eval's 'pooled, not judged' that infAP reads (qrels only)")
    p.add_argument("--sample", metavar="FILE",
                   help="also write the pool's sample design here: qid docid stratum "
                        "inclusion_probability for every pooled pair (what poolkit score "
                        "--sample reads; a depth-k pool is one stratum judged in full)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.collection import Collection
    from poolkit.exports import ExportInput, export_text
    from poolkit.io.atomic import check_outputs

    if args.unjudged is not None and args.format != "qrels":
        raise PoolkitError("--unjudged -1 needs --format qrels (golden.yaml has no grade for "
                           "'pooled, not judged')")
    with Collection.open(args.config) as collection:
        config, store = collection.config, collection.store
        check_outputs({"-o": args.output, "--sample": args.sample,
                       "--unresolved": args.unresolved}, collection.inputs())
        if args.pool_version is not None:
            collection.version(args.pool_version)
        if args.assessor:
            known = store.assessors()
            for name in args.assessor:
                if name not in known:
                    raise StoreError(f"{config.store_label}: " + one_of(name, known, "assessor"))
        labels = Labels.from_store(store, args.policy, args.assessor, args.pool_version)
        # Doc ids sorted within each query, so two exports of one store diff cleanly.
        grades = {q: dict(sorted(docs.items())) for q, docs in labels.grades.items()}
        design = design_rows(store, args.pool_version) if (
            args.sample or args.unjudged is not None) else []
        if args.unjudged is not None:
            grades = with_unjudged(grades, ((q, d) for q, d, _, _ in design))
        text = export_text(args.format, ExportInput(labels, grades, store, args.policy,
                                                    args.pool_version,
                                                    datetime.now(timezone.utc),
                                                    config.store_name,
                                                    notes_by_pair(store, args.assessor)
                                                    if args.format == "golden" else {}))
    if not len(labels):
        if labels.unresolved:
            report_unresolved(labels, args.policy)
            raise PoolkitError(f"{config.store_label}: no labels to export: every labelled pair is "
                               f"unresolved under policy {args.policy!r}; nothing written")
        raise PoolkitError(f"{config.store_label}: no labels to export yet (judge with `poolkit "
                           f"judge`, or `poolkit import` a label file); nothing written")
    from poolkit.io.staged import StagedOutputs

    with StagedOutputs() as outputs:  # every file written, or none replaced
        if args.output:
            outputs.write(args.output, text)
        if args.sample:
            outputs.write(args.sample, "\n".join(sample_lines(design)) + "\n")
        if args.unresolved:
            outputs.write(args.unresolved, unresolved_json(labels, args.policy))
        outputs.publish()
    if not args.output:
        sys.stdout.write(text)
    report_unresolved(labels, args.policy)
    return 0


def design_rows(store: StoreBackend,
                max_version: int | None) -> list[tuple[str, str, str, float]]:
    """(qid, docid, stratum, inclusion probability) of every pooled pair: a sampled pool's
    recorded design, and any pair pooled outside it (depth-k) as stratum 'depth', judged
    with probability 1."""
    rows = [(r.qid, r.docid, r.stratum, r.inclusion) for r in store.pool_sample(max_version)]
    recorded = {(q, d) for q, d, _, _ in rows}
    rows += [(q, d, "depth", 1.0) for q, d, _, _ in store.pool_rows(max_version)
             if (q, d) not in recorded]
    return sorted(rows)


def notes_by_pair(store: StoreBackend, assessors: list[str] | None,
                  ) -> dict[str, dict[str, list[str]]]:
    """``{qid: {docid: ["alice (2): why"]}}``: each note with whose grade it explains."""
    from poolkit.store.notes import notes

    out: dict[str, dict[str, list[str]]] = {}
    for n in notes(store, assessors):
        ruled = " adjudicated" if n.grade_kind == "adjudicate" else ""
        grade = "" if n.grade is None else f" ({n.grade}{ruled})"
        out.setdefault(n.qid, {}).setdefault(n.docid, []).append(f"{n.assessor}{grade}: {n.text}")
    return out


def unresolved_json(labels: Labels, policy: str) -> str:
    """The --unresolved file: the pairs ``policy`` left out, with their grades."""
    return json.dumps({"policy": policy, "unresolved": [
        {"query": u.qid, "doc": u.docid, "grades": u.grades, "reason": u.reason}
        for u in labels.unresolved]}, indent=2) + "\n"


def report_unresolved(labels: Labels, policy: str) -> None:
    items = labels.unresolved
    if not items:
        tell(f"poolkit export: {len(labels)} labels under policy {policy!r}, 0 unresolved")
        return
    tell(f"poolkit export: {len(items)} pair(s) unresolved under policy {policy!r}, left out "
         f"(choose another --policy, or adjudicate with `poolkit judge --adjudicate`):")
    for u in items:
        grades = " ".join(f"{a}={g}" for a, g in sorted(u.grades.items()))
        tell(f"  {u.qid} {u.docid}: {grades} ({u.reason})")
