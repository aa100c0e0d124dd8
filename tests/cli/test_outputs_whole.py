"""Every output of a command is written whole beside its target and renamed only when all of
them were written (issue 22, items 4 and 5): ``export`` with -o and --sample on a full disk
replaces neither; a kill at the rename leaves no temporary file (SIGINT, SIGTERM) or one the
next export sweeps (SIGKILL); ``store copy`` to a new file killed at three moments leaves
no destination, and a re-run copies."""

from __future__ import annotations

import signal
import sqlite3

import pytest
from killpoints import kill
from mounts import fill, tmpfs
from test_adversarial_cli import World, snapshot

from poolkit.cli import main

EXIT = {"SIGINT": 130, "SIGTERM": 143, "SIGKILL": -signal.SIGKILL}


def temporaries(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob(".*.tmp*"))


def test_a_full_disk_under_sample_replaces_not_the_qrels_either(tmp_path, capsys):
    world = World(tmp_path / "w")
    out = world.write("out.qrels", "old qrels\n")
    with tmpfs(tmp_path / "full", size_kb=256) as full:
        fill(full)
        before = snapshot(tmp_path)
        code = main(["export", str(world.config), "--format", "qrels", "-o", str(out),
                     "--sample", str(full / "sample.tsv")])
        err = capsys.readouterr().err.splitlines()
        assert code == 2
        assert err == [f"poolkit export: error: {full / 'sample.tsv'}: cannot write: No space "
                       f"left on device"]
        assert snapshot(tmp_path) == before  # out.qrels too
        assert temporaries(tmp_path) == []


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_a_killed_export_leaves_the_old_file_or_the_whole_new_one(tmp_path, signame):
    world = World(tmp_path / "w")
    out = world.write("out.qrels", "old qrels\n")
    done = kill(signame, "os:replace", "before",
                ["export", str(world.config), "--format", "qrels", "-o", str(out)])
    assert done.returncode == EXIT[signame], done.stderr
    assert "Traceback" not in done.stderr
    if signame == "SIGKILL":
        assert out.read_text() == "old qrels\n"
        assert len(temporaries(world.root)) == 1  # nothing could remove it
        # the re-run checks the files, not a process: in this one (the kill is the
        # end-to-end subprocess)
        assert main(["export", str(world.config), "--format", "qrels", "-o", str(out)]) == 0
        assert out.read_text() == "q1 0 d1 2\n"
    else:  # held until the rename was done: the export is whole
        assert out.read_text() == "q1 0 d1 2\n"
    assert temporaries(world.root) == []


#: moments of a copy into a new file: mid-copy, copied but not verified, verified
COPY_MOMENTS = [("poolkit.store.store:Store.insert_rows", "after", 1),
                ("poolkit.store.copy:content_hash", "before", 1),
                ("poolkit.store.copy:content_hash", "after", 2)]


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGKILL"])
@pytest.mark.parametrize("target,when,nth", COPY_MOMENTS,
                         ids=["mid-copy", "unverified", "verified"])
def test_a_killed_store_copy_leaves_no_destination_and_a_rerun_copies(tmp_path, signame,
                                                                    target, when, nth):
    world = World(tmp_path / "w")
    dst = tmp_path / "copy" / "copy.sqlite"
    dst.parent.mkdir()
    done = kill(signame, target, when, ["store", "copy", str(world.store), str(dst)], nth)
    assert done.returncode == EXIT[signame], done.stderr
    assert "Traceback" not in done.stderr
    assert not dst.exists()
    leftovers = sorted(p.name for p in dst.parent.iterdir())
    assert leftovers == [] if signame != "SIGKILL" else all(
        n.startswith(".copy.sqlite.") for n in leftovers), leftovers
    assert main(["store", "copy", str(world.store), str(dst)]) == 0  # in this process
    assert sorted(p.name for p in dst.parent.iterdir()) == ["copy.sqlite"]
    with sqlite3.connect(dst) as conn:
        assert conn.execute("SELECT COUNT(*) FROM events").fetchone() == (1,)
