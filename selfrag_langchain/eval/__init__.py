"""Evaluation on the paper's tasks: loaders for Self-RAG's and ALCE's formats, the paper's metrics, the
baselines, a resumable runner, and sweeps of the threshold and the IsSup weight (``selfrag eval``)."""

from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.judges import IsSupJudge
from selfrag_langchain.eval.loaders import LoadedFile, load_examples
from selfrag_langchain.eval.methods import BaselineMethod, LongFormMethod, Outcome, SelfRAGMethod
from selfrag_langchain.eval.metrics import (
    CitationScores,
    EntailmentJudge,
    accuracy,
    citation_scores,
    closed_set_label,
    match,
    normalize_answer,
    pubhealth_label,
    rouge_l,
    str_em,
)
from selfrag_langchain.eval.runner import evaluate
from selfrag_langchain.eval.tasks import TASKS, Score, Task, get_task

__all__ = [
    "TASKS",
    "BaselineMethod",
    "CitationScores",
    "EntailmentJudge",
    "EvalExample",
    "IsSupJudge",
    "LoadedFile",
    "LongFormMethod",
    "Outcome",
    "Score",
    "SelfRAGMethod",
    "Task",
    "accuracy",
    "citation_scores",
    "closed_set_label",
    "evaluate",
    "get_task",
    "load_examples",
    "match",
    "normalize_answer",
    "pubhealth_label",
    "rouge_l",
    "str_em",
]
