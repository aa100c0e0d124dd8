"""README.md is the front page: at most 200 lines, no command a user without the project's
reference data (``../shared``) cannot run, the quick start CI and the brief rely on, and links
into the documentation that resolve on GitHub as on disk."""

from __future__ import annotations

import re

from shared_data import REPO

README = REPO / "README.md"


def test_readme_is_at_most_200_lines():
    assert len(README.read_text().splitlines()) <= 200


def test_readme_names_no_shared_path():
    text = README.read_text()
    assert "../shared" not in text and "/shared/" not in text


def test_readme_quick_start_is_the_sample_then_the_tests():
    commands = [line.split("#")[0].strip() for line in README.read_text().splitlines()
                if line.startswith("python tasks.py")]
    assert commands[:2] == ["python tasks.py sample", "python tasks.py test"]


def test_readme_links_resolve():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text())
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    for link in local:
        assert (REPO / link).exists(), link
