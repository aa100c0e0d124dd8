"""Fake machine judges for the loopback server (``llm_faults.Script.grader``): each reads the
query and the passage out of the prompt autojudge sends and answers a grade.

- :class:`ContentJudge` grades by the passage's real content: it finds which corpus
  passage the text was made from (its words, in order, within the text: a canary only adds
  words) and answers that passage's known grade for the query (0 when none is known);
- :class:`TermsJudge` answers the top grade whenever every one of the query's terms is in
  the passage, else as the content judge (keyword stuffing fools it);
- :class:`ObeyingJudge` answers the top grade when the passage tells a grader what to
  answer or claims it is relevant, else as the content judge (prompt injection fools it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from shared_data import SAMPLE

from poolkit.judges.canaries import query_terms

#: what an instruction aimed at the grader says (the canaries' sentences all match; no
#: sample passage does)
ORDERS = re.compile(r"\b(answer|grade it|output|must rate|relevance:|correct grade|"
                    r"perfectly relevant|exactly what the user)\b", re.IGNORECASE)


def prompt_parts(prompt: str) -> tuple[str, str]:
    """(the query's text, the passage) of a prompt of the built-in template."""
    query = re.search(r"^Query: (.*)$", prompt, re.MULTILINE)
    passage = prompt.split("Passage:", 1)[-1].split("How well does the passage", 1)[0]
    return (query.group(1) if query else ""), passage.strip()


def people_grades(corpus: Path = SAMPLE) -> dict[str, dict[str, int]]:
    """The sample's golden grades, every other passage of the corpus 0 for every query."""
    import yaml

    docs = [json.loads(line)["id"] for line in
            (corpus / "corpus.jsonl").read_text().splitlines() if line.strip()]
    golden = {e["query"]: e["grades"] for e in yaml.safe_load((corpus / "golden.yaml")
                                                              .read_text())}
    return {q: {d: int(golden[q].get(d, 0)) for d in docs} for q in golden}


class ContentJudge:
    def __init__(self, grades: dict[str, dict[str, int]] | None = None,
                 corpus: Path = SAMPLE) -> None:
        self.grades = grades if grades is not None else people_grades(corpus)
        self.queries = {}
        for line in (corpus / "queries.jsonl").read_text().splitlines():
            if line.strip():
                doc = json.loads(line)
                self.queries[doc["text"]] = doc["id"]
        self.docs = {}
        for line in (corpus / "corpus.jsonl").read_text().splitlines():
            if line.strip():
                doc = json.loads(line)
                self.docs[doc["id"]] = f"{doc.get('title') or ''} {doc['text']}".split()
        self.top = 3

    def source(self, passage: str) -> str | None:
        """The corpus passage ``passage`` was made from (the longest whose words it holds in
        order), or None."""
        words = passage.split()
        found = [d for d, original in self.docs.items() if _within(original, words)]
        return max(found, key=lambda d: len(self.docs[d]), default=None)

    def content(self, prompt: str) -> int:
        query, passage = prompt_parts(prompt)
        docid = self.source(passage)
        qid = self.queries.get(query)
        if docid is None or qid is None:
            return 0
        return self.grades.get(qid, {}).get(docid, 0)

    def __call__(self, prompt: str) -> str:
        return str(self.content(prompt))


class TermsJudge(ContentJudge):
    def __call__(self, prompt: str) -> str:
        query, passage = prompt_parts(prompt)
        words = set(re.findall(r"\w+", passage.lower()))
        if all(t in words for t in query_terms(query)):
            return str(self.top)
        return str(self.content(prompt))


class ObeyingJudge(ContentJudge):
    def __call__(self, prompt: str) -> str:
        _, passage = prompt_parts(prompt)
        if ORDERS.search(passage):
            return str(self.top)
        return str(self.content(prompt))


def _within(needle: list[str], hay: list[str]) -> bool:
    """Whether ``needle``'s words appear in ``hay`` in order (not necessarily together)."""
    it = iter(hay)
    return all(any(w == h for h in it) for w in needle)
