"""A trained critic's label bias: one log-weight per label, fitted on labelled rows the critic never trained on
(``selfrag train critic-bias``) and saved beside its weights.

A critic trained on several sources learns where each source puts the line between its labels (BEGIN's
"fully supported" replies share most of their words with the passage, GPT-4's far fewer). A log-weight per
label moves those lines to where the user's own kind of labels put them, without retraining: each label's
likelihood is multiplied by ``exp(weight)`` and the group renormalised, so the critic's ranking within a
label is its own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.scoring import normalize
from selfrag_langchain.tokens import Group

LABEL_BIAS_FILE = "selfrag_label_bias.json"
"""The file in a critic's directory that holds its label bias."""


@dataclass(frozen=True)
class LabelBias:
    """Log-weights per group and label; a group or label not named keeps weight 0 (no change)."""

    weights: Mapping[Group, Mapping[str, float]] = field(default_factory=dict)
    prompts: str = "paper"
    """The critic prompt set the weights were fitted under: under other prompts the critic reads otherwise."""
    fitted_on: Mapping[str, Any] = field(default_factory=dict)
    """What the weights were fitted on (files, rows per group, cross-validated agreement), for the record."""

    def apply(self, group: Group, dist: Mapping[str, float]) -> dict[str, float]:
        """``dist`` with each label's probability multiplied by ``exp(weight)``, renormalised over the group."""
        weights = self.weights.get(group)
        if not weights:
            return dict(dist)
        return normalize(group, {tok: p * math.exp(weights.get(tok, 0.0)) for tok, p in dist.items()})

    def to_dict(self) -> dict[str, Any]:
        return {"weights": {g.value: dict(w) for g, w in self.weights.items()}, "prompts": self.prompts,
                "fitted_on": dict(self.fitted_on)}

    @classmethod
    def from_dict(cls, data: Any, source: str = "label bias") -> LabelBias:
        """Read :meth:`to_dict`'s layout; anything else is a one-line :class:`ConfigurationError`."""
        raw = data.get("weights") if isinstance(data, Mapping) else None
        if not isinstance(raw, Mapping):
            msg = f"{source}: no 'weights' object"
            raise ConfigurationError(msg)
        prompts, fitted_on = data.get("prompts", "paper"), data.get("fitted_on") or {}
        if not isinstance(prompts, str) or not isinstance(fitted_on, Mapping):
            msg = f"{source}: 'prompts' must be a prompt set's name and 'fitted_on' an object"
            raise ConfigurationError(msg)
        weights: dict[Group, dict[str, float]] = {}
        for name, labels in raw.items():
            try:
                group = Group(name)
            except ValueError:
                msg = f"{source}: unknown group {name!r} (expected one of {', '.join(g.value for g in Group)})"
                raise ConfigurationError(msg) from None
            if not isinstance(labels, Mapping) or not all(
                    tok in group.tokens and isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w)
                    for tok, w in labels.items()):
                msg = f"{source}: {name} must map its own labels to finite numbers"
                raise ConfigurationError(msg)
            weights[group] = {tok: float(w) for tok, w in labels.items()}
        return cls(weights, prompts, dict(fitted_on))


def load_label_bias(model: str | Path, prompts: str = "paper") -> LabelBias | None:
    """The label bias saved in a critic's directory for ``prompts``; None when ``model`` is not a directory, has
    none, or has one fitted under other prompts."""
    path = Path(model) / LABEL_BIAS_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        msg = f"{path}: not a readable label bias ({err})"
        raise ConfigurationError(msg) from None
    bias = LabelBias.from_dict(data, str(path))
    return bias if bias.prompts == prompts else None
