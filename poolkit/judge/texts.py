"""What each part of the judging screen says, as pure functions returning Rich text.

The widgets only place these; keeping the wording here makes it testable without a terminal
and keeps blindness in one place: nothing here renders a system name, rank or score unless
the caller passes sources explicitly (``judge.blind: false``), nor a machine judge's grade
but in the review walk (``review_text``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rich.text import Text

from poolkit.judge.highlight import query_terms, term_spans
from poolkit.judge.review import MachineReview
from poolkit.judge.session import Item, JudgingProgress, JudgingSession
from poolkit.keymap import KEY_ACTIONS, grade_actions, key_names
from poolkit.store.records import QueryRecord, Source

HIGHLIGHT = "bold black on yellow"           # the query's words
DESCRIPTION_HIGHLIGHT = "underline bold"      # the description's other words
TERM_HIGHLIGHT = "bold black on green"        # words this assessor added for the query
SEARCH_HIT = "black on magenta"               # `/` search hits
CURRENT_HIT = "bold white on red"             # the hit n/N moved to


def key_label(keys: str) -> str:
    """How a configured key (or comma-separated keys) reads on screen: ``question_mark`` and
    ``?`` alike -> ``?``; ``left,h`` -> ``←/h``."""
    from textual.keys import format_key

    return "/".join(key if len(key) == 1 else format_key(key) for key in key_names(keys))


def title_text(session: JudgingSession) -> Text:
    mode = {"judge": "judge", "agreement": "judge · agreement sample",
            "adjudicate": "adjudicate",
            "review": f"review machine {session.review.label if session.review else ''}",
            }[session.mode]
    out = Text.assemble(("poolkit ", "bold"), (mode, "bold"), f" · {session.assessor}")
    item = session.current
    if item is not None:
        n = session.query_ids.index(item.qid) + 1
        out.append(f" · query {item.qid} ({n} of {len(session.query_ids)})")
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
        if session.closed:
            n = len(session.closed)
            return Text(f"Nothing left to show: {n} {'query' if n == 1 else 'queries'} "
                        f"closed (budget spent or stopping rule), every other passage done.",
                        style="bold")
        return Text("Nothing left to show in this mode: every passage is done.", style="bold")
    if session.ranked_order:  # the place would be a fused rank: count what is judged
        done, total = session.span(item.qid)
        where = f"{done} of {total} judged"
    else:
        items = session.items[item.qid]
        where = f"Passage {items.index(item) + 1} of {len(items)}"
    out = Text.assemble((where, "bold"), f" · doc {item.docid}")
    grade = session.grade_of(item)
    label = "adjudicated" if session.kind == "adjudicate" else "your grade"
    if grade is not None:
        out.append(f" · {label}: {grade} ({grades.get(grade, '?')})", style="bold green")
    elif session.is_skipped(item):
        out.append(" · skipped earlier", style="yellow")
    n_notes = len(session.notes.get(item.pair, ()))
    if n_notes and session.mode != "adjudicate":
        out.append(f" · {n_notes} note{'s' if n_notes > 1 else ''}")
    if session.pending_note and grade is not None:  # (ungraded: the note line says it all)
        out.append(" · note kept for this grade", style="cyan")
    if sources:
        out.append(" · pooled by " + ", ".join(
            f"{s.system} #{s.rank}" + (f" ({s.score:.3g})" if s.score is not None else "")
            for s in sources), style="magenta")
    return out


def undone_text(docid: str, grade: int | None) -> str:
    """What an undo says it took back: ``undone: doc 925, grade 2``."""
    return f"undone: doc {docid}" + ("" if grade is None else f", grade {grade}")


def topic_card_title(qid: str, position: str, done: int, total: int) -> str:
    """The topic card's title: a query this assessor judged part of is resumed, not new."""
    if 0 < done < total:
        return f"Resumed query {qid} ({position}) · {done} of {total} judged · any key goes on"
    return f"New query {qid} ({position}) · any key to start"


