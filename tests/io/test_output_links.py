"""An output's symlinks are followed by the kernel's protected_symlinks rule (poolkit.io.links).

In a world-writable sticky folder (``/tmp``) a link is followed only when its owner is the
one writing or owns the folder: another user's planted link is refused with one line, the
file it points at is untouched. Needs root (to give a link to another uid), as in CI.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from cli.test_adversarial_cli import World

from poolkit.cli import main
from poolkit.errors import OutputError
from poolkit.io.atomic import check_writable_folder, write_text
from poolkit.io.links import resolve_output

OTHER = 4242  # a uid that is neither root nor the folder's owner

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown of a link needs root")


def _sticky(tmp_path: Path, owner: int = 0) -> Path:
    shared = tmp_path / "tmp"
    shared.mkdir()
    os.chown(shared, owner, owner)
    shared.chmod(0o1777)
    return shared


def _plant(shared: Path, name: str, target: Path, owner: int) -> Path:
    link = shared / name
    link.symlink_to(target)
    os.lchown(link, owner, owner)
    return link


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@needs_root
def test_export_refuses_another_users_link_in_a_sticky_folder(tmp_path, capsys):
    world = World(tmp_path / "w")
    victim = tmp_path / "victim" / ".bashrc"
    victim.parent.mkdir()
    victim.write_text("export PATH=/usr/bin\n")
    before = _digest(victim)
    shared = _sticky(tmp_path)
    link = _plant(shared, "out.qrels", victim, OTHER)
    for argv in (["export", str(world.config), "--format", "qrels", "-o", str(link)],
                 ["export", str(world.config), "--format", "golden", "-o", str(link)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.splitlines()
        assert err == [f"poolkit export: error: {link}: cannot write: {link} is a symlink of "
                       f"another user (uid {OTHER}) in the shared sticky folder {shared}; not "
                       f"followed, as the kernel's protected_symlinks would not"]
        assert _digest(victim) == before
        assert link.is_symlink() and os.lstat(link).st_uid == OTHER
        assert sorted(p.name for p in shared.iterdir()) == ["out.qrels"]
        assert sorted(p.name for p in victim.parent.iterdir()) == [".bashrc"]


@needs_root
@pytest.mark.parametrize("how", ["folder", "file"])
def test_a_link_through_another_users_link_to_a_folder_is_refused(tmp_path, how):
    """A planted link anywhere on the way counts: to a folder, or a link to a link."""
    victim_dir = tmp_path / "victim"
    victim_dir.mkdir()
    (victim_dir / "out.qrels").write_text("mine\n")
    shared = _sticky(tmp_path)
    if how == "folder":
        path = _plant(shared, "d", victim_dir, OTHER) / "out.qrels"
    else:
        mine = _plant(shared, "mine", shared / "theirs", 0)
        _plant(shared, "theirs", victim_dir / "out.qrels", OTHER)
        path = mine
    with pytest.raises(OutputError, match=f"is a symlink of another user \\(uid {OTHER}\\)"):
        write_text(path, "new\n")
    assert (victim_dir / "out.qrels").read_text() == "mine\n"


@needs_root
@pytest.mark.parametrize("case", ["mine", "folder-owner", "not-sticky", "not-world-writable"])
def test_links_the_kernel_follows_are_followed(tmp_path, case):
    """The link's owner is the writer, or owns the folder; or the folder is not shared."""
    target = tmp_path / "target.qrels"
    target.write_text("old\n")
    owner, link_owner, mode = {"mine": (OTHER, 0, 0o1777),
                               "folder-owner": (OTHER, OTHER, 0o1777),
                               "not-sticky": (0, OTHER, 0o777),
                               "not-world-writable": (0, OTHER, 0o1775)}[case]
    shared = _sticky(tmp_path, owner)
    shared.chmod(mode)
    link = _plant(shared, "out.qrels", target, link_owner)
    assert resolve_output(link) == target
    write_text(link, "new\n")
    assert target.read_text() == "new\n" and link.is_symlink()


def test_resolution_matches_realpath_without_shared_folders(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_text("x")
    (tmp_path / "l").symlink_to("a")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "f")
    (tmp_path / "loop").symlink_to("loop")
    for path in ("l/f", "l/../a/f", "l/new", "dangling", "a/./f", "new/deeper/f"):
        assert resolve_output(tmp_path / path) == Path(os.path.realpath(tmp_path / path)), path
    monkeypatch.chdir(tmp_path)  # relative paths, from the current folder
    assert resolve_output("l/f") == tmp_path / "a" / "f"
    with pytest.raises(OutputError, match="too many levels of symbolic links"):
        resolve_output(tmp_path / "loop")


@needs_root
def test_no_folder_and_no_store_copy_through_another_users_link(tmp_path, capsys):
    world = World(tmp_path / "w")
    victim = tmp_path / "victim"
    victim.mkdir()
    shared = _sticky(tmp_path)
    folder_link = _plant(shared, "runs", victim, OTHER)
    with pytest.raises(OutputError, match="is a symlink of another user"):
        check_writable_folder(folder_link / "deeper")
    store_link = _plant(shared, "copy.sqlite", victim / "copy.sqlite", OTHER)  # dangling
    assert main(["store", "copy", str(world.config), str(store_link)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{store_link} is a symlink of another user" in err[0], err
    assert list(victim.iterdir()) == []
    assert sorted(p.name for p in shared.iterdir()) == ["copy.sqlite", "runs"]


@needs_root
def test_no_store_created_through_another_users_link(tmp_path, capsys):
    world = World(tmp_path / "w")
    victim = tmp_path / "victim"
    victim.mkdir()
    shared = _sticky(tmp_path)
    link = _plant(shared, "store.sqlite", victim / "judgments.sqlite", OTHER)  # dangling
    world.write("config.yaml", world.config.read_text().replace(
        "store: store.sqlite", f"store: {link}"))
    assert main(["import", str(world.config), str(world / "labels.qrels"), "--as", "nist"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{link} is a symlink of another user" in err[0], err
    assert list(victim.iterdir()) == []


@needs_root
def test_store_init_refuses_another_users_link(tmp_path, capsys):
    victim = tmp_path / "victim"
    victim.mkdir()
    link = _plant(_sticky(tmp_path), "s.sqlite", victim / "s.sqlite", OTHER)
    assert main(["store", "init", str(link)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{link} is a symlink of another user" in err[0], err
    assert list(victim.iterdir()) == []
