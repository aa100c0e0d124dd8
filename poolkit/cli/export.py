"""``poolkit export``: the store's current labels as TREC qrels or golden.yaml."""

from __future__ import annotations

import argparse
import sys

from poolkit.policies import DEFAULT_POLICY, POLICIES


def _policy_help() -> str:
    return "; ".join(f"{p.name}: {p.summary}" for p in POLICIES.values())


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write the current labels as TREC qrels or golden.yaml",
        description="Write the store's current labels. Each assessor's standing grade is "
                    "their latest not undone; several assessors on one pair are resolved by "
                    "--policy, and pairs it cannot resolve are listed on stderr (and in "
                    "--unresolved), never guessed.",
        epilog="examples:\n  poolkit export configs/sample.yaml --format qrels -o labels.qrels\n"
               "  poolkit export configs/sample.yaml --format golden --policy majority\n")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    from poolkit.exports import EXPORT_FORMATS

    p.add_argument("--format", choices=list(EXPORT_FORMATS), required=True,
                   help="; ".join(f"{f.name}: {f.summary}" for f in EXPORT_FORMATS.values()))
    p.add_argument("--policy", choices=list(POLICIES), default=DEFAULT_POLICY,
                   help=f"how several assessors' grades become one (default: {DEFAULT_POLICY}"
                        f", as for every command; an adjudication decides its pair under any "
                        f"policy). {_policy_help()}")
    from poolkit.cli.options import add_accept_untrusted, add_with_machine

    add_with_machine(p)
    add_accept_untrusted(p)
    p.add_argument("--machine-only", metavar="NAME[@VERSION]",
                   help="write machine judge NAME's grades alone, no person's (qrels only; "
                        "NAME: its one version): to score against a judge, "
                        "never to import as a person's labels")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    p.add_argument("--assessor", nargs="+", action="extend", metavar="NAME",
                   help="count only these assessors' grades")
    p.add_argument("--pool-version", type=int, metavar="V",
                   help="only pairs pooled in version V or earlier (default: every labelled "
                        "pair, imported ones outside the pool included)")
    p.add_argument("--unresolved", metavar="FILE.json",
                   help="also write the unresolved pairs as JSON here")
    p.add_argument("--unjudged", type=int, choices=[-1], metavar="-1",
                   help="also write every queued pair without a label (drawn ones not judged "
                        "yet, unresolved ones) as grade -1, trec_eval's 'pooled, not judged' "
                        "that infAP reads (qrels only); a pair a sampled pool never drew is "
                        "not written (--sample lists it, drawn 0)")
    p.add_argument("--sample", metavar="FILE",
                   help="also write the pool's sample design here: qid docid stratum "
                        "inclusion_probability drawn for every pooled pair, drawn 0 for a pair "
                        "never drawn, else its place in its stratum's judging queue (what "
                        "poolkit score --sample reads; a depth-k pool is one stratum judged "
                        "in full)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.export import ExportRequest, export
    from poolkit.errors import tell

    exported = export(ExportRequest(
        args.config, args.format, args.policy, output=args.output, assessors=args.assessor,
        pool_version=args.pool_version, unresolved=args.unresolved,
        unjudged=args.unjudged is not None, sample=args.sample, machines=args.with_machine,
        machine_only=args.machine_only, accept_untrusted=args.accept_untrusted))
    if not args.output:
        sys.stdout.write(exported.text)
    for line in exported.summary():
        tell(line)
    return 0
