from __future__ import annotations

from poolkit.judge.highlight import highlight_spans, query_terms
from poolkit.judge.widgets import passage_text


def marked(query: str, text: str) -> list[str]:
    return [text[a:b] for a, b in highlight_spans(query, text)]


def test_content_words_only_loosely_stemmed():
    assert query_terms("How can I control fall armyworm in my maize field?") == [
        "control", "fall", "armyworm", "maize", "field"]
    assert query_terms("How do I keep my cows' milk clean?") == ["cow", "milk", "clean"]
    assert query_terms("the of and") == []


def test_matches_word_starts_case_insensitively():
    text = "Controlling Fall armyworm: scout maize fields; a cow and two cows. Fallow land."
    assert marked("control fall armyworm in maize fields, cows", text) == [
        "Controlling", "Fall", "armyworm", "maize", "fields", "cow", "cows", "Fallow"]
    assert marked("the and", text) == []


def test_passage_text_styles_the_matches():
    text = passage_text("maize storage", "Storing maize", "Dry the maize before storage.")
    assert text.plain == "Storing maize\n\nDry the maize before storage."
    styled = [text.plain[s.start:s.end] for s in text.spans if "yellow" in str(s.style)]
    assert styled == ["maize", "maize", "storage"]
