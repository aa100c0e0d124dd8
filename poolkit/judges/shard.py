"""``autojudge --shard I/N``: N machines split a pool's queries with no coordination.

Query ``qid`` belongs to shard ``1 + int(sha256(UTF-8 of qid)) mod N`` (shards count from 1,
as ``I/N`` reads): a stable hash, the same on every machine, Python version and run (never
Python's ``hash``, salted per process), so the N shards of one N hold every query once.
"""

from __future__ import annotations

import hashlib

#: the most shards a pool may be split into
MAX_SHARDS = 1_000_000


def shard_of(qid: str, count: int) -> int:
    """The shard (1..``count``) query ``qid`` belongs to."""
    digest = hashlib.sha256(qid.encode("utf-8", "surrogatepass")).digest()
    return 1 + int.from_bytes(digest, "big") % count


def parse_shard(text: str) -> tuple[int, int]:
    """``I/N`` as (I, N), 1 <= I <= N; ValueError with the one line to say otherwise."""
    parts = text.strip().split("/")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit()
                                  for p in parts):
        raise ValueError(f"expected I/N (shard I of N, e.g. 1/4), found {text!r}")
    index, count = int(parts[0]), int(parts[1])
    if not 1 <= count <= MAX_SHARDS:
        raise ValueError(f"the number of shards must be 1 to {MAX_SHARDS:,}, found {count}")
    if not 1 <= index <= count:
        raise ValueError(f"shards count from 1: I must be 1 to {count} in I/{count}, "
                         f"found {index}")
    return index, count


__all__ = ["MAX_SHARDS", "parse_shard", "shard_of"]
