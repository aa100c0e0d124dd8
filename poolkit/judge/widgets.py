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


def key_label(key: str) -> str:
    """How a Textual key name reads on screen (``question_mark`` -> ``?``)."""
    from textual.keys import format_key

    return format_key(key)


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


def passage_head(session: JudgingSession, item: Item | None, grades: Mapping[int, str],
                 sources: Sequence[Source] = ()) -> Text:
    if item is None:
        return Text("Nothing left to show in this mode: every passage is done.", style="bold")
    total = session.items[item.qid]
    out = Text.assemble(("Passage ", "bold"), (f"{total.index(item) + 1} of {len(total)}", "bold"),
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


def grade_bar(keys: Mapping[str, str], grades: Mapping[int, str], current: int | None) -> Text:
    out = Text()
    for g, meaning in sorted(grades.items()):
        if out:
            out.append("  ")
        chosen = g == current
        out.append(f" {key_label(keys[f'grade_{g}'])} ",
                   style="bold green reverse" if chosen else "bold reverse")
        out.append(f" {meaning}", style="bold green" if chosen else "")
    return out


def progress_text(progress: Progress) -> Text:
    out = Text()
    if progress.query_total:
        out.append(f"this query {progress.query_done}/{progress.query_total}")
        out.append(" · ")
    out.append(f"overall {progress.done}/{progress.total}")
    if progress.total:
        out.append(f" ({100 * progress.done / progress.total:.0f}%)")
    if progress.seconds_per_judgment is not None and progress.seconds_left is not None:
        out.append(f" · {duration(progress.seconds_per_judgment)}/judgment · "
                   f"~{duration(progress.seconds_left)} left")
    return out


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    return f"{seconds // 3600:.0f}h{(seconds % 3600) / 60:02.0f}m"


def key_bar(keys: Mapping[str, str]) -> Text:
    """Every binding, grades first; wraps on narrow terminals rather than hiding any."""
    out = Text()
    grade_keys = " ".join(key_label(keys[f"grade_{g}"]) for g in range(4))
    parts = [(grade_keys, "grade")] + [(key_label(keys[a]), label)
                                       for a, label in ACTION_LABELS.items()]
    for i, (key, label) in enumerate(parts):
        if i:
            out.append(" · ", style="dim")
        out.append(key, style="bold")
        out.append(f" {label}")
    return out


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
        out.append(f"{who} ", style="bold")
        out.append(f"{g} ({grades.get(g, '?')})")
    for name, note in notes:
        out.append("\n")
        out.append("note" + (f" by {name}" if show_names else "") + ": ", style="italic")
        out.append(note)
    return out
