"""docs/how-to/accounts.md runs as written: its sh block in a copy of the sample, and what it
shows (the invite link's shape, the accounts ``list`` prints) is what the commands print."""

from __future__ import annotations

import re
import shutil
import subprocess

from shared_data import REPO
from test_tutorials import FENCE, poolkit_on_path, sh_blocks

PAGE = REPO / "docs" / "how-to" / "accounts.md"


def shown_outputs() -> list[str]:
    """The page's plain ``` blocks: what it says the commands print."""
    return [body for lang, body in FENCE.findall(PAGE.read_text()) if not lang]


def rows(table: str) -> list[tuple[str, ...]]:
    """A users table's rows without the times (they are when the commands ran)."""
    return [(line.split()[0], line.split()[1], line.split()[4])
            for line in table.splitlines()[1:]]


def test_the_accounts_page_runs_and_shows_what_it_prints(tmp_path):
    shutil.copytree(REPO / "sample_corpus", tmp_path / "sample_corpus",
                    ignore=shutil.ignore_patterns("judgments.sqlite*"))
    (tmp_path / "configs").mkdir()
    shutil.copy(REPO / "configs" / "sample.yaml", tmp_path / "configs")
    [block] = sh_blocks(PAGE)
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=tmp_path,
                          env=poolkit_on_path(tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    link, table = shown_outputs()
    out = done.stdout.splitlines(keepends=True)
    invites = [line for line in out if "/invite/" in line]
    assert len(invites) == 2
    shape = re.escape(link.rsplit("/", 1)[0]) + r"/[A-Za-z0-9_-]{43}\n"
    assert re.fullmatch(shape, link) and re.fullmatch(shape, invites[0])
    listed = "".join(out[out.index(next(line for line in out if line.startswith("name "))):])
    assert listed.splitlines()[0] == table.splitlines()[0]
    assert rows(listed) == rows(table) == [("alice", "assessor", "set"), ("bob", "assessor", "-"),
                                           ("lee", "lead", "-")]
    assert done.stderr.splitlines()[-1] == "added assessor 'alice'"
    assert (tmp_path / "alice.pw").read_text().strip() not in done.stdout + done.stderr
