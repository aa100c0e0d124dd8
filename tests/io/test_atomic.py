"""Every file poolkit writes is replaced whole or not at all (poolkit.io.atomic)."""

from __future__ import annotations

import os
import stat

import pytest

from poolkit.errors import OutputError
from poolkit.io.atomic import atomic_writer, check_writable_folder, write_text


def test_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "labels.qrels"
    target.write_text("old\n")
    write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.qrels"]


def test_a_failure_in_the_middle_keeps_the_old_file_and_no_partial_one(tmp_path):
    target = tmp_path / "golden.yaml"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_writer(target) as fh:
        fh.write("half of the n")
        raise RuntimeError("killed")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["golden.yaml"]


def test_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "run.run"
    target.write_text("old\n")
    target.chmod(0o640)
    write_text(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        write_text(tmp_path / "new.txt", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_a_symlink_s_target_is_replaced_not_the_link(tmp_path):
    real = tmp_path / "real.qrels"
    real.write_text("old\n")
    link = tmp_path / "link.qrels"
    link.symlink_to(real)
    write_text(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_a_device_is_written_in_place_not_replaced():
    write_text("/dev/null", "anything\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_missing_folder_is_one_clear_error(tmp_path):
    with pytest.raises(OutputError, match=r"nowhere/x.txt: cannot write: folder .* does not exist"):
        write_text(tmp_path / "nowhere" / "x.txt", "x")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_folder_the_file_system_refuses_is_not_called_missing():
    """mkdir in /proc fails with ENOENT although /proc exists: the reason given is the file
    system's refusal, not 'folder /proc does not exist'."""
    with pytest.raises(OutputError) as info:
        check_writable_folder("/proc/poolkit-runs/deeper")
    assert str(info.value) == ("/proc/poolkit-runs/deeper: cannot create the folder: /proc "
                               "does not allow new folders in it (a virtual file system?)")


def test_a_file_in_the_way_of_a_folder_is_named(tmp_path):
    (tmp_path / "runs").write_text("x\n")
    for folder in (tmp_path / "runs", tmp_path / "runs" / "inner"):
        with pytest.raises(OutputError) as info:
            check_writable_folder(folder)
        assert str(info.value) == (f"{folder}: cannot create the folder: {tmp_path / 'runs'} "
                                   f"is a file, not a folder")
    assert (tmp_path / "runs").read_text() == "x\n"


def test_a_writable_folder_is_made_and_left_empty(tmp_path):
    check_writable_folder(tmp_path / "a" / "b")
    assert list((tmp_path / "a" / "b").iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_folder_in_a_read_only_folder_says_permission_denied(tmp_path):
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(OutputError) as info:
            check_writable_folder(tmp_path / "runs")
    finally:
        tmp_path.chmod(0o755)
    assert str(info.value) == (f"{tmp_path / 'runs'}: cannot create the folder: permission "
                               f"denied in {tmp_path}")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_said_as_such_and_the_file_survives(tmp_path):
    target = tmp_path / "labels.qrels"
    target.write_text("old\n")
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="permission denied"):
            write_text(target, "new\n")
    finally:
        tmp_path.chmod(0o755)
    assert target.read_text() == "old\n"