def deferred_query_text(qid: str, left: int, skipped: bool, next_key: str) -> str:
    """Why the walk left a query with passages still to judge (``skipped``: each was skipped
    twice; otherwise the assessor moved on with ``next_key``)."""
    why = " were each skipped twice; they" if skipped else ""
    return (f"query {qid} deferred: its {left} passage{'s' if left != 1 else ''} left{why} "
            f"come back at the end of the session ({next_key} moves to the next query)")


CLOSURE_LINES = 3  # a session opened on a store where many queries closed says so briefly


def closure_text(closures: Sequence[tuple[str, str]]) -> str:
    """Why the walk left a query: ``query q1 closed: budget 12/12 spent`` (one line per query
    when several closed at once, at most ``CLOSURE_LINES``: the rest counted, ``poolkit
    status`` lists them). Only the reason: the budget count or the estimated recall, never a
    run, rank or learner state (blind judging stays blind)."""
    lines = [f"query {qid} closed: {why}" for qid, why in closures]
    if len(lines) > CLOSURE_LINES:
        rest = len(lines) - CLOSURE_LINES + 1
        lines[CLOSURE_LINES - 1:] = [f"… and {rest} more queries closed (poolkit status "
                                     f"says why)"]
    return "\n".join(lines)


def all_done_text(keys: Mapping[str, str]) -> Text:
    """What the passage box says once this mode has nothing left to show."""
    k = {a: key_label(keys[a]) for a in ("jump", "back", "undo", "quit")}
    return Text.assemble(
        "Press ", (k["jump"], "bold"), " to pick a query and look at its passages again, ",
        (k["back"], "bold"), " to see the last passage, ", (k["undo"], "bold"),
        " to undo your last grade, or ", (k["quit"], "bold"), " to quit.")


def passage_text(query: str, title: str, body: str, description: str | None = None,
                 added: Sequence[str] = (), hits: Sequence[tuple[int, int]] = (),
                 current_hit: int | None = None, stemmed: bool = False) -> Text:
    """Title and body with the query's words highlighted, the description's other words in a
    second style, the assessor's added terms in a third, and search hits over all of them
    (``hits`` are spans of the plain text, ``title\n\nbody``). ``stemmed``: inflections
    light too (``judge: highlight: stem``)."""
    out = Text()
    if title:
        out.append(title, style="bold underline")
        out.append("\n\n")
    out.append(body)
    terms = query_terms(query)
    layers = [(query_terms(description or "", leave_out=terms), DESCRIPTION_HIGHLIGHT),
              (terms, HIGHLIGHT), (list(added), TERM_HIGHLIGHT)]
    plain = out.plain
    for words, style in layers:  # later layers are drawn over earlier ones
        for start, end in term_spans(plain, words, stemmed):  # title and body alike
            out.stylize(style, start, end)
    for i, (start, end) in enumerate(hits):
        out.stylize(CURRENT_HIT if i == current_hit else SEARCH_HIT, start, end)
    return out


def passage_plain(title: str, body: str) -> str:
    """The plain text ``passage_text`` shows (what search offsets index into)."""
    return f"{title}\n\n{body}" if title else body


def search_hits(text: str, needle: str) -> list[tuple[int, int]]:
    """Case-insensitive occurrences of ``needle`` in ``text``, as (start, end) spans."""
    needle = needle.strip().lower()
    if not needle:
        return []
    low, out, at = text.lower(), [], 0
    while (found := low.find(needle, at)) >= 0:
        out.append((found, found + len(needle)))
        at = found + len(needle)
    return out


def topic_text(query: QueryRecord, fold: bool, expand_key: str,
               width: int | None = None) -> Text:
    """The query in bold; description and narrative whole, or (``fold``) cut to one line
    each (of ``width`` cells, with an ellipsis) and the key that unfolds them."""
    out = Text(query.text, style="bold")
    for label, extra in (("", query.description), ("narrative: ", query.narrative)):
        if not extra:
            continue
        out.append("\n")
        if fold:
            line = label + extra.strip().splitlines()[0]
            if width is not None and len(line) > width:
                line = line[: max(width - 1, 1)].rstrip() + "…"
            out.append(line, style="italic")
        else:
            out.append(f"{label}{extra}", style="italic")
    if fold and (query.description or query.narrative):
        out.append(f"\n({expand_key}: whole topic)", style="dim")
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


