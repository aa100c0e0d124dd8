"""A reference library's answers, kept between sessions (the oracles' cost, paid once).

Differential tests compare poolkit with scipy and statsmodels on hundreds of seeded inputs;
most of their time is the reference's (scipy's Wilcoxon enumerates 2^n signs one call at a
time). The reference's answers depend only on the inputs and the library's version, so they
are kept in LASTING_CACHE under the hash of both: the next session, on this machine or a new
clone of it, reads them, and poolkit is still computed and compared on every input. A new
input, a new library version or a damaged entry computes them again; nothing is trusted that
the key does not name.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence

import numpy as np
from shared_data import lasting_cache

CACHE = "oracles"  # a folder of LASTING_CACHE


def _key(name: str, version: str, inputs: Sequence[Sequence[np.ndarray]]) -> str:
    digest = hashlib.sha256(f"{name}\0{version}\0{len(inputs)}".encode())
    for arrays in inputs:
        for a in arrays:
            a = np.ascontiguousarray(a)
            digest.update(f"{a.dtype.str}{a.shape}".encode())
            digest.update(a.tobytes())
    return digest.hexdigest()


def _read(path: os.PathLike[str], count: int) -> list[float] | None:
    try:
        values = json.loads(open(path).read())
    except (OSError, ValueError):
        return None
    if not (isinstance(values, list) and len(values) == count
            and all(isinstance(v, (int, float)) for v in values)):
        return None
    return [float(v) for v in values]


def answers(name: str, version: str, inputs: Sequence[Sequence[np.ndarray]],
            compute: Callable[..., float]) -> list[float]:
    """``compute(*arrays)`` for each tuple of ``inputs``, in order: read from the cache when
    an earlier session computed them for the same inputs and ``version``, else computed and
    kept. ``name`` tells the reference function apart (``scipy.stats.wilcoxon``)."""
    key = _key(name, version, inputs)
    with lasting_cache(CACHE) as folder:
        path = folder / f"{name}-{key[:32]}.json"
        values = _read(path, len(inputs))
        if values is None:
            values = [float(compute(*arrays)) for arrays in inputs]
            part = folder / f"{path.name}.{os.getpid()}"
            part.write_text(json.dumps(values))  # NaN as JSON's NaN, which json reads back
            os.replace(part, path)
    return values
