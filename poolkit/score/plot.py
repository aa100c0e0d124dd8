"""The per-query difference plot of one pair of runs (``poolkit score --plot``).

One bar per paired query, sorted by a - b, the way these plots are read: how many queries
each run wins, by how much, and whether a mean difference rests on a few queries. matplotlib
is an optional extra (``poolkit[plot]``), imported only here, with the file-only Agg backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from poolkit.errors import PoolkitError
from poolkit.io.atomic import atomic_writer
from poolkit.score.significance import paired


def have_matplotlib() -> bool:
    """Whether the plot extra is installed (the caller says which option needs it)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def plot_differences(path: str | Path, a: str, b: str, measure: str,
                     scores_a: Mapping[str, float], scores_b: Mapping[str, float],
                     p: float | None = None, p_name: str = "p") -> Path:
    """Write the sorted per-query differences ``a - b`` on ``measure`` to ``path`` (PNG);
    matplotlib installed (:func:`have_matplotlib`) and the runs sharing a scored query."""
    try:
        import matplotlib
    except ImportError:
        raise PoolkitError("the plot needs matplotlib: pip install 'poolkit[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    queries, diffs = paired(scores_a, scores_b)
    if not queries:
        raise PoolkitError(f"runs {a!r} and {b!r} share no scored query: nothing to plot")
    order = diffs.argsort(kind="mergesort")
    sorted_diffs = diffs[order]
    colors = ["#2b7bba" if x > 0 else "#d7301f" if x < 0 else "#999999" for x in sorted_diffs]
    fig, ax = plt.subplots(figsize=(max(6.0, min(16.0, len(queries) * 0.12)), 4.0))
    ax.bar(range(len(queries)), sorted_diffs, color=colors, width=0.9)
    ax.axhline(0.0, color="black", linewidth=0.8)
    mean = float(diffs.mean())
    ax.axhline(mean, color="black", linestyle="--", linewidth=0.8,
               label=f"mean {mean:+.3f}")
    wins, losses = int((diffs > 0).sum()), int((diffs < 0).sum())
    p_text = "" if p is None else f", {p_name} = {p:.3g}"
    ax.set_title(f"{measure}: {a} - {b} per query\n{len(queries)} paired queries: {a} higher "
                 f"on {wins}, lower on {losses}{p_text}", fontsize=9)
    ax.set_xlabel("queries, sorted by difference")
    ax.set_ylabel(f"{measure} difference")
    ax.set_xticks([])
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    out = Path(path)
    try:
        with atomic_writer(out, "wb") as fh:  # an OutputError naming the file, old one kept
            fig.savefig(fh, format="png", dpi=120)
    finally:
        plt.close(fig)
    return out