#: guidelines' lines the rubric shows besides the grades' (the rest: under help)
RUBRIC_GUIDELINE_LINES = 3
#: a guidelines line that gives a grade's meaning: the digit, then its label (``3 perfectly
#: relevant - answers it completely``, ``- 1 = related: ...``); a numbered list's ``1. Read
#: the query`` is not one (its words are not the label)
_GRADE_LINE = re.compile(r"\s*(?:[-*•]\s*)?(\d)(?!\d)\s*[=:.)]?\s*(.*)")


def grade_meanings(grades: Mapping[int, str], guidelines: str) -> tuple[dict[int, str], str]:
    """Each grade's meaning as the guidelines spell it out on a line of its own (see
    ``_GRADE_LINE``; the words after its label), and the guidelines' other lines."""
    meanings: dict[int, str] = {}
    rest = []
    for line in guidelines.strip().splitlines():
        match = _GRADE_LINE.fullmatch(line)
        grade = int(match.group(1)) if match else -1
        label = grades.get(grade, "")
        if match and label and grade not in meanings \
                and match.group(2).lower().startswith(label.lower()):
            meanings[grade] = match.group(2)[len(label):].strip(" -–—:;,.")
        else:
            rest.append(line)
    return meanings, "\n".join(rest).strip()


def rubric_text(keys: Mapping[str, str], grades: Mapping[int, str], guidelines: str,
                current: int | None = None, width: int | None = None) -> Text:
    """The rubric panel: the guidelines' opening (at most ``RUBRIC_GUIDELINE_LINES`` lines
    at ``width``), then each grade by its key with its label and what the guidelines say it
    means (``grade_meanings``), lowest first, the passage's standing grade (``current``)
    marked as on the grade bar, which the panel replaces while open."""
    meanings, rest = grade_meanings(grades, guidelines)
    out = Text.assemble(("Rubric", "bold"), (f" · {key_label(keys['rubric'])} hides it · "
                                             f"{key_label(keys['guidelines'])} shows the "
                                             f"guidelines whole", "dim"))
    if rest:
        help_key = key_label(keys["guidelines"])
        out.append("\n")
        out.append_text(clip(Text(rest), width, RUBRIC_GUIDELINE_LINES,
                             f"… the rest under {help_key}"))
    for g, label in sorted(grades.items()):
        style = "bold green" if g == current else ""
        out.append("\n")
        out.append(f" {key_label(keys[f'grade_{g}'])} ", f"bold reverse {style}")
        out.append(f" {label}", f"bold {style}")
        if meanings.get(g):
            out.append(f": {meanings[g]}", style)
    return out


def progress_text(progress: JudgingProgress, terse: int = 0) -> Text:
    """The progress line; ``terse`` drops detail for a row shared with a long message, the
    least missed first: 1 the percentage, 2 the pace per judgment, 3 the words (the counts
    and the time left stay)."""
    out = Text()
    if progress.query_total:
        out.append(f"{'this query' if terse < 3 else 'query'} "
                   f"{progress.query_done}/{progress.query_total}")
        out.append(" · ")
    out.append(f"{'overall' if terse < 3 else 'all'} {progress.done}/{progress.total}")
    if progress.total and terse < 1:
        out.append(f" ({100 * progress.done / progress.total:.0f}%)")
    if progress.seconds_per_judgment is not None:
        if terse < 2:
            out.append(f" · {duration(progress.seconds_per_judgment)}/judgment")
        if progress.seconds_left is not None and progress.done < progress.total:
            left = duration(progress.seconds_left)
            out.append(f" · {'' if left.startswith('<') else '~'}{left} left")
    if progress.stop:
        out.append(f" · {progress.stop}")
    return out


def progress_fit(progress: JudgingProgress, width: int) -> Text:
    """The most detailed progress line no wider than ``width`` (the tersest if none is)."""
    for terse in range(3):
        text = progress_text(progress, terse)
        if len(text) <= width:
            return text
    return progress_text(progress, 3)


