"""Model fixtures; the dense model is loaded once per test session (per worker). The sample
collection's fixtures (sample_corpus, sample_queries) are in tests/conftest.py."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def minilm():
    """The packaged MiniLM bi-encoder, loaded once (poolkit memoises models per process)."""
    from poolkit.retrieve.dense import Encoder

    encoder = Encoder()
    encoder.model  # noqa: B018 - load now, once
    return encoder


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory, sample_corpus):
    """A 1-layer BERT cross-encoder with a vocabulary from the sample, saved locally."""
    import re

    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    root = tmp_path_factory.mktemp("tiny-cross-encoder")
    words = sorted({w for p in sample_corpus.passages() for w in re.findall(r"\w+", p.lower())})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    (root / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(root / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32,
                        max_position_embeddings=512, num_labels=1,
                        initializer_range=0.5)  # wide weights: scores that differ
    model = BertForSequenceClassification(config)
    model.save_pretrained(root)
    tokenizer.save_pretrained(root)
    return root
