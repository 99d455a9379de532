"""Judges of reflection, all behind one interface (:class:`~selfrag_langchain.judging.base.Reflector`): the
paper's inline judge (a Self-RAG model reads its own tokens), a critic model, calibrated signals (the embedded
default's judge), those signals with a sentence reader's (entailment claim by claim, which sentence answers the
question), a cross-encoder trained on critic labels and synthetic contrasts, and a critic on any chat model that
returns top log-probabilities."""

from selfrag_langchain.judging.base import Branch, CriticQuery, Critique, Reflector
from selfrag_langchain.judging.calibrated import CalibratedReflector, GroupCalibration, JudgeCalibration
from selfrag_langchain.judging.chat_critic import ChatCriticReflector
from selfrag_langchain.judging.critic import CriticReflector
from selfrag_langchain.judging.entailment import EntailmentReflector
from selfrag_langchain.judging.inline import InlineReflector
from selfrag_langchain.judging.label_bias import LabelBias, load_label_bias
from selfrag_langchain.judging.learned import LearnedReflector

__all__ = ["Branch", "CalibratedReflector", "ChatCriticReflector", "CriticQuery", "CriticReflector", "Critique",
           "EntailmentReflector", "GroupCalibration", "InlineReflector", "JudgeCalibration", "LabelBias",
           "LearnedReflector", "Reflector", "load_label_bias"]
