"""The ``poolkit`` entry point: every subcommand listed, only the requested one imported."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Iterator

import pytest

import poolkit.cli as cli
from poolkit.cli import SUBCOMMANDS, SUMMARIES, build_parser, main


@pytest.fixture
def imported(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The poolkit.cli modules ``main`` imports, recorded (and still imported)."""
    names: list[str] = []
    real = importlib.import_module

    def record(name: str, package: str | None = None):  # type: ignore[no-untyped-def]
        names.append(name)
        return real(name, package)

    monkeypatch.setattr(cli.importlib, "import_module", record)
    yield names


def test_top_level_help_lists_every_subcommand_without_importing_one(
        capsys: pytest.CaptureFixture[str], imported: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for name, summary in SUMMARIES.items():
        assert f"    {name}" in out and summary in " ".join(out.split())
    assert imported == []


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str],
                                            imported: list[str]) -> None:
    assert main([]) == 2
    assert "score runs against qrels" in capsys.readouterr().out
    assert imported == []


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_a_subcommand_imports_only_its_own_module(
        capsys: pytest.CaptureFixture[str], imported: list[str], name: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([name, "--help"])
    assert exit_.value.code == 0
    assert imported == [f"poolkit.cli.{SUBCOMMANDS[name]}"]
    assert capsys.readouterr().out.startswith(f"usage: poolkit {name}")


def test_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                             imported: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["scroe"])
    assert exit_.value.code == 2
    assert "invalid choice: 'scroe'" in capsys.readouterr().err
    assert imported == []


def test_summaries_are_what_the_modules_register() -> None:
    """The static table `poolkit --help` prints matches each module's own help."""
    parser = build_parser()  # every module
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    registered = {a.dest: a.help for a in sub._choices_actions}
    assert registered == SUMMARIES
    assert list(SUMMARIES) == list(SUBCOMMANDS)


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_every_handler_is_run_or_run_its_action(name: str) -> None:
    """One naming convention: a subcommand's handler is ``run(args)``; a subcommand with
    actions of its own (``store init``, ``store copy``) has ``run_<action>``."""
    sub = argparse.ArgumentParser().add_subparsers()
    module = importlib.import_module(f"poolkit.cli.{SUBCOMMANDS[name]}")
    module.register(sub)
    parser = sub.choices[name]
    actions = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
                   None)
    if actions is None:
        assert parser.get_default("handler") is module.run
    else:
        for action, p in actions.choices.items():
            assert p.get_default("handler") is getattr(module, f"run_{action}")