def duration(seconds: float) -> str:
    if seconds < 0.5:
        return "<1s"
    if round(seconds) < 60:
        return f"{round(seconds)}s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h{minutes % 60:02d}m"


#: Actions the key bar keeps when not all fit on one line (help lists every key): grading and
#: moving, and what undoes, sets aside or quits; then these, in this order, while they fit.
KEY_BAR_FIRST = ("undo", "skip", "note", "cant_judge", "later", "guidelines", "quit")
KEY_BAR_THEN = ("search", "review", "jump", "back", "terms", "topic", "rubric")


def key_bar(keys: Mapping[str, str], width: int | None = None) -> Text:
    """Every action, grades first, each by its first key, on one line. When they do not all
    fit, the bar keeps those of ``KEY_BAR_FIRST`` and as many of ``KEY_BAR_THEN`` as fit,
    and help is labelled as where the keys are; on a terminal too narrow even for those it
    wraps between actions rather than hiding more. The default grade keys read as one range
    (``0-3``, ``0-1``: the scale's) and previous/next as one ``move``."""
    grades = grade_actions(keys)
    labels = [key_label(keys[f"grade_{g}"]) for g in grades]
    plain = labels == [str(g) for g in grades]
    grade_keys = f"0-{grades[-1]}" if plain else " ".join(labels)
    move = f"{first_key(keys['previous'])} {first_key(keys['next'])}"
    parts = [("grade", grade_keys, "grade"), ("move", move, "move")] + [
        (a.name, first_key(keys[a.name]), a.label) for a in KEY_ACTIONS if a.label]
    everything = [name for name, _, _ in parts]

    def bar(names: Sequence[str], sep: str = "  ") -> Text:
        some = len(names) < len(parts)
        return pack([Text.assemble((key, "bold"), " keys" if some and name == "guidelines"
                                   else f" {label}")
                     for name, key, label in parts if name in names], None, sep)

    if width is None or len(bar(everything)) <= width:
        return bar(everything)
    for sep in ("  ", " "):
        kept = ["grade", "move", *KEY_BAR_FIRST]
        if len(bar(kept, sep)) <= width:
            for name in KEY_BAR_THEN:
                if len(bar([*kept, name], sep)) <= width:
                    kept.append(name)
            return bar(kept, sep)
    return pack([Text.assemble((key, "bold"), f" {label}") for _, key, label in parts], width)


def key_list(keys: Mapping[str, str]) -> str:
    """Every action but the grades (the scale lists those) with all its keys, a line each:
    what help shows, as the key bar may not have room for every one."""
    return "\n".join(f"  {', '.join(key_label(k) for k in key_names(keys[a.name])):<10} "
                     f"{a.label or a.name.replace('_', ' ')}"
                     for a in KEY_ACTIONS if a.name in keys and not a.name.startswith("grade_"))


def first_key(keys: str) -> str:
    return key_label(key_names(keys)[0])


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
    label = {name: (name if show_names else f"assessor {i}")
             for i, (name, _g) in enumerate(ranked, start=1)}
    for name, note in notes:
        out.append("\n")
        if name in votes:
            who = f"{label[name]} (grade {votes[name]})"
        else:
            who = f"{name} (no grade here)" if show_names else "someone without a grade here"
        out.append(f"note by {who}: ", style="italic")
        out.append(note)
    return out


def review_text(review: MachineReview, pair: tuple[str, str]) -> Text:
    """What the review screen says of a pair: ``judge llm said 3, you said 0``, with the
    judge version and its confidence where a distribution was recorded. Only the review
    walk shows a machine's grade, after the assessor's own (``judge.review``)."""
    d = review.of(pair)
    if d is None:
        return Text()
    out = Text(f"judge {review.judge} said {d.machine}, you said {d.mine}", style="bold")
    out.append(f" · version {review.version}")
    if d.confidence is not None:
        out.append(f" · its confidence {d.confidence:.2f}")
    out.append(" · your grade now records an adjudication; nothing is overwritten",
               style="dim")
    return out
