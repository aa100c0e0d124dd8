from __future__ import annotations

from poolkit.judge.highlight import highlight_spans, query_terms
from poolkit.judge.texts import DESCRIPTION_HIGHLIGHT, HIGHLIGHT, TERM_HIGHLIGHT, passage_text


def marked(query: str, text: str) -> list[str]:
    return [text[a:b] for a, b in highlight_spans(query, text)]


def test_content_words_only():
    assert query_terms("How can I control fall armyworm in my maize field?") == [
        "control", "fall", "armyworm", "maize", "field"]
    assert query_terms("How do I keep my cows' milk clean?") == ["cows", "milk", "clean"]
    assert query_terms("the of and") == []
    assert query_terms("maize pests and maize", leave_out=["maize"]) == ["pests"]


def test_whole_words_only_never_prefixes():
    text = "Fall armyworm: rain falls on fallow land; in the fall, scout. Rainfall helps."
    assert marked("fall armyworm", text) == ["Fall", "armyworm", "fall"]
    assert marked("the and", text) == []


def test_passage_text_styles_query_description_and_added_terms():
    text = passage_text("maize storage", "Storing maize",
                        "Dry the maize before storage in hermetic bags; weevils starve.",
                        description="How to keep weevils out of stored maize",
                        added=["hermetic bags"])
    assert text.plain.startswith("Storing maize\n\nDry the maize")

    def styled(style: str) -> list[str]:
        return [text.plain[s.start:s.end] for s in text.spans if str(s.style) == style]

    assert styled(HIGHLIGHT) == ["maize", "maize", "storage"]
    assert styled(DESCRIPTION_HIGHLIGHT) == ["weevils"]
    assert styled(TERM_HIGHLIGHT) == ["hermetic bags"]
