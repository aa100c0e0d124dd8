"""poolkit: pool, judge and score relevance labels for retrieval evaluation.

The public API: the verbs (a typed request in, a typed report out, as the commands use them)
and the pieces they are made of::

    from poolkit import ScoreRequest, score_runs

    report = score_runs(ScoreRequest("qrels.txt", ["bm25.run", "dense.run"],
                                     measures=["nDCG@10", "AP"]))
    report.means()            # {"bm25.run": {"nDCG@10": ..., "AP": ...}, "dense.run": {...}}
    report.render("markdown")  # what `poolkit score --format markdown` prints

Every name is imported on first use (``__getattr__``): ``import poolkit``, which every
command's start-up pays, stays as cheap as this file. The names are the modules' own, so the
import graph's layers hold (``tests/test_layout.py``): this package only points at them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_PUBLIC = {
    # verbs, their requests and reports
    "score_runs": "poolkit.app.score",
    "ScoreRequest": "poolkit.app.score",
    "ScoreReport": "poolkit.score.report",
    "sample_replay": "poolkit.app.sample_replay",
    "SampleReplayRequest": "poolkit.app.sample_replay",
    "SampleReplayReport": "poolkit.app.sample_replay",
    "ppi_replay": "poolkit.app.ppi_replay",
    "PPIReplayRequest": "poolkit.app.ppi_replay",
    "PPIReplayReport": "poolkit.app.ppi_replay",
    "estimate": "poolkit.app.estimate",
    "estimate_store": "poolkit.app.estimate",
    "EstimateRequest": "poolkit.app.estimate",
    "EstimateStoreRequest": "poolkit.app.estimate",
    "EstimateReport": "poolkit.app.estimate",
    "assign": "poolkit.app.assign",
    "AssignRequest": "poolkit.app.assign",
    "AssignReport": "poolkit.app.assign",
    "gold": "poolkit.app.gold",
    "GoldRequest": "poolkit.app.gold",
    "GoldReport": "poolkit.app.gold",
    "sample_queries": "poolkit.app.sample_queries",
    "SampleQueriesRequest": "poolkit.app.sample_queries",
    "SampleQueriesReport": "poolkit.app.sample_queries",
    "trec_eval_report": "poolkit.app.trec_eval",
    "TrecEvalRequest": "poolkit.app.trec_eval",
    "TrecEvalReport": "poolkit.app.trec_eval",
    "PoolRequest": "poolkit.app.pool",
    "status": "poolkit.app.status",
    "import_labels": "poolkit.app.imports",
    "ImportRequest": "poolkit.app.imports",
    "export": "poolkit.app.export",
    "ExportRequest": "poolkit.app.export",
    "list_notes": "poolkit.app.notes",
    "copy_store": "poolkit.app.store",
    "init_store": "poolkit.app.store",
    "compare_labels": "poolkit.app.compare",
    "CompareRequest": "poolkit.app.compare",
    "pool_reusability": "poolkit.app.reusability",
    "ReusabilityRequest": "poolkit.app.reusability",
    "label_agreement": "poolkit.app.agreement",
    "AgreementRequest": "poolkit.app.agreement",
    "simulate_judging": "poolkit.app.simulate",
    "SimulateRequest": "poolkit.app.simulate",
    "autojudge": "poolkit.app.autojudge",
    "AutojudgeRequest": "poolkit.app.autojudge",
    "Account": "poolkit.app.users",
    "add_user": "poolkit.app.users",
    "list_users": "poolkit.app.users",
    "remove_user": "poolkit.app.users",
    "invite_user": "poolkit.app.users",
    "redeem_invite": "poolkit.app.users",
    "invited_name": "poolkit.app.users",
    "authenticate": "poolkit.app.users",
    "current_account": "poolkit.app.users",
    "account_epoch": "poolkit.app.users",
    "session_secret": "poolkit.app.users",
    "UsersReport": "poolkit.app.users",
    "Collection": "poolkit.collection",
    "Labels": "poolkit.policies",
    "PoolProvenance": "poolkit.io.provenance",
    "ppi_mean": "poolkit.score.ppi",
    "ppi_difference": "poolkit.score.ppi",
    "PPIEstimate": "poolkit.score.ppi",
    # the pieces: labels and runs, measures, one run's evaluation, the report registry
    "Qrels": "poolkit.io",
    "Run": "poolkit.io",
    "read_labels": "poolkit.io",
    "read_any_run": "poolkit.io",
    "read_qrels": "poolkit.io",
    "read_run": "poolkit.io",
    "Measure": "poolkit.score.measures",
    "parse_measure": "poolkit.score.measures",
    "parse_measures": "poolkit.score.measures",
    "Evaluation": "poolkit.score.evaluate",
    "evaluate": "poolkit.score.evaluate",
    "REPORTS": "poolkit.reports",
    "PoolkitError": "poolkit.errors",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'poolkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
