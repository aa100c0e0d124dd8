"""What each part of the judging screen says, as pure functions returning Rich text.

The screen only places these; keeping the wording here makes it testable without a terminal
and keeps blindness in one place: nothing here renders a system name, rank or score unless
the caller passes sources explicitly (``judge.blind: false``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from poolkit.judge.highlight import query_terms, term_pattern
from poolkit.judge.session import Item, JudgingSession, Progress
from poolkit.store.store import QueryRecord, Source

ACTION_LABELS = {
    "undo": "undo", "skip": "skip", "note": "note", "back": "back", "jump": "jump",
    "guidelines": "guidelines", "quit": "quit",
}
HIGHLIGHT = "bold black on yellow"


def binding_key(key: str) -> str:
    """The Textual key name for a configured key: a config may say ``?`` or ``/`` where
    Textual binds ``question_mark`` or ``slash`` (Textual's own character-to-name rule)."""
    if len(key) != 1 or key.isalnum():
        return key
    from textual.keys import _character_to_key

    return _character_to_key(key)


def key_label(key: str) -> str:
    """How a configured key reads on screen (``question_mark`` and ``?`` alike -> ``?``)."""
    from textual.keys import format_key

    return format_key(binding_key(key))


def title_text(session: JudgingSession) -> Text:
    mode = {"judge": "judge", "agreement": "judge · agreement sample",
            "adjudicate": "adjudicate"}[session.mode]
    out = Text.assemble(("poolkit ", "bold"), (mode, "bold"), f" · {session.assessor}")
    item = session.current
    if item is not None:
        n = session.query_ids.index(item.qid) + 1
        out.append(f" · query {item.qid} ({n} of {len(session.query_ids)})")
    return out


def query_text(query: QueryRecord) -> Text:
    out = Text(query.text, style="bold")
    for extra in (query.description, query.narrative):
        if extra:
            out.append("\n")
            out.append(extra, style="italic")
    return out


def clip(text: Text, width: int | None, max_lines: int, more: str) -> Text:
    """``text`` as it wraps at ``width``, cut to ``max_lines`` with ``more`` as the last line
    when it does not fit (so a cut is never silent)."""
    if width is None:
        return text
    from rich.console import Console

    lines = text.wrap(Console(width=width), width)
    if len(lines) <= max_lines:
        return text
    kept = lines[: max_lines - 1]
    for line in kept:
        line.rstrip()
    out = Text("\n").join(kept)
    out.append("\n")
    out.append(more, style="dim")
    return out


def passage_head(session: JudgingSession, item: Item | None, grades: Mapping[int, str],
                 sources: Sequence[Source] = ()) -> Text:
    if item is None:
        return Text("Nothing left to show in this mode: every passage is done.", style="bold")
    total = session.items[item.qid]
    out = Text.assemble((f"Passage {total.index(item) + 1} of {len(total)}", "bold"),
                        f" · doc {item.docid}")
    grade = session.grade_of(item)
    label = "adjudicated" if session.mode == "adjudicate" else "your grade"
    if grade is not None:
        out.append(f" · {label}: {grade} ({grades.get(grade, '?')})", style="bold green")
    elif session.is_skipped(item):
        out.append(" · skipped earlier", style="yellow")
    n_notes = len(session.notes.get(item.pair, ()))
    if n_notes and session.mode != "adjudicate":
        out.append(f" · {n_notes} note{'s' if n_notes > 1 else ''}")
    if session.pending_note:
        out.append(" · note kept for this grade", style="cyan")
    if sources:
        out.append(" · pooled by " + ", ".join(
            f"{s.system} #{s.rank}" + (f" ({s.score:.3g})" if s.score is not None else "")
            for s in sources), style="magenta")
    return out


def all_done_text(keys: Mapping[str, str]) -> Text:
    """What the passage box says once this mode has nothing left to show."""
    k = {a: key_label(keys[a]) for a in ("jump", "back", "undo", "quit")}
    return Text.assemble(
        "Press ", (k["jump"], "bold"), " to pick a query and look at its passages again, ",
        (k["back"], "bold"), " to see the last passage, ", (k["undo"], "bold"),
        " to undo your last grade, or ", (k["quit"], "bold"), " to quit.")


def passage_text(query: str, title: str, body: str) -> Text:
    """Title and body with the query's terms highlighted."""
    pattern = term_pattern(query_terms(query))
    out = Text()
    if title:
        out.append(title, style="bold underline")
        out.append("\n\n")
    out.append(body)
    if pattern is not None:
        out.highlight_regex(pattern, HIGHLIGHT)  # title and body alike
    return out


def pack(parts: Sequence[Text], width: int | None = None, sep: str = "  ") -> Text:
    """``parts`` joined by ``sep``; given a width, lines break between parts, never inside one
    (a key stays next to what it does)."""
    out, used = Text(), 0
    for part in parts:
        if used and width is not None and used + len(sep) + len(part) > width:
            out.append("\n")
            used = 0
        elif used:
            out.append(sep)
            used += len(sep)
        out.append_text(part)
        used += len(part)
    return out


def grade_bar(keys: Mapping[str, str], grades: Mapping[int, str], current: int | None,
              width: int | None = None) -> Text:
    parts = []
    for g, meaning in sorted(grades.items()):
        style = "bold green" if g == current else ""
        parts.append(Text.assemble((f" {key_label(keys[f'grade_{g}'])} ", f"bold reverse {style}"),
                                   (f" {meaning}", style)))
    return pack(parts, width)


def progress_text(progress: Progress) -> Text:
    out = Text()
    if progress.query_total:
        out.append(f"this query {progress.query_done}/{progress.query_total}")
        out.append(" · ")
    out.append(f"overall {progress.done}/{progress.total}")
    if progress.total:
        out.append(f" ({100 * progress.done / progress.total:.0f}%)")
    if progress.seconds_per_judgment is not None:
        out.append(f" · {duration(progress.seconds_per_judgment)}/judgment")
        if progress.seconds_left is not None and progress.done < progress.total:
            left = duration(progress.seconds_left)
            out.append(f" · {'' if left.startswith('<') else '~'}{left} left")
    return out


def duration(seconds: float) -> str:
    if seconds < 0.5:
        return "<1s"
    if round(seconds) < 60:
        return f"{round(seconds)}s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def key_bar(keys: Mapping[str, str], width: int | None = None) -> Text:
    """Every binding, grades first; on a narrow terminal it wraps between bindings rather
    than hiding any. The default grade keys read as one range (``0-3``) so that the default
    bar fits one line at 80 columns."""
    labels = [key_label(keys[f"grade_{g}"]) for g in range(4)]
    grade_keys = "0-3" if labels == ["0", "1", "2", "3"] else " ".join(labels)
    parts = [(grade_keys, "grade")] + [(key_label(keys[a]), label)
                                       for a, label in ACTION_LABELS.items()]
    return pack([Text.assemble((key, "bold"), f" {label}") for key, label in parts], width)


def disagreement_text(votes: Mapping[str, int], grades: Mapping[int, str], show_names: bool,
                      notes: Sequence[tuple[str, str]] = ()) -> Text:
    """Both (all) grades on a disputed pair; names only when asked, ordered by grade so that
    "assessor 1" is not the same person from pair to pair."""
    out = Text("Assessors disagree: ", style="bold")
    ranked = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))
    for i, (name, g) in enumerate(ranked, start=1):
        if i > 1:
            out.append(" · ")
        who = name if show_names else f"assessor {i}"
        out.append(f"{who}: ", style="bold")
        out.append(f"{g} ({grades.get(g, '?')})")
    for name, note in notes:
        out.append("\n")
        out.append("note" + (f" by {name}" if show_names else "") + ": ", style="italic")
        out.append(note)
    return out
