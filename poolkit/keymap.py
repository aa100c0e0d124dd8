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
    meaning: str  # one line: what the key does (the docs' key reference renders it)


#: One grade action per digit: a collection's scale (``io.scale``) uses those of 0..G.
GRADE_ACTIONS = tuple(
    KeyAction(f"grade_{g}", str(g), f"grade({g})", "",
              f"grade the passage {g} and move on (only on a scale that has grade {g}); "
              f"regrading a passage moves on to the one after it")
    for g in range(10))

KEY_ACTIONS: tuple[KeyAction, ...] = (
    *GRADE_ACTIONS,
    KeyAction("undo", "u", "undo", "undo", "undo the last grade (recorded as an event: "
              "history is never rewritten)"),
    KeyAction("skip", "s", "skip", "skip", "skip: the passage comes back at the end of its "
              "query"),
    KeyAction("note", "n", "note", "note", "write or edit the passage's note; while "
              "searching, the next hit"),
    KeyAction("cant_judge", "c", "cant_judge", "can't", "can't judge: pick why (its own "
              "event, never a grade)"),
    KeyAction("later", "d", "later", "later", "judge later: the passage comes back at the end "
              "of the session"),
    # (help's key list names these two; the key bar has no room for them at 80 columns)
    KeyAction("next_query", "right_square_bracket", "next_query", "",
              "move on to the next query; this one's passages left come back at the end of "
              "the session"),
    KeyAction("next_unjudged", "g", "next_unjudged", "",
              "go to the next passage still to judge"),
    KeyAction("back", "b", "back", "back", "back to the passage shown before, into earlier "
              "sessions too"),
    KeyAction("previous", "left,h", "move(-1)", "",  # the bar shows both as one "move"
              "the previous passage in judging order, without grading"),
    KeyAction("next", "right,l", "move(1)", "", "the next passage in judging order, without "
              "grading"),
    KeyAction("review", "r", "review", "review", "review this query: every passage with your "
              "grade, filtered by grade, Enter opens one"),
    KeyAction("jump", "j", "jump", "jump", "jump to another query (type to filter by id or "
              "text)"),
    KeyAction("search", "slash", "search", "search", "search the passage (Escape ends the "
              "search)"),
    KeyAction("previous_hit", "N", "hit(-1)", "",  # next hit is the note key while searching
              "while searching, the previous hit"),
    KeyAction("terms", "t", "terms", "terms", "add or remove a word highlighted in this "
              "query's passages (kept per assessor)"),
    KeyAction("topic", "e", "topic", "topic", "unfold or fold a long description and "
              "narrative"),
    KeyAction("rubric", "i", "rubric", "rubric", "show or hide the rubric: each grade's key, "
              "label and meaning, open on an assessor's first session"),
    KeyAction("guidelines", "question_mark", "guidelines", "help", "show the guidelines, the "
              "whole topic and every key"),
    KeyAction("quit", "q", "quit", "quit", "quit (everything graded is already saved)"),
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
