"""Which version of a machine judge the commands read (``poolkit.machine_choice``): where a
judge has several versions in the store, ``estimate``, ``export`` and ``agreement`` refuse a
bare NAME and list them; elsewhere a bare NAME is the version the config defines, never the
one that happened to grade last; a ``--variant``'s version is read only when named
(``NAME@VERSION``, which every command that reads machine labels takes); a judge the config
does not define is its only version, and of several the command refuses and lists them;
``export --machine-only`` writes one judge version's grades alone. Driven as a user would:
``autojudge`` against the tests' loopback chat server, then the commands through
``poolkit.cli.main``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from autojudge_helpers import autojudge_json, seed_and_bm25_config
from llm_faults import loopback_llm
from shared_data import SAMPLE

from poolkit.cli import main
from poolkit.config import load_config
from poolkit.policies import machine_versions
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store
from poolkit.store.imports import machine_import_version

VARIANT = 3  # pairs the variant grades: after the whole pool, so it graded last


@pytest.fixture
def llm():
    with loopback_llm() as served:
        yield served


@pytest.fixture
def world(tmp_path, llm, capsys) -> tuple[Path, str, str]:
    """(config, the configured judge's version, the variant's): llm graded the whole pool
    as configured, then a 3-pair ``--variant`` (the version that graded last); bob's grades
    are imported."""
    config = seed_and_bm25_config(tmp_path, llm[0])
    assert main(["pool", str(config), "--system", "seed", "--quiet"]) == 0
    assert main(["pool", str(config), "--quiet"]) == 0
    assert main(["import", str(config), str(SAMPLE / "assessor_b.yaml"), "--as", "bob"]) == 0
    capsys.readouterr()
    base, _ = autojudge_json(capsys, config, "llm")
    variant, _ = autojudge_json(capsys, config, "llm", "--variant", "scale_order=descending",
                                "--limit", str(VARIANT))
    assert variant["variant"]["base_version"] == base["version"] != variant["version"]
    with open_store(load_config(config).store) as store:  # the variant graded last
        assert machine_versions(store, "llm")[-1].version == variant["version"]
    capsys.readouterr()
    return config, base["version"], variant["version"]


def grades_of(config: Path, version: str) -> dict[tuple[str, str], int]:
    with open_store(load_config(config).store) as store:
        return next(v for v in machine_versions(store, "llm") if v.version == version).grades


def files_under(root: Path) -> dict[Path, str]:
    """Every file's sha256 (SQLite's transient files aside): the store, config and outputs."""
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def refused(capsys, root: Path, *argv: str) -> str:
    """The one stderr line of a command that must exit 2 and change no file under ``root``."""
    before = files_under(root)
    capsys.readouterr()
    assert main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert files_under(root) == before
    return err.rstrip("\n")


# -- a bare NAME is the configured judge ----------------------------------------------------

def test_export_reads_the_version_it_is_given(world, capsys):
    config, base, variant = world
    out = config.parent / "with.qrels"
    assert main(["export", str(config), "--format", "qrels", "--with-machine", f"llm@{base}",
                 "-o", str(out)]) == 0
    assert f"label(s) from machine judge llm@{base} on pairs" in capsys.readouterr().err
    people = config.parent / "people.qrels"
    assert main(["export", str(config), "--format", "qrels", "-o", str(people)]) == 0
    capsys.readouterr()
    graded_by_bob = {tuple(line.split()[::2][:2]) for line in people.read_text().splitlines()}
    machine = {p: g for p, g in grades_of(config, base).items() if p not in graded_by_bob}
    assert len(grades_of(config, base)) > 18 and machine
    written = {(q, d): int(g) for q, _z, d, g in map(str.split, out.read_text().splitlines())}
    assert {p: g for p, g in written.items() if p not in graded_by_bob} == machine
    # the variant, named
    assert main(["export", str(config), "--format", "qrels", "--with-machine",
                 f"llm@{variant}", "-o", str(out)]) == 0
    assert f"label(s) from machine judge llm@{variant} on pairs" in capsys.readouterr().err


def test_status_marks_the_configured_version_as_the_default(world, capsys):
    config, base, variant = world
    doc = run_json(capsys, "status", str(config))
    jsonschema.validate(doc, load_schema("status"))
    rows = {r["version"]: r for r in doc["machine_judges"]}
    assert rows[base]["default"] is True and rows[variant]["default"] is False
    assert rows[variant]["graded"] == VARIANT
    assert main(["status", str(config)]) == 0
    table = capsys.readouterr().out
    assert f"{base} (default)" in table and f"{variant} (default)" not in table


def test_every_reader_takes_the_configured_version_and_a_named_one(world, capsys):
    config, base, variant = world
    for spec, version in (("llm", base), (f"llm@{variant}", variant)):
        compared = run_json(capsys, "compare", str(config), "--with-machine", spec)
        assert compared["after"]["machine"] == [f"llm@{version}"]
        reused = run_json(capsys, "reusability", str(config), "--with-machine", spec)
        assert reused["labels"]["machine"] == [f"llm@{version}"]
    for version in (base, variant):  # agreement and estimate: named only (see below)
        agreed = run_json(capsys, "agreement", str(config), "--with-machine",
                          f"llm@{version}", "--reference", "bob")
        assert [(s["name"], s.get("version")) for s in agreed["sources"]] == [
            ("bob", None), ("llm", version)]
    estimated = run_json(capsys, "estimate", str(config), "--machine", f"llm@{base}", "-m",
                         "P@5")
    said = [n for n in estimated["notes"] if "has 2 versions" in n]
    assert len(said) == 1 and f"the estimate uses {base} alone" in said[0]
    for spec in ("llm", f"llm@{base}"):  # (the variant's one query is too few to draw from)
        drawn = run_json(capsys, "sample-queries", str(config), "--n", "2", "--seed", "1",
                         "--stratify-by", "machine", "--machine", spec)
        assert (drawn["machine"], drawn["judge_version"]) == ("llm", base)


def test_review_machine_reviews_the_configured_version(world):
    from poolkit.judge.review import machine_review

    config, base, variant = world
    loaded = load_config(config)
    with open_store(loaded.store) as store:
        assert machine_review(store, "bob", "llm", "here", loaded).version == base
        assert machine_review(store, "bob", f"llm@{variant}", "here", loaded).version == variant


def test_estimate_takes_a_named_version_and_its_errors_name_the_store(world, capsys):
    """The variant graded 3 pairs of one query: ``estimate --machine NAME@VERSION`` is taken
    (the store form used to refuse it), and its refusal names the people's labels in the
    store, not ``<memory>``."""
    config, _base, variant = world
    line = refused(capsys, config.parent, "estimate", str(config), "--machine",
                   f"llm@{variant}")
    store = load_config(config).store_label
    assert line == (f"poolkit estimate: error: {store} (the people's labels): 1 human query "
                    f"scored by both label sets at level 1: an estimate needs at least 2")
    line = refused(capsys, config.parent, "estimate", str(config), "--machine",
                   f"llm@{variant}", "--human", "bob")
    assert line.startswith(f"poolkit estimate: error: {store} (the people's labels by bob): ")


# -- refusals -------------------------------------------------------------------------------

#: the commands whose figures stand for one judge version: a bare NAME of several is refused
STRICT = [
    ["export", "{config}", "--format", "qrels", "-o", "{out}", "--with-machine", "llm"],
    ["export", "{config}", "--format", "qrels", "-o", "{out}", "--machine-only", "llm"],
    ["agreement", "{config}", "--with-machine", "llm"],
    ["estimate", "{config}", "--machine", "llm"],
]


@pytest.mark.parametrize("argv", STRICT, ids=lambda a: " ".join(a[:1] + a[-2:]))
def test_a_bare_name_of_several_versions_is_refused_where_figures_stand_for_a_judge(
        world, capsys, argv):
    """llm has the configured version and a variant's: ``estimate``, ``export`` and
    ``agreement`` refuse a bare ``llm`` (one line listing both, ready to be given back),
    though the config defines one of them; nothing changes."""
    config, base, variant = world
    out = config.parent / "labels.qrels"
    out.write_text("what was there\n")
    line = refused(capsys, config.parent, *(a.format(config=config, out=out) for a in argv))
    flag = "--machine-only" if "--machine-only" in argv else FLAGS[argv[0]]
    assert line == (f"poolkit {argv[0]}: error: {load_config(config).store_label}: {flag}: "
                    f"machine judge 'llm' has 2 versions in the store; name one: "
                    f"llm@{variant} ({VARIANT} grades), llm@{base} "
                    f"({len(grades_of(config, base))} grades)")


READERS = [
    ["export", "{config}", "--format", "qrels", "-o", "{out}", "--with-machine", "llm"],
    ["export", "{config}", "--format", "qrels", "-o", "{out}", "--machine-only", "llm"],
    ["compare", "{config}", "--with-machine", "llm"],
    ["reusability", "{config}", "--with-machine", "llm"],
    ["agreement", "{config}", "--with-machine", "llm"],
    ["estimate", "{config}", "--machine", "llm"],
    ["sample-queries", "{config}", "--n", "2", "--seed", "1", "--stratify-by", "machine",
     "--machine", "llm"],
    ["judge", "{config}", "--assessor", "bob", "--review-machine", "llm"],
]
FLAGS = {"export": "--with-machine", "compare": "--with-machine",
         "reusability": "--with-machine", "agreement": "--with-machine",
         "estimate": "--machine", "sample-queries": "--machine", "judge": "--review-machine"}


@pytest.mark.parametrize("argv", READERS, ids=lambda a: " ".join(a[:1] + a[-2:]))
def test_a_configured_version_that_graded_nothing_is_refused_by_every_reader(
        world, capsys, argv):
    """The config's model changed since llm graded: its configured version has no grade.
    A bare ``llm`` is refused, one line listing the versions there are; nothing changes."""
    config, base, variant = world
    config.write_text(config.read_text().replace('"model": "judge-m"', '"model": "judge-n"'))
    out = config.parent / "labels.qrels"
    out.write_text("what was there\n")
    from poolkit.judges.config import configured_version

    loaded = load_config(config)
    now = configured_version(loaded.judges["llm"], loaded.grades)
    assert now not in (base, variant)
    line = refused(capsys, config.parent, *(a.format(config=config, out=out) for a in argv))
    flag = "--machine-only" if "--machine-only" in argv else FLAGS[argv[0]]
    if argv in STRICT:  # (the test above)
        assert "machine judge 'llm' has 2 versions in the store; name one: " in line
        return
    assert line == (f"poolkit {argv[0]}: error: {loaded.store_label}: {flag}: machine judge "
                    f"'llm' as {config} defines it (version {now}) has graded nothing; run "
                    f"poolkit autojudge --judge llm, or name a version: llm@{variant} "
                    f"({VARIANT} grades), llm@{base} ({len(grades_of(config, base))} grades)")


def test_status_marks_no_default_when_the_configured_version_graded_nothing(world, capsys):
    config, base, variant = world
    config.write_text(config.read_text().replace('"model": "judge-m"', '"model": "judge-n"'))
    rows = run_json(capsys, "status", str(config))["machine_judges"]
    assert {r["version"]: r["default"] for r in rows} == {base: False, variant: False}
    # named, the old versions are still read
    assert main(["export", str(config), "--format", "qrels", "--with-machine",
                 f"llm@{base}"]) == 0


# -- export --machine-only ------------------------------------------------------------------

def test_machine_only_writes_one_judge_versions_grades_and_no_persons(world, capsys):
    config, base, variant = world
    out = config.parent / "llm.qrels"
    assert main(["export", str(config), "--format", "qrels", "--machine-only", f"llm@{base}",
                 "-o", str(out)]) == 0
    grades = grades_of(config, base)
    assert capsys.readouterr().err == (  # then that no check-judge vetted it (never run)
        f"poolkit export: {len(grades)} labels of machine judge llm@{base} alone, no person's "
        f"grade (a qrels file cannot say so: keep it apart from people's labels)\n"
        f"note: machine judge llm@{base} was never checked for gullibility (poolkit "
        f"check-judge {config} --judge llm@{base})\n")
    lines = out.read_text().splitlines()
    assert {(q, d): int(g) for q, _z, d, g in map(str.split, lines)} == grades
    assert len(lines) == len(grades)  # bob's grades, on the pairs he graded too, are not in it
    assert main(["export", str(config), "--format", "qrels", "--machine-only",
                 f"llm@{variant}"]) == 0
    written = capsys.readouterr().out.splitlines()
    assert {(q, d): int(g) for q, _z, d, g in map(str.split, written)} == \
        grades_of(config, variant) and len(written) == VARIANT
    # pooled by version 1 only: the seed run's pairs
    assert main(["export", str(config), "--format", "qrels", "--machine-only", f"llm@{base}",
                 "--pool-version", "1"]) == 0
    with open_store(load_config(config).store) as store:
        first = store.pooled_pairs(1)
    assert {(q, d) for q, _z, d, _g in map(str.split, capsys.readouterr().out.splitlines())} \
        == set(grades) & first


@pytest.mark.parametrize("extra, message", [
    (["--format", "golden", "--machine-only", "llm"],
     "--machine-only writes TREC qrels: use --format qrels (golden.yaml is people's labels "
     "with their provenance)"),
    (["--format", "qrels", "--machine-only", "llm", "--with-machine", "llm"],
     "--machine-only takes no --with-machine: it writes the machine judge's grades alone, no "
     "person's"),
    (["--format", "qrels", "--machine-only", "llm", "--assessor", "bob"],
     "--machine-only takes no --assessor: it writes the machine judge's grades alone, no "
     "person's"),
    (["--format", "qrels", "--machine-only", "llm,bob"],
     "--machine-only llm,bob: one machine judge, NAME or NAME@VERSION"),
    (["--format", "qrels", "--machine-only", "bob"],
     "{store}: --machine-only: unknown machine judge 'bob'; valid: llm"),
    (["--format", "qrels", "--machine-only", "llm@0000"],
     "{store}: --machine-only: unknown version of machine judge 'llm' '0000'; valid: "),
    (["--format", "qrels", "--machine-only", "llm@"],
     "{store}: --machine-only: 'llm@': write NAME or NAME@VERSION"),
])
def test_machine_only_refusals_are_one_line_and_write_nothing(world, capsys, extra, message):
    config, _base, _variant = world
    out = config.parent / "llm.qrels"
    out.write_text("what was there\n")
    line = refused(capsys, config.parent, "export", str(config), "-o", str(out), *extra)
    assert line.startswith("poolkit export: error: " +
                           message.format(store=load_config(config).store_label)), line


# -- judges the config does not define ------------------------------------------------------

def test_an_imported_judge_is_its_one_version_and_of_two_none(world, capsys):
    config, _base, _variant = world
    first, second = machine_import_version("m-1"), machine_import_version("m-2")
    assert main(["import", str(config), str(SAMPLE / "llm_judge.qrels"), "--as", "imp",
                 "--machine", "m-1"]) == 0
    capsys.readouterr()
    estimated = run_json(capsys, "estimate", str(config), "--machine", "imp", "-m", "P@5")
    assert not [n for n in estimated["notes"] if "versions" in n]
    rows = run_json(capsys, "status", str(config))["machine_judges"]
    assert [r["default"] for r in rows if r["judge"] == "imp"] == [True]
    newer = config.parent / "newer.qrels"
    newer.write_text("".join(f"{q} 0 {d} {3 - int(g)}\n" for q, _z, d, g in map(
        str.split, (line for line in (SAMPLE / "llm_judge.qrels").read_text().splitlines()
                    if not line.startswith("#")))))
    assert main(["import", str(config), str(newer), "--as", "imp", "--machine", "m-2"]) == 0
    line = refused(capsys, config.parent, "estimate", str(config), "--machine", "imp")
    assert line == (f"poolkit estimate: error: {load_config(config).store_label}: --machine: "
                    f"machine judge 'imp' has 2 versions in the store; name one: "
                    f"imp@{second} (56 grades), imp@{first} (56 grades)")
    line = refused(capsys, config.parent, "compare", str(config), "--with-machine", "imp")
    assert line.endswith(f"--with-machine: machine judge 'imp' has 2 versions and {config} "
                         f"defines no judge 'imp'; name one: imp@{second} (56 grades), "
                         f"imp@{first} (56 grades)")
    for version in (first, second):
        estimated = run_json(capsys, "estimate", str(config), "--machine", f"imp@{version}",
                             "-m", "P@5")
        assert any(f"the estimate uses {version} alone" in n for n in estimated["notes"])
    rows = run_json(capsys, "status", str(config))["machine_judges"]
    assert [r["default"] for r in rows if r["judge"] == "imp"] == [False, False]
