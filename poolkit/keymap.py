"""The judging screen's actions: one table for the config, the bindings and the key bar.

Each row is one remappable action. Its ``name`` is the key under ``judge.keys`` in the config
and the Textual ``Binding.id``, so a config remap is applied with ``App.set_keymap``; its
``key`` is the default (Textual key names, comma-separated for several); ``action`` is what
the judging screen runs; ``label`` is how the key bar names it (empty: not listed on its own,
as the grade keys, which the bar shows as one range).

Pure data (no Textual import), below config in the layers: ``poolkit.config`` validates
``judge.keys`` against it and ``poolkit.judge`` binds it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class KeyAction:
    name: str
    key: str
    action: str
    label: str


#: One grade action per digit: a collection's scale (``io.scale``) uses those of 0..G.
GRADE_ACTIONS = tuple(KeyAction(f"grade_{g}", str(g), f"grade({g})", "") for g in range(10))

KEY_ACTIONS: tuple[KeyAction, ...] = (
    *GRADE_ACTIONS,
    KeyAction("undo", "u", "undo", "undo"),
    KeyAction("skip", "s", "skip", "skip"),
    KeyAction("note", "n", "note", "note"),
    KeyAction("cant_judge", "c", "cant_judge", "can't"),
    KeyAction("later", "d", "later", "later"),
    # (help's key list names these two; the key bar has no room for them at 80 columns)
    KeyAction("next_query", "right_square_bracket", "next_query", ""),
    KeyAction("next_unjudged", "g", "next_unjudged", ""),
    KeyAction("back", "b", "back", "back"),
    KeyAction("previous", "left,h", "move(-1)", ""),  # the bar shows both as one "move"
    KeyAction("next", "right,l", "move(1)", ""),
    KeyAction("review", "r", "review", "review"),
    KeyAction("jump", "j", "jump", "jump"),
    KeyAction("search", "slash", "search", "search"),
    KeyAction("previous_hit", "N", "hit(-1)", ""),  # next hit is the note key while searching
    KeyAction("terms", "t", "terms", "terms"),
    KeyAction("topic", "e", "topic", "topic"),
    KeyAction("rubric", "i", "rubric", "rubric"),  # the grade scale's meanings, on screen
    KeyAction("guidelines", "question_mark", "guidelines", "help"),
    KeyAction("quit", "q", "quit", "quit"),
)



def default_keys(top: int = 3) -> dict[str, str]:
    """Every action's default key for a scale 0..``top``: its grades' and the rest."""
    return {a.name: a.key for a in KEY_ACTIONS
            if not a.name.startswith("grade_") or int(a.name[6:]) <= top}


#: the default keys of the default 0-3 scale
DEFAULT_KEYS: dict[str, str] = default_keys()


def grade_actions(keys: Iterable[str]) -> list[int]:
    """The grades a key table binds (its ``grade_N`` entries), in order."""
    return sorted(int(name[6:]) for name in keys if name.startswith("grade_"))


def key_names(keys: str) -> list[str]:
    """The keys of a configured value: ``"left,h"`` -> ``["left", "h"]``; a lone space or
    comma is that key (``space``, ``comma``), so a config may write either character."""
    if keys in (" ", ","):
        return ["space" if keys == " " else "comma"]
    return [k.strip() for k in keys.split(",") if k.strip()]


def same_key(key: str) -> str:
    """A form in which two spellings of one key compare equal (``?`` and ``question_mark``)."""
    if len(key) == 1:
        return key
    try:
        return unicodedata.lookup(key.replace("_", " ").upper())
    except KeyError:
        return {"slash": "/", "backslash": "\\", "space": " ", "comma": ","}.get(key, key)
