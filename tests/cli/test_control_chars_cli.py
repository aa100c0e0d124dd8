"""Control characters in paths and values never reach a terminal or a file header raw.

Errors are rows of the adversarial table (ROUND3_CONTROL_CASES); here what is not an error
row: warnings and notes (exit 0), a golden.yaml header naming a store whose file name holds a
newline, and ``printable`` itself.
"""

from __future__ import annotations

import shutil

import pytest
import yaml
from cli.test_adversarial_cli import World

from poolkit.cli import main
from poolkit.errors import InputError, StoreError, printable

NASTY = ["a\nb", "a\rb", "a\x1b[31mb", "a\x00b", "a\x7fb", "a\x9bb", "a\u2028b", "a\tb",
         "a\udcffb"]  # a lone surrogate: a file name's byte that is not UTF-8
SHOWN = ["a\\nb", "a\\rb", "a\\x1b[31mb", "a\\x00b", "a\\x7fb", "a\\x9bb", "a\\u2028b", "a\\tb",
         "a\\udcffb"]


@pytest.mark.parametrize(("raw", "shown"), list(zip(NASTY, SHOWN)))
def test_printable_escapes_control_characters_only(raw, shown):
    assert printable(raw) == shown
    assert str(StoreError(f"{raw}: x")) == f"{shown}: x"
    assert str(InputError(raw, 3, "bad")) == f"{shown}:3: bad"


def test_printable_leaves_the_rest_alone():
    text = "C:\\runs\\x é 日本 \\n ' \" ~"
    assert printable(text) == text


@pytest.mark.parametrize("name", NASTY[:3])
def test_an_import_warning_naming_such_a_file_is_one_line(tmp_path, capsys, name):
    world = World(tmp_path / "w")
    golden = world.write(f"g{name}.yaml", "- query: q2\n  text: how to cook rice\n"
                                         "  grades: {d4: 1}\n")
    assert main(["import", str(world.config), str(golden), "--as", "golden"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("poolkit import: warning: ")
    assert f"{printable(golden)}: query 'q2' text 'how to cook rice' differs" in err[0]


def test_a_golden_header_naming_a_store_with_a_newline_stays_one_comment(tmp_path, capsys):
    world = World(tmp_path / "w")
    store = world.root / "s\nq9: {forged: 3}\n#.sqlite"
    shutil.move(world.store, store)
    world.write("config.yaml", world.config.read_text().replace(
        "store: store.sqlite", 'store: "s\\nq9: {forged: 3}\\n#.sqlite"'))
    out = tmp_path / "golden.yaml"
    assert main(["export", str(world.config), "--format", "golden", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# poolkit export from s\\nq9: {forged: 3}\\n#.sqlite: policy ")
    assert [line for line in text.splitlines() if line.startswith("#")] == \
        [text.splitlines()[0]]
    assert "q9" not in {entry["query"] for entry in yaml.safe_load(text)}
    capsys.readouterr()
