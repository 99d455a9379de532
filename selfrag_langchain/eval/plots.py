"""PNG plots of sweeps, drawn with matplotlib's object API (no global pyplot state, no display needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.eval.sweep import SweepPoint

KNOB_LABELS = {"threshold": "retrieval threshold δ", "w_sup": "IsSup weight w_sup"}


def _figure() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        msg = "plots need matplotlib: pip install 'selfrag-langchain[eval]'"
        raise ConfigurationError(msg) from e
    return Figure(figsize=(5.5, 3.8), dpi=120)


def plot_sweep(points: Sequence[SweepPoint], path: Path, *, title: str, metric: str = "accuracy",
               baselines: dict[str, float] | None = None) -> Path:
    """Accuracy (and, for the threshold, retrieval frequency) against the swept knob, in percent.

    ``baselines`` draws each named baseline's accuracy as a dotted horizontal line.
    """
    if not points:
        msg = "nothing to plot: the sweep has no points"
        raise ConfigurationError(msg)
    knob = points[0].knob
    fig = _figure()
    ax = fig.add_subplot()
    xs = [p.value for p in points]
    ax.plot(xs, [100 * p.accuracy if p.accuracy is not None else float("nan") for p in points], "o-",
            color="tab:blue", label=metric)
    if knob == "threshold":
        ax.plot(xs, [100 * p.retrieval_frequency for p in points], "s--", color="tab:orange",
                label="retrieval frequency")
    for i, (name, value) in enumerate(sorted((baselines or {}).items())):
        ax.axhline(100 * value, linestyle=":", linewidth=1, color=f"C{i + 2}", label=f"{name} ({metric})")
    ax.set_xlabel(KNOB_LABELS.get(knob, knob))
    ax.set_ylabel("%")
    ax.set_ylim(-2, 102)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path
