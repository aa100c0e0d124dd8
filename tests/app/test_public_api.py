"""``from poolkit import ...``: every public name resolves to the object its module defines,
none hides a subpackage of the same name, and ``import poolkit`` itself imports no verb."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import poolkit


def test_every_public_name_resolves_to_its_modules_object():
    for name, module in poolkit._PUBLIC.items():
        assert getattr(poolkit, name) is getattr(importlib.import_module(module), name), name


def test_no_public_name_is_also_a_subpackage():
    subpackages = {m.name for m in pkgutil.iter_modules(poolkit.__path__)}
    assert set(poolkit._PUBLIC) & subpackages == set()


def test_import_poolkit_loads_no_verb_and_no_numpy():
    code = ("import sys, poolkit; print(sorted(m for m in sys.modules "
            "if m.startswith('poolkit.') or m == 'numpy'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
