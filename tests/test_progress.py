"""Progress bars: drawn on a terminal with rate and time left, silent otherwise or --quiet."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from poolkit import progress
from poolkit.cli import main
from poolkit.progress import Progress, track


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    """A clock the test moves by hand, so nothing depends on timing."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def loud() -> Iterator[None]:
    progress.set_quiet(False)
    yield
    progress.set_quiet(False)


def test_a_bar_shows_done_rate_and_time_left() -> None:
    out, clock = Terminal(), Clock()
    bar = Progress(3162, "dense: encoding", "passages", stream=out, clock=clock)
    clock.now += 10
    bar.update(1200)
    assert out.getvalue() == ("\rdense: encoding  [#########...............]  1,200/3,162 "
                              "passages  120.0/s  0:16 left")
    clock.now += 0.05  # within a tenth of a second: not redrawn
    bar.update(1)
    assert out.getvalue().count("\r") == 1
    clock.now += 3600
    bar.update(1961)
    bar.close()
    assert out.getvalue().endswith("3,162/3,162 passages  0.9/s  done in 1:00:10\n")


def test_silent_when_stderr_is_not_a_terminal_or_quiet() -> None:
    plain = io.StringIO()
    bar = Progress(10, "x", stream=plain)
    bar.update(10)
    bar.close()
    assert plain.getvalue() == ""
    progress.set_quiet(True)
    term = Terminal()
    with Progress(10, "x", stream=term) as bar:
        bar.update(10)
    assert term.getvalue() == "" and not progress.enabled(term)


def test_track_yields_every_item() -> None:
    assert list(track(iter("abc"), 3, "letters")) == ["a", "b", "c"]


def test_no_progress_in_parsed_output(capsys: pytest.CaptureFixture[str]) -> None:
    from shared_data import SAMPLE

    code = main(["score", str(SAMPLE / "golden.yaml"), str(SAMPLE / "seed.run"), "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "scoring" not in out


def test_a_quiet_command_run_in_process_leaves_the_bars_as_it_found_them(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--quiet`` lasts as long as its command: a later command of the same process (a
    script, a test) that is not quiet still shows its bars on a terminal."""
    from shared_data import SAMPLE

    term = Terminal()
    assert main(["score", str(SAMPLE / "golden.yaml"), str(SAMPLE / "seed.run"), "--quiet"]) == 0
    assert progress.enabled(term)
    progress.set_quiet(True)  # a process silenced by its own choice stays silenced
    assert main(["score", str(SAMPLE / "golden.yaml"), str(SAMPLE / "seed.run")]) == 0
    assert not progress.enabled(term)
    with progress.quieted(True):
        assert not progress.enabled(term)
    capsys.readouterr()
