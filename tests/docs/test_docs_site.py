"""The documentation site builds strictly (a broken link, a missing page or picture, a bad
anchor fails it), and the pictures command draws the screens from the real app."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest
from shared_data import REPO


def needs_mkdocs() -> None:
    """Outside CI a checkout without the docs extra skips; in CI the build must run."""
    if importlib.util.find_spec("mkdocs") is None and not os.environ.get("CI"):
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    needs_mkdocs()
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WARNING" not in done.stderr, done.stderr[-3000:]
    assert (site / "reference" / "cli" / "index.html").is_file()
    api = (site / "reference" / "api" / "index.html").read_text()
    assert 'id="poolkit.app.score.score_runs"' in api  # mkdocstrings rendered the API


def pictures_in_pages() -> set[str]:
    """The images the pages show (their file names)."""
    found = set()
    for page in (REPO / "docs").rglob("*.md"):
        found |= {m.rsplit("/", 1)[-1]
                  for m in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text())}
    return found


def test_the_site_shows_every_generated_picture():
    from tools.docs_pictures import IMAGES

    made = {p.name for p in IMAGES.iterdir()}
    assert {"judging-screen.svg", "review-screen.svg", "dashboard.svg",
            "simulate-dl19.png", "simulate-cranfield.png"} <= made
    assert made <= pictures_in_pages()  # none made for nothing, none missing (the build)


@pytest.mark.slow
def test_the_pictures_command_draws_the_screens(tmp_path):
    from tools.docs_pictures import make

    written = make("screens", tmp_path)
    assert sorted(p.name for p in written) == ["dashboard.svg", "judging-screen.svg",
                                               "review-screen.svg"]
    judging, review, dashboard = (
        (tmp_path / f"{n}.svg").read_text() for n in ("judging-screen", "review-screen",
                                                      "dashboard"))
    # (SVG text: a space is &#160;)
    def text(svg: str) -> str:
        return svg.replace("&#160;", " ")

    assert "poolkit judge" in text(judging) and "perfectly relevant" in text(judging)
    assert "Enter opens" in text(review)
    assert "as of 12:00:00" in text(dashboard) and "alice" in text(dashboard)
    # the same code draws the same pictures (a fixed clock, fixed times)
    again = tmp_path / "again"
    for picture in make("screens", again):
        assert picture.read_text() == (tmp_path / picture.name).read_text(), picture.name
