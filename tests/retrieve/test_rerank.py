from __future__ import annotations

import numpy as np
import pytest

from poolkit.retrieve.bm25 import BM25Retriever
from poolkit.retrieve.rerank import BiEncoderReranker, CrossEncoderReranker, RerankRetriever

pytestmark = pytest.mark.slow  # loads models


@pytest.fixture(scope="module")
def bm25(sample_corpus):
    return BM25Retriever.from_options(sample_corpus)


def test_bi_encoder_rerank_keeps_the_fetch_list(sample_corpus, sample_queries, bm25, minilm,
                                                tmp_path):
    rr = RerankRetriever("rr", bm25, BiEncoderReranker(sample_corpus, minilm, tmp_path),
                         fetch=8)
    kept = rr.search(sample_queries, 5)
    fetched = bm25.search(sample_queries, 8)
    assert rr.fetch_results == fetched  # stage 1 is kept as it was
    emb = minilm.model.encode(sample_corpus.passages(), normalize_embeddings=True)
    for q in sample_queries:
        assert len(kept[q.qid]) == 5
        candidates = [h.docid for h in fetched[q.qid]]
        assert {h.docid for h in kept[q.qid]} <= set(candidates)
        qv = minilm.model.encode([q.text], normalize_embeddings=True)[0]
        cos = {d: float(emb[sample_corpus.index[d]] @ qv) for d in candidates}
        best = sorted(candidates, key=lambda d: -cos[d])[:5]
        assert [h.docid for h in kept[q.qid]] == best
    assert rr.settings()["scorer"] == "bi-encoder" and rr.settings()["over"] == bm25.name


def test_cross_encoder_path_with_a_tiny_local_model(sample_corpus, sample_queries, bm25,
                                                    tiny_cross_encoder):
    from sentence_transformers import CrossEncoder

    reranker = CrossEncoderReranker(sample_corpus, str(tiny_cross_encoder))
    rr = RerankRetriever("ce", bm25, reranker, fetch=10)
    kept = rr.search(sample_queries, 4)
    # Independently: the same model scores every (query, passage) pair of the fetch list.
    model = CrossEncoder(str(tiny_cross_encoder), device="cpu")
    for q in sample_queries:
        cands = [h.docid for h in rr.fetch_results[q.qid]]
        pairs = [(q.text, sample_corpus.passage(sample_corpus.index[d])) for d in cands]
        scores = np.asarray(model.predict(pairs), dtype=np.float64).reshape(len(pairs), -1)[:, 0]
        by_doc = dict(zip(cands, scores.tolist()))
        got = kept[q.qid]
        assert len(got) == 4 and np.ptp(scores) > 1e-4  # the tiny model discriminates
        for h in got:  # each kept doc carries its cross-encoder score...
            assert h.score == pytest.approx(by_doc[h.docid], abs=1e-5)
        # ...and they are the four best of the fetch list, best first.
        np.testing.assert_allclose([h.score for h in got], sorted(scores)[::-1][:4], atol=1e-5)
    # The single-query form of the same contract.
    one = reranker.rerank(sample_queries[0].text, ["m1", "d1", "x1"], 2)
    assert len(one) == 2 and {h.docid for h in one} <= {"m1", "d1", "x1"}
    assert rr.settings()["scorer"] == "cross-encoder"


def test_a_configured_cross_encoder_is_used(sample_corpus, sample_queries, tiny_cross_encoder,
                                            tmp_path):
    from poolkit.config import load_config
    from poolkit.pool.run_systems import run_systems

    corpus, queries = sample_corpus.path, tmp_path / "q.tsv"
    queries.write_text("".join(f"{q.qid}\t{q.text}\n" for q in sample_queries))
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"corpus: {corpus}\nqueries: q.tsv\nstore: s.sqlite\nsystems:\n"
                   f"  bm25: {{kind: bm25, depth: 10}}\n"
                   f"  ce: {{kind: rerank, over: bm25, fetch: 10, depth: 3, "
                   f"model: {tiny_cross_encoder}}}\n")
    runs = run_systems(load_config(cfg), sample_corpus, sample_queries, ["ce"])
    retriever = runs["ce"].settings["retriever"]
    assert retriever["scorer"] == "cross-encoder"
    assert retriever["model_path"] == str(tiny_cross_encoder)
    assert {len(d) for d in runs["ce"].run.rankings.values()} == {3}
