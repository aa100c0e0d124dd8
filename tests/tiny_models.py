"""Tiny randomly-initialised models the judge-kind tests build and save themselves (nothing
downloaded): a causal LM (Llama architecture) and a CrossEncoder (BERT), each with a
character-level tokenizer, small enough to run in a fraction of a second."""

from __future__ import annotations

import string
from pathlib import Path

#: what the tokenizers know, one token each (anything else is [UNK])
CHARS = string.ascii_letters + string.digits + string.punctuation


def tiny_causal_lm(folder: Path, seed: int = 0) -> Path:
    """A 2-layer Llama with hidden size 32 and a character-level tokenizer, saved in
    ``folder``; a different ``seed`` is a different model."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {"[PAD]": 0, "[UNK]": 1, "</s>": 2, **{c: i + 3 for i, c in enumerate(CHARS)}}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]",
                                        pad_token="[PAD]", eos_token="</s>")
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                         max_position_embeddings=4096, pad_token_id=0, eos_token_id=2,
                         bos_token_id=2)
    model = LlamaForCausalLM(config)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_cross_encoder(folder: Path, seed: int = 0) -> Path:
    """A 1-layer BERT sequence classifier with one output (hidden size 32), saved in
    ``folder`` as a sentence-transformers CrossEncoder."""
    import torch
    from sentence_transformers import CrossEncoder
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *CHARS,
             *(f"##{c}" for c in CHARS)]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), model_max_length=256)
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=37, num_labels=1,
                        max_position_embeddings=256)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    CrossEncoder(str(folder), device="cpu", local_files_only=True).save(str(folder))
    return folder
