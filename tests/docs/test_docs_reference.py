"""The generated reference (docs/reference/*.md, tools/docs_reference.py): the committed pages
are what the code makes now, and every command, option, configuration key, measure and key
binding has its entry. The entries are enumerated here from the code's own registries, not
from the generator, so a generator that skipped one is caught too."""

from __future__ import annotations

import argparse
import re

import pytest
from shared_data import REPO

from tools.docs_markdown import cell, code
from tools.docs_reference import (
    REGENERATE,
    command_id,
    config_id,
    generate,
    key_id,
    measure_id,
    option_id,
    stale,
)

PAGES = REPO / "docs" / "reference"


@pytest.fixture(scope="module")
def fresh() -> dict[str, str]:
    return generate()


def page(name: str) -> str:
    return (PAGES / name).read_text()


def entry(text: str, ident: str) -> str:
    """The line (a table row, a heading) that carries ``ident``; fails when there is none."""
    line = next((line for line in text.splitlines()
                 if f'id="{ident}"' in line or f"{{#{ident}}}" in line), None)
    assert line is not None, f"no reference entry {ident!r}: run {REGENERATE}"
    return line


def test_the_committed_pages_are_what_the_code_makes_now(fresh):
    out_of_date = stale(fresh, PAGES)
    assert out_of_date == [], (f"docs/reference/{', '.join(out_of_date)} differ from the code: "
                               f"run {REGENERATE} and commit the pages")


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from walk(sub, (*path, name))


def test_every_command_and_option_has_an_entry():
    from poolkit.cli import SUBCOMMANDS, build_parser

    cli = page("cli.md")
    found = list(walk(build_parser()))
    assert {p[0] for p, _ in found if p} == set(SUBCOMMANDS)
    for path, parser in found:
        entry(cli, command_id(path))
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            row = entry(cli, option_id(path, action))
            for spelling in action.option_strings:
                assert code(spelling) in row, (path, spelling)


def declared_config_keys():
    """(section, key, param) for every key a config may hold, from the declarations the
    loader checks against."""
    from poolkit.config import JUDGE_PARAMS, POOL_PARAMS, SYSTEM_PARAMS, TOP_PARAMS
    from poolkit.judges import JUDGE_KINDS
    from poolkit.judges.config import COMMON_JUDGE_PARAMS
    from poolkit.pool.section import declared_params
    from poolkit.retrieve.kinds import SYSTEM_KINDS

    yield from (("", p.key, p) for p in TOP_PARAMS)
    yield from (("systems", p.key, p) for p in SYSTEM_PARAMS)
    for kind in SYSTEM_KINDS.values():
        yield from ((f"systems.{kind.name}", p.key, p) for p in kind.params)
    yield from (("pool", p.key, p) for p in (*POOL_PARAMS, *declared_params().values()))
    yield from (("judge", p.key, p) for p in JUDGE_PARAMS)
    yield from (("judges", p.key, p) for p in COMMON_JUDGE_PARAMS)
    for name, kind in JUDGE_KINDS.items():
        yield from ((f"judges.{name}", p.key, p) for p in kind.options)


def test_every_config_key_has_an_entry_with_its_meaning():
    config = page("config.md")
    keys = list(declared_config_keys())
    assert len(keys) > 80
    for section, key, param in keys:
        assert param.help.strip(), f"{section}.{key} declares no meaning"
        row = entry(config, config_id(section, key))
        assert code(key) in row and cell(param.help) in row, (section, key)


def test_the_loader_accepts_exactly_the_declared_keys():
    """The declarations are the loader's: its key lists are made from them."""
    from poolkit import config
    from poolkit.judges.config import COMMON_JUDGE_KEYS, COMMON_JUDGE_PARAMS
    from poolkit.retrieve.kinds import SYSTEM_KINDS

    assert config.TOP_KEYS == tuple(p.key for p in config.TOP_PARAMS)
    assert config.POOL_KEYS == tuple(p.key for p in config.POOL_PARAMS)
    assert config.JUDGE_KEYS == tuple(p.key for p in config.JUDGE_PARAMS)
    assert config.COMMON_SYSTEM_KEYS == tuple(p.key for p in config.SYSTEM_PARAMS)
    assert COMMON_JUDGE_KEYS == tuple(p.key for p in COMMON_JUDGE_PARAMS)
    for kind in SYSTEM_KINDS.values():
        assert kind.keys == tuple(p.key for p in kind.params)


def test_the_judge_and_pool_defaults_are_the_declared_ones():
    from dataclasses import fields

    from poolkit.config import JUDGE_PARAMS, POOL_PARAMS, JudgeConfig, PoolConfig

    judge = {f.name: f.default for f in fields(JudgeConfig)}
    for p in JUDGE_PARAMS:
        if p.key not in ("grades", "keys"):  # the scale's and the keymap's (default_factory)
            assert judge[p.key] == p.default, p.key
    pool = {f.name: f.default for f in fields(PoolConfig)}
    for p in POOL_PARAMS:
        if p.key in pool:
            assert pool[p.key] == p.default, p.key


def test_every_measure_has_an_entry_with_its_definition_and_trec_eval_names():
    from poolkit.score.measures import MEASURES

    measures = page("measures.md")
    for name, family in MEASURES.items():
        row = entry(measures, measure_id(name))
        assert family.formula and cell(family.formula) in row, name
        for trec in family.trec:
            assert code(trec.name) in row or code(f"{trec.name}_K") in row, (name, trec.name)


def test_every_key_binding_has_an_entry_with_what_it_does():
    from poolkit.keymap import KEY_ACTIONS

    keys = page("keys.md")
    for action in KEY_ACTIONS:
        assert action.meaning.strip(), action.name
        row = entry(keys, key_id(action.name))
        assert code(action.name) in row and cell(action.meaning) in row


def test_every_report_schema_and_input_format_has_a_section():
    from poolkit.io.formats import QRELS_FORMATS, RUN_FORMATS
    from poolkit.schemas import schema_names

    reports, formats = page("reports.md"), page("formats.md")
    for name in schema_names():
        entry(reports, f"report-{name}")
    for name in QRELS_FORMATS:
        entry(formats, f"qrels-format-{name}")
    for name in RUN_FORMATS:
        entry(formats, f"run-format-{name}")


def test_the_api_page_documents_every_public_name():
    import poolkit

    api = page("api.md")
    documented = set(re.findall(r"^::: [\w.]+\.(\w+)$", api, flags=re.M))
    assert documented == set(poolkit.__all__) - {"__version__"}


def test_help_text_renders_as_written():
    """reStructuredText's double backticks become code; what Markdown would read as markup
    (a tag, emphasis, a table's bar, attr_list's braces) is escaped."""
    assert cell("use ``--depth N`` for <TAB>-separated\n a|b *c* {id}") == (
        "use `--depth N` for &lt;TAB&gt;-separated a\\|b \\*c\\* \\{id\\}")
    assert code("a`b") == "`` a`b ``"


def test_no_page_gives_one_id_twice(fresh):
    for name, text in fresh.items():
        ids = re.findall(r'id="([^"]+)"|\{#([^}]+)\}', text)
        ids = [a or b for a, b in ids]
        assert len(ids) == len(set(ids)), (name, {i for i in ids if ids.count(i) > 1})
