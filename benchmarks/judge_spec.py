"""The judges a benchmark compares, named on its command line (``--judge``), built one way for every script.

- ``shipped``: the calibrated judge shipped with the package; ``learned``: the shipped learned judge;
  ``entailment``: the shipped entailment judge; ``NAME=entailment:FILE.json`` an entailment judge with that
  calibration (``selfrag train judge --reader``) and the shipped sentence reader, ``NAME=entailment:FILE.json:DIR``
  with the reader in DIR (``selfrag train reader``);
- ``NAME=FILE.json``: a calibration written by ``selfrag train judge``;
- ``NAME=DIR``: a learned judge written by ``selfrag train judge-encoder``, judging its default groups
  (IsSup, IsUse); ``NAME=DIR@IsRel,IsSup,IsUse`` names the groups it judges (the calibration judges the
  rest); ``NAME=learned@IsRel,IsSup,IsUse`` does the same for the shipped learned judge;
- ``NAME=critic:DIR``: a critic model written by ``selfrag train critic``, asked with the paper's prompts for
  every group (``CriticReflector``).
"""

from __future__ import annotations

from pathlib import Path

from selfrag_langchain.judging import CalibratedReflector, Reflector
from selfrag_langchain.judging.learned import LEARNED_GROUPS, LearnedReflector
from selfrag_langchain.tokens import Group

HELP = ("shipped, learned, entailment, NAME=entailment:calibration.json[:reader-directory], "
        "NAME=calibration.json, NAME=encoder-directory or NAME=learned, either of the last two "
        "optionally @IsSup,IsUse (the groups it judges), or NAME=critic:DIR (a trained critic model); repeatable "
        "(default: shipped)")


def judge_named(spec: str) -> tuple[str, Reflector]:
    """The name and judge of one ``--judge`` value."""
    name, _, target = spec.partition("=")
    target = target or name
    where, _, groups = target.partition("@")
    chosen = tuple(Group(g) for g in groups.split(",")) if groups else LEARNED_GROUPS
    if where.startswith("critic:"):
        from selfrag_langchain.judging import CriticReflector, load_label_bias
        from selfrag_langchain.llms.transformers import TransformersLLM

        model = where.removeprefix("critic:")
        return name, CriticReflector(TransformersLLM(model=model).load(), prompts="paper",
                                     label_bias=load_label_bias(model))
    if where == "shipped":
        return name, CalibratedReflector()
    if where == "entailment" or where.startswith("entailment:"):
        from selfrag_langchain.judging.entailment import EntailmentReflector

        _, _, rest = where.partition(":")
        calibration, _, reader = rest.partition(":")
        return name, EntailmentReflector(calibration or None, reader=reader or None)
    if where == "learned":
        return name, LearnedReflector(groups=chosen)
    if Path(where).is_dir():
        return name, LearnedReflector(where, groups=chosen)
    return name, CalibratedReflector(where)
