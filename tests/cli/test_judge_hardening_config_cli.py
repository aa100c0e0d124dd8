"""A bad hardening option in a judge's config (``flagged:``, ``constrain:``,
``max_failures:``; issue 40) is one stderr line naming the config file and the option's line,
the valid values where there is a list, exit 2, and the store and every file
byte-identical; the judge's server is never asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from autojudge_helpers import collection
from llm_faults import loopback_llm
from test_adversarial_cli import snapshot

from poolkit.cli import main


@pytest.mark.parametrize("key, value, says", [
    ("flagged", "sometimes", "unknown flagged 'sometimes'; valid: human, machine"),
    ("flagged", "Human", "unknown flagged 'Human'; valid: human, machine (did you mean 'human'?)"),
    ("constrain", "grammar", "unknown constrain 'grammar'; valid: guided_choice, json_schema, "
                             "none, structured_outputs"),
    ("constrain", "json-schema", "(did you mean 'json_schema'?)"),
    ("max_failures", "0", "must be at least 1, found 0"),
    ("max_failures", "three", "must be int, found 'three'"),
])
def test_a_bad_hardening_option_names_the_config_and_its_line(tmp_path: Path, capsys, key,
                                                              value, says):
    with loopback_llm() as (url, script):
        config = collection(tmp_path, url)
        shown = value if value.isdigit() else f'"{value}"'
        text = config.read_text().replace("  llm: {", "  llm: {" + f'"{key}": {shown}, ')
        config.write_text(text + "\n")
        line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("  llm:"))
        before = snapshot(tmp_path)
        capsys.readouterr()
        code = main(["autojudge", str(config), "--judge", "llm"])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"poolkit autojudge: error: {config}:{line}: judges.llm.{key}")
        assert says in err
        assert snapshot(tmp_path) == before and script.requests == []
